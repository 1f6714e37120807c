"""Nanku (Néstor Romeral Andrés): dual white/black pieces built into one structure on an open
table; four cubes of one colour in a line win.

Rule sources and every interpretation: docs/rules/nanku.md.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Iterable, Mapping, NamedTuple

from engines.base import Explanation, Outcome
from engines.errors import IllegalMove, MoveError, RulesError, StateError
from engines.nanku_cells import (  # noqa: F401 - the grid's names, public here as before
    FACE_STEPS,
    LINE_LENGTH,
    LINE_STEPS,
    Cell,
    below,
    faces,
    four_in_lines,
    is_exposed,
    shift,
)

WHITE, BLACK = "white", "black"
COLOURS = (WHITE, BLACK)
SUPPLY = 40


def _cube(cell: Cell, colour: str) -> "Cube":
    """Cube(*cell, colour), made without the keyword handling of a named tuple's constructor."""
    return tuple.__new__(Cube, (*cell, colour))


def _where(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]},{cell[2]})"


def opponent(colour: str) -> str:
    return BLACK if colour == WHITE else WHITE


class Cube(NamedTuple):
    x: int
    y: int
    z: int
    colour: str

    @property
    def cell(self) -> Cell:
        return (self.x, self.y, self.z)

    def to_json(self) -> list:
        return [self.x, self.y, self.z, self.colour]

    def __str__(self) -> str:
        return f"{self.colour} cube at {_where(self.cell)}"


@dataclass(frozen=True, order=True)
class Piece:
    """One dual piece: a white and a black cube sharing a face."""

    white: Cube
    black: Cube

    @property
    def cubes(self) -> tuple[Cube, Cube]:
        return (self.white, self.black)

    @property
    def cells(self) -> tuple[Cell, Cell]:
        return (self.white.cell, self.black.cell)

    def to_json(self) -> list:
        return [self.white.to_json(), self.black.to_json()]

    def __str__(self) -> str:
        return f"the piece at {_where(self.white.cell)}-{_where(self.black.cell)}"


@dataclass(frozen=True)
class Place:
    """Take a piece from the supply and set it down: `{"cubes": [[x, y, z, colour], ...]}`."""

    piece: Piece

    def to_json(self) -> dict:
        return {"cubes": self.piece.to_json()}


@dataclass(frozen=True)
class Collapse:
    """Arbiter's extension `{"collapse": PLAYER}`: PLAYER made the structure fall and loses."""

    culprit: str

    def to_json(self) -> dict:
        return {"collapse": self.culprit}


@dataclass(frozen=True)
class NankuState:
    """The pieces on the table (sorted: placement order carries no meaning), the player to move and
    who made the structure collapse, if anyone did."""

    pieces: tuple[Piece, ...]
    to_move: str
    collapsed: str | None = None

    @cached_property
    def colour_at(self) -> dict[Cell, str]:
        return {cube.cell: cube.colour for piece in self.pieces for cube in piece.cubes}

    @cached_property
    def lines(self) -> tuple[tuple[str, tuple[Cell, ...]], ...]:
        return four_in_lines(self.colour_at)

    def to_json(self) -> dict:
        obj = {"game": "nanku", "pieces": [p.to_json() for p in self.pieces], "to_move": self.to_move}
        if self.collapsed is not None:
            obj["collapsed"] = self.collapsed
        return obj


def _unsupported(cells: Iterable[Cell], colour_at: Mapping[Cell, str], also: Iterable[Cell] = ()) -> Cell | None:
    """The first of `cells` with neither the table nor a cube (of `colour_at` or `also`) under it."""
    for cell in cells:
        if cell[2] > 0 and below(cell) not in colour_at and below(cell) not in also:
            return cell
    return None


def _touches(cells: Iterable[Cell], colour_at: Mapping[Cell, str]) -> bool:
    return any(shift(cell, step) in colour_at for cell in cells for step in FACE_STEPS)


def _winner(state: NankuState) -> str | None:
    if state.collapsed is not None:
        return opponent(state.collapsed)
    colours = {colour for colour, _ in state.lines}
    if len(colours) == 2:
        # One placement completed both colours' lines: the player who placed it wins.
        return opponent(state.to_move)
    return colours.pop() if colours else None


def _end_reason(state: NankuState) -> str | None:
    if state.collapsed is not None:
        return f"{state.collapsed} made the structure collapse"
    winner = _winner(state)
    if winner is not None:
        return f"{winner} has four in a line"
    if len(state.pieces) == SUPPLY:
        return f"all {SUPPLY} pieces are placed"
    return None


def _int(value: Any, what: str, error: type[Exception]) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(f"{what} must be an integer, got {value!r}")
    return value


def _colour_from_json(value: Any, what: str, error: type[Exception]) -> str:
    if value not in COLOURS:
        raise error(f"{what} must be \"white\" or \"black\", got {value!r}")
    return value


def _cube_from_json(obj: Any, error: type[Exception]) -> Cube:
    if not isinstance(obj, list) or len(obj) != 4:
        raise error(f"a cube is [x, y, z, \"white\"|\"black\"], got {obj!r}")
    off_grid = [v for v in obj[:3] if isinstance(v, float) and not v.is_integer() and (2 * v).is_integer()]
    if off_grid:
        # What a camera reads of a piece set down half a cube from the grid.
        raise error(f"cube at ({', '.join(f'{v:g}' for v in obj[:3])}) is off the grid by half a cube: "
                    "pieces must line up with the cubes already placed")
    x, y, z = (_int(int(v) if isinstance(v, float) and v.is_integer() else v, f"cube coordinate {name}", error)
               for v, name in zip(obj, "xyz"))
    colour = _colour_from_json(obj[3], "cube colour", error)
    if z < 0:
        raise error(f"cube at {_where((x, y, z))} is below the table (z must be 0 or more)")
    return Cube(x, y, z, colour)


def _piece_from_json(obj: Any, error: type[Exception]) -> Piece:
    if not isinstance(obj, list) or len(obj) != 2:
        raise error(f"a piece is two cubes [[x, y, z, colour], [x, y, z, colour]], got {obj!r}")
    return _piece(*(_cube_from_json(cube, error) for cube in obj), error=error)


def _piece(first: Cube, second: Cube, error: type[Exception]) -> Piece:
    if first.colour == second.colour:
        raise error(f"two {first.colour} cubes in one piece, at {_where(first.cell)} and {_where(second.cell)}")
    distance = sum(abs(a - b) for a, b in zip(first.cell, second.cell))
    if distance != 1:
        raise error(f"cubes at {_where(first.cell)} and {_where(second.cell)} of one piece do not share a face")
    return Piece(first, second) if first.colour == WHITE else Piece(second, first)


def structure_problem(pieces: tuple[Piece, ...]) -> str | None:
    """Why these pieces cannot stand on a table as one structure built by the placement rules.

    Supported and face-connected is enough: every contact above the table lies over a contact
    between the columns beneath, so the pieces touching the table are connected among themselves
    and can be placed first, then the others in order of height.
    """
    colour_at: dict[Cell, str] = {}
    for piece in pieces:
        for cube in piece.cubes:
            if cube.cell in colour_at:
                return f"two cubes at {_where(cube.cell)}"
            colour_at[cube.cell] = cube.colour
    floating = _unsupported(colour_at, colour_at)
    if floating is not None:
        return f"cube at {_where(floating)} has nothing under it"
    if not pieces:
        return None
    reached = {pieces[0].white.cell}
    frontier = [pieces[0].white.cell]
    while frontier:
        cell = frontier.pop()
        for step in FACE_STEPS:
            neighbour = shift(cell, step)
            if neighbour in colour_at and neighbour not in reached:
                reached.add(neighbour)
                frontier.append(neighbour)
    for piece in pieces:
        if piece.white.cell not in reached:
            return f"{piece} is cut off from the rest of the structure"
    return None


def _changed_cube(before: NankuState, after: NankuState) -> str | None:
    """What happened to the first cube of `before` that `after` does not hold in the same place."""
    for cell, colour in sorted(before.colour_at.items()):
        now = after.colour_at.get(cell)
        if now is None:
            return f"the {colour} cube at {_where(cell)} was moved or taken away"
        if now != colour:
            return f"the cube at {_where(cell)} turned from {colour} to {now}"
    return None


def _turned(cell: Cell, quarters: int, dx: int = 0, dy: int = 0) -> Cell:
    """The cell after `quarters` quarter turns about the vertical axis through the origin, then a
    shift by (dx, dy) on the table."""
    x, y, z = cell
    for _ in range(quarters):
        x, y = -y, x
    return (x + dx, y + dy, z)


def canonical_cubes(state: NankuState) -> tuple:
    """The state's cubes as the least of their sorted forms over quarter turns and shifts on the
    table: two states with the same form are the same position (the contract: a turned or shifted
    structure is the same position)."""
    forms = []
    for quarters in range(4):
        turned = [(_turned(cell, quarters), colour) for cell, colour in state.colour_at.items()]
        low_x = min((cell[0] for cell, _ in turned), default=0)
        low_y = min((cell[1] for cell, _ in turned), default=0)
        forms.append(tuple(sorted((x - low_x, y - low_y, z, colour) for (x, y, z), colour in turned)))
    return min(forms)


def _frames_keeping(before: NankuState, after: NankuState) -> list[NankuState]:
    """`after` turned and shifted on the table in every way that puts each cube of `before` back
    where it was (the same cube in every way when `after` is symmetric)."""
    anchor = min(before.colour_at)
    frames = {}
    for quarters in range(4):
        turned = {_turned(cell, quarters): colour for cell, colour in after.colour_at.items()}
        for (x, y, z), colour in turned.items():
            dx, dy = anchor[0] - x, anchor[1] - y
            if (z, colour) != (anchor[2], before.colour_at[anchor]) or any(
                turned.get(_turned(cell, 0, -dx, -dy)) != kept for cell, kept in before.colour_at.items()
            ):
                continue
            pieces = tuple(sorted(
                Piece(*(Cube(*_turned(cube.cell, quarters, dx, dy), cube.colour) for cube in piece.cubes))
                for piece in after.pieces
            ))
            frames[pieces] = NankuState(pieces, after.to_move, after.collapsed)
    return list(frames.values())


class NankuRules:
    """The Nanku engine; see engines/base.py for the Rules protocol."""

    game = "nanku"
    players = 2
    sides = COLOURS
    has_standard_start = True
    history_keys = ()

    @classmethod
    def from_json(cls, obj: Any) -> NankuRules:
        if not isinstance(obj, dict) or obj.get("game") != "nanku":
            raise RulesError("Nanku rules are {\"game\": \"nanku\"}")
        unknown = sorted(set(obj) - {"game"})
        if unknown:
            raise RulesError(f"unknown Nanku rules keys: {', '.join(unknown)} (Nanku has no options)")
        return cls()

    def to_json(self) -> dict:
        return {"game": "nanku"}

    def side_name(self, side: str) -> str:
        return side.capitalize()

    def start(self) -> NankuState:
        return NankuState((), WHITE)

    def state_from_json(self, obj: Any) -> NankuState:
        """Contract JSON plus the optional key "collapsed"; `to_move` may be left out (it follows
        from the number of pieces, since White starts and nobody passes)."""
        if not isinstance(obj, dict) or obj.get("game") != "nanku":
            raise StateError("a Nanku state is {\"game\": \"nanku\", \"pieces\": [...], \"to_move\": ...}")
        unknown = sorted(set(obj) - {"game", "pieces", "to_move", "collapsed"})
        if unknown:
            raise StateError(f"unknown Nanku state keys: {', '.join(unknown)}")
        pieces_json = obj.get("pieces")
        if not isinstance(pieces_json, list):
            raise StateError("Nanku \"pieces\" must be a list of pieces")
        if len(pieces_json) > SUPPLY:
            raise StateError(f"{len(pieces_json)} pieces placed, but the supply holds only {SUPPLY}")
        pieces = tuple(_piece_from_json(p, StateError) for p in pieces_json)
        problem = structure_problem(pieces)
        if problem is not None:
            raise StateError(problem)
        next_player = COLOURS[len(pieces) % 2]
        to_move = _colour_from_json(obj.get("to_move", next_player), "\"to_move\"", StateError)
        if to_move != next_player:
            raise StateError(f"with {len(pieces)} pieces placed {next_player} is to move, not {to_move}")
        collapsed = obj.get("collapsed")
        if collapsed is not None:
            _colour_from_json(collapsed, "\"collapsed\"", StateError)
        state = NankuState(tuple(sorted(pieces)), to_move, collapsed)
        if collapsed is not None and state.lines:
            raise StateError("the game ended with four in a line before the structure collapsed")
        return state

    def move_from_json(self, obj: Any) -> Place | Collapse:
        if isinstance(obj, dict) and set(obj) == {"cubes"}:
            return Place(_piece_from_json(obj["cubes"], MoveError))
        if isinstance(obj, dict) and set(obj) == {"collapse"}:
            return Collapse(_colour_from_json(obj["collapse"], "\"collapse\"", MoveError))
        raise MoveError(
            "a Nanku move is {\"cubes\": [[x, y, z, colour], [x, y, z, colour]]} or {\"collapse\": PLAYER}"
        )

    def placement_problem(self, state: NankuState, piece: Piece) -> str | None:
        """Why `piece` may not be set down in `state` (None if it may)."""
        colour_at = state.colour_at
        for cube in piece.cubes:
            if cube.cell in colour_at:
                return f"cell {_where(cube.cell)} is already taken by a {colour_at[cube.cell]} cube"
        floating = _unsupported(piece.cells, colour_at, also=piece.cells)
        if floating is not None:
            return f"cube at {_where(floating)} has nothing under it"
        if state.pieces and not _touches(piece.cells, colour_at):
            return f"{piece} touches no placed piece face to face"
        return None

    def legal_moves(self, state: NankuState) -> tuple[Place, ...]:
        """Every placement, in both colour orientations. The table is unbounded, so on the empty
        table only the three shapes starting at the origin (along +x, along +y, standing) are
        listed; `apply` accepts a first piece anywhere."""
        if self.is_over(state):
            return ()
        colour_at = state.colour_at
        if not state.pieces:
            shapes = {((0, 0, 0), step) for step in ((1, 0, 0), (0, 1, 0), (0, 0, 1))}
        else:
            frontier = {neighbour for x, y, z in colour_at for neighbour in faces(x, y, z) if neighbour not in colour_at}
            # Each shape as its two cells in order, so that a domino is listed once; only shapes
            # of free cells above the table (`placement_problem`'s first checks: they look at
            # cells, not colours). Every shape holds a frontier cell, which touches the structure
            # by construction.
            shapes = {(cell, other) if cell < other else (other, cell)
                      for cell in frontier if cell[2] >= 0
                      for other in faces(*cell) if other[2] >= 0 and other not in colour_at}
        pieces = []
        for first, second in shapes:
            # Each cube on the table, on a cube placed, or on the other cube of the piece.
            if ((first[2] == 0 or (first[0], first[1], first[2] - 1) in colour_at
                 or (first[0], first[1], first[2] - 1) == second)
                    and (second[2] == 0 or (second[0], second[1], second[2] - 1) in colour_at
                         or (second[0], second[1], second[2] - 1) == first)):
                pieces.append((_cube(first, WHITE), _cube(second, BLACK)))
                pieces.append((_cube(second, WHITE), _cube(first, BLACK)))
        # Pieces compare by their (white, black) cubes: sorting the pairs orders them alike.
        pieces.sort()
        return tuple(Place(Piece(white, black)) for white, black in pieces)

    def apply(self, state: NankuState, move: Place | Collapse) -> NankuState:
        ended = _end_reason(state)
        if ended is not None:
            raise IllegalMove(f"the game is over: {ended}")
        if isinstance(move, Collapse):
            return replace(state, collapsed=move.culprit)
        problem = self.placement_problem(state, move.piece)
        if problem is not None:
            raise IllegalMove(problem)
        return NankuState(tuple(sorted(state.pieces + (move.piece,))), opponent(state.to_move))

    def is_over(self, state: NankuState) -> bool:
        return _end_reason(state) is not None

    def outcome(self, state: NankuState) -> Outcome:
        """A win scores 1 to 0, a draw (supply used up) half a point each."""
        if not self.is_over(state):
            return Outcome(False, None, {WHITE: 0, BLACK: 0})
        winner = _winner(state)
        if winner is None:
            return Outcome(True, None, {WHITE: 0.5, BLACK: 0.5})
        return Outcome(True, winner, {colour: int(colour == winner) for colour in COLOURS})

    def slips(self, state: NankuState) -> list:
        """The tables a player's common slips leave (`engines.nanku_slips`)."""
        from engines.nanku_slips import slips  # it builds on this module

        return slips(self, state)

    def explain(self, before: NankuState, after: NankuState) -> Explanation:
        """The move (a placement or a collapse) turning `before` into `after`, found from the cubes
        that differ rather than from `legal_moves`, so a first piece anywhere is explained.

        Players may turn or slide the whole structure during their turn, so when `after` does not
        keep every cube of `before` in place, it is also compared turned by quarter turns about a
        vertical axis and shifted on the table; moves found that way are given in `before`'s frame.
        """
        if before == after:
            return Explanation(False, reason="nothing changed")
        ended = _end_reason(before)
        if ended is not None:
            return Explanation(False, reason=f"the game was already over: {ended}")
        change = _changed_cube(before, after)
        frames = [after] if change is None else _frames_keeping(before, after)
        if not frames:
            return Explanation(False, reason=change)
        explanations = [self._explain_in_place(before, frame) for frame in frames]
        moves = tuple(dict.fromkeys(move for e in explanations for move in e.moves))
        return Explanation(True, moves) if moves else explanations[0]

    def _explain_in_place(self, before: NankuState, after: NankuState) -> Explanation:
        """`explain` for an `after` that keeps every cube of `before` where it was."""
        new_cubes = sorted(Cube(*cell, colour) for cell, colour in after.colour_at.items()
                           if cell not in before.colour_at)
        if len(new_cubes) > 2:
            # Both states hold whole pieces and keep every old cube, so the new cubes come in pairs.
            return Explanation(False, reason=f"{len(new_cubes) // 2} pieces appeared: a turn places one")
        if not new_cubes and after.collapsed is None:
            if after.pieces == before.pieces:
                return Explanation(False, reason="the structure was only turned or shifted: no piece was placed")
            return Explanation(False, reason="no piece was added, but the cubes are paired differently")
        try:
            move = Place(_piece(*new_cubes, error=IllegalMove)) if new_cubes else Collapse(after.collapsed)
            successor = self.apply(before, move)
        except IllegalMove as exc:
            return Explanation(False, reason=str(exc))
        if successor == after:
            return Explanation(True, (move,))
        if after.collapsed is not None and isinstance(move, Place):
            return Explanation(False, reason=f"{move.piece} was placed and the structure collapsed")
        return Explanation(False, reason="the cubes already placed are paired differently")

    def notation(self, move: Place | Collapse) -> str:
        """`W(0,0,0) B(1,0,0)`, or `collapse by white`."""
        if isinstance(move, Collapse):
            return f"collapse by {move.culprit}"
        return f"W{_where(move.piece.white.cell)} B{_where(move.piece.black.cell)}"
