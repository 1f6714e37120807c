"""A phone opening the table page after the game ended, in a real headless Chromium: the result is
there at a glance (banner, heading, winner by name, the final position's card), within the
phone's width.

Needs Debian's `chromium` and the `playwright` Python package, as tests/webui/test_browser.py.
"""
import pytest

from arbiter.matches import open_game
from arbiter.store import Store
from arbiter.tracker import Tracker
from engines import load_rules
from tests.tracker.fakes import ScriptedRecogniser, position_frame
from tests.webui.conftest import ScriptedTable
from tests.webui.test_browser import PHONE, expect
from webui.companion import Companion, LatestObservation
from webui.server import start_serving

# Hana takes red, Kenji takes the last blue: Kenji wins the set.
SET_PLAYED_OUT = [{"game": "varanasi", "stacks": [["4red"], ["3blue", "1red"]]},
                  {"game": "varanasi", "stacks": [["3blue"]]},
                  {"game": "varanasi", "stacks": []}]


@pytest.fixture
def finished_set_url(tmp_path):
    """A served Varanasi table whose set ended before anybody opened the page."""
    rules = load_rules({"game": "varanasi"})
    store = Store(tmp_path / "set.sqlite3")
    players = [store.add_player("Hana"), store.add_player("Kenji")]
    observations = LatestObservation(ScriptedRecogniser(SET_PLAYED_OUT))
    tracker = Tracker(rules, {"game": "varanasi"}, store, open_game(store, rules, players), recognize=observations)
    companion = Companion(tracker, None, seat_names={0: "Hana", 1: "Kenji"}, observations=observations)
    table = ScriptedTable(tracker, companion, SET_PLAYED_OUT)
    for index in range(len(SET_PLAYED_OUT)):
        table.show(index)
    # The camera's last picture, which a late viewer's live view shows.
    companion.show_frame(position_frame(len(SET_PLAYED_OUT) - 1))
    running = start_serving(companion, "127.0.0.1", 0, None)
    yield running.url
    running.stop()


def test_a_phone_opening_the_page_after_the_set_sees_who_won_within_its_width(finished_set_url, browser, screenshots):
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page.goto(finished_set_url + "/table")
    # The page as served, then as the event stream's first snapshot redraws it.
    for moment in ("served", "live"):
        if moment == "live":
            expect(page.locator("#live")).to_have_text("live", timeout=10_000)
        banner = page.locator("#over")
        expect(banner).to_be_visible()
        expect(banner).to_be_in_viewport()  # at the top: no scrolling to learn the result
        expect(banner).to_have_text("Game over: Kenji (Seat 2) wins, Hana (Seat 1) 0 – Kenji (Seat 2) 1")
        expect(page.locator("#turn")).to_have_text("Game over")
        expect(page.locator("#turn")).to_be_visible()
        # The Position card is not empty: the emptied table, the last take and the result in words.
        expect(page.locator("#board svg text.final")).to_have_text("All discs taken")
        expect(page.locator("#board svg")).to_contain_text("Last take: Kenji")
        expect(page.locator("#final")).to_be_visible()
        expect(page.locator("#final")).to_contain_text("Kenji (Seat 2) wins")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], moment
    page.screenshot(path=str(screenshots / "table-game-over-late-phone.png"), full_page=True)
    page.close()
