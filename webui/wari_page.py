"""Wari's part of the web pages: the board drawing, the correction tools, the seeds-captured chart,
what calibration found.

Every pit drawn carries `data-pit` so the correction page's script can let a player tap it.
"""
from __future__ import annotations

from html import escape

from webui.games import WebGame

# Height of each owner's name row (SVG units); the names' font (arbiter.css `svg.wari .owner`)
# is 34 units, about 13 px where a 390 px phone draws the 800-unit board 316 px wide.
NAME_ROW = 46
# Letters of a name one row holds: 784 units of row at roughly 0.6 em (20 units) a bold letter.
NAME_CHARS = 38


def wari_svg(state: dict, names: dict | None = None) -> str:
    """The board as seen by South: North's a..f right to left on top, stores at the ends, each
    store's owner named beside it (the player's name where `names` has one, else the side's).

    The owners' names have rows of their own, above North's store and below South's, as wide as
    the board: inside a store there is room for a few letters, too small to read on a phone."""
    pits, stores = state.get("pits", [0] * 12), state.get("stores", [0, 0])
    to_move = state.get("to_move")
    owners = [_owner(side, (names or {}).get(side)) for side in ("south", "north")]
    parts = [f'<svg class="board wari" viewBox="0 0 800 {340 + 2 * NAME_ROW}" role="img" aria-label="Wari board" '
             'xmlns="http://www.w3.org/2000/svg">',
             f'<text class="owner north" x="8" y="{NAME_ROW - 10}">{escape(_shown(owners[1][0]))}</text>',
             f'<g transform="translate(0 {NAME_ROW})">',
             '<rect x="4" y="34" width="792" height="272" rx="40" class="wood"/>']
    for index, count in enumerate(pits):
        south = index < 6
        column = index if south else 11 - index
        cx, cy = 130 + column * 108, 238 if south else 102
        letter = "abcdef"[index % 6]
        mover = "mover" if (to_move == "south") == south and to_move is not None else ""
        parts.append(
            f'<g class="pit {mover}" data-pit="{index}" tabindex="0">'
            f'<title>{"South" if south else "North"} {letter}: {count}</title>'
            f'<circle cx="{cx}" cy="{cy}" r="46"/>'
            f'<text class="count" x="{cx}" y="{cy + 15}">{int(count)}</text>'
            f'<text class="label" x="{cx}" y="{332 if south else 26}">{letter}</text></g>')
    for side, cx in enumerate((760, 40)):
        count = int(stores[side])
        parts.append(f'<g class="store" data-store="{side}"><title>{escape(owners[side][1])}: {count}</title>'
                     f'<text class="count" x="{cx}" y="188">{count}</text></g>')
    parts.append("</g>")
    parts.append(f'<text class="owner south" x="792" y="{340 + 2 * NAME_ROW - 12}">'
                 f'{escape(_shown(owners[0][0]))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _owner(side: str, name: str | None) -> tuple[str, str]:
    """A store's label and its longer title: ("Ama", "Ama's store (South)"), or ("South",
    "South store") where nobody is named."""
    side_name = side.capitalize()
    if not name or name == side_name:
        return side_name, f"{side_name} store"
    return name, f"{name}'s store ({side_name})"


def _shown(label: str) -> str:
    """A label cut to what its row holds at the owners' font size (the title keeps it whole)."""
    return label if len(label) <= NAME_CHARS else label[:NAME_CHARS - 1] + "…"


def stores_progress(history: list[dict]) -> list[dict]:
    """Each side's store after every position of a Wari game (the seeds captured so far), by side."""
    return [{"south": state["stores"][0], "north": state["stores"][1]} for state in history]


def wari_findings(summary: dict) -> list[str]:
    """A Wari calibration's summary as players read it."""
    findings = ["The 12 pits and 2 stores were found (their outlines are drawn on the photo)."]
    spotted = summary.get("pits_with_4_spots")
    if isinstance(spotted, int):
        findings.append(f"Seeds told apart one by one in {spotted} of the 12 pits of the start photo"
                        + (" (the others are counted by the area their seeds cover)." if spotted < 12 else "."))
    return findings


PAGE = WebGame(
    draw=lambda state, pieceset=None, names=None: wari_svg(state, names),
    correct_tools="games/wari_correct.html",
    correct_script="correct-wari.js",
    piece_word="pit",
    calibration_hint="Set the board at the start: 4 seeds in each pit, stores empty, hands away, then capture.",
    progress=stores_progress,
    progress_title="Seeds captured this game",
    calibration_findings=wari_findings,
)
