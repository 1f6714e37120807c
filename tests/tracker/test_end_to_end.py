"""The whole chain on a simulated Wari table: renderer -> camera -> gate -> recogniser -> judge -> store."""
from __future__ import annotations

import pytest

from arbiter.run import render_position, scripted_positions
from arbiter.store import Store
from arbiter.tracker import Tracker, open_game
from calibration.wari import calibrate
from device.cameras import SimulatedCamera
from engines import load_rules

SESSION = 4
PLIES = 6


@pytest.fixture(scope="module")
def table():
    rules = load_rules({"game": "wari", "variant": "pbmserv"})
    states = scripted_positions(rules, rules.start(), PLIES, seed=SESSION)
    pictures = [render_position(s.to_json(), {}, SESSION, shot) for shot, s in enumerate(states)]
    # Calibrated as a player would: from the camera's own picture of the start.
    profile = calibrate(render_position(rules.start().to_json(), {}, SESSION, shot=99))
    return rules, states, pictures, profile


def test_every_move_of_a_simulated_game_is_judged_and_recorded(tmp_path, table):
    rules, states, pictures, profile = table
    with Store(tmp_path / "e2e.sqlite3") as store:
        tracker = Tracker(rules, profile, store, open_game(store, rules))
        events = []
        tracker.subscribe(events.append)
        tracker.run(SimulatedCamera(pictures, seed=SESSION))
        transitions = [e for e in events if e["type"] in ("transition", "illegal")]
        assert [t["verdict"] for t in transitions] == ["start"] + ["move"] * PLIES
        for transition, before, after in zip(transitions[1:], states, states[1:]):
            assert rules.apply(before, rules.move_from_json(transition["move"])) == after
        assert "hand" in {e["status"] for e in events if e["type"] == "status"}
        assert store.game_history(tracker.game_id)[-1] == states[-1].to_json()
