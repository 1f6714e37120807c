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


def stores_progress(history: list[dict]) -> list[dict]:
    """Each side's store after every position of a Wari game (the seeds captured so far)."""
    return [{"South": state["stores"][0], "North": state["stores"][1]} for state in history]


WEB_GAMES: dict[str, WebGame] = {
    "varanasi": WebGame(varanasi_svg, "games/varanasi_correct.html", "correct-varanasi.js", "disc",
                        "Lay every disc of the set flat and apart on the board, hands away, then capture."),
    "wari": WebGame(lambda state, pieceset=None: wari_svg(state), "games/wari_correct.html", "correct-wari.js", "pit",
                    "Set the board at the start: 4 seeds in each pit, stores empty, hands away, then capture.",
                    progress=stores_progress),
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
