"""The table page answers at a glance, for a viewer who opens it late too: who plays, whose move,
the score, the last move with its number, and who won by name once it is over."""
from __future__ import annotations

from arbiter.store import Store
from arbiter.matches import open_game
from arbiter.tracker import CAMERA_ENDED, Tracker
from device.cameras import SimulatedCamera
from engines import load_rules
from tests.tracker.fakes import ScriptedRecogniser, position_frame
from tests.webui.conftest import ScriptedTable
from webui.app import create_app
from webui.companion import Companion, LatestObservation


# A Varanasi set Kenji wins in two takes: its readings, shown one by one.
SET_READINGS = [{"game": "varanasi", "stacks": [["4red"], ["3blue", "1red"]]},
                {"game": "varanasi", "stacks": [["3blue"]]}, {"game": "varanasi", "stacks": []}]


def _set_companion(store: Store) -> tuple[Tracker, Companion]:
    """A companion following a Varanasi set of Hana and Kenji read from SET_READINGS."""
    rules = load_rules({"game": "varanasi"})
    ids = [store.add_player("Hana"), store.add_player("Kenji")]
    observations = LatestObservation(ScriptedRecogniser(SET_READINGS))
    tracker = Tracker(rules, {"game": "varanasi"}, store, open_game(store, rules, ids), recognize=observations)
    return tracker, Companion(tracker, None, seat_names={0: "Hana", 1: "Kenji"}, observations=observations)


def test_a_viewer_opening_the_page_after_the_set_sees_who_won_by_name(tmp_path):
    with Store(tmp_path / "v.sqlite3") as store:
        tracker, companion = _set_companion(store)
        scripted = ScriptedTable(tracker, companion, SET_READINGS)
        for index in range(3):
            scripted.show(index)
        page = create_app(companion).test_client().get("/table").get_data(as_text=True)
    # Kenji (seat 1 as the engine counts, "Seat 2" to players) took the last disc.
    assert "Game over: Kenji (Seat 2) wins" in page and 'class="over visible"' in page
    assert '<p id="turn" class="turn">Game over</p>' in page
    assert "Match (first to 10 points): Hana 0 – Kenji 1" in page


def test_the_position_card_of_a_finished_set_shows_the_last_take_and_the_result(tmp_path):
    with Store(tmp_path / "v.sqlite3") as store:
        tracker, companion = _set_companion(store)
        published = []
        companion.hub.publish = lambda event, data: published.append((event, data))
        scripted = ScriptedTable(tracker, companion, SET_READINGS)
        for index in range(3):
            scripted.show(index)
        page = create_app(companion).test_client().get("/table").get_data(as_text=True)
    board = page.split('<div id="board">')[1].split("</div>")[0]
    # No towers are left: the drawing says so and shows the take that ended the set, by name.
    assert "All discs taken" in board and "Last take: Kenji" in board and "<title>3blue</title>" in board
    assert '<p id="final" class="final">Final position: Kenji (Seat 2) wins, Hana (Seat 1) 0 – Kenji (Seat 2) 1</p>' in page
    # A page open at the end is told the same over its event stream.
    last_transition = [data for event, data in published if event == "transition"][-1]
    assert "All discs taken" in last_transition["board_svg"]
    over = next(data for event, data in published if event == "over")
    assert over["final_text"] == "Final position: Kenji (Seat 2) wins, Hana (Seat 1) 0 – Kenji (Seat 2) 1"


def test_a_long_games_page_lists_its_latest_entries_numbered_from_the_start(table, client):
    from webui.companion import LOG_SHOWN

    table.show(0)
    table.show(1)
    store, game_id = table.companion.store, table.tracker.game_id
    position = store.moves(game_id)[-1].state
    for _ in range(LOG_SHOWN + 50):
        store.log(game_id, "move", position, move={"player": "north", "pit": "d"})
    log = client.get("/api/table").get_json()["log"]
    assert len(log) == LOG_SHOWN and log[-1]["number"] == LOG_SHOWN + 51


def test_when_the_camera_stops_mid_game_the_page_says_the_game_was_left_unfinished(table, client):
    published = []
    table.companion.hub.publish = lambda event, data: published.append((event, data))
    # The recording plays through after South c and North d: South was to move.
    table.tracker.run(SimulatedCamera([position_frame(i) for i in (0, 1, 2)]))
    stopped = "Camera stopped — game not finished; Ama (South) was to move"
    # An open page is told over its event stream, a page opened later by its first render.
    ended = next(data for event, data in published if event == "status" and data["status"] == CAMERA_ENDED)
    assert ended["turn"] == stopped
    assert client.get("/api/table").get_json()["turn"] == stopped
    page = client.get("/table").get_data(as_text=True)
    assert f'<p id="turn" class="turn">{stopped}</p>' in page
    assert "(South) to move" not in page and "Game over" not in page


def test_a_camera_stopping_after_the_game_ended_leaves_the_result_standing(tmp_path):
    with Store(tmp_path / "v.sqlite3") as store:
        tracker, companion = _set_companion(store)
        published = []
        companion.hub.publish = lambda event, data: published.append((event, data))
        tracker.run(SimulatedCamera([position_frame(i) for i in range(3)]))
        page = create_app(companion).test_client().get("/table").get_data(as_text=True)
    ended = next(data for event, data in published if event == "status" and data["status"] == "camera_ended")
    assert "turn" not in ended
    assert '<p id="turn" class="turn">Game over</p>' in page and "Camera stopped" not in page
