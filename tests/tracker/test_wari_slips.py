"""Every slip the fresh renders photograph is an illegal table, and the judge flags it by name."""
from __future__ import annotations

import numpy as np
import pytest

from arbiter.judge import Judge
from engines.wari import VARIANTS, WariRules
from tests.tracker.fakes import FakeObservation
from training.wari_render.mistakes import KINDS, mistake
from training.wari_render.session import illegal_pairs, random_game

RULES = WariRules(VARIANTS["pbmserv"])


@pytest.mark.parametrize("play", ["random", "hoarding"])
def test_every_kind_of_slip_is_made_and_flagged_with_a_pit_or_turn(play):
    game = random_game(60, np.random.default_rng(3), play)
    pairs = illegal_pairs([({**item, "image": f"seq{i:03d}.jpg"}, state) for i, (item, state) in enumerate(game)],
                          2 * len(KINDS), np.random.default_rng(4))
    assert [pair["kind"] for pair in pairs] == list(KINDS) * 2
    for pair in pairs:
        before = pair["before"]
        state = RULES.state_from_json({"game": "wari", "pits": before["pits"], "stores": before["stores"],
                                       "to_move": pair["player"]})
        after = pair["after"]
        assert sum(after["pits"]) + sum(after["stores"]) == 48 and min(after["pits"]) >= 0
        judge = Judge(RULES, [state])
        verdict = judge.judge(FakeObservation({"game": "wari", "pits": after["pits"], "stores": after["stores"]}))
        assert not verdict.legal, pair
        assert any(word in verdict.reason for word in ("pit", "store", "turn", "North's", "South's")), verdict.reason


def test_slips_leave_the_seeds_and_miss_every_legal_table():
    rng = np.random.default_rng(7)
    made = dict.fromkeys(KINDS, 0)
    for _, state in random_game(80, np.random.default_rng(8), "hoarding"):
        if RULES.is_over(state):
            continue
        legal = {(RULES.apply(state, m).pits, RULES.apply(state, m).stores) for m in RULES.legal_moves(state)}
        for kind in KINDS:
            after = mistake(RULES, state, kind, rng)
            if after is None:
                continue
            made[kind] += 1
            assert (tuple(after["pits"]), tuple(after["stores"])) not in legal
            assert sum(after["pits"]) + sum(after["stores"]) == 48
    assert all(made.values()), made


def test_hoarding_play_builds_bigger_piles_than_random_play():
    def biggest(play: str, seed: int) -> int:
        return max(max(item["pits"]) for item, _ in random_game(60, np.random.default_rng(seed), play))

    assert sum(biggest("hoarding", s) for s in range(10)) > sum(biggest("random", s) for s in range(10))


def test_a_slip_that_two_moves_also_explain_is_flagged_with_both_readings():
    # South sows a out of turn; North a then South a leaves the same table.
    before = RULES.state_from_json({"game": "wari", "pits": [19, 3, 0, 0, 0, 6, 1, 0, 0, 1, 2, 1],
                                    "stores": [7, 8], "to_move": "north"})
    after = {"game": "wari", "pits": [0, 5, 2, 2, 2, 8, 0, 0, 0, 2, 3, 2], "stores": [14, 8]}
    verdict = Judge(RULES, [before]).judge(FakeObservation(after))
    assert not verdict.legal and verdict.kind == "two_moves"
    assert "North a then South a" in verdict.reason and "it is North's turn" in verdict.reason
