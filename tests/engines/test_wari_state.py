"""Wari states share the positions seen along a line of play instead of copying them: every
state still sees exactly the positions since its last capture, however play branches, and
compares, hashes, prints, pickles and refuses assignment as a frozen dataclass would."""
from __future__ import annotations

import copy
import pickle
import random
from dataclasses import FrozenInstanceError

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import load_rules
from engines.wari import VARIANTS, WariMove, WariState


def _walk(rules, rng: random.Random, plies: int):
    """States of random play that branches: each ply continues from a state picked among all
    reached so far, with the positions it must have seen worked out as sets."""
    start = rules.start()
    states = [(start, frozenset())]
    for _ in range(plies):
        state, seen = rng.choice(states)
        moves = rules.legal_moves(state)
        if not moves:
            continue
        after = rules.apply(state, rng.choice(moves))
        expected = frozenset() if after.stores != state.stores else seen | {state.position}
        states.append((after, expected))
    return states


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(VARIANTS)), st.integers(0, 2**32 - 1))
def test_every_state_sees_the_positions_since_its_capture_however_play_branches(variant, seed):
    rules = load_rules({"game": "wari", "variant": variant})
    for state, expected in _walk(rules, random.Random(seed), 300):
        assert state.seen == expected
        assert state.repeated() == (state.position in expected)
        twin = WariState(state.pits, state.stores, state.mover, expected)
        assert twin == state and hash(twin) == hash(state) == hash((state.pits, state.stores, state.mover, expected))
        assert rules.legal_moves(twin) == rules.legal_moves(state)


def test_a_state_is_a_frozen_value():
    rules = load_rules({"game": "wari"})
    state = rules.apply(rules.start(), WariMove(0, 2))
    with pytest.raises(FrozenInstanceError):
        state.pits = (0,) * 12
    assert repr(state) == (f"WariState(pits={state.pits!r}, stores=(0, 0), mover=1, "
                           f"seen=frozenset({{{rules.start().position!r}}}))")
    for copied in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert copied == state and copied.seen == state.seen
    assert state != rules.start() and state != (state.pits, state.stores, state.mover, state.seen)


def test_moves_apply_as_they_are_listed_or_made_anew():
    # apply takes a move legal_moves listed without checking it again; an equal move made anew,
    # or a move on a state nobody listed, is checked and gives the same state.
    rules = load_rules({"game": "wari", "variant": "oware-ver1"})
    rng = random.Random(3)
    state = rules.start()
    while moves := rules.legal_moves(state):
        move = rng.choice(moves)
        fresh = WariState(state.pits, state.stores, state.mover, state.seen)
        assert rules.apply(fresh, WariMove(move.player, move.pit)) == rules.apply(state, move)
        state = rules.apply(state, move)
