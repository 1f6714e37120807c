"""The slips a Nanku referee exists for: every table one slip of a player can leave.

A judge that knows only the legal placements must compare each against "anything else the camera
could have seen", and then a column's height the camera barely sees, or a lying piece taken for a
standing one, looks as much like a slip as a real slip does. Players' slips are few and have a
shape, so the judge weighs them as tables of their own:

- `overhang`: a piece lying with one cube on the structure and the other over an empty cell
  (those a legal piece looks like from above, but for heights, left out: `overhangs`);
- `not_touching`: a piece set down on the table apart from the structure, in the cells `REACH`
  or fewer beyond it (lying, or standing on its end);
- `off_grid`: a piece that may be set on the table set down half a cube off the grid (its cubes
  at half-integer coordinates, as a camera reads them);
- `lost_piece`: a piece with nothing on it knocked off or taken away, with no piece placed, the
  others left standing together.

Two pieces placed at once are no table of this list: each is a legal placement, and the judge's
search of several moves finds them and names them. Such a table differs from any one placement by
a whole piece, so it never stands beside a legal table as a near tie the odds of a slip must settle.

No table is one a legal placement (or no placement) leaves: an overhang and a piece apart break the
placement rules, a half-cube shift leaves the grid, and a piece lost takes cubes away.
"""
from __future__ import annotations

from dataclasses import dataclass

from engines.nanku import BLACK, WHITE, Cube, NankuRules, NankuState, Piece, opponent, structure_problem
from engines.nanku_cells import Cell, below, faces

KINDS = ("overhang", "not_touching", "off_grid", "lost_piece")

# A piece set down apart from the structure lies in cells at most this many beyond the structure's
# extent along the table: a piece further away is one put aside, not a placement.
REACH = 3
HALF_CUBE_SHIFTS = ((0.5, 0.0), (-0.5, 0.0), (0.0, 0.5), (0.0, -0.5))


@dataclass(frozen=True)
class Slip:
    """One slip: its kind and the table it leaves, the turn as its number of pieces gives it."""

    kind: str
    after: NankuState


def _pieces_in(first: Cell, second: Cell) -> tuple[Piece, Piece]:
    """The two pieces filling two cells: white in the first, and black in the first."""
    return (Piece(Cube(*first, WHITE), Cube(*second, BLACK)), Piece(Cube(*second, WHITE), Cube(*first, BLACK)))


def _placed(state: NankuState, piece: Piece) -> NankuState:
    return NankuState(tuple(sorted(state.pieces + (piece,))), opponent(state.to_move))


def overhangs(rules: NankuRules, state: NankuState) -> list[NankuState]:
    """Every table with a piece lying on the structure, one of its cubes over an empty cell, but
    those whose cube on the structure has the colour of the cube it rests on: a piece standing
    in the overhung cell (legal) leaves every column with the same colour on top, and only the
    heights differ, which a picture from above cannot stand by. Such a table is no alternative
    at a slip's odds: the judge takes the placement and asks the players to check."""
    colour_at = state.colour_at
    found = set()
    for cell, colour in colour_at.items():
        resting = (cell[0], cell[1], cell[2] + 1)
        if resting in colour_at:
            continue
        for other in faces(*resting):
            if other[2] != resting[2] or other in colour_at or below(other) in colour_at:
                continue
            for piece in _pieces_in(resting, other):
                on_structure = piece.white if piece.white.cell == resting else piece.black
                if on_structure.colour != colour and "nothing under it" in (rules.placement_problem(state, piece) or ""):
                    found.add(_placed(state, piece))
    return sorted(found, key=lambda s: s.pieces)


def apart(rules: NankuRules, state: NankuState) -> list[NankuState]:
    """Every table with a piece on the table at most REACH cells beyond the structure, touching none."""
    colour_at = state.colour_at
    if not colour_at:
        return []
    xs = [c[0] for c in colour_at]
    ys = [c[1] for c in colour_at]
    found = set()
    low_x, high_x, low_y, high_y = min(xs) - REACH, max(xs) + REACH, min(ys) - REACH, max(ys) + REACH
    for x in range(low_x, high_x + 1):
        for y in range(low_y, high_y + 1):
            first = (x, y, 0)
            if first in colour_at:
                continue
            for second in ((x + 1, y, 0), (x, y + 1, 0), (x, y, 1)):
                if second in colour_at or second[0] > high_x or second[1] > high_y:
                    continue
                pieces = _pieces_in(first, second)
                # The engine's own reason, so that the slip's kind and the verdict's words agree.
                if "touches no placed piece" in (rules.placement_problem(state, pieces[0]) or ""):
                    found.update(_placed(state, piece) for piece in pieces)
    return sorted(found, key=lambda s: s.pieces)


def off_grid(rules: NankuRules, state: NankuState) -> list[NankuState]:
    """Every legal placement on the table shifted half a cube along the table, clear of the
    structure (a half cube does not fit over or into cubes already placed)."""
    taken = state.colour_at
    found = set()
    for move in rules.legal_moves(state):
        piece = move.piece
        if any(cube.z for cube in piece.cubes):
            continue
        for dx, dy in HALF_CUBE_SHIFTS:
            shifted = tuple(Cube(c.x + dx, c.y + dy, c.z, c.colour) for c in piece.cubes)
            if any(abs(c.x - t[0]) < 1 and abs(c.y - t[1]) < 1 and c.z == t[2] for c in shifted for t in taken):
                continue
            found.add(_placed(state, Piece(*shifted)))
    return sorted(found, key=lambda s: s.pieces)


def lost(state: NankuState) -> list[NankuState]:
    """Every table with one piece gone whose other pieces still stand and hold together (one that
    bore others, or joined them, takes more with it: the structure collapsed)."""
    colour_at = state.colour_at
    found = []
    for piece in state.pieces:
        cells = set(piece.cells)
        if any((c[0], c[1], c[2] + 1) in colour_at and (c[0], c[1], c[2] + 1) not in cells for c in cells):
            continue
        left = tuple(p for p in state.pieces if p != piece)
        if structure_problem(left) is None:
            found.append(NankuState(left, opponent(state.to_move)))
    return found


def slips(rules: NankuRules, state: NankuState) -> list[Slip]:
    """Every table one slip from `state` can leave (one per distinct table), none once the game
    is over or before the first piece."""
    if not state.pieces or rules.is_over(state):
        return []
    return ([Slip("overhang", after) for after in overhangs(rules, state)]
            + [Slip("not_touching", after) for after in apart(rules, state)]
            + [Slip("off_grid", after) for after in off_grid(rules, state)]
            + [Slip("lost_piece", after) for after in lost(state)])
