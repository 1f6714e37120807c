"""Wari's part of the web pages: the board drawing, the correction tools, the seeds-captured chart,
what calibration found.

Every pit drawn carries `data-pit` so the correction page's script can let a player tap it.
"""
from __future__ import annotations

from webui.games import WebGame


def wari_svg(state: dict) -> str:
    """The board as seen by South: North's a..f right to left on top, stores at the ends."""
    pits, stores = state.get("pits", [0] * 12), state.get("stores", [0, 0])
    to_move = state.get("to_move")
    parts = ['<svg class="board wari" viewBox="0 0 800 340" role="img" aria-label="Wari board" '
             'xmlns="http://www.w3.org/2000/svg">',
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
    for side, (label, cx) in enumerate((("South", 760), ("North", 40))):
        parts.append(f'<g class="store" data-store="{side}"><title>{label} store</title>'
                     f'<text class="count" x="{cx}" y="188">{int(stores[side])}</text>'
                     f'<text class="label" x="{cx}" y="226">{label}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


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
    draw=lambda state, pieceset=None: wari_svg(state),
    correct_tools="games/wari_correct.html",
    correct_script="correct-wari.js",
    piece_word="pit",
    calibration_hint="Set the board at the start: 4 seeds in each pit, stores empty, hands away, then capture.",
    progress=stores_progress,
    progress_title="Seeds captured this game",
    calibration_findings=wari_findings,
)
