"""The judge weighs Nanku players' slips, not every reading the picture allows, against a placement.

A camera reading stand-in scores the tables it is told of and every other far below; the judge
must flag a table a slip explains better, take a placement with a question where only a reading no
slip explains (a second piece, a column's height) beats it, and say why.
"""
from __future__ import annotations

from arbiter.judge import ASK_MARGIN, FIT_MARGIN, ILLEGAL, MOVE, Judge
from engines.nanku import NankuRules
from vision.nanku import NankuObservation, top_view
from vision.nanku_camera import cubes_of

RULES = NankuRules()
W, B = "white", "black"
FIRST = RULES.state_from_json({"game": "nanku", "pieces": [[[0, 0, 0, W], [1, 0, 0, B]]]})
# A standing piece beside the first: legal.
STANDING = [[-1, 0, 0, W], [-1, 0, 1, B]]
# The same column tops seen from above, with the black cube in the air: one piece lying on the
# white cube, reaching over the empty cell beside it (an overhang the camera cannot tell from the
# standing piece but for heights).
LOOKALIKE = [[0, 0, 1, W], [-1, 0, 1, B]]
# An overhang that shows a new colour on top of the first piece's white cube.
OVERHANG = [[0, 0, 1, B], [-1, 0, 1, W]]
# Beside the first piece, away from the standing one's cell: another legal placement.
ELSEWHERE = [[0, 1, 0, W], [1, 1, 0, B]]


def table(*pieces) -> dict:
    return {"game": "nanku", "pieces": [[[0, 0, 0, W], [1, 0, 0, B]], *pieces]}


def key(state: dict) -> frozenset:
    return frozenset(tuple(cube) for piece in state["pieces"] for cube in piece)


class Reads:
    """A reading whose best table is `best`; `scores` maps other tables to their log-likelihood
    under it, every table not named scores 50 nats below."""

    def __init__(self, best: dict, scores: dict):
        self.best = best
        self.scores = {key(best): 0.0} | {key(state): score for state, score in scores}

    def to_json(self) -> dict:
        return {"state": self.best, "confidence": 0.95, "evidence": {}}

    def best_log_likelihood(self, following=None) -> float:
        return 0.0

    def best_reading(self, following=None) -> dict:
        return self.best

    def log_likelihood(self, state: dict) -> float:
        return self.scores.get(key(state), -50.0)

    def doubtful(self, candidate: dict, following: dict) -> str:
        return NankuObservation.doubtful(self, candidate, following)


def test_a_second_piece_no_slip_explains_leaves_the_placement_taken_with_a_question():
    # The best reading adds a piece the camera half sees; the one placement played is 6 nats behind
    # (past the fitting odds of 1:100, within those of 1:10,000 that a reading no slip explains has).
    gap = (FIT_MARGIN + ASK_MARGIN) / 2
    observation = Reads(table(STANDING, ELSEWHERE), [(table(STANDING), -gap)])
    verdict = Judge(RULES, [FIRST]).judge(observation)
    assert verdict.kind == MOVE and verdict.legal
    assert key(verdict.state.to_json()) == key(table(STANDING))
    assert verdict.note.startswith("not sure") and "please check" in verdict.note


def test_an_overhang_the_picture_shows_is_flagged_by_name_at_a_slips_odds():
    # The placement nearest to the picture differs from the overhang where the camera sees it.
    gap = (FIT_MARGIN + ASK_MARGIN) / 2
    observation = Reads(table(OVERHANG), [(table(ELSEWHERE), -gap)])
    verdict = Judge(RULES, [FIRST]).judge(observation)
    assert verdict.kind == ILLEGAL and "nothing under it" in verdict.reason


def test_an_overhang_is_flagged_where_it_beats_a_lookalike_placement_past_asking_odds():
    observation = Reads(table(LOOKALIKE), [(table(STANDING), -ASK_MARGIN - 1.0)])
    verdict = Judge(RULES, [FIRST]).judge(observation)
    assert verdict.kind == ILLEGAL and "nothing under it" in verdict.reason


def test_a_placement_that_differs_from_an_overhang_only_in_heights_is_asked_about_not_flagged():
    # Seen from above both show white on (0, 0) and black on (-1, 0): only the heights differ.
    assert top_view(cubes_of(table(LOOKALIKE))) == top_view(cubes_of(table(STANDING)))
    gap = (FIT_MARGIN + ASK_MARGIN) / 2
    observation = Reads(table(LOOKALIKE), [(table(STANDING), -gap)])
    verdict = Judge(RULES, [FIRST]).judge(observation)
    assert verdict.kind == MOVE and key(verdict.state.to_json()) == key(table(STANDING))
    assert verdict.note.startswith("not sure") and "nothing under it" in verdict.note


def test_without_slips_the_same_second_piece_is_flagged():
    # The design's counterpart: where the rules list no slips, every reading is an alternative at
    # 1:100, and the same picture is not taken as the placement.
    class NoSlips(NankuRules):
        slips = None

    gap = (FIT_MARGIN + ASK_MARGIN) / 2
    observation = Reads(table(STANDING, ELSEWHERE), [(table(STANDING), -gap)])
    verdict = Judge(NoSlips(), [FIRST]).judge(observation)
    assert not verdict.legal

