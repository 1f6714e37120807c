"""Towers stay where they were set up: a reading weighed after the last picture knows where."""
from __future__ import annotations

from vision.varanasi_observation import DiscReading, TowerReading, VaranasiObservation
from vision.varanasi_params import SHIFTED_TOWER_LOG


def _tower(x: float, y: float, slots) -> TowerReading:
    return TowerReading(tuple(DiscReading(size, (x, y), 10.0 * size, presence, ((colour, 0.99),), colour)
                              for size, presence, colour in slots))


def table(*towers) -> dict:
    return {"game": "varanasi", "stacks": [list(tower) for tower in towers]}


BEFORE = VaranasiObservation((
    _tower(300.0, 700.0, [(4, 0.999, "blue")]),
    _tower(860.0, 460.0, [(4, 0.001, "blue"), (3, 0.999, "red"), (2, 0.999, "yellow")]),
), scene_confidence=1.0)
# 4blue is gone from its spot; under the red tower a ring of a 4-disc is half seen.
AFTER = VaranasiObservation((
    _tower(862.0, 458.0, [(4, 0.415, "blue"), (3, 0.999, "red"), (2, 0.999, "yellow")]),
), scene_confidence=1.0)
TAKEN = table(["3red", "2yellow"])
RELOCATED = table(["4blue", "3red", "2yellow"])  # the red tower put onto 4blue


def test_a_tower_read_away_from_its_spot_costs_the_prior_of_a_knocked_tower():
    plain = AFTER.log_likelihood(RELOCATED) - AFTER.log_likelihood(TAKEN)
    anchored = AFTER.weighed_after(BEFORE)
    assert abs(plain) < 1.0  # from this picture alone the two are nearly alike
    placed = anchored.log_likelihood(RELOCATED) - anchored.log_likelihood(TAKEN)
    assert placed == plain + SHIFTED_TOWER_LOG


def test_towers_where_they_were_cost_nothing_and_no_picture_before_changes_nothing():
    anchored = AFTER.weighed_after(BEFORE)
    assert anchored.log_likelihood(TAKEN) == AFTER.log_likelihood(TAKEN)
    assert AFTER.weighed_after(None) is AFTER
    assert AFTER.weighed_after(object()) is AFTER
