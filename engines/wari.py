"""Wari / Oware family: one sowing engine, five named variants (see docs/rules/wari.md).

Board layout (contract): pits[0..5] are South's a..f, pits[6..11] North's a..f, and sowing goes
from pit i to pit i + 1 (mod 12). A state is what lies on the table after a move; seeds that are
collected when the game ends appear in `outcome().scores`, not on the board.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from engines.base import Explanation, Outcome
from engines.errors import IllegalMove, MoveError, RulesError, StateError
from engines.wari_board import (
    BOARD,
    LAST,
    MOVER,
    NONEMPTY,
    ON_THE_WAY_TOPS,
    ONES,
    PITS,
    ROW,
    ROW_TOPS,
    ROWS,
    SOWING,
    SEEDS,
    SOWN_TOPS,
    at_least,
    key_of,
    no_quick_sowings,
    pits_of,
    quick_sowings,
)
from engines.wari_state import (  # pit_name: engines.wari names it for its users
    PIT_LETTERS,
    PLAYERS,
    WariMove,
    WariState,
    pit_name,  # noqa: F401
    player_index,
    seed_counts,
    state_after,
    state_sown,
)

TOTAL_SEEDS = SEEDS
_NEXT = tuple((i + 1) % PITS for i in range(PITS))


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


def _row_seeds(pits: tuple[int, ...], player: int) -> int:
    return sum(pits[player * ROW:player * ROW + ROW])


_MOVES = tuple(WariMove(i // ROW, i % ROW) for i in range(PITS))
# The mover's moves by the top bits `NONEMPTY` sets on his row: those from his pits holding seeds.
_MOVES_BY_TOPS = tuple({sum(128 << 8 * (player * ROW + pit) for pit in range(ROW) if chosen >> pit & 1):
                        tuple(_MOVES[player * ROW + pit] for pit in range(ROW) if chosen >> pit & 1)
                        for chosen in range(1 << ROW)} for player in (0, 1))
_TWO_OR_THREE = (2, 3)
_FOUR_OR_MORE, _A_LAP_OR_MORE = at_least(4), at_least(PITS)
_tuple_new = tuple.__new__


class _Sowing(NamedTuple):
    """What one move does to the board, before the legality rules that look at it."""

    key: int  # the position after it, the same player still to move (`engines.wari_board`)
    stores: tuple[int, int]
    grand_slam: bool  # its capture takes (or, in abapa, would take) the opponent's whole row

    @property
    def pits(self) -> tuple[int, ...]:
        return pits_of(self.key)

    @property
    def board(self) -> tuple:
        """The key's pits and the stores, to compare with another board's (`_board`)."""
        return (self.key & BOARD, self.stores)


def _board(state: WariState) -> tuple:
    return (state._key & BOARD, state._stores)


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
        # The stores of a game its score has not ended (`_score_ended`): one look-up a ply.
        half, limit = TOTAL_SEEDS // 2, variant.end_at_or_below
        self._playing = frozenset((south, north) for south in range(half + 1) for north in range(half + 1)
                                  if not south == north == half
                                  and (limit is None or TOTAL_SEEDS - south - north > limit))
        self._full = None if variant.full_pit is None else at_least(variant.full_pit)
        # The last state in which `legal_moves` found every move from a pit holding seeds legal:
        # `apply` sows such a move there unchecked. A state never stops being one (states are
        # values), so whichever state a thread last left here is still right.
        self._free_state = None
        # Per mover, the pits of which one holding seeds makes every move from a pit holding seeds
        # legal: the opponent's row where he must be fed, any pit where nothing else restricts
        # moves; None where a grand slam may forbid a move anyway.
        self._free_if = (None if self._slam_illegal else (ROWS[1], ROWS[0]) if self._must_feed
                         else (BOARD, BOARD))
        self._quick = (quick_sowings(self._capture_anywhere, variant.skip_origin) if self._plain_drop
                       else no_quick_sowings)

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
        if state._stores not in self._playing:
            return []
        key, line, mover, depth = state._key, state._line, state._mover, state._depth
        if line is not None and line.get(key, depth) < depth:
            return []  # a position repeated (`state.repeated()`)
        moves = list(_MOVES_BY_TOPS[mover][(key + NONEMPTY) & ROW_TOPS[mover]])
        free_if = self._free_if
        if free_if is not None and key & free_if[mover]:
            self._free_state = state  # every move from a pit holding seeds is legal
            return moves
        free = True
        if self._slam_illegal:
            kept = self._without_grand_slams(state, moves)
            free, moves = len(kept) == len(moves), kept
        if self._must_feed and not key & ROWS[1 - mover]:
            opponent = ROWS[1 - mover]
            feeding = [m for m in moves if self._sown(key, state._stores, m.index)[0] & opponent]
            if feeding or self.variant.must_feed == "or-end":
                free, moves = free and len(feeding) == len(moves), feeding
        if free:
            self._free_state = state
        return moves

    def _without_grand_slams(self, state: WariState, moves: list[WariMove]) -> list[WariMove]:
        """The moves that take no grand slam, sowing only those that might."""
        key, stores, mover = state._key, state._stores, state._mover
        if self._capture_anywhere:
            return [m for m in moves if not self._sown(key, stores, m.index)[2]]
        full = bool((key + _FOUR_OR_MORE) & ROW_TOPS[1 - mover])
        if full and not (key + _A_LAP_OR_MORE) & ROW_TOPS[mover]:
            return moves  # a pit of 4 or more on the opponent's row, and no move laps
        pits = state.pits
        return [m for m in moves if _no_grand_slam(pits, m.index, full) or not self._sown(key, stores, m.index)[2]]

    def apply(self, state: WariState, move: WariMove) -> WariState:
        origin = move.index
        if state is self._free_state:  # legal_moves found every move from a pit holding seeds legal
            key = state._key
            hand = key >> 8 * origin & 255
            quick = self._quick[state._mover][origin][hand]
            if quick is not None:
                sown, at = key + quick[0], quick[1]
                if at is None or sown >> at & 255 not in _TWO_OR_THREE:  # nothing captured
                    return state_sown(state, sown)
                sown, stores, _ = self._captured(sown, state._stores, quick[2], state._mover)
                return state_after(state, sown, stores)
            if hand and move.player == state._mover:
                sown, stores, _ = self._sown(key, state._stores, origin)
                return state_after(state, sown ^ MOVER, stores)
        # A move of the player to move from a pit holding seeds is legal unless the game is over,
        # it would take a grand slam the variant forbids, or it starves an opponent who must be
        # fed: checked on its own sowing, without sowing every other move as legal_moves does.
        if (move.player == state._mover and state.pits[origin] and not self._score_ended(state)
                and not state.repeated()):
            sowing = self._sow(state, origin)
            if (not (sowing.grand_slam and self._slam_illegal)
                    and (not self._must_feed_now(state) or self._feeds(sowing, state._mover))):
                return self._after(state, sowing)
        legal = self.legal_moves(state)
        if move in legal:
            return self._after(state, self._sow(state, origin))
        if not legal:
            raise IllegalMove(f"the game is over: {self.notation(move)} cannot be played")
        if move.player != state._mover:
            raise IllegalMove(f"it is {state.to_move.capitalize()}'s turn, not {PLAYERS[move.player].capitalize()}'s")
        if not state.pits[origin]:
            raise IllegalMove(f"{self.notation(move)} is empty")
        raise IllegalMove(self._refusal(state, move, self._sow(state, origin)))

    @staticmethod
    def _after(state: WariState, sowing: _Sowing) -> WariState:
        return state_after(state, sowing.key ^ MOVER, sowing.stores)

    def _must_feed_now(self, state: WariState) -> bool:
        return self._must_feed and not state._key & ROWS[1 - state._mover]

    @staticmethod
    def _feeds(sowing: _Sowing, mover: int) -> bool:
        return bool(sowing.key & ROWS[1 - mover])

    def _refusal(self, state: WariState, move: WariMove, sowing: _Sowing) -> str:
        """Why the rules forbid a sown move that is not among the legal ones."""
        opponent = PLAYERS[1 - state._mover].capitalize()
        if sowing.grand_slam and self.variant.grand_slam == "illegal":
            return f"{self.notation(move)} would capture all of {opponent}'s seeds"
        return (f"{state.to_move.capitalize()} must feed {opponent}: "
                f"{PIT_LETTERS[move.pit]} leaves {opponent} empty")

    def _sow(self, state: WariState, origin: int) -> _Sowing:
        """Sow the pit at origin for its owner and make the captures the variant gives."""
        return _tuple_new(_Sowing, self._sown(state._key, state._stores, origin))

    def _sown(self, key: int, stores: tuple, origin: int) -> tuple:
        """`_sow` on a position's key as a plain tuple (key, stores, grand_slam)."""
        hand, mover = key >> 8 * origin & 255, origin // ROW
        quick = self._quick[mover][origin][hand]
        if quick is not None:
            key, last = key + quick[3], quick[2]
        elif hand < PITS and self._full is not None and not (key + self._full) & SOWN_TOPS[origin][hand]:
            key, last = key + SOWING[origin][hand], LAST[origin][hand]  # no full pit on the way
        elif (hand < PITS and self.variant.capture == "four"
              and not ON_THE_WAY_TOPS[origin][hand] & ~(((key + SOWING[origin][hand]) ^ 4 * ONES) + NONEMPTY)):
            # No four made on the way: a four in the last pit is lifted or taken by `_relay_fours`.
            key, last = key + SOWING[origin][hand], LAST[origin][hand]
            if key >> 8 * last & 255 != 4:
                return key, stores, False
            pits, stores, _ = self._relay_fours(list(pits_of(key)), list(stores), mover, last)
            return key_of(pits, key >= MOVER), stores, False
        else:
            pits, stores = list(pits_of(key)), list(stores)
            pits[origin] = 0
            fours = self.variant.capture == "four"
            last = self._drop(pits, stores, origin, hand, fours)
            if fours:
                pits, stores, _ = self._relay_fours(pits, stores, mover, last)
                return key_of(pits, key >= MOVER), stores, False
            key, stores = key_of(pits, key >= MOVER), (stores[0], stores[1])
        if not self._capture_anywhere and last // ROW == mover or key >> 8 * last & 255 not in _TWO_OR_THREE:
            return key, stores, False
        return self._captured(key, stores, last, mover)

    def _captured(self, key: int, stores: tuple, last: int, mover: int) -> tuple:
        """The captures of a sowing by `mover` that ended in `last`, as `_sown` gives them."""
        # Pits captured backwards from the last one sown while they hold 2 or 3 (`capture_chain`).
        pos, seeds, taken, opponents = last, 0, 0, False
        opponent_only = self.variant.capture_side == "opponent"
        for _ in range(PITS - 1):
            count = key >> 8 * pos & 255
            if count not in _TWO_OR_THREE or (opponent_only and pos // ROW == mover):
                break
            seeds, taken, opponents = seeds + count, taken + (count << 8 * pos), opponents or pos // ROW != mover
            pos = (pos - 1) % PITS
        if not seeds:
            return key, stores, False
        grand_slam = opponents and not (key - taken) & ROWS[1 - mover]
        if grand_slam and self.variant.grand_slam == "nothing":
            return key, stores, True
        stores = (stores[0] + seeds, stores[1]) if mover == 0 else (stores[0], stores[1] + seeds)
        return key - taken, stores, grand_slam

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

    def _relay_fours(self, pits: list, stores: list, mover: int, last: int) -> tuple:
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
        return pits, (stores[0], stores[1]), False

    # ---- end of the game ----------------------------------------------------------------
    def _score_ended(self, state: WariState) -> bool:
        south, north = state._stores
        half = TOTAL_SEEDS // 2
        if south > half or north > half or south == north == half:
            return True
        limit = self.variant.end_at_or_below
        return limit is not None and TOTAL_SEEDS - south - north <= limit

    def is_over(self, state: WariState) -> bool:
        return not self.legal_moves(state)

    def outcome(self, state: WariState) -> Outcome:
        scores = list(state._stores)
        winner = None
        if self._score_ended(state):
            leftover = self.variant.leftover_at_end
        elif state.position in state.seen or not self.legal_moves(state):
            leftover = self.variant.leftover_at_stall
            if self.variant.cannot_move_loses and state.position not in state.seen:
                winner = PLAYERS[1 - state._mover]
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
        board = _board(after)
        legal = self.legal_moves(before)
        if not legal:
            return Explanation(False, (), "the game is over")
        if board == _board(before):
            return Explanation(False, (), "the board has not changed")
        results = [(move, self._sow(before, move.index)) for move in legal]
        matches = tuple(move for move, sowing in results if sowing.board == board)
        if matches:
            return Explanation(True, matches, None)
        from engines.wari_explain import why_not  # it builds on this module

        return Explanation(False, (), why_not(self, before, after, legal, results))


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
