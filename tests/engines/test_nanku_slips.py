"""Nanku's slips: every table is one no legal placement leaves, and the engine names its kind."""
from __future__ import annotations

from random import Random

import pytest

from device.synthetic_nanku import illegal_after, random_game
from engines.errors import ArbiterError
from engines.nanku import NankuRules, canonical_cubes
from engines.nanku_slips import KINDS, REACH

RULES = NankuRules()
# What the engine says of each kind, as the judge's verdict words it (a piece apart: as a
# placement, or as a table whose pieces do not hold together).
WORDS = {"overhang": ("nothing under it",), "not_touching": ("touches no placed piece", "cut off"),
         "off_grid": ("off the grid",), "lost_piece": ("moved or taken away",)}


def _states(games: int = 6, placements: int = 12):
    for seed in range(games):
        states, _ = random_game(Random(seed), placements)
        yield from states[1::3]


def _reason(before, after) -> str:
    """The engine's words for the change, as the judge gets them from a reading."""
    try:
        read = RULES.state_from_json(after.to_json())
    except ArbiterError as error:
        return str(error)
    explanation = RULES.explain(before, read)
    assert not explanation.legal
    return explanation.reason


def test_every_slip_is_named_by_its_kind_and_no_legal_table():
    seen = dict.fromkeys(KINDS, 0)
    for state in _states():
        legal = {canonical_cubes(RULES.apply(state, move)) for move in RULES.legal_moves(state)}
        legal.add(canonical_cubes(state))
        for slip in RULES.slips(state):
            seen[slip.kind] += 1
            assert any(word in _reason(state, slip.after) for word in WORDS[slip.kind]), slip
            if slip.kind != "off_grid":  # half cubes have no place on the grid of canonical forms
                assert canonical_cubes(slip.after) not in legal, slip
    assert all(seen.values()), seen


def test_the_renderers_slips_are_among_the_engines():
    checked = 0
    for seed in range(20):
        rng = Random(seed)
        states, _ = random_game(rng, 10)
        before = states[rng.randint(2, len(states) - 1)]
        tables = {frozenset(map(tuple, (c for p in s.after.to_json()["pieces"] for c in p)))
                  for s in RULES.slips(before)}
        for kind in ("overhang", "not_touching", "off_grid"):
            after = illegal_after(Random(seed), before, kind)
            if after is None:
                continue
            cubes = frozenset(tuple(c) for c in after)
            taken = {tuple(c[:3]) for c in after[:-2]}
            if kind == "off_grid" and any(abs(c[0] - t[0]) < 1 and abs(c[1] - t[1]) < 1 and c[2] == t[2]
                                          for c in after[-2:] for t in taken):
                continue  # a half cube drawn into a placed cube: no table a player can leave
            if kind == "overhang" and before.colour_at[tuple(after[-2][:2]) + (after[-2][2] - 1,)] == after[-2][3]:
                continue  # a standing piece looks the same from above: left to the judge's question
            assert cubes in tables, (seed, kind)
            checked += 1
    assert checked >= 30


def test_a_piece_apart_lies_within_reach_and_the_turn_passes():
    state = RULES.state_from_json({"game": "nanku", "pieces": [[[0, 0, 0, "white"], [1, 0, 0, "black"]]]})
    apart = [slip.after for slip in RULES.slips(state) if slip.kind == "not_touching"]
    assert apart and all(after.to_move == "white" for after in apart)
    new = [cell for after in apart for cell in after.colour_at if cell not in state.colour_at]
    assert min(x for x, _, _ in new) == -REACH and max(x for x, _, _ in new) == 1 + REACH
    lost = [slip.after for slip in RULES.slips(state) if slip.kind == "lost_piece"]
    assert [after.pieces for after in lost] == [()] and lost[0].to_move == "white"


def test_a_piece_under_another_cannot_be_lost_alone_and_an_ended_game_has_no_slips():
    state = RULES.state_from_json({"game": "nanku", "pieces": [[[0, 0, 0, "white"], [1, 0, 0, "black"]],
                                                               [[0, 0, 1, "white"], [0, 0, 2, "black"]]]})
    lost = [slip.after for slip in RULES.slips(state) if slip.kind == "lost_piece"]
    assert [len(after.pieces) for after in lost] == [1]
    assert lost[0].pieces[0].white.cell == (0, 0, 0)
    over = RULES.state_from_json({"game": "nanku", "pieces": [[[0, 0, 0, "white"], [1, 0, 0, "black"]]],
                                  "collapsed": "black"})
    assert RULES.slips(over) == [] and RULES.slips(RULES.start()) == []


@pytest.mark.parametrize("kind", ["overhang", "off_grid"])
def test_overhangs_and_half_cubes_stay_clear_of_placed_cubes(kind):
    for state in _states(3):
        placed = state.colour_at
        for slip in RULES.slips(state):
            if slip.kind != kind:
                continue
            new = [cell for cell in slip.after.colour_at if cell not in placed]
            assert len(new) == 2
            assert not any(abs(c[0] - p[0]) < 1 and abs(c[1] - p[1]) < 1 and c[2] == p[2] for c in new for p in placed)


def test_an_overhang_a_standing_piece_looks_like_from_above_is_left_out():
    state = RULES.state_from_json({"game": "nanku", "pieces": [[[0, 0, 0, "white"], [1, 0, 0, "black"]]]})
    overhangs = {frozenset(slip.after.colour_at.items()) for slip in RULES.slips(state) if slip.kind == "overhang"}
    base = set(state.colour_at.items())
    # Black on the white cube, white over the empty cell: listed. White on white: left out.
    assert frozenset(base | {((0, 0, 1), "black"), ((-1, 0, 1), "white")}) in overhangs
    assert frozenset(base | {((0, 0, 1), "white"), ((-1, 0, 1), "black")}) not in overhangs
    assert frozenset(base | {((1, 0, 1), "white"), ((2, 0, 1), "black")}) in overhangs
