"""Varanasi (Masahiro Nakajima, 2012): towers of discs, *take* a colour or *relocate* a top part.

A turn either declares a colour showing on at least one top and removes every top disc of that
colour (one per tower), or lifts the top part of a tower onto another tower whose top disc is
bigger than the part's bottom disc. Whoever takes the last disc wins the set and scores the discs
taken in that turn. There is no standard start: players build random towers, so a record must give
its start position.

Rules JSON (the contract "rules" object); every key but "game" is optional:

    {"game": "varanasi",
     "relocation": "nestor",     # or "wiki": how much higher a relocated part must end
     "players": 2,               # 2, 3 or 4, in clockwise seat order
     "misere": false,            # two players: whoever takes the last disc loses the set
     "doubles": false,           # four players, team 0 = seats 0 and 2, team 1 = seats 1 and 3
     "credit": "player",         # doubles only: set scores go to the "player" or the "team"
     "weights": {"1": 1, "2": 1, "3": 1, "4": 1},   # points per disc size in the set score
     "target": 10}               # match ends when a score reaches it; or "sets": N fixed sets

Sources and every interpretation: docs/rules/varanasi.md. Matches: engines/varanasi_match.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from random import Random
from typing import Any, ClassVar, NamedTuple, Sequence

from engines.base import Explanation, Outcome
from engines.errors import IllegalMove, MoveError, RulesError, StateError

SIZES = (1, 2, 3, 4)
RELOCATIONS = ("nestor", "wiki")
CREDITS = ("player", "team")
RULES_KEYS = ("game", "relocation", "players", "misere", "doubles", "credit", "weights", "target", "sets")
STATE_KEYS = ("game", "stacks", "to_move", "last_take")

# A colour name starts with neither a digit nor a space, so "2blue" and "3dark green" split clearly.
_COLOUR = r"[^\d\s](?:.*\S)?"
_COLOUR_NAME = re.compile(_COLOUR)
_DISC_CODE = re.compile(rf"(\d+)({_COLOUR})")


class Disc(NamedTuple):
    """One disc. Codes are unique in a set, so tuple order sorts towers into one canonical order."""

    size: int
    colour: str

    def __str__(self) -> str:
        return f"{self.size}{self.colour}"


Tower = tuple  # of Disc, bottom to top


@lru_cache(maxsize=4096)
def _parse_disc(code: str) -> Disc:
    match = _DISC_CODE.fullmatch(code)
    if match is None:
        raise ValueError(f"{code!r} is not a disc code: a size 1-4 then a colour, such as \"2red\"")
    size = int(match.group(1))
    if size not in SIZES:
        raise ValueError(f"unknown size {match.group(1)} in {code}: sizes run 1 to 4")
    return Disc(size, match.group(2))


def parse_disc(code: Any, error: type[Exception] = StateError) -> Disc:
    """The Disc a contract code such as "2blue" names; a bad code raises `error`."""
    if not isinstance(code, str):
        raise error(f"{code!r} is not a disc code: a size 1-4 then a colour, such as \"2red\"")
    try:
        return _parse_disc(code)
    except ValueError as exc:
        raise error(str(exc)) from None


def _colour(value: Any) -> str:
    if not isinstance(value, str) or _COLOUR_NAME.fullmatch(value) is None:
        raise MoveError(f"{value!r} is not a colour name such as \"red\"")
    return value


def tower_name(tower: Tower) -> str:
    """How a player points at a tower: by the disc at its bottom, which never moves."""
    return f"the lone {tower[0]}" if len(tower) == 1 else f"the tower on {tower[0]}"


def listing(discs) -> str:
    names = [str(d) for d in sorted(discs)]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@dataclass(frozen=True)
class LastTake:
    """The take that emptied the table: who made it and which discs it removed (sorted)."""

    seat: int
    discs: tuple

    def to_json(self) -> dict:
        return {"seat": self.seat, "discs": [str(d) for d in self.discs]}


@dataclass(frozen=True, eq=False)
class VaranasiState:
    """Towers in table order (as read, left to right); equality and hashing ignore that order."""

    stacks: tuple
    to_move: int = 0
    last_take: LastTake | None = None
    _key: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_key", (tuple(sorted(self.stacks)), self.to_move, self.last_take))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VaranasiState) and self._key == other._key

    def __hash__(self) -> int:
        # Kept once asked: a judge hashes each state it weighs several times, and a tuple of
        # towers does not keep its own hash. Never pickled (strings hash anew in each process).
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(self._key)
            object.__setattr__(self, "_hash", cached)
        return cached

    def __getstate__(self) -> dict:
        return {name: value for name, value in self.__dict__.items() if name != "_hash"}

    @property
    def towers(self) -> tuple:
        """The towers in canonical (sorted) order."""
        return self._key[0]

    @cached_property
    def supports(self) -> dict:
        """Disc -> the disc it rests on (None on the table); it fixes the towers exactly."""
        return {disc: tower[level - 1] if level else None
                for tower in self.stacks for level, disc in enumerate(tower)}

    @cached_property
    def places(self) -> dict:
        """Disc -> (index of its tower in `stacks`, 0-based level)."""
        return {disc: (index, level)
                for index, tower in enumerate(self.stacks) for level, disc in enumerate(tower)}

    def to_json(self) -> dict:
        obj = {"game": "varanasi", "stacks": [[str(d) for d in tower] for tower in self.stacks],
               "to_move": self.to_move}
        if self.last_take is not None:
            obj["last_take"] = self.last_take.to_json()
        return obj


@dataclass(frozen=True)
class Take:
    """Declare a colour and remove every top disc of that colour."""

    colour: str

    def to_json(self) -> dict:
        return {"take": self.colour}


@dataclass(frozen=True)
class Relocate:
    """Lift the part of a tower whose bottom disc is `part` onto the tower topped by `onto`."""

    part: Disc
    onto: Disc

    def to_json(self) -> dict:
        return {"move": str(self.part), "onto": str(self.onto)}


# The colours of the standard Nestor set, for random set-ups that no piece set names.
STANDARD_COLOURS = ("red", "orange", "yellow", "green", "blue", "purple")


def random_opening(rules: VaranasiRules, rng: Random) -> VaranasiState:
    """A random set-up of the standard set's discs, as players build towers before a set."""
    return random_setup(rng, STANDARD_COLOURS)


def random_setup(rng: Random, colours: Sequence[str], sizes: Sequence[int] = SIZES,
                 discs: int | None = None, to_move: int = 0) -> VaranasiState:
    """Random towers as players build them at the start of a set (Varanasi has no fixed start).

    Takes `discs` distinct discs (all colour x size pairs when None) and drops each, in random
    order, on a random tower still lacking its size, or starts a new tower.
    """
    pool = [Disc(size, colour) for colour in colours for size in sizes]
    chosen = rng.sample(pool, len(pool) if discs is None else discs)
    towers: list[list[Disc]] = []
    for disc in chosen:
        fits = [tower for tower in towers if all(d.size != disc.size for d in tower)]
        pick = rng.randrange(len(fits) + 1)
        if pick == len(fits):
            towers.append([disc])
        else:
            fits[pick].append(disc)
    return VaranasiState(tuple(tuple(sorted(t, reverse=True)) for t in towers), to_move)


def _flag(obj: dict, key: str) -> bool:
    value = obj.get(key, False)
    if not isinstance(value, bool):
        raise RulesError(f"varanasi rules: \"{key}\" must be true or false, not {value!r}")
    return value


def _count(obj: dict, key: str, allowed: range, wording: str) -> int | None:
    if key not in obj:
        return None
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
        raise RulesError(f"varanasi rules: \"{key}\" must be {wording}, not {value!r}")
    return value


def _choice(obj: dict, key: str, allowed: tuple, default: str) -> str:
    value = obj.get(key, default)
    if value not in allowed:
        raise RulesError(f"varanasi rules: \"{key}\" must be {' or '.join(map(repr, allowed))}, not {value!r}")
    return value


def _weights(obj: dict) -> tuple:
    value = obj.get("weights", {})
    if not isinstance(value, dict):
        raise RulesError("varanasi rules: \"weights\" must be an object such as {\"1\": 1, \"4\": 3}")
    weights = dict.fromkeys(SIZES, 1)
    for key, weight in value.items():
        if key not in {str(s) for s in SIZES}:
            raise RulesError(f"varanasi rules: weights key {key!r} is not a size 1-4")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight < float("inf"):
            raise RulesError(f"varanasi rules: weight of size {key} must be a number 0 or more, not {weight!r}")
        weights[int(key)] = weight
    return tuple(weights[s] for s in SIZES)


@dataclass(frozen=True)
class VaranasiRules:
    """The Varanasi rule engine (see engines.base.Rules); build it with `from_json`."""

    game: ClassVar[str] = "varanasi"
    relocation: str = "nestor"
    players: int = 2
    misere: bool = False
    doubles: bool = False
    credit: str | None = None
    weights: tuple = (1, 1, 1, 1)
    target: int | None = 10
    sets: int | None = None

    @classmethod
    def from_json(cls, obj: Any) -> VaranasiRules:
        if not isinstance(obj, dict) or obj.get("game") != "varanasi":
            raise RulesError("varanasi rules must be an object with \"game\": \"varanasi\"")
        unknown = sorted(set(obj) - set(RULES_KEYS))
        if unknown:
            raise RulesError(f"varanasi rules: unknown key {', '.join(map(repr, unknown))}; "
                             f"known keys: {', '.join(RULES_KEYS[1:])}")
        doubles = _flag(obj, "doubles")
        misere = _flag(obj, "misere")
        players = _count(obj, "players", range(2, 5), "2, 3 or 4") or (4 if doubles else 2)
        if doubles and players != 4:
            raise RulesError(f"varanasi rules: doubles is played by 4 players, not {players}")
        if misere and players != 2:
            raise RulesError(f"varanasi rules: misere is a two-player variant, not for {players} players")
        if "credit" in obj and not doubles:
            raise RulesError("varanasi rules: \"credit\" only applies to doubles")
        target = _count(obj, "target", range(1, 1 << 31), "a whole number of points, 1 or more")
        sets = _count(obj, "sets", range(1, 1 << 31), "a whole number of sets, 1 or more")
        if target is not None and sets is not None:
            raise RulesError("varanasi rules: a match ends at a \"target\" score or after a number of "
                             "\"sets\", not both")
        if sets is None and target is None:
            target = 10
        return cls(
            relocation=_choice(obj, "relocation", RELOCATIONS, "nestor"),
            players=players,
            misere=misere,
            doubles=doubles,
            credit=_choice(obj, "credit", CREDITS, "player") if doubles else None,
            weights=_weights(obj),
            target=target,
            sets=sets,
        )

    def to_json(self) -> dict:
        obj = {"game": self.game, "relocation": self.relocation, "players": self.players,
               "misere": self.misere, "doubles": self.doubles}
        if self.doubles:
            obj["credit"] = self.credit
        obj["weights"] = {str(size): weight for size, weight in zip(SIZES, self.weights)}
        if self.sets is not None:
            obj["sets"] = self.sets
        else:
            obj["target"] = self.target
        return obj

    # Players build random towers: a game's record must give its start position.
    has_standard_start: ClassVar[bool] = False
    history_keys: ClassVar[tuple] = ()  # "last_take" decides the set's score: part of the position

    @property
    def sides(self) -> tuple[int, ...]:
        """The seats in turn order (0-based seat numbers, as states and moves name them)."""
        return tuple(range(self.players))

    def side_name(self, side: int) -> str:
        return f"Seat {side + 1}"

    def start(self) -> VaranasiState:
        raise RulesError("varanasi has no standard start: players build random towers, so give the "
                         "start position (a record's \"start\")")

    # -- JSON in -------------------------------------------------------------------------------

    def state_from_json(self, obj: Any) -> VaranasiState:
        """A contract state; StateError names the tower and discs of anything impossible."""
        return self._state_from_json(obj, check_order=True)

    def _state_from_json(self, obj: Any, check_order: bool) -> VaranasiState:
        if not isinstance(obj, dict):
            raise StateError("a varanasi state is an object with \"stacks\" and \"to_move\"")
        unknown = sorted(set(obj) - set(STATE_KEYS))
        if unknown:
            raise StateError(f"varanasi state: unknown key {', '.join(map(repr, unknown))}")
        if obj.get("game", "varanasi") != "varanasi":
            raise StateError(f"not a varanasi state: \"game\" is {obj['game']!r}")
        raw = obj.get("stacks")
        if not isinstance(raw, list):
            raise StateError("varanasi state: \"stacks\" must be a list of towers, each a list of discs")
        seen: dict[Disc, int] = {}
        stacks = []
        for number, raw_tower in enumerate(raw, start=1):
            if not isinstance(raw_tower, list) or not raw_tower:
                raise StateError(f"tower {number}: a tower is a non-empty list of discs, bottom to top")
            tower = tuple(parse_disc(code) for code in raw_tower)
            for below, above in zip(tower, tower[1:]):
                if check_order and above.size >= below.size:
                    kind = ("two discs of one size never stack" if above.size == below.size
                            else "a disc only goes on a bigger one")
                    raise StateError(f"tower {number}: {above} rests on {below}; {kind}")
            for disc in tower:
                if disc in seen:
                    where = (f"in tower {number}" if seen[disc] == number
                             else f"in towers {seen[disc]} and {number}")
                    raise StateError(f"{disc} appears twice ({where}); every disc of a set is unique")
                seen[disc] = number
            stacks.append(tower)
        to_move = self._seat(obj.get("to_move", 0), "to_move")
        last_take = None
        if "last_take" in obj:
            if stacks:
                raise StateError("\"last_take\" records the take that emptied the table, "
                                 "but discs are still on it")
            last_take = self._last_take_from_json(obj["last_take"])
        return VaranasiState(tuple(stacks), to_move, last_take)

    def _seat(self, value: Any, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < self.players:
            raise StateError(f"{what} {value!r} is not a seat: this game has {self.players} players "
                             f"(seats 0-{self.players - 1})")
        return value

    def _last_take_from_json(self, obj: Any) -> LastTake:
        if not isinstance(obj, dict) or set(obj) != {"seat", "discs"} or not isinstance(obj["discs"], list) \
                or not obj["discs"]:
            raise StateError("\"last_take\" must be {\"seat\": SEAT, \"discs\": [DISC, ...]}")
        discs = [parse_disc(code) for code in obj["discs"]]
        if len({d.colour for d in discs}) != 1 or len(set(discs)) != len(discs):
            raise StateError(f"last_take {listing(discs)}: a take removes distinct discs of one colour")
        return LastTake(self._seat(obj["seat"], "last_take seat"), tuple(sorted(discs)))

    def move_from_json(self, obj: Any) -> Take | Relocate:
        if isinstance(obj, dict) and set(obj) == {"take"}:
            return Take(_colour(obj["take"]))
        if isinstance(obj, dict) and set(obj) == {"move", "onto"}:
            return Relocate(parse_disc(obj["move"], MoveError), parse_disc(obj["onto"], MoveError))
        raise MoveError(f"{obj!r} is not a varanasi move: {{\"take\": COLOUR}} or "
                        f"{{\"move\": DISC, \"onto\": DISC}}")

    # -- play ----------------------------------------------------------------------------------

    def _height_allows(self, part_level: int, source_height: int, dest_height: int) -> bool:
        if self.relocation == "nestor":
            # topmost disc rises: dest_height + (source_height - part_level) > source_height
            return dest_height > part_level
        return dest_height > source_height

    def legal_moves(self, state: VaranasiState) -> list:
        stacks = state.towers  # canonical order, so equal states list their moves alike
        moves: list = [Take(colour) for colour in sorted({tower[-1].colour for tower in stacks})]
        for source_index, source in enumerate(stacks):
            for level, part in enumerate(source):
                for dest_index, dest in enumerate(stacks):
                    top = dest[-1]
                    if (dest_index != source_index and part.size < top.size
                            and self._height_allows(level, len(source), len(dest))):
                        moves.append(Relocate(part, top))
        return moves

    def relocation_fault(self, state: VaranasiState, move: Relocate) -> str | None:
        """Why `move` is illegal in `state`, naming the discs, or None when it is legal."""
        places = state.places
        for disc in (move.part, move.onto):
            if disc not in places:
                return f"{disc} is not on the table"
        source_index, level = places[move.part]
        dest_index, dest_level = places[move.onto]
        source, dest = state.stacks[source_index], state.stacks[dest_index]
        if move.part == move.onto:
            return f"{move.part} cannot go onto itself"
        if source_index == dest_index:
            return f"{move.part} and {move.onto} are in the same tower; a part goes onto another tower"
        if dest_level != len(dest) - 1:
            return f"{move.onto} is covered by {dest[dest_level + 1]}; a part only goes on top of a tower"
        if move.part.size >= move.onto.size:
            return f"{move.part} may not rest on {move.onto}: a disc only goes on a bigger one"
        if self._height_allows(level, len(source), len(dest)):
            return None
        if self.relocation == "wiki":
            return (f"{tower_name(dest)} ({len(dest)} high) is not higher than {tower_name(source)} "
                    f"({len(source)} high); a part only goes onto a higher tower")
        old, new = len(source), len(dest) + len(source) - level
        change = f"stay at level {old}" if new == old else f"drop from level {old} to level {new}"
        return f"the moved part's top disc {source[-1]} would {change}; it must end higher"

    def apply(self, state: VaranasiState, move: Take | Relocate) -> VaranasiState:
        next_seat = (state.to_move + 1) % self.players
        stacks = state.stacks
        if isinstance(move, Take):
            if not any(tower[-1].colour == move.colour for tower in stacks):
                raise IllegalMove(f"no tower has a {move.colour} disc on top; a take needs at least one")
            taken = tuple(sorted(t[-1] for t in stacks if t[-1].colour == move.colour))
            left = tuple(t if t[-1].colour != move.colour else t[:-1] for t in stacks)
            left = tuple(t for t in left if t)
            return VaranasiState(left, next_seat, None if left else LastTake(state.to_move, taken))
        fault = self.relocation_fault(state, move)
        if fault:
            raise IllegalMove(fault)
        source_index, level = state.places[move.part]
        dest_index = state.places[move.onto][0]
        part = stacks[source_index][level:]
        moved = []
        for index, tower in enumerate(stacks):
            if index == source_index:
                tower = tower[:level]
            elif index == dest_index:
                tower = tower + part
            if tower:
                moved.append(tower)
        return VaranasiState(tuple(moved), next_seat)

    def is_over(self, state: VaranasiState) -> bool:
        return not state.stacks

    def set_score(self, discs: Sequence[Disc]):
        """The weighted number of discs a set's final take is worth."""
        return sum(self.weights[d.size - 1] for d in discs)

    def outcome(self, state: VaranasiState) -> Outcome:
        """Scores of the set; a finished state without "last_take" cannot say who won it."""
        if state.stacks:
            return Outcome(False, None, dict.fromkeys(range(self.players), 0))
        if state.last_take is None:
            return Outcome(True, None, {})
        taker = state.last_take.seat
        winner = 1 - taker if self.misere else taker
        scores = dict.fromkeys(range(self.players), 0)
        scores[winner] = self.set_score(state.last_take.discs)
        return Outcome(True, winner, scores)

    def notation(self, move: Take | Relocate) -> str:
        if isinstance(move, Take):
            return f"take {move.colour}"
        return f"{move.part} onto {move.onto}"

    # -- judging a change seen on the table ----------------------------------------------------

    def explain(self, before: VaranasiState | dict, after: VaranasiState | dict) -> Explanation:
        """Every legal move turning `before` into `after` (towers as a multiset), or why none does.

        Either side may be a state or contract JSON; JSON for `after` is read as the camera saw
        it, so a disc lying on a smaller one becomes the verdict rather than a StateError. Whose
        turn `after` claims is ignored: the camera cannot see it.
        """
        from engines.varanasi_explain import explain_change

        if isinstance(before, dict):
            before = self.state_from_json(before)
        if isinstance(after, dict):
            after = self._state_from_json(after, check_order=False)
        return explain_change(self, before, after)

    def difference(self, before: VaranasiState, after: VaranasiState) -> str:
        """How two tables differ, disc by disc ("no 3red on 4red"), where no move is in question."""
        from engines.varanasi_explain import describe_difference

        return describe_difference(before, after)

    def out_of_play(self, before: VaranasiState, after: dict) -> str | None:
        """The discs a table read by camera shows that left the game before `before`, or None."""
        from engines.varanasi_explain import out_of_play

        return out_of_play(before, after)
