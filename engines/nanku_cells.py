"""Nanku's grid of cubes: cells, the steps between them, exposed cubes and lines of four.

`engines.nanku` plays on it; these look at cells and colours only.
"""
from __future__ import annotations

from typing import Mapping

LINE_LENGTH = 4

Cell = tuple[int, int, int]

FACE_STEPS: tuple[Cell, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
# One step per line direction: the 3 axes (face contact) and the 2 diagonals of each axis plane
# (edge contact). The 4 body diagonals touch only at corners and never make a line.
LINE_STEPS: tuple[Cell, ...] = (
    (1, 0, 0), (0, 1, 0), (0, 0, 1),
    (1, 1, 0), (1, -1, 0),
    (1, 0, 1), (1, 0, -1),
    (0, 1, 1), (0, 1, -1),
)


def shift(cell: Cell, step: Cell, times: int = 1) -> Cell:
    return (cell[0] + times * step[0], cell[1] + times * step[1], cell[2] + times * step[2])


def faces(x: int, y: int, z: int) -> tuple[Cell, ...]:
    """The six cells sharing a face with (x, y, z), in the order of FACE_STEPS."""
    return ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z), (x, y, z + 1), (x, y, z - 1))


def below(cell: Cell) -> Cell:
    return (cell[0], cell[1], cell[2] - 1)


def is_exposed(cell: Cell, colour_at: Mapping[Cell, str]) -> bool:
    """True when a face of the cube touches an empty cell; the face lying on the table does not
    count. Every empty cell is open to the sky (nothing may overhang it), so it can be seen."""
    x, y, z = cell
    return ((x + 1, y, z) not in colour_at or (x - 1, y, z) not in colour_at or (x, y + 1, z) not in colour_at
            or (x, y - 1, z) not in colour_at or (x, y, z + 1) not in colour_at
            or (z > 0 and (x, y, z - 1) not in colour_at))


def four_in_lines(colour_at: Mapping[Cell, str]) -> tuple[tuple[str, tuple[Cell, ...]], ...]:
    """Every run of four same-coloured, exposed cubes along one of the 9 line directions, as
    (colour, cells); a longer run gives each of its four-cube windows."""
    exposed = {cell: colour for cell, colour in colour_at.items() if is_exposed(cell, colour_at)}
    found = []
    for start in sorted(exposed):
        colour = exposed[start]
        x, y, z = start
        for dx, dy, dz in LINE_STEPS:
            # Cell by cell from the start: most runs end at the first step.
            if (exposed.get((x + dx, y + dy, z + dz)) == colour
                    and exposed.get((x + 2 * dx, y + 2 * dy, z + 2 * dz)) == colour
                    and exposed.get((x + 3 * dx, y + 3 * dy, z + 3 * dz)) == colour):
                found.append((colour, tuple((x + k * dx, y + k * dy, z + k * dz) for k in range(LINE_LENGTH))))
    return tuple(found)
