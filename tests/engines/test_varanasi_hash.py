"""A Varanasi state keeps its hash once asked (the judge hashes each state it weighs several
times): the same value as its towers', turn and last take's, never carried by a pickle."""
from __future__ import annotations

import pickle
from random import Random

from engines import load_rules
from engines.varanasi import VaranasiState, random_setup


def test_a_states_hash_is_its_keys_and_is_kept_but_not_pickled():
    rules = load_rules({"game": "varanasi"})
    rng = Random(4)
    state = random_setup(rng, ("red", "blue", "green"))
    for _ in range(8):
        assert hash(state) == hash((state.towers, state.to_move, state.last_take)) == hash(state)
        assert "_hash" in state.__dict__
        copied = pickle.loads(pickle.dumps(state))
        assert "_hash" not in copied.__dict__ and copied == state and hash(copied) == hash(state)
        reordered = VaranasiState(tuple(reversed(state.stacks)), state.to_move, state.last_take)
        assert reordered == state and hash(reordered) == hash(state)
        moves = rules.legal_moves(state)
        if not moves:
            break
        state = rules.apply(state, rng.choice(moves))
