"""A web companion on a scripted Wari table: real tracker and store, stand-in recogniser."""
from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from arbiter.store import Store
from arbiter.matches import open_game
from arbiter.tracker import Tracker
from engines import load_rules
from tests.tracker.fakes import ScriptedRecogniser, position_frame
from webui.app import create_app
from webui.companion import Companion, LatestObservation

RULES = {"game": "wari", "variant": "pbmserv"}
# The browser tests drive Debian's chromium through playwright (the test extras), never a
# downloaded browser.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# Frames per shown position, 0.1 s apart: the motion gate settles after 0.6 s still (with margin).
FRAMES_PER_POSITION = 10


def scripted_positions() -> list[dict]:
    """Start, South c, North d, then South e with a seed slipped one pit too far (illegal)."""
    rules = load_rules(RULES)
    states = [rules.start()]
    for move in ({"player": "south", "pit": "c"}, {"player": "north", "pit": "d"}):
        states.append(rules.apply(states[-1], rules.move_from_json(move)))
    positions = [state.to_json() for state in states]
    slipped = rules.apply(states[-1], rules.move_from_json({"player": "south", "pit": "e"})).to_json()
    slipped["pits"][11] -= 1
    slipped["pits"][0] += 1
    return positions + [slipped]


class ScriptedTable:
    """Shows scripted positions to a live tracker, frame by frame on a virtual clock."""

    def __init__(self, tracker: Tracker, companion: Companion, positions: list[dict]):
        self.tracker = tracker
        self.companion = companion
        self.positions = positions
        self._clock = itertools.count()

    def show(self, index: int) -> None:
        for _ in range(FRAMES_PER_POSITION):
            self.tracker.feed(position_frame(index), next(self._clock) / 10)


@pytest.fixture
def table(tmp_path):
    positions = scripted_positions()
    rules = load_rules(RULES)
    store = Store(tmp_path / "records.sqlite3")
    observations = LatestObservation(ScriptedRecogniser(positions))
    tracker = Tracker(rules, {"game": "wari"}, store, open_game(store, rules), recognize=observations)
    companion = Companion(tracker, None, seat_names={"south": "Ama", "north": "Kofi"},
                          observations=observations)
    yield ScriptedTable(tracker, companion, positions)
    store.close()


def csrf_of(client) -> str:
    """The CSRF token of the client's session (as a page would embed it)."""
    client.get("/table")
    with client.session_transaction() as session:
        return session["csrf"]


@pytest.fixture
def client(table):
    app = create_app(table.companion)
    app.testing = True
    return app.test_client()


@pytest.fixture
def pin_client(table):
    app = create_app(table.companion, pin="4321")
    app.testing = True
    return app.test_client()


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the browser tests (skipped where playwright is not installed)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def screenshots(tmp_path) -> Path:
    """Where screenshots go: $ARBITER_SCREENSHOTS if set (to look at them), else a temp folder."""
    folder = Path(os.environ.get("ARBITER_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
