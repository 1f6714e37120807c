"""The table page and its live feeds: pages, SSE, MJPEG, snapshots, corrections, bad requests."""
import json

import cv2
import numpy as np

from tests.tracker.fakes import position_frame
from tests.webui.conftest import csrf_of


def read_events(chunks, count):
    """Parse `count` Server-Sent Events (name, data) from a streamed response's chunks."""
    events, buffer = [], ""
    while len(events) < count:
        buffer += next(chunks).decode()
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
            if "event" in fields:
                events.append((fields["event"], json.loads(fields["data"])))
    return events


def decoded(jpeg: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)


def test_root_redirects_to_the_table(client):
    response = client.get("/")
    assert response.status_code == 302 and response.headers["Location"].endswith("/table")


def test_table_page_shows_turn_board_and_log_after_moves(table, client):
    table.show(0)
    table.show(1)
    page = client.get("/table").get_data(as_text=True)
    assert "Kofi (North) to move" in page
    assert 'class="board wari"' in page
    # The headline: who plays which side, the score by name, the numbered last move.
    assert "Ama (South) v Kofi (North)" in page
    assert "Ama (South) 0 – Kofi (North) 0" in page
    assert "Last move: 1. Ama: South c" in page
    view = client.get("/api/table").get_json()
    assert [entry["type"] for entry in view["log"]] == ["start", "move"]
    assert [entry.get("number") for entry in view["log"]] == [None, 1]
    assert view["log"][1]["notation"] == "South c" and view["log"][1]["by"] == "Ama"
    assert view["position"]["pits"][2] == 0 and view["alert"] is None
    assert view["over_text"] == "" and 'class="over "' in page


def test_two_moves_in_one_picture_are_logged_in_notation(table, client):
    table.show(0)
    table.show(2)
    entry = client.get("/api/table").get_json()["log"][-1]
    assert entry["moves"] == [{"player": "south", "pit": "c"}, {"player": "north", "pit": "d"}]
    assert entry["notation"] == "South c then North d"


def test_event_stream_sends_a_snapshot_then_each_judged_move(table, client):
    table.show(0)
    response = client.get("/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    (name, snapshot), = read_events(chunks, 1)
    assert name == "snapshot" and [e["type"] for e in snapshot["log"]] == ["start"]
    table.show(1)
    events = [e for e in read_events(chunks, 3) if e[0] != "status"]
    name, data = events[0]
    assert name == "transition"
    # The contract's replay transition, plus what the page needs to show it.
    assert {"from", "to", "legal", "move", "reason", "state"} <= set(data)
    assert data["legal"] is True and data["move"] == {"player": "south", "pit": "c"}
    assert data["notation"] == "South c" and "<svg" in data["board_svg"]
    response.close()


def test_illegal_move_raises_the_alert_with_reason_and_both_pictures(table, client):
    for index in range(4):
        table.show(index)
    view = client.get("/api/table").get_json()
    alert = view["alert"]
    assert alert is not None and alert["legal"] is False
    assert "should hold" in alert["reason"] or "seeds" in alert["reason"]
    for side in ("snapshot_before_url", "snapshot_after_url"):
        picture = client.get(alert[side])
        assert picture.status_code == 200 and picture.mimetype == "image/jpeg"
        assert decoded(picture.data) is not None
    page = client.get("/table").get_data(as_text=True)
    assert 'class="alert visible"' in page and alert["snapshot_after_url"] in page


def test_snapshots_cannot_reach_outside_their_folder(table, client):
    assert client.get("/snapshots/..%2Frecords.sqlite3").status_code == 404
    assert client.get("/snapshots/nothing.jpg").status_code == 404


def jpeg_in(chunk: bytes) -> np.ndarray:
    """The picture one multipart chunk of the live view carries."""
    start, end = chunk.index(b"\xff\xd8"), chunk.rindex(b"\xff\xd9") + 2
    return decoded(chunk[start:end])


def test_live_view_streams_jpeg_frames_only_while_watched(table, client):
    frames = table.companion.frames
    table.companion.show_frame(np.full((480, 640, 3), 120, np.uint8))
    assert frames.latest() == (0, None)  # nobody watches: no frame is encoded
    # The test client reads the first chunk as it opens the stream.
    response = client.get("/video.mjpg", buffered=False)
    chunks = iter(response.response)
    chunk = next(chunks)
    assert b"--frame" in chunk and b"Content-Type: image/jpeg" in chunk
    assert frames.viewers == 1
    table.companion.show_frame(np.full((480, 640, 3), 30, np.uint8))
    assert abs(float(jpeg_in(next(chunks)).mean()) - 30) < 3
    response.close()
    assert frames.viewers == 0


def test_a_viewer_arriving_after_the_camera_stopped_sees_its_last_picture(table):
    # A recorded or simulated game that has ended sends no more frames: without the last one the
    # page's camera panel would stay black for everyone who opens it afterwards.
    frames = table.companion.frames
    table.companion.show_frame(np.full((480, 640, 3), 200, np.uint8))
    with frames.watching():
        number, jpeg = frames.latest()
    picture = decoded(jpeg)
    assert number == 1 and picture.shape == (480, 640, 3) and abs(float(picture.mean()) - 200) < 3


def test_the_reading_is_drawn_over_the_live_view_only_while_the_table_is_still(table):
    companion = table.companion
    companion._draw_overlay = lambda image, observation: np.full_like(image, 255)  # marks "drawn"
    table.show(0)
    assert table.tracker.status == "stable" and companion.observations.latest is not None
    companion.show_frame(np.full((480, 640, 3), 60, np.uint8))
    with companion.frames.watching():
        drawn = decoded(companion.frames.latest()[1])
    table.tracker.feed(position_frame(1), 1000.0)  # a new picture: the table moves
    assert table.tracker.status in ("moving", "hand")
    with companion.frames.watching():
        plain = decoded(companion.frames.latest()[1])
    assert drawn.mean() > 250 and abs(float(plain.mean()) - 60) < 3


def test_correction_moves_the_tracker_and_is_recorded(table, client):
    table.show(0)
    table.show(1)
    corrected = dict(table.positions[1], pits=[4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 3, 5])
    response = client.post("/api/correct", json={"state": corrected}, headers={"X-CSRF-Token": csrf_of(client)})
    assert response.status_code == 200, response.get_json()
    assert table.tracker.judge.state.to_json()["pits"] == corrected["pits"]
    verdicts = [m.verdict for m in table.tracker.store.moves(table.tracker.game_id)]
    assert verdicts[-1] == "override"
    assert client.get("/api/table").get_json()["log"][-1]["type"] == "override"


def test_correction_bad_requests_get_one_line_errors(table, client):
    table.show(0)
    token = csrf_of(client)
    headers = {"X-CSRF-Token": token}
    malformed = client.post("/api/correct", data="{not json", headers={**headers, "Content-Type": "application/json"})
    assert malformed.status_code == 400 and "malformed JSON" in malformed.get_json()["error"]
    missing = client.post("/api/correct", json={"position": {}}, headers=headers)
    assert missing.status_code == 400
    unknown_game = client.post("/api/correct", json={"state": {"game": "chess"}}, headers=headers)
    assert unknown_game.status_code == 400 and "wari position" in unknown_game.get_json()["error"]
    impossible = client.post("/api/correct", json={"state": {"game": "wari", "pits": [4] * 12, "stores": [9, 0]}},
                             headers=headers)
    assert impossible.status_code == 400 and "\n" not in impossible.get_json()["error"]


def test_posts_without_the_page_token_are_refused(table, client):
    table.show(0)
    response = client.post("/api/correct", json={"state": table.positions[0]})
    assert response.status_code == 403 and "token" in response.get_json()["error"]
    forged = client.post("/api/correct", json={"state": table.positions[0]}, headers={"X-CSRF-Token": "guess"})
    assert forged.status_code == 403


def test_accept_needs_a_pending_illegal_move(table, client):
    table.show(0)
    response = client.post("/api/accept", headers={"X-CSRF-Token": csrf_of(client)})
    assert response.status_code == 400 and "no illegal move" in response.get_json()["error"]


def test_board_drawing_endpoint_refuses_unknown_games(client):
    headers = {"X-CSRF-Token": csrf_of(client)}
    start = {"game": "wari", "pits": [4] * 12, "stores": [0, 0], "to_move": "south"}
    drawn = client.post("/api/board", json={"state": start}, headers=headers)
    assert drawn.status_code == 200 and drawn.get_json()["svg"].startswith("<svg")
    unknown = client.post("/api/board", json={"state": {"game": "chess"}}, headers=headers)
    assert unknown.status_code == 400 and "chess" in unknown.get_json()["error"]


def test_a_draft_the_game_does_not_allow_is_not_drawn_and_says_why(client):
    """A seed taken from one pit before it is put in another: the editor shows the reason."""
    draft = {"game": "wari", "pits": [3] + [4] * 11, "stores": [0, 0], "to_move": "south"}
    refused = client.post("/api/board", json={"state": draft}, headers={"X-CSRF-Token": csrf_of(client)})
    assert refused.status_code == 400 and "a Wari set has 48" in refused.get_json()["error"]


def test_correct_page_waits_for_a_position(table, client):
    assert client.get("/correct").status_code == 409
    table.show(0)
    page = client.get("/correct").get_data(as_text=True)
    assert 'data-pit="11"' in page and "Apply correction" in page


def test_unknown_pages_are_404_in_the_page_style(client):
    response = client.get("/nowhere")
    assert response.status_code == 404 and "Back to the table" in response.get_data(as_text=True)


def test_a_move_taken_in_doubt_shows_its_question_live_and_in_the_log(table, client):
    table.show(0)
    note = "not sure: South's pit f should hold 13 seeds after North d, the board shows 11; please check the table"
    live = table.companion.describe({"type": "transition", "verdict": "move", "legal": True, "note": note,
                                     "reason": None, "move": {"player": "south", "pit": "c"}})
    assert live["reason"] == note and live["notation"] == "South c"
    # Stored, the note is the move's reason: the page's log shows it after a reload too.
    store = table.tracker.store
    store.log(table.tracker.game_id, "move", table.positions[1], move={"player": "south", "pit": "c"}, reason=note)
    entry = client.get("/api/table").get_json()["log"][-1]
    assert entry["reason"] == note and entry["legal"] is True


def test_the_page_learns_how_reporting_to_the_director_stands(table, client):
    assert client.get("/api/table").get_json()["director"] is None  # a table that reports nowhere
    table.show(0)
    response = client.get("/events", buffered=False)
    chunks = iter(response.response)
    read_events(chunks, 1)  # the snapshot
    table.companion.director_status({"type": "director", "status": "unreachable", "message": "connection refused"})
    (name, data), = read_events(chunks, 1)
    assert name == "director" and data == {"status": "unreachable", "message": "connection refused"}
    response.close()
    # A page opened later finds it in the table's view.
    assert client.get("/api/table").get_json()["director"]["status"] == "unreachable"
    assert 'id="director"' in client.get("/table").get_data(as_text=True)
