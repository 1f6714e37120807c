"""The slips a Wari referee exists for, made on purpose: positions no legal move reaches.

Each kind (the names of the bench's `illegal_pairs`) turns a game position and one of its legal
moves into the table a player who slipped would leave:

- `skipped_pit`: a pit on the way passed over, so the sowing ends one pit further;
- `double_drop`: two seeds dropped in the first pit, so the sowing ends one pit short;
- `missed_capture`: a capturing move sown but its seeds left in their pits;
- `wrong_capture`: a sowing that captures nothing, its last pit's seeds taken all the same;
- `knocked_seed`: a legal move, then a seed knocked from a pit into its neighbour;
- `out_of_turn`: the player not on turn sows one of his pits.

The first two are made from moves that capture nothing, so that the slip is the only difference
from the legal table. Every table made holds the game's 48 seeds and is checked against the
rules: none that a legal move explains is returned.
"""
from __future__ import annotations

import numpy as np

from engines.wari import PITS, ROW, WariRules, WariState
from engines.wari_slips import sowing_path, sown_along

KINDS = ("skipped_pit", "double_drop", "missed_capture", "wrong_capture", "knocked_seed", "out_of_turn")


def mistake(rules: WariRules, state: WariState, kind: str, rng: np.random.Generator) -> dict | None:
    """A table (pits, stores, the player whose turn it was) after a slip of `kind` in `state`,
    or None where the position offers no such slip."""
    moves = rules.legal_moves(state)
    # The tables a legal move (or no move) leaves: a slip must leave another.
    legal = {(after.pits, after.stores) for after in (rules.apply(state, move) for move in moves)}
    legal.add((state.pits, state.stores))
    order = [moves[i] for i in rng.permutation(len(moves))]
    for move in order:
        after = _SLIPS[kind](rules, state, move, rng)
        if after is None:
            continue
        pits, stores = after
        if min(pits) < 0 or sum(pits) + sum(stores) != sum(state.pits) + sum(state.stores):
            continue
        if (tuple(pits), tuple(stores)) in legal:
            continue
        return {"pits": list(pits), "stores": list(stores), "player": state.to_move}
    return None


def _captures(rules: WariRules, state: WariState, move) -> bool:
    return rules.apply(state, move).stores != state.stores


def _skipped_pit(rules, state, move, rng):
    path = sowing_path(rules, state, move.index)
    if len(path) < 2 or _captures(rules, state, move):
        return None
    pits = list(rules.apply(state, move).pits)
    pits[path[int(rng.integers(len(path)))]] -= 1
    pits[sowing_path(rules, state, move.index, len(path) + 1)[-1]] += 1
    return pits, list(state.stores)


def _double_drop(rules, state, move, rng):
    path = sowing_path(rules, state, move.index)
    if len(path) < 2 or _captures(rules, state, move):
        return None
    pits = list(rules.apply(state, move).pits)
    pits[path[0]] += 1
    pits[path[-1]] -= 1
    return pits, list(state.stores)


def _missed_capture(rules, state, move, rng):
    if not _captures(rules, state, move):
        return None
    return sown_along(state, move.index, sowing_path(rules, state, move.index)), list(state.stores)


def _wrong_capture(rules, state, move, rng):
    if _captures(rules, state, move):
        return None
    pits = list(rules.apply(state, move).pits)
    last = sowing_path(rules, state, move.index)[-1]
    if last // ROW == move.player or not pits[last]:
        return None
    stores = list(state.stores)
    stores[move.player] += pits[last]
    pits[last] = 0
    return pits, stores


def _knocked_seed(rules, state, move, rng):
    after = rules.apply(state, move)
    pits = list(after.pits)
    full = [pit for pit in range(PITS) if pits[pit]]
    pit = full[int(rng.integers(len(full)))]
    row_start = pit - pit % ROW
    neighbours = [p for p in (pit - 1, pit + 1) if row_start <= p < row_start + ROW]
    pits[pit] -= 1
    pits[neighbours[int(rng.integers(len(neighbours)))]] += 1
    return pits, list(after.stores)


def _out_of_turn(rules, state, move, rng):
    other = WariState(state.pits, state.stores, 1 - state.mover)
    theirs = rules.legal_moves(other)
    if not theirs:
        return None
    played = rules.apply(other, theirs[int(rng.integers(len(theirs)))])
    return list(played.pits), list(played.stores)


_SLIPS = {"skipped_pit": _skipped_pit, "double_drop": _double_drop, "missed_capture": _missed_capture,
          "wrong_capture": _wrong_capture, "knocked_seed": _knocked_seed, "out_of_turn": _out_of_turn}
