"""The director's server: tables post with their own tokens, bad requests get a 4xx with a
message, the page shows every table and the standings, the PIN guards the page."""
from __future__ import annotations

import json

import pytest

from arbiter.director_store import DirectorStore
from tests.director.events import game_result, wari_game_events
from webui.director_app import MAX_BATCH_BYTES, create_director_app


@pytest.fixture
def store(tmp_path):
    with DirectorStore(str(tmp_path / "director.sqlite3")) as opened:
        yield opened


def post(client, table, events, token):
    return client.post("/api/events", json={"table": table, "events": events},
                       headers={"Authorization": f"Bearer {token}"} if token else {})


def test_posting_acknowledging_and_refusing(store):
    client = create_director_app(store).test_client()
    token_a, token_b = store.new_token("A"), store.new_token("B")
    events = wari_game_events(3)
    answer = post(client, "A", events, token_a)
    assert answer.status_code == 200 and answer.get_json() == {"table": "A", "acked": 4}
    assert post(client, "A", events, token_a).get_json()["acked"] == 4  # a duplicate, acknowledged
    refused = post(client, "A", wari_game_events(1), token_b)
    assert refused.status_code == 403 and "does not belong to table 'A'" in refused.get_json()["error"]
    assert post(client, "A", wari_game_events(1), None).status_code == 403
    gap = post(client, "B", wari_game_events(3)[2:], token_b)
    assert gap.status_code == 409 and gap.get_json()["acked"] == 0 and "gap" in gap.get_json()["error"]
    assert len(store.events("A")) == 4 and store.events("B") == []


@pytest.mark.parametrize("data, content_type, status, fragment", [
    (b"not json", "application/json", 400, "not JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "application/json", 400, "nested"),
    (b'{"table": "A", "events": []}', "application/json", 400, "1 to 200 events"),
    (b"table=A", "application/x-www-form-urlencoded", 400, "application/json"),
    (b"x" * (MAX_BATCH_BYTES + 1), "application/json", 413, ""),
])
def test_bad_requests_get_a_message(store, data, content_type, status, fragment):
    client = create_director_app(store).test_client()
    answer = client.post("/api/events", data=data, content_type=content_type)
    assert answer.status_code == status and fragment in answer.get_json()["error"]


def test_the_page_shows_every_table_and_the_standings(store):
    client = create_director_app(store).test_client()
    token = store.new_token("Table 1")
    events = wari_game_events(2) + [game_result(4, "north", {"south": 3, "north": 25})]
    post(client, "Table 1", events, token)
    illegal = wari_game_events(1, players=("Esi", "Yaw"))
    illegal.append({**illegal[-1], "seq": 3, "row": {**illegal[-1]["row"], "id": 7, "verdict": "illegal",
                                                      "reason": "<b>pit c</b> was empty"}})
    post(client, "Table 2", illegal, store.new_token("Table 2"))
    page = client.get("/").get_data(as_text=True)
    assert "Table 1" in page and "Ama – Kofi" in page and "Kofi won, 25 to 3" in page
    assert "Illegal move: &lt;b&gt;pit c&lt;/b&gt; was empty" in page and "<svg" in page
    assert "Yaw to move" in page
    standings = client.get("/api/standings").get_json()
    assert [(s["entrant"], s["points"]) for s in standings] == [("Kofi", 1.0), ("Ama", 0.0)]
    tables = client.get("/api/tables").get_json()
    assert [t["table"] for t in tables] == ["Table 1", "Table 2"] and tables[1]["alert"]
    record = client.get("/api/tables/Table%202/record").get_json()
    assert record["players"] == ["Esi", "Yaw"] and len(record["moves"]) == 1
    missing = client.get("/api/tables/C/record")
    assert missing.status_code == 404 and "no table named 'C'" in missing.get_json()["error"]


def test_the_pin_guards_the_page_not_the_tables(store):
    app = create_director_app(store, pin="482913", bind_host="0.0.0.0")
    client = app.test_client()
    assert client.get("/").status_code == 303
    assert client.get("/api/tables").status_code == 403
    # Tables post with their tokens, without the PIN.
    assert post(client, "A", wari_game_events(1), store.new_token("A")).status_code == 200
    unlock_page = client.get("/unlock").get_data(as_text=True)
    token = unlock_page.split('name="csrf_token" value="')[1].split('"')[0]
    assert client.post("/unlock", data={"pin": "000000", "csrf_token": token}).status_code == 403
    assert client.post("/unlock", data={"pin": "482913"}).status_code == 403  # no form token
    assert client.post("/unlock", data={"pin": "482913", "csrf_token": token}).status_code == 303
    assert json.loads(client.get("/api/tables").get_data())[0]["table"] == "A"


def test_a_table_that_went_quiet_mid_game_is_marked(store, monkeypatch):
    import webui.director_app as director_app

    client = create_director_app(store).test_client()
    post(client, "A", wari_game_events(1), store.new_token("A"))
    post(client, "B", wari_game_events(1) + [game_result(3, "south", {"south": 25, "north": 3})], store.new_token("B"))
    (a, b) = client.get("/api/tables").get_json()
    assert not a["quiet"] and "last report 0 s ago" in a["summary"]
    later = director_app.time.time() + 600

    class TenMinutesLater:
        time = staticmethod(lambda: later)

    monkeypatch.setattr(director_app, "time", TenMinutesLater)
    (a, b) = client.get("/api/tables").get_json()
    assert a["quiet"] and "last report 10 min ago" in a["summary"]
    assert not b["quiet"]  # its game is over: nothing more to report
    assert 'class="director-table quiet"' in client.get("/").get_data(as_text=True)


def test_a_tables_own_page_lists_its_game(store):
    client = create_director_app(store).test_client()
    events = wari_game_events(2, players=("Esi", "Yaw"))
    events.append({**events[-1], "seq": 4, "row": {**events[-1]["row"], "id": 9, "verdict": "illegal",
                                                    "reason": "pit c was empty"}})
    post(client, "Table 2", events, store.new_token("Table 2"))
    assert 'href="/tables/Table%202"' in client.get("/").get_data(as_text=True)
    page = client.get("/tables/Table%202").get_data(as_text=True)
    assert "Esi – Yaw" in page and "<svg" in page and "Illegal move: pit c was empty" in page
    rows = page.split("<tbody>")[1].split("</tbody>")[0]
    assert rows.count("<tr") == 4 and "South " in rows and '<tr class="illegal">' in rows
    missing = client.get("/tables/C")
    assert missing.status_code == 404 and "no table named" in missing.get_data(as_text=True)
    assert "text/html" in missing.content_type
