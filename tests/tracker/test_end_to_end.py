"""The whole chain on simulated tables: renderer -> camera -> gate -> recogniser -> judge -> store."""
from __future__ import annotations

import random

import pytest

from arbiter.run import render_game, render_position, scripted_positions, simulated_opening
from arbiter.store import Store
from arbiter.tracker import Tracker, open_game
from device.cameras import SimulatedCamera
from engines import load_rules

PIECESET = {
    "game": "varanasi", "thickness_mm": 5,
    "sizes": {"1": {"diameter_mm": 20}, "2": {"diameter_mm": 27}, "3": {"diameter_mm": 34}, "4": {"diameter_mm": 41}},
    "colours": {"red": {"srgb": [200, 35, 40]}, "orange": {"srgb": [240, 125, 25]},
                "yellow": {"srgb": [245, 205, 40]}, "green": {"srgb": [40, 150, 60]},
                "blue": {"srgb": [35, 85, 200]}, "purple": {"srgb": [120, 50, 160]}},
}


def wari_table(session: int, plies: int):
    from calibration.wari import calibrate

    rules = load_rules({"game": "wari", "variant": "pbmserv"})
    # Calibrated as a player would: from the camera's own picture of the start.
    profile = calibrate(render_position(rules.start().to_json(), {}, session, shot=99))
    return rules, profile, scripted_positions(rules, rules.start(), plies, seed=session)


def varanasi_table(session: int, plies: int):
    from calibration.varanasi import calibrate
    from device.synthetic_varanasi import render_calibration

    rules = load_rules({"game": "varanasi"})
    profile = calibrate(render_calibration(PIECESET, seed=session), PIECESET)
    opening = simulated_opening(rules, profile, random.Random(session))
    return rules, profile, scripted_positions(rules, opening, plies, seed=session)


@pytest.mark.parametrize("make_table, session, plies", [(wari_table, 4, 4), (varanasi_table, 2, 5)],
                         ids=["wari", "varanasi"])
def test_every_move_of_a_simulated_game_is_judged_and_recorded(tmp_path, make_table, session, plies):
    rules, profile, states = make_table(session, plies)
    pictures = render_game([s.to_json() for s in states], profile, session)
    with Store(tmp_path / "e2e.sqlite3") as store:
        tracker = Tracker(rules, profile, store, open_game(store, rules))
        events = []
        tracker.subscribe(events.append)
        tracker.run(SimulatedCamera(pictures, seed=session))
        transitions = [e for e in events if e["type"] in ("transition", "illegal")]
        assert [t["verdict"] for t in transitions] == ["start"] + ["move"] * plies
        for transition, before, after in zip(transitions[1:], states, states[1:]):
            assert rules.apply(before, rules.move_from_json(transition["move"])) == after
        assert "hand" in {e["status"] for e in events if e["type"] == "status"}
        # Compared as positions: a Varanasi position's JSON may list its towers in any order.
        assert rules.state_from_json(store.game_history(tracker.game_id)[-1]) == states[-1]
