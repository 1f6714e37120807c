"""The director's PIN, cross-site request protection, upload limits and the bind check."""
import html
import io
import json
import re
import urllib.request
from argparse import Namespace

import pytest

from engines.errors import ArbiterError
from tests.webui.conftest import csrf_of
from webui import security
from webui.security import MAX_UPLOAD_BYTES, PIN_ATTEMPTS, check_bind, is_loopback
from arbiter.serving import serve
from webui.server import start_serving


def correct(client, state, **headers):
    return client.post("/api/correct", json={"state": state}, headers={"X-CSRF-Token": csrf_of(client), **headers})


def test_with_a_pin_changes_need_it(table, pin_client):
    table.show(0)
    start = table.positions[0]
    refused = correct(pin_client, start)
    assert refused.status_code == 403 and "director's PIN" in refused.get_json()["error"]
    wrong = correct(pin_client, start, **{"X-Arbiter-Pin": "0000"})
    assert wrong.status_code == 403 and "wrong" in wrong.get_json()["error"]
    assert correct(pin_client, start, **{"X-Arbiter-Pin": "4321"}).status_code == 200


def test_seating_a_pairing_needs_the_pin_and_leads_to_the_unlock_page(table, pin_client):
    match_id = table.tracker.store.new_match(table.tracker.rules.to_json())
    refused = pin_client.post(f"/tournament/match/{match_id}/play",
                              data={"csrf_token": csrf_of(pin_client), "back": "/tournament"})
    assert refused.status_code == 303 and "/unlock?next=/tournament" in refused.headers["Location"]
    assert table.tracker.store.game(table.tracker.game_id)["match_id"] != match_id


def posted_fields(page: str, action: str) -> dict:
    """The hidden fields of the page's first form that posts to `action`."""
    form = re.search(rf'<form[^>]*action="{re.escape(action)}"[^>]*>(.*?)</form>', page, re.S).group(1)
    return {html.unescape(name): html.unescape(value)
            for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form)}


def test_a_locked_form_leads_through_the_pin_back_to_its_page_without_a_referer(table, pin_client):
    """Browsers send no Referer here (Referrer-Policy: no-referrer): the form names its page."""
    store = table.tracker.store
    tournament_id = store.add_tournament("Club night")
    players = [store.add_player("Ama"), store.add_player("Kofi")]
    match_id = store.new_match(table.tracker.rules.to_json(), players, tournament_id=tournament_id)
    page = pin_client.get(f"/tournament?id={tournament_id}").get_data(as_text=True)
    fields = posted_fields(page, f"/tournament/match/{match_id}/play")
    assert fields["back"] == f"/tournament?id={tournament_id}"
    refused = pin_client.post(f"/tournament/match/{match_id}/play", data=fields)
    assert refused.status_code == 303 and "Referer" not in refused.request.headers
    unlock_page = pin_client.get(refused.headers["Location"]).get_data(as_text=True)
    unlocked = pin_client.post("/unlock", data={**posted_fields(unlock_page, "/unlock"), "pin": "4321"})
    assert unlocked.status_code == 303 and unlocked.headers["Location"] == f"/tournament?id={tournament_id}"


@pytest.mark.parametrize("back", ["//evil.example/x", "/\\evil.example/x", "https://evil.example/x", "/table\r\nX: y"])
def test_a_form_leads_back_only_within_the_site(pin_client, back):
    token = csrf_of(pin_client)
    refused = pin_client.post("/calibrate/capture", data={"csrf_token": token, "back": back})
    assert refused.status_code == 303 and refused.headers["Location"].endswith("/unlock?next=/table")


def test_a_director_can_lock_the_browser_again(table, pin_client):
    table.show(0)
    token = csrf_of(pin_client)
    pin_client.post("/unlock", data={"pin": "4321", "csrf_token": token, "next": "/table"})
    page = pin_client.get("/table").get_data(as_text=True)
    assert "Lock 🔓" in page and "Director 🔒" not in page
    locked = pin_client.post("/lock", data={"csrf_token": token, "next": "/scores"})
    assert locked.status_code == 303 and locked.headers["Location"].endswith("/scores")
    assert correct(pin_client, table.positions[0]).status_code == 403


def test_unlocking_once_opens_the_session(table, pin_client):
    table.show(0)
    token = csrf_of(pin_client)
    wrong = pin_client.post("/unlock", data={"pin": "1111", "csrf_token": token, "next": "/table"})
    assert wrong.status_code == 303 and "/unlock" in wrong.headers["Location"]
    right = pin_client.post("/unlock", data={"pin": "4321", "csrf_token": token, "next": "/scores"})
    assert right.status_code == 303 and right.headers["Location"].endswith("/scores")
    assert correct(pin_client, table.positions[0]).status_code == 200


def test_unlock_only_redirects_within_the_site(pin_client):
    token = csrf_of(pin_client)
    response = pin_client.post("/unlock", data={"pin": "4321", "csrf_token": token, "next": "//evil.example/x"})
    assert response.headers["Location"].endswith("/table")


def test_repeated_wrong_pins_lock_the_gate(table, pin_client, monkeypatch):
    table.show(0)
    for _ in range(PIN_ATTEMPTS):
        assert correct(pin_client, table.positions[0], **{"X-Arbiter-Pin": "9999"}).status_code == 403
    locked = correct(pin_client, table.positions[0], **{"X-Arbiter-Pin": "4321"})
    assert locked.status_code == 429
    later = security.time.monotonic() + security.PIN_LOCKOUT_SECONDS + 1
    monkeypatch.setattr(security.time, "monotonic", lambda: later)
    assert correct(pin_client, table.positions[0], **{"X-Arbiter-Pin": "4321"}).status_code == 200


def test_pages_show_the_lock_only_when_a_pin_is_needed(client, pin_client):
    assert "Director 🔒" in pin_client.get("/table").get_data(as_text=True)
    assert "Director 🔒" not in client.get("/table").get_data(as_text=True)


def test_form_posts_need_the_session_token(pin_client):
    response = pin_client.post("/unlock", data={"pin": "4321"})
    assert response.status_code == 403
    assert "reload the page" in response.get_data(as_text=True)


def test_oversized_uploads_are_refused_before_reading(client):
    token = csrf_of(client)
    big = io.BytesIO(b"\xff" * (MAX_UPLOAD_BYTES + 1024))
    response = client.post("/calibrate/capture", data={"csrf_token": token, "photo": (big, "huge.jpg")},
                           content_type="multipart/form-data")
    assert response.status_code == 413


@pytest.mark.parametrize("host, pin, message", [
    ("0.0.0.0", None, "add --pin"),
    ("192.168.1.20", "12", "at least 4 digits"),
    ("127.0.0.1", "abcd", "at least 4 digits"),
])
def test_bind_check_refuses_an_open_network_without_a_pin(host, pin, message):
    with pytest.raises(ArbiterError, match=message):
        check_bind(host, pin)


def test_bind_check_allows_loopback_and_pinned_network():
    check_bind("127.0.0.1", None)
    check_bind("localhost", None)
    check_bind("::1", None)
    check_bind("0.0.0.0", "2468")
    assert is_loopback("127.0.0.5") and not is_loopback("0.0.0.0") and not is_loopback("table.local")


def test_serve_refuses_an_open_network_without_a_pin_before_opening_anything(tmp_path):
    args = Namespace(host="0.0.0.0", port=0, pin=None, game="wari", camera="usb:0",
                     profile=str(tmp_path / "missing.json"), rules=None, db=str(tmp_path / "db.sqlite3"))
    with pytest.raises(ArbiterError, match="--pin"):
        serve(args)
    assert not (tmp_path / "db.sqlite3").exists()


def test_a_served_companion_answers_over_http_and_stops(table):
    table.show(0)
    running = start_serving(table.companion, "127.0.0.1", 0, None)
    try:
        with urllib.request.urlopen(running.url + "/api/table", timeout=5) as response:
            view = json.load(response)
        assert view["position"]["pits"] == [4] * 12
    finally:
        running.stop()
    assert not running.thread.is_alive()
