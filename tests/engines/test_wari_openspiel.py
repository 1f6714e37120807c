"""Differential test: the `abapa` variant against OpenSpiel's `oware` over random games.

OpenSpiel's observation string reads "mover | south_score north_score | 12 pits", pits in the
contract's order (South a..f, then North a..f). At the end OpenSpiel has already moved the seeds
left on the board into the scores, which this engine reports through `outcome().scores`.
"""
import random

import pytest

from engines import load_rules

# OpenSpiel is only an oracle for this test (the open-spiel test extra: pip install -e '.[test]').
pyspiel = pytest.importorskip("pyspiel")

ABAPA = load_rules({"game": "wari", "variant": "abapa"})
PBMSERV = load_rules({"game": "wari", "variant": "pbmserv"})
# Enough random games to reach every ending and special rule many times over (each occurs within
# the first 15 games of this seed; grand slams, the rarest, in about one game in sixteen).
GAMES = 300


def openspiel_board(state):
    mover, _, south, north, _, *pits = state.observation_string(0).split()
    return tuple(map(int, pits)), (int(south), int(north)), int(mover)


def test_abapa_matches_openspiel_oware_move_by_move():
    game = pyspiel.load_game("oware")
    rng = random.Random(20261122)
    endings = {"south": 0, "north": 0, None: 0}
    events = {"repetition": 0, "must feed": 0, "grand slam": 0}
    for number in range(GAMES):
        ours, theirs = ABAPA.start(), game.new_initial_state()
        ply = 0
        while True:
            legal = ABAPA.legal_moves(ours)
            expected = [] if theirs.is_terminal() else theirs.legal_actions()
            assert [m.pit for m in legal] == expected, f"game {number} ply {ply}: legal moves differ"
            if not legal:
                break
            move = rng.choice(legal)
            opponent = slice(6, 12) if ours.mover == 0 else slice(0, 6)
            events["must feed"] += not any(ours.pits[opponent])
            after = ABAPA.apply(ours, move)
            # A grand slam leaves the row all 2s, 3s and empty pits; pbmserv would capture it.
            if after.stores == ours.stores and all(n in (0, 2, 3) for n in after.pits[opponent]):
                events["grand slam"] += (move in PBMSERV.legal_moves(ours)
                                         and PBMSERV.apply(ours, move).stores != after.stores)
            ours = after
            theirs.apply_action(move.pit)
            ply += 1
            if not theirs.is_terminal():
                assert (ours.pits, ours.stores, ours.mover) == openspiel_board(theirs), (
                    f"game {number} ply {ply}: boards differ")
        outcome = ABAPA.outcome(ours)
        _, final_scores, _ = openspiel_board(theirs)
        assert (outcome.scores["south"], outcome.scores["north"]) == final_scores, f"game {number}: scores differ"
        south_return = theirs.returns()[0]
        assert outcome.winner == {1: "south", -1: "north", 0: None}[south_return], f"game {number}: winner differs"
        endings[outcome.winner] += 1
        events["repetition"] += ours.position in ours.seen
    # The random games must reach every result and special rule for the comparison to mean something.
    assert all(endings.values()) and all(events.values()), (endings, events)
