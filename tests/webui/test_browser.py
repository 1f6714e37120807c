"""End to end in a real headless Chromium: the demo's simulated camera, through the whole chain,
to a browser that sees moves arrive over SSE, the illegal-move alert, and applies a correction.

Needs Debian's `chromium` (installed by .ci/run) and the `playwright` Python package; Playwright
drives the system browser, never a downloaded one.
"""
import re

import pytest

from arbiter.serving import start_demo

# Browser tests need the test extras' playwright and Debian's chromium (.ci/run installs both).
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

# Still frames per demo position at 10 fps: enough for the motion gate, quick for a test.
TEST_STILL_FRAMES = 10
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def demo_url():
    running = start_demo("127.0.0.1", 0, None, still_frames=TEST_STILL_FRAMES)
    yield running.url
    running.stop()


def test_demo_moves_arrive_live_and_the_illegal_move_is_flagged(demo_url, browser, screenshots):
    # wait_for_function evaluates its text in the page, which the pages' CSP forbids: let it.
    page = browser.new_page(viewport=DESKTOP, bypass_csp=True)
    page.goto(demo_url + "/table")
    expect(page.locator("#live")).to_have_text("live", timeout=10_000)
    # The demo reports to no director: its chip takes no room.
    expect(page.locator("#director")).to_be_hidden()
    # A move judged after the page loaded arrives over the event stream, without a reload.
    moves_at_load = page.locator("#log .entry.move").count()
    page.wait_for_function(f"document.querySelectorAll('#log .entry.move').length > {moves_at_load}",
                           timeout=20_000)
    # Numbered, with the mover's name: "3. Ama: South e".
    expect(page.locator("#log .entry.move .text").first).to_have_text(re.compile(r"^\d+\. (Ama: South|Kofi: North) [a-f]$"))
    alert = page.locator("#alert")
    expect(alert).to_be_visible(timeout=40_000)
    expect(page.locator("#alert-reason")).not_to_be_empty()
    expect(page.locator("#log .entry.illegal").first).to_contain_text("ILLEGAL")
    # Both pictures of the illegal move load (naturalWidth is 0 for a broken image).
    for side in ("#alert-before", "#alert-after"):
        page.wait_for_function(f"document.querySelector('{side}').naturalWidth > 0", timeout=10_000)
    page.screenshot(path=str(screenshots / "table-illegal-desktop.png"), full_page=True)
    page.close()


def test_a_correction_from_the_phone_reaches_the_table(demo_url, browser, screenshots):
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page.goto(demo_url + "/table")
    expect(page.locator("#log .entry").first).to_be_visible(timeout=20_000)
    page.goto(demo_url + "/correct")
    counts = [int(text) for text in page.locator("#board .pit text.count").all_text_contents()]
    # Move one seed from the fullest pit to its neighbour: the set keeps its 48 seeds.
    source = counts.index(max(counts))
    target = (source + 1) % 12
    page.locator(f'#board [data-pit="{source}"]').click()
    page.locator("#minus").click()
    expect(page.locator(f'#board [data-pit="{source}"] text.count')).to_have_text(str(counts[source] - 1))
    expect(page.locator("#message")).to_contain_text("a Wari set has 48")  # not a position until the seed lands
    page.locator(f'#board [data-pit="{target}"]').click()
    expect(page.locator("#selection")).to_have_text(f'{"South" if target < 6 else "North"} {"abcdef"[target % 6]}')
    page.locator("#plus").click()
    expect(page.locator(f'#board [data-pit="{target}"] text.count')).to_have_text(str(counts[target] + 1))
    expect(page.locator("#total")).to_have_text("48")
    expect(page.locator("#message")).to_be_empty()
    page.screenshot(path=str(screenshots / "correct-phone.png"), full_page=True)
    page.locator("#apply").click()
    page.wait_for_url("**/table", timeout=10_000)
    expect(page.locator("#log .entry.override").first).to_contain_text("Position corrected", timeout=10_000)
    expect(page.locator(f'#board [data-pit="{target}"] text.count')).to_have_text(str(counts[target] + 1))
    page.screenshot(path=str(screenshots / "table-phone.png"), full_page=True)
    page.close()


def test_the_stores_are_named_after_their_owners_legibly_on_a_phone(demo_url, browser, screenshots):
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page.goto(demo_url + "/table")
    owners = page.locator("#board svg .owner")
    expect(owners).to_have_text(["Kofi", "Ama"], timeout=20_000)
    # Measured in one step: the live page redraws the board as moves arrive.
    sizes = page.evaluate("""() => {
        const svg = document.querySelector('#board svg');
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return [...svg.querySelectorAll('.owner')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
    }""")
    assert len(sizes) == 2 and min(sizes) >= 12  # px on the phone's screen
    page.locator("#board").screenshot(path=str(screenshots / "wari-board-phone.png"))
    page.close()


def test_every_page_renders_on_a_phone(demo_url, browser, screenshots):
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    for name in ("scores", "tournament", "calibrate"):
        page.goto(f"{demo_url}/{name}")
        expect(page.locator("h1")).to_have_text(name.capitalize())
        # Nothing wider than the phone: no sideways scrolling.
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.screenshot(path=str(screenshots / f"{name}-phone.png"), full_page=True)
    page.close()


def test_a_swiss_run_from_a_phone_keeps_to_its_width(demo_url, browser, screenshots):
    phone = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    phone.goto(demo_url + "/tournament")
    new_rating = 'form[action="/tournament/players"] input[name="rating"]'  # not the rating change's

    def fits(name: str) -> None:
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
        phone.screenshot(path=str(screenshots / f"tournament-{name}-phone.png"), full_page=True)

    for name, rating in (("Adjoa Mensah", "1900"), ("Kojo Asante", "1750"), ("Efua Owusu", ""), ("Kwesi Boateng", "")):
        phone.fill('input[name="name"] >> nth=0', name)
        phone.fill(new_rating, rating)
        phone.click("text=Add player")
    phone.fill('input[placeholder="Tournament name"]', "Phone Swiss")
    phone.click("text=New tournament")
    # Round 1 with the two rated players and one unrated: a bye; the other unrated enters late.
    for box in phone.locator('input[name="entrant"]').all():
        if box.get_attribute("value") not in ("Adjoa Mensah", "Kojo Asante", "Efua Owusu"):
            box.uncheck()
    phone.select_option('select[name="system"]', "swiss")
    phone.click("text=Pair round 1")
    fits("swiss-round-1")
    # A refused form comes back with the reason and what was typed.
    phone.fill('input[name="name"] >> nth=0', "Adjoa Mensah")
    phone.fill(new_rating, "1999")
    phone.click("text=Add player")
    expect(phone.locator(".flash.error")).to_contain_text("already exists")
    expect(phone.locator(new_rating)).to_have_value("1999")
    phone.fill('input[name="home_score"] >> nth=0', "27")
    phone.fill('input[name="away_score"] >> nth=0', "21")
    phone.click("text=Save >> nth=0")
    phone.click("text=Withdraw an entrant")
    phone.select_option('select[name="entrant"]', "Efua Owusu")
    phone.click('button:has-text("Withdraw")')
    expect(phone.locator(".flash")).to_contain_text("Efua Owusu withdrew")
    phone.check('input[name="late"][value="Kwesi Boateng"]')
    phone.click("text=Pair round 2")
    expect(phone.locator(".flash")).to_contain_text("Round 2 paired: 2 tables")
    expect(phone.locator("text=withdrew after round 1")).to_be_visible()
    fits("swiss-round-2")
    phone.close()


def test_a_pairing_seated_from_the_tournament_page_reaches_an_open_table_page(demo_url, browser, screenshots):
    # Last in this module: the demo table judges into the pairing from now on.
    table = browser.new_page(viewport=DESKTOP, bypass_csp=True)
    table.goto(demo_url + "/table")
    table.wait_for_function("document.querySelectorAll('#log .entry.move').length > 0", timeout=20_000)
    director = browser.new_page(viewport=DESKTOP)
    director.goto(demo_url + "/tournament")
    for name in ("Esi", "Yaw"):
        director.fill('input[name="name"] >> nth=0', name)
        director.click("text=Add player")
    director.fill('input[placeholder="Tournament name"]', "Club night")
    director.click("text=New tournament")
    director.select_option('select[name="game"]', "wari")
    director.click("text=Pair round 1")
    # A paired round, with its result buttons, still fits a phone's width.
    phone = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    phone.goto(demo_url + "/tournament")
    expect(phone.locator("table.rounds")).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.screenshot(path=str(screenshots / "tournament-paired-phone.png"), full_page=True)
    phone.close()
    director.click("text=Play here >> nth=0")
    expect(director.locator(".flash")).to_contain_text("now play at this table")
    # The page that was already open starts the seated match's empty game, without a reload.
    table.wait_for_function("document.querySelectorAll('#log .entry.move').length === 0", timeout=10_000)
    expect(table.locator("#board svg")).to_have_count(0)
    table.screenshot(path=str(screenshots / "table-after-seating.png"), full_page=True)
    director.close()
    table.close()
