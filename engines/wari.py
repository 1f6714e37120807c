"""Wari / Oware family: one sowing engine, five named variants (see docs/rules/wari.md).

Board layout (contract): pits[0..5] are South's a..f, pits[6..11] North's a..f, and sowing goes
from pit i to pit i + 1 (mod 12). A state is what lies on the table after a move; seeds that are
collected when the game ends appear in `outcome().scores`, not on the board.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import compress
from operator import add
from typing import Any, NamedTuple

from engines.base import Explanation, Outcome
from engines.errors import IllegalMove, MoveError, RulesError, StateError
from engines.wari_state import (
    PIT_LETTERS,
    PITS,
    PLAYERS,
    ROW,
    WariMove,
    WariState,
    pit_name,
    player_index,
    seed_counts,
    state_after,
)

TOTAL_SEEDS = 48
_NEXT = tuple((i + 1) % PITS for i in range(PITS))
# What a hand of fewer than PITS seeds sown from each pit adds to every pit, by hand size: the
# hand taken from its pit, one seed in each of the next `hand`.
_SOWN = tuple(tuple(tuple(-hand if pit == origin else int(0 < (pit - origin) % PITS <= hand) for pit in range(PITS))
                    for hand in range(PITS)) for origin in range(PITS))


@dataclass(frozen=True)
class Variant:
    """The parameters that tell the Wari family's rule sets apart."""

    name: str
    skip_origin: bool  # a lap of 12+ seeds passes over the emptied pit
    full_pit: int | None  # a pit already holding this many is passed over (Aware)
    capture: str  # "two-three": last pit at 2-3 with a backward chain; "four": pits at 4
    capture_side: str  # "opponent" or "any": where a 2-3 capture may start and chain
    grand_slam: str  # emptying the opponent's row by capture: "captures", "nothing", "illegal"
    # When the opponent's row is empty a move must give him seeds; if none can, "or-end" ends
    # the game, "if-possible" lets any move be played; None: no such rule.
    must_feed: str | None
    cannot_move_loses: bool  # otherwise being unable to move ends the game
    end_at_or_below: int | None  # the game ends when so few seeds remain on the board
    leftover_at_end: str  # seeds left when a score ends the game: "nobody" or "sides"
    leftover_at_stall: str  # ... when a repetition or a player unable to move ends it


VARIANTS = {
    "pbmserv": Variant("pbmserv", skip_origin=True, full_pit=None, capture="two-three",
                       capture_side="opponent", grand_slam="captures", must_feed="or-end",
                       cannot_move_loses=False, end_at_or_below=None,
                       leftover_at_end="nobody", leftover_at_stall="sides"),
    "abapa": Variant("abapa", skip_origin=True, full_pit=None, capture="two-three",
                     capture_side="opponent", grand_slam="nothing", must_feed="or-end",
                     cannot_move_loses=False, end_at_or_below=None,
                     leftover_at_end="sides", leftover_at_stall="sides"),
    "oware-ver1": Variant("oware-ver1", skip_origin=True, full_pit=None, capture="two-three",
                          capture_side="opponent", grand_slam="illegal", must_feed="if-possible",
                          cannot_move_loses=True, end_at_or_below=None,
                          leftover_at_end="nobody", leftover_at_stall="sides"),
    "four-capture": Variant("four-capture", skip_origin=False, full_pit=None, capture="four",
                            capture_side="opponent", grand_slam="captures", must_feed=None,
                            cannot_move_loses=False, end_at_or_below=8,
                            leftover_at_end="nobody", leftover_at_stall="nobody"),
    "aware": Variant("aware", skip_origin=False, full_pit=12, capture="two-three",
                     capture_side="opponent", grand_slam="captures", must_feed=None,
                     cannot_move_loses=True, end_at_or_below=None,
                     leftover_at_end="nobody", leftover_at_stall="sides"),
}
# Options a rules object may set, per variant: allowed values (the first is the default) and the
# Variant fields the value sets.
OPTIONS = {
    "aware": {"capture_side": (("opponent", "any"), ("capture_side",))},
    "four-capture": {"remainder": (("nobody", "sides"), ("leftover_at_end", "leftover_at_stall"))},
}


def _row(player: int) -> range:
    return range(player * ROW, player * ROW + ROW)


def _row_seeds(pits: tuple[int, ...], player: int) -> int:
    return sum(pits[player * ROW:player * ROW + ROW])


_MOVES = tuple(WariMove(i // ROW, i % ROW) for i in range(PITS))
_ROW_MOVES = (_MOVES[:ROW], _MOVES[ROW:])
_tuple_new = tuple.__new__
_set = object.__setattr__


class _Sowing(NamedTuple):
    """What one move does to the board, before the legality rules that look at it."""

    pits: tuple[int, ...]
    stores: tuple[int, int]
    grand_slam: bool  # its capture takes (or, in abapa, would take) the opponent's whole row

    @property
    def board(self) -> tuple:
        return (self.pits, self.stores)


class WariRules:
    game = "wari"
    players = 2
    sides = PLAYERS
    has_standard_start = True
    history_keys = ("seen",)  # the positions since the last capture: repetition ends the game

    def __init__(self, variant: Variant):
        self.variant = variant
        # What each ply asks of the variant, looked up once.
        self._plain_drop = variant.full_pit is None and variant.capture != "four"
        self._capture_anywhere = variant.capture_side == "any"
        self._slam_illegal = variant.grand_slam == "illegal"
        self._must_feed = variant.must_feed is not None

    # ---- rules object -------------------------------------------------------------------
    @classmethod
    def from_json(cls, obj: Any) -> WariRules:
        if not isinstance(obj, dict) or obj.get("game") != "wari":
            raise RulesError("Wari rules look like {\"game\": \"wari\", \"variant\": \"pbmserv\"}")
        name = obj.get("variant", "pbmserv")
        if not isinstance(name, str) or name not in VARIANTS:
            raise RulesError(f"unknown Wari variant {name!r}: expected one of {', '.join(VARIANTS)}")
        allowed = OPTIONS.get(name, {})
        unknown = set(obj) - {"game", "variant"} - set(allowed)
        if unknown:
            raise RulesError(f"unknown key for Wari variant {name}: {', '.join(sorted(unknown))}")
        variant = VARIANTS[name]
        for key, (values, fields) in allowed.items():
            value = obj.get(key, values[0])
            if value not in values:
                raise RulesError(f"Wari {key} must be one of {', '.join(values)}, got {value!r}")
            variant = replace(variant, **dict.fromkeys(fields, value))
        return cls(variant)

    def to_json(self) -> dict:
        obj = {"game": "wari", "variant": self.variant.name}
        for key, (_, fields) in OPTIONS.get(self.variant.name, {}).items():
            obj[key] = getattr(self.variant, fields[0])
        return obj

    def side_name(self, side: str) -> str:
        return side.capitalize()

    # ---- states and moves ---------------------------------------------------------------
    def start(self) -> WariState:
        return WariState((4,) * PITS, (0, 0), 0)

    def state_from_json(self, obj: Any) -> WariState:
        if not isinstance(obj, dict):
            raise StateError("a Wari state is an object with \"pits\", \"stores\" and \"to_move\"")
        unknown = set(obj) - {"game", "pits", "stores", "to_move", "seen"}
        if unknown:
            raise StateError(f"unknown Wari state keys: {', '.join(sorted(unknown))}")
        if obj.get("game", "wari") != "wari":
            raise StateError(f"not a Wari state: game is {obj.get('game')!r}")
        pits = seed_counts(obj.get("pits"), PITS, "pits")
        stores = seed_counts(obj.get("stores"), 2, "stores")
        total = sum(pits) + sum(stores)
        if total != TOTAL_SEEDS:
            raise StateError(f"{total} seeds on the board and in the stores: a Wari set has {TOTAL_SEEDS}")
        mover = player_index(obj.get("to_move"), "to_move", StateError)
        seen = frozenset(self._seen_from_json(obj.get("seen", []), TOTAL_SEEDS - sum(stores)))
        return WariState(pits, stores, mover, seen)

    @staticmethod
    def _seen_from_json(entries: Any, on_board: int):
        if not isinstance(entries, list):
            raise StateError("Wari \"seen\" must be a list of {\"pits\", \"to_move\"} positions")
        for entry in entries:
            if not isinstance(entry, dict) or set(entry) != {"pits", "to_move"}:
                raise StateError("each Wari \"seen\" entry is {\"pits\": [...], \"to_move\": ...}")
            pits = seed_counts(entry["pits"], PITS, "seen pits")
            if sum(pits) != on_board:
                raise StateError(f"a \"seen\" position holds {sum(pits)} seeds, the board {on_board}: "
                                 "positions since the last capture hold the same seeds")
            yield pits, player_index(entry["to_move"], "seen to_move", StateError)

    def move_from_json(self, obj: Any) -> WariMove:
        if not isinstance(obj, dict) or set(obj) != {"player", "pit"}:
            raise MoveError("a Wari move is {\"player\": \"south\", \"pit\": \"c\"}")
        player = player_index(obj["player"], "move player", MoveError)
        pit = obj["pit"]
        if not isinstance(pit, str) or len(pit) != 1 or pit not in PIT_LETTERS:
            raise MoveError(f"a Wari pit is one of a-f, got {pit!r}")
        return WariMove(player, PIT_LETTERS.index(pit))

    def notation(self, move: WariMove) -> str:
        return f"{PLAYERS[move.player].capitalize()} {PIT_LETTERS[move.pit]}"

    # ---- playing ------------------------------------------------------------------------
    def legal_moves(self, state: WariState) -> list[WariMove]:
        south, north = state.stores
        if south > TOTAL_SEEDS // 2 or north > TOTAL_SEEDS // 2 or south == north == TOTAL_SEEDS // 2 or (
                self.variant.end_at_or_below is not None and self._score_ended(state)):
            return []
        pits, mover, line = state.pits, state.mover, state._line
        if line is not None and line.index.get((pits, mover), state._depth) < state._depth:
            return []  # a position repeated (`state.repeated()`, without keeping the answer)
        own = mover * ROW
        moves = list(compress(_ROW_MOVES[mover], pits[own:own + ROW]))
        free = True  # every move from a pit holding seeds is legal
        if self._slam_illegal:
            kept = self._without_grand_slams(state, moves)
            free, moves = len(kept) == len(moves), kept
        if self._must_feed and not any(pits[ROW - own:PITS - own]):
            feeding = [m for m in moves if any(self._sown(state, m.index)[0][ROW - own:PITS - own])]
            if feeding or self.variant.must_feed == "or-end":
                free, moves = free and len(feeding) == len(moves), feeding
        if free:
            _set(state, "_free_under", self)
        return moves

    def _without_grand_slams(self, state: WariState, moves: list[WariMove]) -> list[WariMove]:
        """The moves that take no grand slam, sowing only those that might."""
        pits, own = state.pits, state.mover * ROW
        full = max(pits[ROW - own:PITS - own]) >= 4
        if self._capture_anywhere:
            return [m for m in moves if not self._sown(state, m.index)[2]]
        if full and max(pits[own:own + ROW]) < PITS:
            return moves  # a pit of 4 or more on the opponent's row, and no move laps
        return [m for m in moves if _no_grand_slam(pits, m.index, full) or not self._sown(state, m.index)[2]]

    def apply(self, state: WariState, move: WariMove) -> WariState:
        if state._free_under is self and move.player == state.mover and state.pits[move.index]:
            pits, stores, _ = self._sown(state, move.index)  # legal_moves found every such move legal
            return state_after(state, pits, stores)
        # A move of the player to move from a pit holding seeds is legal unless the game is over,
        # it would take a grand slam the variant forbids, or it starves an opponent who must be
        # fed: checked on its own sowing, without sowing every other move as legal_moves does.
        if (move.player == state.mover and state.pits[move.index] and not self._score_ended(state)
                and not state.repeated()):
            sowing = self._sow(state, move.index)
            if (not (sowing.grand_slam and self._slam_illegal)
                    and (not self._must_feed_now(state) or self._feeds(sowing, state.mover))):
                return state_after(state, sowing.pits, sowing.stores)
        legal = self.legal_moves(state)
        if move in legal:
            return self._after(state, self._sow(state, move.index))
        if not legal:
            raise IllegalMove(f"the game is over: {self.notation(move)} cannot be played")
        if move.player != state.mover:
            raise IllegalMove(f"it is {state.to_move.capitalize()}'s turn, not {PLAYERS[move.player].capitalize()}'s")
        if not state.pits[move.index]:
            raise IllegalMove(f"{self.notation(move)} is empty")
        raise IllegalMove(self._refusal(state, move, self._sow(state, move.index)))

    @staticmethod
    def _after(state: WariState, sowing: _Sowing) -> WariState:
        return state_after(state, sowing.pits, sowing.stores)

    def _must_feed_now(self, state: WariState) -> bool:
        return self._must_feed and not _row_seeds(state.pits, 1 - state.mover)

    @staticmethod
    def _feeds(sowing: _Sowing, mover: int) -> bool:
        return _row_seeds(sowing.pits, 1 - mover) > 0

    def _refusal(self, state: WariState, move: WariMove, sowing: _Sowing) -> str:
        """Why the rules forbid a sown move that is not among the legal ones."""
        opponent = PLAYERS[1 - state.mover].capitalize()
        if sowing.grand_slam and self.variant.grand_slam == "illegal":
            return f"{self.notation(move)} would capture all of {opponent}'s seeds"
        return (f"{state.to_move.capitalize()} must feed {opponent}: "
                f"{PIT_LETTERS[move.pit]} leaves {opponent} empty")

    def _sow(self, state: WariState, origin: int) -> _Sowing:
        """Sow the pit at origin for its owner and make the captures the variant gives."""
        return _tuple_new(_Sowing, self._sown(state, origin))

    def _sown(self, state: WariState, origin: int) -> tuple:
        """`_sow` as a plain tuple (pits, stores, grand_slam)."""
        hand = state.pits[origin]
        if hand < PITS and self._plain_drop:
            # Less than a lap, nothing passed over, nothing taken on the way: one seed in each of
            # the next `hand` pits.
            pits = tuple(map(add, state.pits, _SOWN[origin][hand]))
            last, stores = (origin + hand) % PITS, state.stores
            if pits[last] not in (2, 3):
                return pits, stores, False
            pits = list(pits)
        else:
            pits, stores = list(state.pits), list(state.stores)
            pits[origin] = 0
            fours = self.variant.capture == "four"
            last = self._drop(pits, stores, origin, hand, fours)
            if fours:
                return self._relay_fours(pits, stores, origin // ROW, last)
            stores = (stores[0], stores[1])
        mover = origin // ROW
        grand_slam = False
        if self._capture_anywhere or last // ROW != mover:
            taken = self.capture_chain(pits, last, mover)
            grand_slam = any(i // ROW != mover for i in taken) and all(
                i in taken or not pits[i] for i in _row(1 - mover))
            if not (grand_slam and self.variant.grand_slam == "nothing"):
                stores = list(stores)
                stores[mover] += sum(pits[i] for i in taken)
                for i in taken:
                    pits[i] = 0
                stores = (stores[0], stores[1])
        return tuple(pits), stores, grand_slam

    def _drop(self, pits: list, stores: list, start: int, hand: int, fours: bool) -> int:
        """Drop `hand` seeds one per pit after `start`; returns the last pit sown."""
        skip_origin = self.variant.skip_origin
        full = self.variant.full_pit
        pos = start
        while hand:
            pos = _NEXT[pos]
            if (skip_origin and pos == start) or (full is not None and pits[pos] >= full):
                continue
            pits[pos] += 1
            hand -= 1
            if fours and hand and pits[pos] == 4:
                # A four made on the way belongs to the pit's owner, whoever is sowing.
                stores[pos // ROW] += 4
                pits[pos] = 0
        return pos

    def capture_chain(self, pits: list, last: int, mover: int) -> list[int]:
        """Pits captured backwards from the last one sown while they hold 2 or 3."""
        taken = []
        pos = last
        opponent_only = self.variant.capture_side == "opponent"
        while pits[pos] in (2, 3) and len(taken) < PITS - 1:
            if opponent_only and pos // ROW == mover:
                break
            taken.append(pos)
            pos = (pos - 1) % PITS
        return taken

    def _relay_fours(self, pits: list, stores: list, mover: int, last: int) -> _Sowing:
        """Last seed making 4: the mover captures it on the opponent's row, or lifts it and sows
        on from his own row. A relay sows exactly 4 seeds, so only one from a or b ends on the
        mover's row again (at e or f) and the second relay always reaches the opponent's row:
        the loop ends after two relays at most."""
        while pits[last] == 4:
            pits[last] = 0
            if last // ROW != mover:
                stores[mover] += 4
                break
            last = self._drop(pits, stores, last, 4, True)
        return tuple(pits), (stores[0], stores[1]), False

    # ---- end of the game ----------------------------------------------------------------
    def _score_ended(self, state: WariState) -> bool:
        south, north = state.stores
        half = TOTAL_SEEDS // 2
        if south > half or north > half or south == north == half:
            return True
        limit = self.variant.end_at_or_below
        return limit is not None and TOTAL_SEEDS - south - north <= limit

    def is_over(self, state: WariState) -> bool:
        return not self.legal_moves(state)

    def outcome(self, state: WariState) -> Outcome:
        scores = list(state.stores)
        winner = None
        if self._score_ended(state):
            leftover = self.variant.leftover_at_end
        elif state.position in state.seen or not self.legal_moves(state):
            leftover = self.variant.leftover_at_stall
            if self.variant.cannot_move_loses and state.position not in state.seen:
                winner = PLAYERS[1 - state.mover]
                leftover = "nobody"
        else:
            return Outcome(False, None, dict(zip(PLAYERS, scores)))
        if leftover == "sides":
            for player in (0, 1):
                scores[player] += _row_seeds(state.pits, player)
        if winner is None and scores[0] != scores[1]:
            winner = PLAYERS[0] if scores[0] > scores[1] else PLAYERS[1]
        return Outcome(True, winner, dict(zip(PLAYERS, scores)))

    def slips(self, state: WariState) -> list:
        """The tables a player's common slips leave (`engines.wari_slips`)."""
        from engines.wari_slips import slips  # it builds on this module

        return slips(self, state)

    # ---- explaining a board change ------------------------------------------------------
    def explain(self, before: WariState, after: WariState) -> Explanation:
        """Camera-side check: compares pits and stores only, as to_move cannot be seen."""
        board = (after.pits, after.stores)
        legal = self.legal_moves(before)
        if not legal:
            return Explanation(False, (), "the game is over")
        if board == (before.pits, before.stores):
            return Explanation(False, (), "the board has not changed")
        results = [(move, self._sow(before, move.index)) for move in legal]
        matches = tuple(move for move, sowing in results if sowing.board == board)
        if matches:
            return Explanation(True, matches, None)
        reason = (self._wrong_turn(before, board) or self._forbidden(before, board, legal)
                  or self._two_moves(before, board, results) or self._closest(board, results))
        return Explanation(False, (), reason)

    def _wrong_turn(self, before: WariState, board: tuple) -> str | None:
        other = WariState(before.pits, before.stores, 1 - before.mover)
        for move in self.legal_moves(other):
            sowing = self._sow(other, move.index)
            if sowing.board == board:
                return f"it is {before.to_move.capitalize()}'s turn, but the board shows {self.notation(move)}"
        return None

    def _forbidden(self, before: WariState, board: tuple, legal: list) -> str | None:
        for i in _row(before.mover):
            move = _MOVES[i]
            if before.pits[i] and move not in legal:
                sowing = self._sow(before, i)
                if sowing.board == board:
                    return self._refusal(before, move, sowing)
        return None

    def _two_moves(self, before: WariState, board: tuple, results: list) -> str | None:
        for first, sowing in results:
            middle = self._after(before, sowing)
            for second in self.legal_moves(middle):
                then = self._sow(middle, second.index)
                if then.board == board:
                    return (f"this looks like two moves: {self.notation(first)} "
                            f"then {self.notation(second)}")
        return None

    def _closest(self, board: tuple, results: list) -> str:
        pits, stores = board

        def distance(item):
            sowing = item[1]
            return (sum(abs(a - b) for a, b in zip(sowing.pits + sowing.stores, pits + stores)),
                    item[0].pit)

        move, sowing = min(results, key=distance)
        sown = f"after {self.notation(move)}"
        hint = _likely_mistake(move, sowing, pits, stores)
        for step in range(1, PITS + 1):
            i = (move.index + step) % PITS
            if sowing.pits[i] != pits[i]:
                return (f"{pit_name(i)} should hold {_seeds(sowing.pits[i])} {sown}, "
                        f"the board shows {pits[i]}{hint}")
        player = next(p for p in (move.player, 1 - move.player) if sowing.stores[p] != stores[p])
        return (f"{PLAYERS[player].capitalize()}'s store should hold {_seeds(sowing.stores[player])} "
                f"{sown}, the board shows {stores[player]}{hint}")


def _no_grand_slam(pits: tuple, origin: int, full: bool) -> bool:
    """True where sowing `origin` surely takes no grand slam (captures on the opponent's row only),
    without sowing it: a move short of the opponent's row captures nothing there; a sowing of less
    than a lap adds at most one seed to a pit, so it takes no row with a pit of 4 or more (`full`),
    nor one with seeds beyond its last pit, which it does not reach."""
    hand = pits[origin]
    if hand < ROW - origin % ROW:
        return True
    if hand >= PITS:
        return False
    last = (origin + hand) % PITS
    return full or last // ROW == origin // ROW or any(pits[last + 1:(last // ROW + 1) * ROW])


def _seeds(count: int) -> str:
    return "1 seed" if count == 1 else f"{count} seeds"


def _likely_mistake(move: WariMove, sowing: _Sowing, pits: tuple, stores: tuple) -> str:
    """A question naming the slip that turns the legal sowing into the board, where one fits the
    pits exactly (a camera reads stores less surely than pits, so they are left out of it).

    Along the sowing, a seed one pit later than it should be is a pit skipped; one pit earlier,
    two seeds dropped in one pit. Pits the move captured still holding 2 or 3 are a capture
    missed; pits holding 2 or 3 after the move but emptied, a capture that was not due.
    """
    changed = [(step, i) for step in range(1, PITS + 1) for i in [(move.index + step) % PITS]
               if pits[i] != sowing.pits[i]]
    if not changed:
        return ""
    if all(sowing.pits[i] == 0 and pits[i] in (2, 3) for _, i in changed):
        return " (was a capture missed?)"
    if all(pits[i] == 0 and sowing.pits[i] in (2, 3) for _, i in changed):
        return " (were seeds captured that were not due?)"
    if [pits[i] - sowing.pits[i] for _, i in changed] == [-1, 1]:
        return " (was a pit skipped while sowing, or a seed knocked into the next pit?)"
    if [pits[i] - sowing.pits[i] for _, i in changed] == [1, -1]:
        return " (were two seeds dropped in one pit?)"
    return ""
