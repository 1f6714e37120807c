"""Each game's part of the web pages, registered once: its drawing, its correction tools, its words.

A game read by camera registers a `WebGame` here; the pages ask `web_game(name)` and never name a
game themselves. A game without one (Nanku) can still be scored and paired in tournaments.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from engines.errors import ArbiterError
from webui.board_svg import varanasi_svg, wari_svg


@dataclass(frozen=True)
class WebGame:
    """`draw(state_json, pieceset) -> SVG`; `correct_tools` the template of the correction page's
    tools and `correct_script` the static script that drives them; `piece_word` what a player taps
    to correct; `calibration_hint` how to lay out the calibration photo; `progress(history)` the
    rows of the current game's chart (one per position, {series: value}), or None for no chart."""

    draw: Callable[[dict, dict | None], str]
    correct_tools: str
    correct_script: str
    piece_word: str
    calibration_hint: str
    progress: Callable[[list[dict]], list[dict]] | None = None
    calibration_findings: Callable[[dict], list[str]] = lambda summary: []


def wari_findings(summary: dict) -> list[str]:
    """A Wari calibration's summary as players read it."""
    findings = ["The 12 pits and 2 stores were found (their outlines are drawn on the photo)."]
    spotted = summary.get("pits_with_4_spots")
    if isinstance(spotted, int):
        findings.append(f"Seeds told apart one by one in {spotted} of the 12 pits of the start photo"
                        + (" (the others are counted by the area their seeds cover)." if spotted < 12 else "."))
    return findings


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


def stores_progress(history: list[dict]) -> list[dict]:
    """Each side's store after every position of a Wari game (the seeds captured so far)."""
    return [{"South": state["stores"][0], "North": state["stores"][1]} for state in history]


WEB_GAMES: dict[str, WebGame] = {
    "varanasi": WebGame(varanasi_svg, "games/varanasi_correct.html", "correct-varanasi.js", "disc",
                        "Lay every disc of the set flat and apart on the board, hands away, then capture.",
                        calibration_findings=varanasi_findings),
    "wari": WebGame(lambda state, pieceset=None: wari_svg(state), "games/wari_correct.html", "correct-wari.js", "pit",
                    "Set the board at the start: 4 seeds in each pit, stores empty, hands away, then capture.",
                    progress=stores_progress, calibration_findings=wari_findings),
}


def web_game(game: object) -> WebGame | None:
    """The game's web part, or None for a game the pages cannot draw."""
    return WEB_GAMES.get(game) if isinstance(game, str) else None


def board_svg(state: dict, pieceset: dict | None = None) -> str:
    """The clean drawing of a position of any game that has one."""
    game = state.get("game") if isinstance(state, dict) else None
    part = web_game(game)
    if part is None:
        raise ArbiterError(f"cannot draw a position of game {game!r}: expected one of {', '.join(WEB_GAMES)}")
    return part.draw(state, pieceset)
