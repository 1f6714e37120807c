"""Bad input and hostile requests get bounded, one-line answers: sizes, pixels before decoding,
JSON depth, per-client PIN lockout, PINs kept off the command line, the browser's protections,
the Host a PIN-less companion answers, CSV cells a spreadsheet would run, foreign databases."""
from __future__ import annotations

import io
import json
import sqlite3
import struct
import zlib
from argparse import Namespace

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.serving import director_pin, serve
from arbiter.store import Store, StoreError
from engines.errors import ArbiterError
from tests.test_json_fuzz import DOCUMENTS, GAME_DOCUMENTS
from tests.webui.conftest import csrf_of
from vision.io import MAX_PIXELS, decode_image, declared_size, read_image
from webui.app import create_app
from webui.security import PIN_ATTEMPTS
from webui.server import start_serving


def png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose header declares width x height pixels (a decompression bomb's shape)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + header
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(header)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)) + b"\x00" * 32)


def jpeg_of(width: int, height: int) -> bytes:
    return cv2.imencode(".jpg", np.full((height, width, 3), 128, np.uint8))[1].tobytes()


def test_the_declared_size_is_read_from_png_and_jpeg_headers():
    assert declared_size(png_declaring(30000, 30000)) == (30000, 30000)
    assert declared_size(jpeg_of(64, 48)) == (64, 48)
    assert declared_size(b"GIF89a") is None


def test_a_picture_declaring_too_many_pixels_is_refused_before_decoding(tmp_path):
    bomb = png_declaring(30000, 30000)
    assert 30000 * 30000 > MAX_PIXELS
    with pytest.raises(ArbiterError, match="declares 30000x30000 pixels"):
        decode_image(bomb)
    path = tmp_path / "bomb.png"
    path.write_bytes(bomb)
    with pytest.raises(ArbiterError, match="bomb.png: declares"):
        read_image(path)


def test_a_cut_off_jpeg_is_an_error_not_a_reading(tmp_path):
    whole = jpeg_of(640, 480)
    path = tmp_path / "cut.jpg"
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ArbiterError, match="cut off"):
        read_image(path)
    assert decode_image(whole).shape == (480, 640, 3)


def test_the_cli_refuses_deeply_nested_json_in_one_line(tmp_path, capsys):
    from arbiter.cli import main

    record = tmp_path / "deep.json"
    record.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["check", str(record)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nested more than" in err[0]


def test_a_request_body_is_bounded_and_its_nesting_too(table, client):
    table.show(0)
    headers = {"X-CSRF-Token": csrf_of(client), "Content-Type": "application/json"}
    huge = client.post("/api/board", data=b'{"state": "' + b"x" * (3 * 1024 * 1024) + b'"}', headers=headers)
    assert huge.status_code == 413
    deep = client.post("/api/board", data="[" * 50_000 + "]" * 50_000, headers=headers)
    assert deep.status_code == 400 and "nested" in deep.get_json()["error"]


def test_wrong_pins_lock_out_the_guesser_not_the_director(pin_client, table):
    guesser = {"REMOTE_ADDR": "10.0.0.66"}
    token = csrf_of(pin_client)
    for _ in range(PIN_ATTEMPTS):
        pin_client.post("/api/accept", headers={"X-CSRF-Token": token, "X-Arbiter-Pin": "0000"}, environ_base=guesser)
    locked = pin_client.post("/api/accept", headers={"X-CSRF-Token": token, "X-Arbiter-Pin": "4321"},
                             environ_base=guesser)
    assert locked.status_code == 429
    director = pin_client.post("/api/accept", headers={"X-CSRF-Token": token, "X-Arbiter-Pin": "4321"},
                               environ_base={"REMOTE_ADDR": "10.0.0.2"})
    assert director.status_code != 429  # 400: no illegal move to accept, but the PIN was taken


def test_the_pin_comes_from_the_environment_never_the_command_line(monkeypatch, capsys):
    from arbiter.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--pin", "2468"])  # a PIN argument is no longer accepted
    monkeypatch.setenv("ARBITER_PIN", "2468")
    assert director_pin(True) == "2468"
    assert "6 or more are suggested" in capsys.readouterr().err
    assert director_pin(False) is None
    monkeypatch.delenv("ARBITER_PIN")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(ArbiterError, match="ARBITER_PIN"):
        director_pin(True)


def test_pages_carry_the_browsers_protections(client):
    headers = client.get("/table").headers
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"


def test_a_pin_less_companion_answers_only_loopback_host_names(client):
    assert client.get("/api/table", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    rebound = client.get("/api/table", headers={"Host": "attacker.example:8000"})
    assert rebound.status_code == 400 and "127.0.0.1" in rebound.get_json()["error"]


@pytest.mark.parametrize("bind_host", ["127.0.0.1", "localhost", "::1", "127.0.1.1"])
def test_a_companion_on_loopback_refuses_a_rebound_name_with_a_pin_too(table, bind_host):
    # The PIN guards changes; the table's records and live view are read without it, so a page
    # elsewhere must not reach them through a name it rebinds to this computer.
    pin_client = create_app(table.companion, pin="4321", bind_host=bind_host).test_client()
    for name in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000", "127.0.1.1:8000", "localhost"):
        assert pin_client.get("/api/table", headers={"Host": name}).status_code == 200, name
    for path in ("/api/table", "/events", "/scores.csv", "/tournament"):
        rebound = pin_client.get(path, headers={"Host": "attacker.example:8000"})
        assert rebound.status_code == 400 and "127.0.0.1" in rebound.get_data(as_text=True), path


@pytest.mark.parametrize("bind_host", ["0.0.0.0", "192.168.1.20", "::"])
def test_a_companion_on_the_tables_network_answers_the_names_phones_use(table, bind_host):
    pin_client = create_app(table.companion, pin="4321", bind_host=bind_host).test_client()
    for name in ("192.168.1.20:8000", "table.local:8000", "arbiter-pi:8000", "localhost:8000"):
        assert pin_client.get("/api/table", headers={"Host": name}).status_code == 200, name


def test_the_served_companion_checks_the_host_of_the_address_it_listens_on(table):
    import urllib.error
    import urllib.request

    running = start_serving(table.companion, "127.0.0.1", 0, "4321")
    try:
        port = running.server.server_address[1]
        asked = urllib.request.Request(f"{running.url}/api/table", headers={"Host": f"attacker.example:{port}"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(asked, timeout=10)
        assert refused.value.code == 400
        with urllib.request.urlopen(f"{running.url}/api/table", timeout=10) as answer:
            assert answer.status == 200
    finally:
        running.server.shutdown()
        running.thread.join(5)


def test_csv_cells_that_look_like_formulas_are_quoted(tmp_path, table):
    from arbiter.spreadsheet import safe_cell

    assert safe_cell("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")"
    assert safe_cell("@SUM(A1)") == "'@SUM(A1)" and safe_cell(-3) == -3 and safe_cell("Ama") == "Ama"
    store = table.companion.store
    match = store.new_match({"game": "wari", "variant": "pbmserv"},
                            [store.add_player("=HYPERLINK(\"http://evil\")"), store.add_player("Kofi")])
    store.finish_match(match, {"entered": "by hand", "winner": 1, "scores": {"0": 0, "1": 1}})
    app = create_app(table.companion)
    text = app.test_client().get("/scores.csv").get_data(as_text=True)
    assert "'=HYPERLINK" in text and "\n=HYPERLINK" not in text and ",=HYPERLINK" not in text


def test_a_foreign_database_is_refused_before_anything_is_written(tmp_path):
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as other:
        other.execute("CREATE TABLE invoices (id INTEGER)")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not an Arbiter record database"):
        Store(path)
    assert path.read_bytes() == before


def test_serve_without_pin_on_the_network_is_refused_with_the_way_to_give_one(tmp_path):
    args = Namespace(host="0.0.0.0", port=0, pin=False, game="wari", camera="usb:0", players=None,
                     profile=str(tmp_path / "missing.json"), rules=None, db=str(tmp_path / "db.sqlite3"))
    with pytest.raises(ArbiterError, match="add --pin"):
        serve(args)


@pytest.mark.parametrize("body", [
    '{"state": {"game": "wari", "pits": "x"}}',
    '{"state": {"game": "wari", "pits": [1e400]}}',
    '{"state": {"game": "wari", "pits": [1e400, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "stores": [0, 0]}}',
    '{"state": {"game": "varanasi", "stacks": "x"}}',
    '{"state": {"game": ["wari"]}}',
])
def test_a_drawing_of_a_malformed_position_is_refused_in_one_line(client, body):
    answer = client.post("/api/board", data=body,
                         headers={"X-CSRF-Token": csrf_of(client), "Content-Type": "application/json"})
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert error and "\n" not in error


def test_a_drawing_is_made_only_of_a_position_the_game_allows(client):
    """25,000 one-disc towers (225 KB) would be a 9.5 MB drawing; a set has 24 discs."""
    body = json.dumps({"state": {"game": "varanasi", "stacks": [["1red"]] * 25_000, "to_move": 0}})
    answer = client.post("/api/board", data=body,
                         headers={"X-CSRF-Token": csrf_of(client), "Content-Type": "application/json"})
    assert answer.status_code == 400 and "appears twice" in answer.get_json()["error"]
    assert len(answer.get_data()) < 1000


@pytest.mark.parametrize("path", ["/tournament/match/99999/result", "/tournament/match/99999/play",
                                  "/tournament/match/99999/result/delete"])
def test_a_form_about_a_match_that_does_not_exist_is_a_404(client, path):
    answer = client.post(path, data={"csrf_token": csrf_of(client), "result": "1-0"})
    assert answer.status_code == 404
    assert "no match with id 99999" in answer.get_data(as_text=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(DOCUMENTS, GAME_DOCUMENTS))
def test_the_board_drawing_answers_any_json_position_without_a_server_error(client, state):
    # The client and its table are shared by every example: drawing changes nothing.
    answer = client.post("/api/board", json={"state": state}, headers={"X-CSRF-Token": csrf_of(client)})
    assert answer.status_code in (200, 400)
    if answer.status_code == 400:
        assert "\n" not in answer.get_json()["error"]
