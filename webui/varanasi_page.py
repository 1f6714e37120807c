"""Varanasi's part of the web pages: the towers drawn side on, the correction tools, what
calibration found.

Every disc drawn carries `data-stack`/`data-disc` so the correction page's script can let a player
tap it; the drawing itself holds no game logic.
"""
from __future__ import annotations

from html import escape

from engines.errors import ArbiterError
from webui.games import WebGame

# Disc widths in the side view grow with the size digit; 1..4 are the standard set's sizes.
_DISC_WIDTH = {1: 44, 2: 62, 3: 80, 4: 98}
_DISC_HEIGHT = 26
_TOWER_PITCH = 112
_TOWERS_PER_ROW = 3
_ROW_GAP = 44  # below each row of towers: the base line and the tower's number
# A name longer than this is cut short in the drawing, whose text cannot wrap.
_NAME_CHARS = 18


def disc_parts(code: str) -> tuple[int, str]:
    """Split a contract disc code such as "2red" into (2, "red")."""
    if not isinstance(code, str) or len(code) < 2 or not code[0].isdigit():
        raise ArbiterError(f"not a disc code: {code!r} (expected size digit then colour, e.g. 2red)")
    return int(code[0]), code[1:]


def colour_css(colour: str, pieceset: dict | None) -> str:
    """The piece set's nominal sRGB for a colour name, else the name itself as a CSS colour."""
    srgb = ((pieceset or {}).get("colours", {}).get(colour) or {}).get("srgb")
    if isinstance(srgb, list) and len(srgb) == 3:
        return "rgb({},{},{})".format(*(int(c) for c in srgb))
    return colour if colour.isalpha() else "grey"


def _ink_on(fill: str) -> str:
    """Black or white text, whichever reads better on the fill (sRGB luma)."""
    if fill.startswith("rgb("):
        r, g, b = (int(v) for v in fill[4:-1].split(","))
        return "#111" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"
    return "#111" if fill in ("white", "yellow", "ivory", "beige", "orange", "pink") else "#fff"


def varanasi_svg(state: dict, pieceset: dict | None = None, names: dict | None = None) -> str:
    """Towers as side-view stacks, bottom disc at the bottom, size digit written on each disc.

    Towers go three to a row, so that a phone-width drawing keeps the discs big enough to tap.
    The drawing is always three towers wide, so the discs keep their scale as towers go.
    A table with no towers left is the end of a set: drawn by `emptied_table_svg`.
    """
    stacks = state.get("stacks", [])
    if not stacks:
        return emptied_table_svg(state, pieceset, names or {})
    tallest = max((len(s) for s in stacks), default=1)
    row_height = tallest * _DISC_HEIGHT + _ROW_GAP
    rows = max(1, -(-len(stacks) // _TOWERS_PER_ROW))
    width = _TOWERS_PER_ROW * _TOWER_PITCH
    height = rows * row_height
    parts = [f'<svg class="board varanasi" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{len(stacks)} towers" xmlns="http://www.w3.org/2000/svg">']
    for index, stack in enumerate(stacks):
        row, column = divmod(index, _TOWERS_PER_ROW)
        centre = column * _TOWER_PITCH + _TOWER_PITCH // 2
        floor = (row + 1) * row_height - _ROW_GAP + 8
        parts.append(f'<line x1="{centre - 52}" x2="{centre + 52}" y1="{floor + 1}" y2="{floor + 1}" '
                     f'class="base"/>')
        for level, code in enumerate(stack):
            parts.append(
                f'<g class="disc" data-stack="{index}" data-disc="{level}" data-code="{escape(code)}" tabindex="0">'
                f'<title>{escape(code)}</title>{_disc(code, centre, floor, level, pieceset)}</g>')
        parts.append(f'<text class="label" x="{centre}" y="{floor + 24}">{index + 1}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _disc(code: str, centre: float, floor: float, level: int, pieceset: dict | None) -> str:
    """One disc of a side-view stack, `level` discs above the `floor`: its shape and size digit."""
    size, colour = disc_parts(code)
    fill = colour_css(colour, pieceset)
    disc_width = _DISC_WIDTH.get(size, 98)
    top = floor - (level + 1) * _DISC_HEIGHT
    return (f'<rect x="{centre - disc_width / 2}" y="{top}" width="{disc_width}" height="{_DISC_HEIGHT - 2}" '
            f'rx="6" fill="{fill}"/>'
            f'<text x="{centre}" y="{top + _DISC_HEIGHT - 7}" fill="{_ink_on(fill)}">{size}</text>')


def taker_label(seat: object, names: dict) -> str:
    """The name of who made the last take, short enough for one line of the drawing."""
    seat_word = f"Seat {seat + 1}" if isinstance(seat, int) else str(seat)
    name = str(names.get(seat) or seat_word)
    return name if len(name) <= _NAME_CHARS else name[:_NAME_CHARS - 1] + "…"


def emptied_table_svg(state: dict, pieceset: dict | None, names: dict) -> str:
    """The table at the end of a set: "All discs taken", and the take that emptied it (which
    decides the set's score) drawn as its discs, with who took them.

    Without this a page opened after the set would show an empty drawing, as if nothing had
    been read."""
    last_take = state.get("last_take") if isinstance(state.get("last_take"), dict) else None
    discs = sorted((disc_parts(code) + (code,) for code in (last_take or {}).get("discs", [])), reverse=True)
    width = _TOWERS_PER_ROW * _TOWER_PITCH
    centre = width // 2
    floor = 56 + len(discs) * _DISC_HEIGHT
    height = floor + 38 if last_take else 50
    parts = [f'<svg class="board varanasi emptied" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="All discs taken" xmlns="http://www.w3.org/2000/svg">',
             f'<text class="final" x="{centre}" y="34">All discs taken</text>']
    if last_take:
        parts.append(f'<line x1="{centre - 52}" x2="{centre + 52}" y1="{floor + 1}" y2="{floor + 1}" class="base"/>')
        for level, (_, _, code) in enumerate(discs):
            parts.append(f'<g class="taken"><title>{escape(code)}</title>{_disc(code, centre, floor, level, pieceset)}</g>')
        parts.append(f'<text class="label" x="{centre}" y="{floor + 26}">Last take: '
                     f'{escape(taker_label(last_take.get("seat"), names))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def varanasi_findings(summary: dict) -> list[str]:
    """A Varanasi calibration's summary as players read it."""
    findings = []
    if isinstance(summary.get("discs"), int):
        findings.append(f"{summary['discs']} discs found and named by size and colour (drawn on the photo).")
    closest = summary.get("closest_colours")
    if isinstance(closest, dict) and len(closest.get("colours", ())) == 2:
        first, second = closest["colours"]
        findings.append(f"The two colours most alike under this lamp: {first} and {second}.")
    return findings


PAGE = WebGame(
    draw=varanasi_svg,
    correct_tools="games/varanasi_correct.html",
    correct_script="correct-varanasi.js",
    piece_word="disc",
    calibration_hint="Lay every disc of the set flat and apart on the board, hands away, then capture.",
    calibration_findings=varanasi_findings,
)
