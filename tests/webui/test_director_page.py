"""The director's page in a browser: a table's new move, alert and result appear without a reload.

Needs Debian's `chromium` and the `playwright` Python package, as tests/webui/test_browser.py.
"""
from __future__ import annotations

import threading

import pytest
from werkzeug.serving import make_server

from arbiter.director_store import DirectorStore
from tests.director.events import game_result, wari_game_events
from webui.director_app import create_director_app

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


@pytest.fixture
def director(tmp_path):
    store = DirectorStore(str(tmp_path / "director.sqlite3"))
    server = make_server("127.0.0.1", 0, create_director_app(store, refresh_ms=200), threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield store, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    store.close()


def test_the_page_follows_the_tables_live(director, browser, screenshots):
    store, url = director
    token = store.new_token("Table 1")
    events = wari_game_events(2)
    store.ingest("Table 1", token, events[:2])
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(url)
    card = page.locator('.director-table[data-table="Table 1"]')
    expect(card.locator(".d-turn")).to_have_text("Kofi to move")
    store.ingest("Table 1", token, events[2:])
    expect(card.locator(".d-turn")).to_have_text("Ama to move", timeout=5000)
    illegal = {**events[-1], "seq": 4, "row": {**events[-1]["row"], "id": 9, "verdict": "illegal",
                                               "reason": "pit c was empty"}}
    store.ingest("Table 1", token, [illegal])
    expect(card.locator(".d-alert")).to_have_text("Illegal move: pit c was empty", timeout=5000)
    expect(card).to_have_class("director-table alerted")
    store.ingest("Table 1", token, [game_result(5, "north", {"south": 3, "north": 25})])
    expect(card.locator(".d-turn")).to_have_text("Kofi won, 25 to 3", timeout=5000)
    expect(page.locator("#director-standings tbody tr").first).to_contain_text("Kofi")
    assert card.locator("svg.board").count() == 1
    page.screenshot(path=str(screenshots / "director.png"))
    assert errors == []
    page.close()
