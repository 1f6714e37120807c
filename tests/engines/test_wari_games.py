"""Seeded random games of every Wari rule set, played as a random playout plays them, keep giving
the moves, states, refusals and explanations recorded here: each rule set's games are summed up in
one SHA-256 digest, so that a faster way of playing (positions packed into integers,
`engines/wari_board.py`; moves applied unchecked after `legal_moves`) cannot change a game.

Each game records, ply by ply, the legal moves and the move drawn among them; on one ply in eight
a move drawn anywhere on the board, applied to a state rebuilt from its fields (the checked way
into `apply`), with the state it leaves or its refusal; on one ply in eight `explain` of the move
played and of the board with a seed moved; and at the end the final state's JSON and outcome.
"""
import hashlib
import random

import pytest

from engines import IllegalMove, load_rules
from engines.wari import WariMove, WariState

GAMES = 150
RULE_SETS = [  # options beside {"game": "wari"}, and the digest of their GAMES games
    ({"variant": "pbmserv"},
     "dc2741c2887b05179b398e32975091b00dde821edbead26a038326eee746ecdb"),
    ({"variant": "abapa"},
     "277521f7789e8730513fdb8cfb64ea24d742ccfc215e2631cc56099e2b387245"),
    ({"variant": "oware-ver1"},
     "0e24eefc0110476cc97b48bdb2c18a24c454a5ebd95611c50e400721f6f8651b"),
    ({"variant": "four-capture"},
     "b4ae83dc1530a4b9eeb393754afe5910971312221e65e9145973ef64bebf91b9"),
    ({"variant": "aware"},
     "4174de934ab0fe2f5269dcbe86c9ca2d81eb26f7c18035bea4222d5423dffbb2"),
    ({"variant": "aware", "capture_side": "any"},
     "e35d778281feb21785f217843fcc25231f74d2343e00ecbd2880355076bf320c"),
    ({"variant": "four-capture", "remainder": "sides"},
     "5b238ecfb187a39def9dca126c8baa43889413f2691612e22aa6611fdf25d509"),
]


def game_record(rules, seed: int) -> list:
    rng = random.Random(seed)
    state, record = rules.start(), []
    while True:
        if rng.random() < 0.125:
            rebuilt = WariState(state.pits, state.stores, state.mover, state.seen)
            move = WariMove(rng.randrange(2), rng.randrange(6))
            try:
                after = rules.apply(rebuilt, move)
                record.append((move.index, after.pits, after.stores, after.mover, sorted(after.seen)))
            except IllegalMove as exc:
                record.append((move.index, str(exc)))
        moves = rules.legal_moves(state)
        record.append(tuple(m.index for m in moves))
        if not moves:
            break
        after = rules.apply(state, rng.choice(moves))
        if rng.random() < 0.125:
            pits = list(after.pits)
            if any(pits):
                pits[next(i for i in range(12) if pits[i])] -= 1
                pits[rng.randrange(12)] += 1
            for seen in (after, WariState(tuple(pits), after.stores, after.mover)):
                explanation = rules.explain(state, seen)
                record.append((explanation.legal, tuple(m.index for m in explanation.moves), explanation.reason))
        state = after
    record.append((state.to_json(), rules.outcome(state).to_json(), rules.is_over(state)))
    return record


def games_digest(rules_json: dict, games: int, first_seed: int = 0) -> str:
    rules, digest = load_rules(rules_json), hashlib.sha256()
    for seed in range(first_seed, first_seed + games):
        digest.update(repr(game_record(rules, seed)).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("options, digest", RULE_SETS, ids=["-".join(o.values()) for o, _ in RULE_SETS])
def test_seeded_games_are_the_games_the_engine_always_played(options, digest):
    assert games_digest({"game": "wari", **options}, GAMES) == digest
