"""Why no legal Wari move turns one board into another, in table words: a move out of turn, one the
rules forbid, two moves at once, or the pit that differs from the closest legal sowing, with the
slip that would explain it where one fits. `WariRules.explain` asks for it once no move matches.
"""
from __future__ import annotations

from engines.wari_board import BOARD, PITS, ROW
from engines.wari_state import PLAYERS, WariMove, WariState, pit_name


def why_not(rules, before: WariState, after: WariState, legal: list, results: list) -> str:
    """The reason for a board (`after`) that no legal move of `before` leaves; `results` holds
    each legal move with its sowing."""
    board = (after._key & BOARD, after.stores)
    return (_wrong_turn(rules, before, board) or _forbidden(rules, before, board, legal)
            or _two_moves(rules, before, board, results) or _closest(rules, after.pits, after.stores, results))


def _wrong_turn(rules, before: WariState, board: tuple) -> str | None:
    other = WariState(before.pits, before.stores, 1 - before.mover)
    for move in rules.legal_moves(other):
        if rules._sow(other, move.index).board == board:
            return f"it is {before.to_move.capitalize()}'s turn, but the board shows {rules.notation(move)}"
    return None


def _forbidden(rules, before: WariState, board: tuple, legal: list) -> str | None:
    for pit in range(ROW):
        move = WariMove(before.mover, pit)
        if before.pits[move.index] and move not in legal:
            sowing = rules._sow(before, move.index)
            if sowing.board == board:
                return rules._refusal(before, move, sowing)
    return None


def _two_moves(rules, before: WariState, board: tuple, results: list) -> str | None:
    for first, sowing in results:
        middle = rules._after(before, sowing)
        for second in rules.legal_moves(middle):
            if rules._sow(middle, second.index).board == board:
                return (f"this looks like two moves: {rules.notation(first)} "
                        f"then {rules.notation(second)}")
    return None


def _closest(rules, pits: tuple, stores: tuple, results: list) -> str:
    sown_boards = [(move, sowing.pits, sowing.stores) for move, sowing in results]

    def distance(item):
        move, sown_pits, sown_stores = item
        return (sum(abs(a - b) for a, b in zip(sown_pits + sown_stores, pits + stores)), move.pit)

    move, sown_pits, sown_stores = min(sown_boards, key=distance)
    sown = f"after {rules.notation(move)}"
    hint = _likely_mistake(move, sown_pits, pits)
    for step in range(1, PITS + 1):
        i = (move.index + step) % PITS
        if sown_pits[i] != pits[i]:
            return (f"{pit_name(i)} should hold {_seeds(sown_pits[i])} {sown}, "
                    f"the board shows {pits[i]}{hint}")
    player = next(p for p in (move.player, 1 - move.player) if sown_stores[p] != stores[p])
    return (f"{PLAYERS[player].capitalize()}'s store should hold {_seeds(sown_stores[player])} "
            f"{sown}, the board shows {stores[player]}{hint}")


def _seeds(count: int) -> str:
    return "1 seed" if count == 1 else f"{count} seeds"


def _likely_mistake(move: WariMove, sown: tuple, pits: tuple) -> str:
    """A question naming the slip that turns the legal sowing (`sown`, its pits) into the board,
    where one fits the pits exactly (a camera reads stores less surely than pits, so they are left
    out of it).

    Along the sowing, a seed one pit later than it should be is a pit skipped; one pit earlier,
    two seeds dropped in one pit. Pits the move captured still holding 2 or 3 are a capture
    missed; pits holding 2 or 3 after the move but emptied, a capture that was not due.
    """
    changed = [i for step in range(1, PITS + 1) for i in [(move.index + step) % PITS] if pits[i] != sown[i]]
    if not changed:
        return ""
    if all(sown[i] == 0 and pits[i] in (2, 3) for i in changed):
        return " (was a capture missed?)"
    if all(pits[i] == 0 and sown[i] in (2, 3) for i in changed):
        return " (were seeds captured that were not due?)"
    if [pits[i] - sown[i] for i in changed] == [-1, 1]:
        return " (was a pit skipped while sowing, or a seed knocked into the next pit?)"
    if [pits[i] - sown[i] for i in changed] == [1, -1]:
        return " (were two seeds dropped in one pit?)"
    return ""
