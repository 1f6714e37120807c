"""The slips a Wari referee exists for: every table a player who slipped once could leave.

A judge that knows only the legal moves must compare each against "anything else the camera
could have seen", and then one miscounted pit looks as much like a slip as a real slip does.
Players' slips are few and have a shape, so the judge weighs them as tables of their own:

- `skipped_pit`: a pit on the way passed over, so the sowing ends one pit further;
- `double_drop`: two seeds dropped in the first pit, so the sowing ends one pit short;
- `missed_capture`: a capturing move sown but its seeds left in their pits;
- `wrong_capture`: a sowing that captures nothing, its last pit's seeds taken all the same;
- `knocked_seed`: a seed knocked from a pit into its neighbour on the same row, after a legal
  move or with no move at all;
- `out_of_turn`: the player not on turn sows one of his pits.

Every table holds the position's seeds, and none is a table a legal move (or no move) leaves.
A table one seed off a legal one in a single pit that neither leaves empty (a store making up the
seed) is none of these: sowing slips move a seed between two pits, and a capture, made or missed,
empties a pit or leaves it full. A camera that reads one pit a seed off is doubted, not a player.
"""
from __future__ import annotations

from dataclasses import dataclass

from engines.wari import PITS, ROW, WariRules, WariState

KINDS = ("skipped_pit", "double_drop", "missed_capture", "wrong_capture", "knocked_seed", "out_of_turn")


@dataclass(frozen=True)
class Slip:
    """One slip: its kind, the table it leaves (the turn passed on as the move would pass it)."""

    kind: str
    after: WariState


def sowing_path(rules: WariRules, state: WariState, origin: int, seeds: int | None = None) -> list[int]:
    """The pits the origin's seeds fall in, one per seed, as the variant sows (the origin skipped
    where it is, full pits passed over where the variant says so; a relay of fours not followed).
    `seeds`: as many as that instead of the origin's own (one more: where a seed too many lands)."""
    variant = rules.variant
    pits = list(state.pits)
    path, pit, hand = [], origin, pits[origin] if seeds is None else seeds
    pits[origin] = 0
    while hand:
        pit = (pit + 1) % PITS
        if (variant.skip_origin and pit == origin) or (variant.full_pit is not None and pits[pit] >= variant.full_pit):
            continue
        pits[pit] += 1
        path.append(pit)
        hand -= 1
    return path


def sown_along(state: WariState, origin: int, path: list[int]) -> list[int]:
    """The pits after the origin's seeds fall one in each pit of `path`, before any capture."""
    pits = list(state.pits)
    pits[origin] = 0
    for pit in path:
        pits[pit] += 1
    return pits


def slips(rules: WariRules, state: WariState) -> list[Slip]:
    """Every table one slip from `state` can leave (one per distinct table and kind)."""
    legal = {(after.pits, after.stores) for after in (rules.apply(state, m) for m in rules.legal_moves(state))}
    legal.add((state.pits, state.stores))
    found: dict[tuple, Slip] = {}

    def add(kind: str, pits: list[int], stores, mover: int) -> None:
        board = (tuple(pits), tuple(stores))
        if min(pits) < 0 or board in legal or board in found:
            return
        found[board] = Slip(kind, WariState(board[0], (board[1][0], board[1][1]), mover))

    passed_on = 1 - state.mover
    _knock(add, list(state.pits), state.stores, state.mover)  # a seed knocked with no move made
    for move in rules.legal_moves(state):
        after = rules.apply(state, move)
        pits, stores = list(after.pits), after.stores
        path = sowing_path(rules, state, move.index)
        captured = after.stores != state.stores
        if len(path) >= 2:
            beyond = sowing_path(rules, state, move.index, len(path) + 1)[-1]
            for slipped in range(len(path)):
                _sow_slipped(rules, add, state, move, path[:slipped] + path[slipped + 1:] + [beyond], "skipped_pit")
            for slipped in range(len(path) - 1):
                _sow_slipped(rules, add, state, move, path[:slipped + 1] + path[slipped:-1], "double_drop")
        if captured:
            add("missed_capture", sown_along(state, move.index, path), state.stores, passed_on)
        elif path and path[-1] // ROW != move.player and pits[path[-1]]:
            taken = list(pits)
            taken_stores = list(stores)
            taken_stores[move.player] += taken[path[-1]]
            taken[path[-1]] = 0
            add("wrong_capture", taken, taken_stores, passed_on)
        _knock(add, pits, stores, passed_on)
    other = WariState(state.pits, state.stores, passed_on)
    for move in rules.legal_moves(other):
        after = rules.apply(other, move)
        add("out_of_turn", list(after.pits), after.stores, state.mover)
    return list(found.values())


def _sow_slipped(rules: WariRules, add, state: WariState, move, path: list[int], kind: str) -> None:
    """The tables a sowing along `path` leaves, with the capture its last seed gives and without."""
    pits = sown_along(state, move.index, path)
    passed_on = 1 - state.mover
    add(kind, pits, state.stores, passed_on)
    if rules.variant.capture != "two-three" or (rules.variant.capture_side == "opponent" and path[-1] // ROW == move.player):
        return
    taken = rules.capture_chain(pits, path[-1], move.player)
    if taken:
        stores = list(state.stores)
        stores[move.player] += sum(pits[pit] for pit in taken)
        for pit in taken:
            pits[pit] = 0
        add(kind, pits, stores, passed_on)


def _knock(add, pits: list[int], stores, mover: int) -> None:
    """Every table with one seed knocked from a pit into a neighbour on its row."""
    for pit in range(PITS):
        if not pits[pit]:
            continue
        row_start = pit - pit % ROW
        for neighbour in (pit - 1, pit + 1):
            if row_start <= neighbour < row_start + ROW:
                knocked = list(pits)
                knocked[pit] -= 1
                knocked[neighbour] += 1
                add("knocked_seed", knocked, stores, mover)
