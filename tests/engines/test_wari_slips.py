"""The tables a player's slips leave (engines/wari_slips.py): what a judge weighs beside the legal moves."""
import random

import numpy as np
from hypothesis import given, settings, strategies as st

from engines import load_rules
from engines.wari import TOTAL_SEEDS, WariState
from engines.wari_slips import KINDS, sowing_path

from tests.engines.test_wari_properties import RULES, random_game

PBMSERV = load_rules({"game": "wari"})


def _state(pits, stores=(0, 0), to_move="south"):
    return PBMSERV.state_from_json({"game": "wari", "pits": list(pits), "stores": list(stores), "to_move": to_move})


def _tables(rules, state, kind=None):
    return {(slip.after.pits, slip.after.stores) for slip in rules.slips(state) if kind in (None, slip.kind)}


def test_each_kind_of_slip_from_the_start():
    start = PBMSERV.start()
    # South sows c (4 seeds: d, e, f, North's a).
    assert ((4, 4, 0, 4, 5, 5, 5, 5, 4, 4, 4, 4), (0, 0)) in _tables(PBMSERV, start, "skipped_pit")  # d skipped
    assert ((4, 4, 0, 6, 5, 5, 4, 4, 4, 4, 4, 4), (0, 0)) in _tables(PBMSERV, start, "double_drop")  # two in d
    assert ((4, 4, 0, 5, 6, 4, 5, 4, 4, 4, 4, 4), (0, 0)) in _tables(PBMSERV, start, "knocked_seed")  # f into e
    assert ((4, 4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4), (0, 0)) in _tables(PBMSERV, start, "out_of_turn")  # North a
    # North's a holds 5 after South c: taking them is a capture that was not due.
    assert ((4, 4, 0, 5, 5, 5, 0, 4, 4, 4, 4, 4), (5, 0)) in _tables(PBMSERV, start, "wrong_capture")


def test_a_capture_missed_and_a_capture_after_a_skipped_pit():
    # South's f (2 seeds) sows North's a and b, making 2 and 3: a capture of 5.
    before = _state((0, 0, 0, 0, 1, 2, 1, 2, 4, 4, 4, 4), (10, 16))
    assert ((0, 0, 0, 0, 1, 0, 2, 3, 4, 4, 4, 4), (10, 16)) in _tables(PBMSERV, before, "missed_capture")
    # Skipping North's a ends the sowing in c, which then holds 5: nothing to capture.
    assert ((0, 0, 0, 0, 1, 0, 1, 3, 5, 4, 4, 4), (10, 16)) in _tables(PBMSERV, before, "skipped_pit")


def test_sowing_path_skips_the_origin_on_a_lap():
    state = _state((12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), (18, 18))
    assert sowing_path(PBMSERV, state, 0) == list(range(1, 12)) + [1]


@settings(max_examples=20, deadline=None)
@given(rules=st.sampled_from(RULES), data=st.data())
def test_slips_hold_the_seeds_and_no_legal_move_leaves_them(rules, data):
    states = random_game(rules, data.draw)
    for state in states[:: max(1, len(states) // 8)]:
        if rules.is_over(state):
            continue
        legal = {(after.pits, after.stores) for after in (rules.apply(state, m) for m in rules.legal_moves(state))}
        for slip in rules.slips(state):
            assert slip.kind in KINDS
            assert sum(slip.after.pits) + sum(slip.after.stores) == TOTAL_SEEDS and min(slip.after.pits) >= 0
            assert (slip.after.pits, slip.after.stores) not in legal | {(state.pits, state.stores)}


@settings(max_examples=20, deadline=None)
@given(rules=st.sampled_from(RULES), data=st.data())
def test_a_slip_never_leaves_a_single_full_pit_one_seed_off_a_legal_table(rules, data):
    """What lets the judge doubt the camera: a pit read one seed off, the seed made up in a store,
    is no slip of a player unless the pit is empty in one of the two tables."""
    states = random_game(rules, data.draw)
    for state in states[:: max(1, len(states) // 8)]:
        if rules.is_over(state):
            continue
        legal = [rules.apply(state, m) for m in rules.legal_moves(state)] + [state]
        for slip in rules.slips(state):
            for after in legal:
                differ = [i for i, (a, b) in enumerate(zip(slip.after.pits, after.pits)) if a != b]
                if len(differ) == 1 and abs(slip.after.pits[differ[0]] - after.pits[differ[0]]) == 1:
                    assert 0 in (slip.after.pits[differ[0]], after.pits[differ[0]])


def test_every_slip_the_renderer_makes_is_among_them():
    from training.wari_render.mistakes import mistake

    rng = np.random.default_rng(7)
    draws = random.Random(7)
    found = 0
    for game in range(12):
        state = PBMSERV.start()
        for ply in range(40):
            if PBMSERV.is_over(state):
                break
            for kind in KINDS:
                slipped = mistake(PBMSERV, state, kind, rng)
                if slipped is None:
                    continue
                found += 1
                assert (tuple(slipped["pits"]), tuple(slipped["stores"])) in _tables(PBMSERV, state), kind
            moves = PBMSERV.legal_moves(state)
            state = PBMSERV.apply(state, moves[draws.randrange(len(moves))])
    assert found > 1000


def test_a_position_with_no_move_still_has_knocked_seeds():
    over = WariState((0,) * 6 + (1,) * 6, (20, 22), 0)
    assert not PBMSERV.legal_moves(over)
    assert _tables(PBMSERV, over, "knocked_seed")
