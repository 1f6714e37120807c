"""The SVG drawings and chart, the event hub, the calibration flow and the demo's bundled game."""
import io
import re
from xml.etree import ElementTree

import cv2
import numpy as np
import pytest

from engines.errors import ArbiterError
from tests.webui.conftest import csrf_of
from webui import live
from webui.varanasi_page import colour_css
from webui.games import board_svg
from webui.chart_svg import line_chart
from webui.live import EventHub, FrameBuffer, sse_message
from arbiter.demo import demo_games, demo_positions, load_demo_game

SVG = "{http://www.w3.org/2000/svg}"


def test_wari_drawing_shows_every_count_and_marks_the_mover():
    pits = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    svg = board_svg({"game": "wari", "pits": pits, "stores": [17, 13], "to_move": "north"})
    counts = re.findall(r'<text class="count"[^>]*>(\d+)</text>', svg)
    assert counts == [str(n) for n in pits] + ["17", "13"]
    movers = re.findall(r'<g class="pit mover" data-pit="(\d+)"', svg)
    assert movers == [str(i) for i in range(6, 12)]


def owners_of(svg: str) -> dict:
    """What a Wari drawing (parsed as the XML it must be) says of each store's owner: the
    label beside the store and the store's title."""
    root = ElementTree.fromstring(svg)
    labels = {text.get("class").split()[-1]: text.text for text in root.iter(f"{SVG}text")
              if text.get("class", "").startswith("owner")}
    titles = [group.find(f"{SVG}title").text for group in root.iter(f"{SVG}g") if group.get("class") == "store"]
    return {"labels": labels, "titles": titles}


def test_wari_stores_are_labelled_with_their_owners_names():
    start = {"game": "wari", "pits": [4] * 12, "stores": [0, 0], "to_move": "south"}
    named = owners_of(board_svg(start, None, {"south": "Ama <3", "north": "Kofi & co"}))
    assert named["labels"] == {"north": "Kofi & co", "south": "Ama <3"}
    assert named["titles"] == ["Ama <3's store (South): 0", "Kofi & co's store (North): 0"]
    # Without names (or with the sides' own names) the stores are the sides'.
    for names in (None, {"south": "South", "north": "North"}):
        unnamed = owners_of(board_svg(start, None, names))
        assert unnamed["labels"] == {"north": "North", "south": "South"}
        assert unnamed["titles"] == ["South store: 0", "North store: 0"]
    long_name = "Adwoa Pokuaa Nyarko-Mensah of the Kumasi Wari Club"
    cut = owners_of(board_svg(start, None, {"south": long_name}))
    assert cut["labels"]["south"].endswith("…") and len(cut["labels"]["south"]) < len(long_name)
    assert cut["titles"][0].startswith(long_name)


def test_the_table_draws_the_stores_with_the_seated_players_names(table, client):
    table.show(0)
    labels = owners_of(client.get("/api/table").get_json()["board_svg"])["labels"]
    assert labels == {"north": "Kofi", "south": "Ama"}
    redrawn = client.post("/api/board", json={"state": table.positions[0]}, headers={"X-CSRF-Token": csrf_of(client)})
    assert owners_of(redrawn.get_json()["svg"])["labels"] == {"north": "Kofi", "south": "Ama"}


def test_varanasi_drawing_stacks_discs_bottom_up_in_the_piece_set_colours():
    pieceset = {"colours": {"red": {"srgb": [200, 35, 40]}, "ivory": {"srgb": [240, 235, 220]}}}
    svg = board_svg({"game": "varanasi", "stacks": [["4red", "2ivory"], ["3red"]], "to_move": 0}, pieceset)
    discs = re.findall(r'data-stack="(\d)" data-disc="(\d)" data-code="(\w+)"', svg)
    assert discs == [("0", "0", "4red"), ("0", "1", "2ivory"), ("1", "0", "3red")]
    assert 'fill="rgb(200,35,40)"' in svg
    # Dark digits on a light disc, light digits on a dark one.
    assert 'fill="#111">2</text>' in svg and 'fill="#fff">4</text>' in svg


def test_varanasi_discs_keep_their_scale_as_towers_are_taken():
    def view_box(stacks):
        svg = board_svg({"game": "varanasi", "stacks": stacks})
        return re.search(r'viewBox="([\d ]+)"', svg).group(1)

    assert view_box([["4blue"]]) == view_box([["4blue"], ["3red"], ["2green"]])


def test_drawing_refuses_bad_positions_with_a_reason():
    with pytest.raises(ArbiterError, match="cannot draw a position of game 'chess'"):
        board_svg({"game": "chess", "pieces": []})
    with pytest.raises(ArbiterError, match="not a disc code"):
        board_svg({"game": "varanasi", "stacks": [["red"]]})
    assert colour_css("teal", None) == "teal" and colour_css("not a colour!", {}) == "grey"


def test_line_chart_draws_one_line_per_player_ending_at_their_total():
    svg = line_chart([{"Ama": 3, "Kofi": 0}, {"Ama": 3, "Kofi": 7}], "games", "Match score")
    assert svg.count("<polyline") == 2
    assert ">■ Ama 3</text>" in svg and ">■ Kofi 7</text>" in svg
    assert "No scores yet" in line_chart([], "games", "Match score")


def test_event_hub_sends_snapshot_then_publications_in_order():
    hub = EventHub()
    stream = hub.stream(lambda: [sse_message("snapshot", {"n": 0})], keepalive=0.01)
    assert "event: snapshot" in next(stream)
    assert hub.subscriber_count() == 1
    hub.publish("transition", {"n": 1})
    hub.publish("illegal", {"n": 2})
    assert "event: transition" in next(stream) and '"n":2' in next(stream)
    assert next(stream) == ": keepalive\n\n"
    stream.close()
    assert hub.subscriber_count() == 0


def test_event_hub_drops_a_subscriber_that_stopped_reading(monkeypatch):
    monkeypatch.setattr(live, "_SUBSCRIBER_BACKLOG", 3)
    hub = EventHub()
    stalled = hub.stream(lambda: [sse_message("snapshot", {})])
    next(stalled)
    for number in range(10):
        hub.publish("status", {"n": number})
    assert hub.subscriber_count() == 0
    # The stalled stream ends rather than hanging on; a reconnect gets a fresh snapshot.
    assert list(stalled) == []


def test_calibration_flow_proposes_previews_and_saves(table, client, tmp_path, monkeypatch):
    from webui import app as app_module
    from webui.routes import calibrate as calibrate_routes

    from arbiter.serving import TableCalibrator

    profile_path = tmp_path / "profile.json"
    found = {"game": "wari", "summary": {"pits": 12}}
    calibrator = TableCalibrator("wari")
    monkeypatch.setattr(calibrator, "calibrate", lambda image: found)
    app = app_module.create_app(table.companion, profile_path=profile_path, calibrator=calibrator)
    app.testing = True
    client = app.test_client()
    monkeypatch.setattr(calibrate_routes, "preview_jpeg", lambda game, image, profile: b"\xff\xd8jpeg")
    token = csrf_of(client)
    no_picture = client.post("/calibrate/capture", data={"csrf_token": token})
    assert no_picture.status_code == 400 and "not delivered a picture" in no_picture.get_data(as_text=True)
    ok, photo = cv2.imencode(".png", np.zeros((60, 80, 3), np.uint8))
    captured = client.post("/calibrate/capture", data={"csrf_token": token, "photo": (io.BytesIO(photo.tobytes()), "a.png")},
                           content_type="multipart/form-data")
    assert captured.status_code == 303
    page = client.get("/calibrate").get_data(as_text=True)
    proposal = re.search(r'/calibrate/preview/([\w-]+)\.jpg', page).group(1)
    assert client.get(f"/calibrate/preview/{proposal}.jpg").data == b"\xff\xd8jpeg"
    saved = client.post("/calibrate/confirm", data={"csrf_token": token, "token": proposal})
    assert saved.status_code == 303
    assert profile_path.read_text().strip().startswith("{") and table.tracker.profile == found
    stale = client.post("/calibrate/confirm", data={"csrf_token": token, "token": proposal})
    assert stale.status_code == 400
    assert client.get(f"/calibrate/preview/{proposal}.jpg").status_code == 404


def test_calibration_upload_must_be_an_image(client):
    token = csrf_of(client)
    response = client.post("/calibrate/capture", data={"csrf_token": token, "photo": (io.BytesIO(b"not an image"), "x.jpg")},
                           content_type="multipart/form-data")
    assert response.status_code == 400 and "not a readable image" in response.get_data(as_text=True)


@pytest.mark.parametrize("name", demo_games())
def test_demo_games_are_legal_except_for_their_one_mistake(name):
    game = load_demo_game(name)
    rules, positions = demo_positions(game)
    def legal(before: dict, after: dict) -> bool:
        try:
            return rules.explain(rules.state_from_json(before), rules.state_from_json(after)).legal
        except ArbiterError:
            return False  # a table no position of the game shows (a Nanku piece cut off)

    judged = [legal(a, b) for a, b in zip(positions, positions[1:])]
    mistaken = [index for index, step in enumerate(game["steps"]) if "instead" in step]
    assert len(mistaken) == 1
    # The mistaken picture comes right after the position before that step, then the true one;
    # every other change on the table is a legal move.
    step = mistaken[0]
    assert judged[step] is False
    assert all(legal for index, legal in enumerate(judged) if index not in (step, step + 1))
    assert len(positions) == len(game["steps"]) + 2


def test_demo_refuses_a_mistake_that_a_legal_move_explains():
    game = {"rules": {"game": "wari", "variant": "pbmserv"},
            "steps": [{"move": {"player": "south", "pit": "a"},
                       "instead": {"pits": [0, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4]}}]}
    with pytest.raises(ArbiterError, match="demo step 1: the mistaken table is still a legal move"):
        demo_positions(game)


def test_unknown_demo_is_refused():
    with pytest.raises(ArbiterError, match="no demo for 'chess'"):
        load_demo_game("chess")


def test_a_viewer_whose_first_picture_cannot_be_encoded_is_not_counted_as_watching():
    def unencodable():
        raise ArbiterError("cannot encode the camera picture as JPEG")

    frames = FrameBuffer(unencodable)
    with pytest.raises(ArbiterError):
        with frames.watching():
            pass
    assert frames.viewers == 0


def test_each_browser_has_its_own_calibration_proposal_told_in_players_words(table, monkeypatch):
    from arbiter.serving import TableCalibrator
    from webui import app as app_module
    from webui.routes import calibrate as calibrate_routes

    found = {"game": "wari", "summary": {"pit_pitch_px": 146.8, "pits_with_4_spots": 12}}
    calibrator = TableCalibrator("wari")
    monkeypatch.setattr(calibrator, "calibrate", lambda image: found)
    monkeypatch.setattr(calibrate_routes, "preview_jpeg", lambda game, image, profile: b"\xff\xd8jpeg")
    app = app_module.create_app(table.companion, calibrator=calibrator)
    director, player = app.test_client(), app.test_client()
    ok, photo = cv2.imencode(".png", np.zeros((60, 80, 3), np.uint8))
    director.post("/calibrate/capture", data={"csrf_token": csrf_of(director), "photo": (io.BytesIO(photo.tobytes()), "a.png")},
                  content_type="multipart/form-data")
    page = director.get("/calibrate").get_data(as_text=True)
    assert "Seeds told apart one by one in 12 of the 12 pits" in page and "<summary>Measurements</summary>" in page
    assert "Step 1" in player.get("/calibrate").get_data(as_text=True)  # another browser has no proposal
