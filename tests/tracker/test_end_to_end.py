"""The whole chain on simulated tables: renderer -> camera -> gate -> recogniser -> judge -> store."""
from __future__ import annotations

import random

import pytest

from arbiter.store import Store
from arbiter.matches import open_game
from arbiter.tracker import Tracker
from calibration import calibrate
from device.cameras import SimulatedCamera
from device.simulated import scripted_positions, simulated_table
from engines import load_rules

PIECESET = {
    "game": "varanasi", "thickness_mm": 5,
    "sizes": {"1": {"diameter_mm": 20}, "2": {"diameter_mm": 27}, "3": {"diameter_mm": 34}, "4": {"diameter_mm": 41}},
    "colours": {"red": {"srgb": [200, 35, 40]}, "orange": {"srgb": [240, 125, 25]},
                "yellow": {"srgb": [245, 205, 40]}, "green": {"srgb": [40, 150, 60]},
                "blue": {"srgb": [35, 85, 200]}, "purple": {"srgb": [120, 50, 160]}},
}


# The game's own options for its simulated table.
TABLE_OPTIONS = {"wari": {}, "varanasi": {"pieceset": PIECESET}}


def simulated_game(game: str, session: int, plies: int):
    """(rules, profile, positions, pictures) of a random game on the game's simulated table."""
    rules = load_rules({"game": game})
    table = simulated_table(game, session, **TABLE_OPTIONS[game])
    opening = table.opening(rules, random.Random(session))
    # Calibrated as a player would: from the table's own calibration picture.
    profile = calibrate(game, table.calibration_picture(opening.to_json(), shot=99), TABLE_OPTIONS[game].get("pieceset"))
    states = scripted_positions(rules, opening, plies, seed=session)
    return rules, profile, states, table.game_pictures([s.to_json() for s in states])


@pytest.mark.parametrize("game, session, plies", [("wari", 4, 4), ("varanasi", 2, 5)])
def test_every_move_of_a_simulated_game_is_judged_and_recorded(tmp_path, game, session, plies):
    rules, profile, states, pictures = simulated_game(game, session, plies)
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


def test_a_game_with_every_third_picture_missing_is_recorded_whole(tmp_path):
    """A camera that misses pictures (an outage, a move the gate did not see) never stops the
    judging: each gap is asked about once, and play going on from it records its moves."""
    rules, profile, states, pictures = simulated_game("wari", 5, 8)
    shown = [picture for number, picture in enumerate(pictures) if number % 3 or number == 0]
    with Store(tmp_path / "gaps.sqlite3") as store:
        tracker = Tracker(rules, profile, store, open_game(store, rules))
        events = []
        tracker.subscribe(events.append)
        tracker.run(SimulatedCamera(shown, seed=5))
        assert len([e for e in events if e["type"] == "illegal"]) == 2  # the gaps after pictures 2 and 5
        assert tracker.judge.history == states
        assert store.game_history(tracker.game_id)[-1] == states[-1].to_json()
        # The moves taken after each gap say so beside them, on the page and in the record.
        noted = [record.reason for record in store.moves(tracker.game_id) if record.verdict == "move" and record.reason]
        assert len(noted) == 2 and all("played on from the flagged table" in reason for reason in noted)
