"""Nanku's part of the web pages: the structure drawn in isometric view, the correction tools, the
longest-line chart, what calibration found.

Every cube drawn carries `data-piece` (its piece's index in the state's "pieces") so the correction
page's script can let a player tap it. The drawing is lenient about how the structure stands (a
draft being corrected may float or fall apart for a moment, and is drawn so the player sees it) but
refuses what is not a set of pieces at all.
"""
from __future__ import annotations

import math

from engines.errors import ArbiterError
from engines.nanku import COLOURS, LINE_STEPS, SUPPLY, four_in_lines, is_exposed
from webui.games import WebGame

Cell = tuple[int, int, int]

# True isometric: the table's x and y axes 30 degrees below the horizontal, z straight up, all one
# length. A cube is then a regular hexagon, and cubes with equal x + y + z never overlap, so
# drawing in increasing x + y + z puts nearer and higher cubes over farther ones.
_EDGE = 40
_ACROSS = _EDGE * math.cos(math.radians(30))
_DOWN = _EDGE / 2
_FLOOR_CELLS = 4  # the table drawn is at least this many cells a side: one piece stays piece-sized
# The whole supply in one line is this many cubes long: a wider spread is not one structure, and
# the table drawn under it would grow without bound.
_WIDEST = 2 * SUPPLY
_MARGIN = 6
_LABEL_HALF_WIDTH, _LABEL_DROP = 16, 9  # how far a coordinate's text reaches from where it is anchored

_FACE_FILL = {"white": {"top": "#ffffff", "x": "#e4ddcf", "y": "#c9c0ad"},
              "black": {"top": "#4d535d", "x": "#2d3139", "y": "#1a1d22"}}
_EDGE_INK = {"white": "#3b4250", "black": "#aab2bd"}
_LEVEL_INK = {"white": "#5b6573", "black": "#e3e7ec"}
_WIN_INK = "#e11d48"
_FLOATING_INK = "#c1121f"

# A cube's corners as offsets from its cell; its three faces the viewer sees; its nine visible
# edges (the six of its hexagon outline, then the three meeting at the nearest corner).
_FACES = {"top": ((0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)),
          "x": ((1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)),
          "y": ((0, 1, 0), (1, 1, 0), (1, 1, 1), (0, 1, 1))}
_OUTLINE = ((1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 1, 1), (0, 0, 1), (1, 0, 1))
_EDGES = tuple(zip(_OUTLINE, _OUTLINE[1:] + _OUTLINE[:1])) + tuple(
    ((1, 1, 1), corner) for corner in ((0, 1, 1), (1, 0, 1), (1, 1, 0)))


def _point(x: float, y: float, z: float) -> tuple[float, float]:
    return ((x - y) * _ACROSS, (x + y) * _DOWN - z * _EDGE)


def _points(corners) -> str:
    return " ".join(f"{px:.1f},{py:.1f}" for px, py in (_point(*corner) for corner in corners))


def _offset(cell: Cell, corner: Cell) -> Cell:
    return (cell[0] + corner[0], cell[1] + corner[1], cell[2] + corner[2])


def _cube(obj: object, where: str) -> tuple[Cell, str]:
    if not isinstance(obj, list) or len(obj) != 4:
        raise ArbiterError(f"{where} is not a cube [x, y, z, \"white\"|\"black\"]: {obj!r}")
    *coords, colour = obj
    if any(isinstance(v, bool) or not isinstance(v, int) for v in coords):
        raise ArbiterError(f"{where} needs whole-number x, y, z: {obj!r}")
    if colour not in COLOURS:
        raise ArbiterError(f"{where} is neither white nor black: {obj!r}")
    if coords[2] < 0:
        raise ArbiterError(f"{where} is below the table (z must be 0 or more): {obj!r}")
    return (coords[0], coords[1], coords[2]), colour


def parse_pieces(state: object) -> list[dict[str, Cell]]:
    """The state's pieces as {colour: cell}, in the state's order; ArbiterError, in one line, for
    anything that is not whole pieces of two face-adjacent cubes, one white and one black."""
    if not isinstance(state, dict) or not isinstance(state.get("pieces"), list):
        raise ArbiterError("a Nanku position is "
                           "{\"game\": \"nanku\", \"pieces\": [[WHITE_CUBE, BLACK_CUBE], ...]}")
    if len(state["pieces"]) > SUPPLY:
        raise ArbiterError(f"{len(state['pieces'])} pieces, but the supply holds only {SUPPLY}")
    pieces, taken = [], set()
    for index, piece in enumerate(state["pieces"]):
        where = f"piece {index + 1}"
        if not isinstance(piece, list) or len(piece) != 2:
            raise ArbiterError(f"{where} is not two cubes: {piece!r}")
        cubes = dict(_cube(cube, f"a cube of {where}")[::-1] for cube in piece)
        if len(cubes) != 2:
            raise ArbiterError(f"{where} needs one white and one black cube: {piece!r}")
        if sum(abs(a - b) for a, b in zip(cubes["white"], cubes["black"])) != 1:
            raise ArbiterError(f"the two cubes of {where} do not share a face: {piece!r}")
        for cell in cubes.values():
            if cell in taken:
                raise ArbiterError(f"two cubes at ({cell[0]},{cell[1]},{cell[2]})")
            taken.add(cell)
        pieces.append(cubes)
    for axis, name in enumerate("xyz"):
        values = [cell[axis] for cell in taken] + ([0] if axis == 2 else [])
        if values and max(values) - min(values) >= _WIDEST:
            raise ArbiterError(f"the cubes spread over {max(values) - min(values) + 1} cells along {name}: "
                               f"more than the {SUPPLY} pieces can reach")
    return pieces


def _floor(cells: list[Cell]) -> tuple[range, range]:
    """The table cells drawn: the structure's footprint with one cell round it, at least
    `_FLOOR_CELLS` a side."""
    def span(values: list[int]) -> range:
        low, high = (min(values) - 1, max(values) + 1) if values else (0, _FLOOR_CELLS - 1)
        short = _FLOOR_CELLS - (high - low + 1)
        if short > 0:
            low, high = low - short // 2, high + short - short // 2
        return range(low, high + 1)
    return span([c[0] for c in cells]), span([c[1] for c in cells])


def _turned(cell: Cell, quarters: int) -> Cell:
    """The cell after `quarters` quarter turns of the view about the vertical axis."""
    x, y, z = cell
    for _ in range(quarters % 4):
        x, y = -y, x
    return (x, y, z)


def _best_turn(colour_at: dict[Cell, str], win_cells: set[Cell]) -> int:
    """The view's quarter turn that shows the most free faces of the winning cubes; a line seen
    from behind the structure would be hidden by the cubes in front of it."""
    def shown(quarters: int) -> int:
        toward_viewer = [_turned(step, -quarters) for step in ((1, 0, 0), (0, 1, 0), (0, 0, 1))]
        return sum(_offset(cell, step) not in colour_at for cell in win_cells for step in toward_viewer)
    return max(range(4), key=lambda quarters: (shown(quarters), -quarters))


def _floor_svg(xs: range, ys: range, quarters: int) -> list[str]:
    x0, x1, y0, y1 = xs.start, xs.stop, ys.start, ys.stop
    parts = [f'<polygon class="table" points="{_points(((x0, y0, 0), (x1, y0, 0), (x1, y1, 0), (x0, y1, 0)))}" '
             f'fill="#ebe4d3" stroke="#b9ae96" stroke-width="1.5"/>']
    grid = ([((x, y0, 0), (x, y1, 0)) for x in range(x0 + 1, x1)]
            + [((x0, y, 0), (x1, y, 0)) for y in range(y0 + 1, y1)])
    path = " ".join(f"M{_points((a,))}L{_points((b,))}" for a, b in grid)
    parts.append(f'<path class="grid" d="{path}" stroke="#d3c9b3" stroke-width="1" fill="none"/>')

    # The state's own coordinates along the two near edges (the add-a-piece form asks for them),
    # whichever way the view is turned.
    def coordinate(drawn: Cell, along: Cell) -> str:
        axis = 0 if _turned(along, -quarters)[0] else 1
        return f"{'xy'[axis]}{_turned(drawn, -quarters)[axis]}"
    edge_cells = [((x, y1 - 1, 0), (1, 0, 0), (x + 0.5, y1 + 0.6)) for x in xs]
    edge_cells += [((x1 - 1, y, 0), (0, 1, 0), (x1 + 0.6, y + 0.5)) for y in ys]
    for drawn, along, (lx, ly) in edge_cells:
        px, py = _point(lx, ly, 0)
        parts.append(f'<text class="axis" text-anchor="middle" x="{px:.1f}" y="{py + 5:.1f}" font-size="13" '
                     f'fill="#5b6573">{coordinate(drawn, along)}</text>')
    return parts


def _cube_svg(cell: Cell, drawn: Cell, colour: str, index: int, partner: Cell, mark: str | None) -> str:
    """The cube at `cell` of the state, drawn at `drawn` of the turned view (`partner` is there too)."""
    step = tuple(p - c for p, c in zip(partner, drawn))
    axis = next(a for a in range(3) if step[a])
    seam_side = 1 if step[axis] > 0 else 0

    def on_seam(edge) -> bool:
        return all(corner[axis] == seam_side for corner in edge)

    fills = _FACE_FILL[colour]
    faces = "".join(f'<polygon points="{_points(_offset(drawn, c) for c in corners)}" fill="{fills[face]}"/>'
                    for face, corners in _FACES.items())
    strokes = {True: [], False: []}
    for start, end in _EDGES:
        strokes[on_seam((start, end))].append(f"M{_points((_offset(drawn, start),))}L{_points((_offset(drawn, end),))}")
    ink = _EDGE_INK[colour]
    # The seam between a piece's own two cubes is drawn thin, so each piece reads as one domino.
    edges = (f'<path d="{" ".join(strokes[False])}" stroke="{ink}" stroke-width="2.5" stroke-linejoin="round"/>'
             + (f'<path class="seam" d="{" ".join(strokes[True])}" stroke="{ink}" stroke-width="0.8" '
                f'stroke-opacity="0.6"/>' if strokes[True] else ""))
    level = cell[2] + 1
    label = ""
    # Only raised cubes are numbered: an unnumbered cube lies on the table, so a cube one level up
    # and one cell nearer (drawn in the same place) is never mistaken for it.
    if cell[2] > 0:
        px, py = _point(drawn[0] + 0.5, drawn[1] + 0.5, drawn[2] + 1)
        label = (f'<text class="level" text-anchor="middle" x="{px:.1f}" y="{py + 5:.1f}" font-size="15" '
                 f'fill="{_LEVEL_INK[colour]}">{level}</text>')
    outline_ink = {"win": _WIN_INK, "floating": _FLOATING_INK}.get(mark, "none")
    dash = ' stroke-dasharray="6 4"' if mark == "floating" else ""
    outline = (f'<polygon class="outline" points="{_points(_offset(drawn, c) for c in _OUTLINE)}" fill="none" '
               f'stroke="{outline_ink}" stroke-width="4" stroke-linejoin="round"{dash}/>')
    classes = " ".join(filter(None, ("cube", colour, mark)))
    x, y, z = cell
    title = f"{colour.capitalize()} cube, level {level} (x {x}, y {y}), piece {index + 1}"
    if mark == "floating":
        title += ": nothing under it"
    return (f'<g class="{classes}" data-piece="{index}" data-cell="{x},{y},{z}" tabindex="0">'
            f'<title>{title}</title>{faces}{edges}{label}{outline}</g>')


def nanku_svg(state: dict, pieceset: dict | None = None) -> str:
    """The structure seen from above its nearest corner: x runs down to the right, y down to the
    left, z up, unless the view is turned to show a four-in-a-line better (the table's edges always
    give the state's own coordinates). Each cube shows its top and two sides, a raised cube its
    level on top; the cubes of a four-in-a-line are outlined and joined by a line."""
    pieces = parse_pieces(state)
    colour_at = {cell: colour for piece in pieces for colour, cell in piece.items()}
    partner_of = {piece[c]: piece[COLOURS[1 - i]] for piece in pieces for i, c in enumerate(COLOURS)}
    index_of = {cell: i for i, piece in enumerate(pieces) for cell in piece.values()}
    lines = four_in_lines(colour_at)
    marks = {cell: "floating" for cell in colour_at if cell[2] > 0 and (cell[0], cell[1], cell[2] - 1) not in colour_at}
    marks.update({cell: "win" for _, cells in lines for cell in cells})
    quarters = _best_turn(colour_at, {cell for _, cells in lines for cell in cells})
    drawn_of = {cell: _turned(cell, quarters) for cell in colour_at}

    xs, ys = _floor(list(drawn_of.values()))
    parts = _floor_svg(xs, ys, quarters)
    for cell in sorted(colour_at, key=lambda c: (sum(drawn_of[c]), c[2], drawn_of[c][0])):
        parts.append(_cube_svg(cell, drawn_of[cell], colour_at[cell], index_of[cell],
                               drawn_of[partner_of[cell]], marks.get(cell)))
    for _, cells in lines:
        centres = " ".join(f"{px:.1f},{py:.1f}" for px, py in
                           (_point(x + .5, y + .5, z + .5) for x, y, z in (drawn_of[cell] for cell in cells)))
        parts.append(f'<polyline class="win-line" points="{centres}" fill="none" stroke="{_WIN_INK}" '
                     f'stroke-width="7" stroke-linecap="round" stroke-opacity="0.85"/>')
    if not pieces:
        px, py = _point((xs.start + xs.stop) / 2, (ys.start + ys.stop) / 2, 0)
        parts.append(f'<text class="empty" text-anchor="middle" x="{px:.1f}" y="{py + 6:.1f}" font-size="17" '
                     f'fill="#5b6573">'
                     f'No piece placed yet</text>')

    shapes = [_point(x, y, 0) for x in (xs.start, xs.stop) for y in (ys.start, ys.stop)]
    shapes += [_point(x, y, z + 1) for x, y, z in drawn_of.values()]
    labels = [_point(xs.start + 0.5, ys.stop + 0.6, 0), _point(xs.stop + 0.6, ys.start + 0.5, 0),
              _point(xs.stop - 0.5, ys.stop + 0.6, 0)]
    left = min([p[0] for p in shapes] + [p[0] - _LABEL_HALF_WIDTH for p in labels]) - _MARGIN
    right = max([p[0] for p in shapes] + [p[0] + _LABEL_HALF_WIDTH for p in labels]) + _MARGIN
    top = min(p[1] for p in shapes) - _MARGIN
    bottom = max([p[1] for p in shapes] + [p[1] + _LABEL_DROP for p in labels]) + _MARGIN
    width, height = right - left, bottom - top
    levels = max((c[2] for c in colour_at), default=-1) + 1
    label = (f"{len(pieces)} pieces, {levels} level{'s' if levels != 1 else ''} high" if pieces
             else "No piece placed yet")
    head = (f'<svg class="board nanku" viewBox="{left:.0f} {top:.0f} {width:.0f} {height:.0f}" role="img" '
            f'aria-label="{label}" xmlns="http://www.w3.org/2000/svg">')
    return head + "".join(parts) + "</svg>"


def longest_line(state: dict) -> dict[str, int]:
    """Each colour's most cubes in one line that count towards four in a line (exposed cubes)."""
    colour_at = {cell: colour for piece in parse_pieces(state) for colour, cell in piece.items()}
    counted = {cell: colour for cell, colour in colour_at.items() if is_exposed(cell, colour_at)}
    best = dict.fromkeys(COLOURS, 0)
    for cell, colour in counted.items():
        for step in LINE_STEPS:
            if counted.get(_offset(cell, tuple(-s for s in step))) == colour:
                continue  # not the start of its run
            length = 1
            while counted.get(_offset(cell, tuple(s * length for s in step))) == colour:
                length += 1
            best[colour] = max(best[colour], length)
    return best


def longest_lines(history: list[dict]) -> list[dict]:
    """The chart's rows: after every position, each side's longest line of its own colour."""
    return [longest_line(state) for state in history]


def nanku_findings(summary: dict) -> list[str]:
    """A Nanku calibration's summary as players read it; keys the calibration did not give are left out."""
    findings = ["The first piece was found on the table."]
    cube_px = summary.get("cube_px")
    if isinstance(cube_px, (int, float)) and not isinstance(cube_px, bool):
        findings.append(f"A cube shows about {cube_px:.0f} pixels wide in the photo.")
    height = summary.get("height_cubes")
    if isinstance(height, (int, float)) and not isinstance(height, bool):
        findings.append(f"The camera is about {height:.0f} cubes above the table.")
    tilt = summary.get("tilt_degrees")
    if isinstance(tilt, (int, float)) and not isinstance(tilt, bool):
        findings.append("The camera looks straight down on the table." if abs(tilt) < 2 else
                        f"The camera leans {abs(tilt):.0f}° away from looking straight down.")
    return findings


PAGE = WebGame(
    draw=lambda state, pieceset=None, names=None: nanku_svg(state, pieceset),
    correct_tools="games/nanku_correct.html",
    correct_script="correct-nanku.js",
    piece_word="cube",
    calibration_hint="Place the first piece alone on the table, lying or standing, hands away, then capture.",
    progress=longest_lines,
    progress_title="Longest line of each player's colour",
    calibration_findings=nanku_findings,
)
