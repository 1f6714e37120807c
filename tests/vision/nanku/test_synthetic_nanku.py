"""The synthetic Nanku sessions' slips are slips: no legal placement explains them."""
from __future__ import annotations

from random import Random

import pytest

from device.synthetic_nanku import illegal_after, random_game
from engines.errors import ArbiterError
from engines.nanku import NankuRules


def _pieces(cubes: list) -> list:
    """The generator lists each piece's two cubes one after the other."""
    return [[cubes[i], cubes[i + 1]] for i in range(0, len(cubes), 2)]


@pytest.mark.parametrize("kind", ["overhang", "not_touching", "off_grid", "two_pieces"])
def test_every_slip_is_one_no_legal_placement_explains(kind):
    rules = NankuRules()
    made = 0
    for seed in range(30):
        rng = Random(seed)
        states, _ = random_game(rng, 10)
        before = states[rng.randint(2, len(states) - 1)]
        after = illegal_after(rng, before, kind)
        if after is None:
            continue
        made += 1
        try:
            explained = rules.explain(before, rules.state_from_json({"game": "nanku", "pieces": _pieces(after)})).legal
        except ArbiterError:
            explained = False  # not even a position: off the grid, overhanging, cut off
        assert not explained
    assert made >= 20


def test_random_games_are_legal_and_reach_three_levels():
    rules = NankuRules()
    heights = []
    for seed in range(10):
        states, moves = random_game(Random(seed), 16)
        for before, move, after in zip(states, moves, states[1:]):
            assert rules.apply(before, move) == after
        heights.append(max(cube.z for piece in states[-1].pieces for cube in piece.cubes) + 1)
    assert max(heights) >= 3
