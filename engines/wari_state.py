"""Wari positions and moves (`engines.wari` plays them): frozen, hashable, cheap to make; pit
names and the checks of the counts and players their JSON gives.

A random playout makes one state a ply, so a state is a slotted object holding its position as
one integer (its key, `engines.wari_board`), and the positions seen since the last capture are
not copied from ply to ply: the states along one line of play share one record of them (a dict
from each position's key to its place in the line), each seeing the entries placed before its own
depth. A state made by a second move from the same position (the judge weighing every legal move,
a position explained by two moves) shares that record up to their common history and copies it
only where its own line goes on differently.
"""
from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field
from operator import attrgetter
from typing import Any

from engines.errors import StateError
from engines.wari_board import MOVER, ROW, key_of, pits_of

PLAYERS = ("south", "north")
PIT_LETTERS = "abcdef"


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


def _field(name: str, getter=None) -> property:
    """A state's field: read from its slot `_name` (or worked out by `getter`), never assigned nor
    deleted, as a frozen dataclass's."""
    def assign(self, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def delete(self):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    return property(getter or attrgetter(f"_{name}"), assign, delete)


class WariState:
    """`seen` holds the (pits, mover) positions since the last capture, the current one excluded:
    repetition ends the game and only a capture makes earlier positions unreachable.

    Compares, hashes and prints as a frozen dataclass of (pits, stores, mover, seen) would, and its
    fields refuse assignment as such a dataclass's do. `pits` and `seen` are worked out from the
    keys when first asked. The fields are read-only properties over slots, so `state_sown` fills in
    a new state's slots directly, with no guard to go round on each assignment."""

    __slots__ = ("_stores", "_mover", "_key", "_line", "_depth", "_pits", "_seen")

    def __init__(self, pits: tuple[int, ...], stores: tuple[int, int], mover: int, seen=frozenset()):
        pits, seen = tuple(pits), frozenset(seen)
        self._stores, self._mover, self._key = tuple(stores), mover, key_of(pits, mover)
        self._line = {key_of(p, m): at for at, (p, m) in enumerate(seen)} if seen else None
        self._depth, self._pits, self._seen = len(seen), pits, seen

    def _pits_worked_out(self) -> tuple[int, ...]:
        pits = self._pits
        if pits is None:
            pits = self._pits = pits_of(self._key)
        return pits

    def _seen_worked_out(self) -> frozenset:
        seen = self._seen
        if seen is None:
            line, depth = self._line or {}, self._depth
            seen = self._seen = frozenset((pits_of(key), int(key >= MOVER)) for key, at in line.items() if at < depth)
        return seen

    pits = _field("pits", _pits_worked_out)
    stores = _field("stores")
    mover = _field("mover")
    seen = _field("seen", _seen_worked_out)

    def repeated(self) -> bool:
        """Whether this position was seen since the last capture (the game ended in repetition)."""
        line = self._line
        return line is not None and line.get(self._key, self._depth) < self._depth

    @property
    def to_move(self) -> str:
        return PLAYERS[self._mover]

    @property
    def position(self) -> tuple:
        return (self.pits, self._mover)

    def to_json(self) -> dict:
        obj = {"game": "wari", "pits": list(self.pits), "stores": list(self._stores),
               "to_move": self.to_move}
        if self.seen:
            obj["seen"] = [{"pits": list(pits), "to_move": PLAYERS[mover]}
                           for pits, mover in sorted(self.seen)]
        return obj

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self._key == other._key and self._stores == other._stores
                and ((self._line is other._line and self._depth == other._depth) or self.seen == other.seen))

    def __hash__(self):
        return hash((self.pits, self._stores, self._mover, self.seen))

    def __repr__(self):
        return f"WariState(pits={self.pits!r}, stores={self._stores!r}, mover={self._mover!r}, seen={self.seen!r})"

    def __reduce__(self):
        return (WariState, (self.pits, self._stores, self._mover, self.seen))


_new = object.__new__


def state_sown(before: WariState, key: int) -> WariState:
    """`state_after` for a move that captured nothing."""
    made = _new(WariState)
    made._stores, made._mover, made._key = before._stores, 1 - before._mover, key
    made._pits = made._seen = None
    position, line, depth = before._key, before._line, before._depth
    if line is None:
        line = {position: 0}
    elif len(line) == depth:  # this line goes on
        line[position] = depth
    elif line.get(position) != depth:  # another line went on from here: copy the shared part
        line = {seen: at for seen, at in line.items() if at < depth}
        line[position] = depth
    made._line, made._depth = line, depth + 1
    return made


def state_after(before: WariState, key: int, stores: tuple[int, int]) -> WariState:
    """The state a move of `before`'s mover leaves, `key` its position (the other player to
    move): `before`'s position added to those seen unless the move captured (its stores changed)."""
    if stores is before._stores or stores == before._stores:
        return state_sown(before, key)
    made = _new(WariState)
    made._stores, made._mover, made._key = stores, 1 - before._mover, key
    made._pits = made._seen = None
    made._line, made._depth = None, 0
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
