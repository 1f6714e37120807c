"""Wari positions and moves (`engines.wari` plays them): frozen, hashable, cheap to make; pit
names and the checks of the counts and players their JSON gives.

A random playout makes one state a ply, so a state is a slotted object whose positions seen since
the last capture are not copied from ply to ply: the states along one line of play share one
record of them (`_Line`), each seeing as many of its first entries as its own history holds. A
state made by a second move from the same position (the judge weighing every legal move, a
position explained by two moves) shares that record up to their common history and copies it
only where its own line goes on differently.
"""
from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any

from engines.errors import StateError

PLAYERS = ("south", "north")
PIT_LETTERS = "abcdef"
PITS = 12
ROW = 6


def pit_name(index: int) -> str:
    """"North's pit d" style name of a board index."""
    return f"{PLAYERS[index // ROW].capitalize()}'s pit {PIT_LETTERS[index % ROW]}"


@dataclass(frozen=True)
class WariMove:
    player: int  # 0 south, 1 north
    pit: int  # 0..5 = a..f of the player's own row
    # player * ROW + pit, the board index of the pit (kept: every sowing starts from it)
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "index", self.player * ROW + self.pit)

    def to_json(self) -> dict:
        return {"player": PLAYERS[self.player], "pit": PIT_LETTERS[self.pit]}


class _Line:
    """The positions seen since the last capture along one line of play, in order of play, and
    where each stands in that order (a position repeated ends the game, so each is there once)."""

    __slots__ = ("order", "index")

    def __init__(self, order: list):
        self.order = order
        self.index = {position: at for at, position in enumerate(order)}


class WariState:
    """`seen` holds the (pits, mover) positions since the last capture, the current one excluded:
    repetition ends the game and only a capture makes earlier positions unreachable.

    Compares, hashes and prints as a frozen dataclass of (pits, stores, mover, seen) would."""

    # `_free_under`: the rules object that found every move from a pit of the mover's holding seeds
    # legal here (apply then takes such a move without checking it again).
    __slots__ = ("pits", "stores", "mover", "_line", "_depth", "_seen", "_repeated", "_free_under")

    def __init__(self, pits: tuple[int, ...], stores: tuple[int, int], mover: int, seen=frozenset()):
        seen = frozenset(seen)
        line = _Line(list(seen)) if seen else None
        for name, value in zip(self.__slots__, (pits, stores, mover, line, len(seen), seen, None, None)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    @property
    def seen(self) -> frozenset:
        seen = self._seen
        if seen is None:
            seen = frozenset(self._line.order[:self._depth]) if self._line is not None else frozenset()
            object.__setattr__(self, "_seen", seen)
        return seen

    def repeated(self) -> bool:
        """Whether this position was seen since the last capture (the game ended in repetition)."""
        repeated = self._repeated
        if repeated is None:
            line = self._line
            repeated = line is not None and line.index.get((self.pits, self.mover), self._depth) < self._depth
            object.__setattr__(self, "_repeated", repeated)
        return repeated

    @property
    def to_move(self) -> str:
        return PLAYERS[self.mover]

    @property
    def position(self) -> tuple:
        return (self.pits, self.mover)

    def to_json(self) -> dict:
        obj = {"game": "wari", "pits": list(self.pits), "stores": list(self.stores),
               "to_move": self.to_move}
        if self.seen:
            obj["seen"] = [{"pits": list(pits), "to_move": PLAYERS[mover]}
                           for pits, mover in sorted(self.seen)]
        return obj

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.pits == other.pits and self.stores == other.stores and self.mover == other.mover
                and ((self._line is other._line and self._depth == other._depth) or self.seen == other.seen))

    def __hash__(self):
        return hash((self.pits, self.stores, self.mover, self.seen))

    def __repr__(self):
        return f"WariState(pits={self.pits!r}, stores={self.stores!r}, mover={self.mover!r}, seen={self.seen!r})"

    def __reduce__(self):
        return (WariState, (self.pits, self.stores, self.mover, self.seen))


class _Made:
    """WariState's layout without its guard against assignment: a state is filled in as one of
    these, then becomes a WariState (a plain attribute store is cheaper than going round the guard)."""

    __slots__ = WariState.__slots__


_new = object.__new__


def state_after(before: WariState, pits: tuple[int, ...], stores: tuple[int, int]) -> WariState:
    """The state a move of `before`'s mover leaves: the other player to move, and `before`'s
    position added to those seen unless the move captured (its stores changed)."""
    made = _new(_Made)
    made.pits, made.stores, made.mover = pits, stores, 1 - before.mover
    made._seen = made._repeated = made._free_under = None
    if stores != before.stores:
        made._line, made._depth = None, 0
    else:
        position, line, depth = (before.pits, before.mover), before._line, before._depth
        if line is None:
            line = _Line([position])
        elif len(line.order) == depth:  # this line goes on
            line.order.append(position)
            line.index[position] = depth
        elif line.order[depth] != position:  # another line went on from here: copy the shared part
            line = _Line(line.order[:depth] + [position])
        made._line, made._depth = line, depth + 1
    made.__class__ = WariState
    return made


def seed_counts(value: Any, length: int, what: str) -> tuple[int, ...]:
    """The seed counts a state's JSON gives for `what` (pits, stores), checked."""
    if not isinstance(value, list) or len(value) != length:
        raise StateError(f"Wari {what} must be a list of {length} seed counts")
    for count in value:
        if isinstance(count, bool) or not isinstance(count, int):
            raise StateError(f"Wari {what} must hold whole numbers, got {count!r}")
        if count < 0:
            raise StateError(f"Wari {what} cannot hold a negative count ({count})")
    return tuple(value)


def player_index(value: Any, what: str, error: type) -> int:
    """0 for "south", 1 for "north"; anything else raises `error`."""
    if value not in PLAYERS:
        raise error(f"{what} must be \"south\" or \"north\", got {value!r}")
    return PLAYERS.index(value)
