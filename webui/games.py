"""Each game's part of the web pages, registered once: its drawing, its correction tools, its words.

A game read by camera has one module here (`webui/GAME_page.py`, its `PAGE`) and one line of
registration below; the pages ask `web_game(name)` and never name a game themselves. A game
without one (a game judged from records alone) can still be scored and paired in tournaments.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from engines.errors import ArbiterError
from engines.registry import Parts


@dataclass(frozen=True)
class WebGame:
    """`draw(state_json, pieceset, names) -> SVG`, `names` the players' names by side (may be
    empty) for a drawing that labels each side's part of the board; `correct_tools` the template
    of the correction page's tools and `correct_script` the static script that drives them;
    `piece_word` what a player taps to correct; `calibration_hint` how to lay out the calibration
    photo; `progress(history)` the rows of the current game's chart (one per position,
    {side: value}), or None for no chart, and `progress_title` that chart's title;
    `calibration_findings(summary)` what a calibration found, in the players' words."""

    draw: Callable[[dict, dict | None, dict], str]
    correct_tools: str
    correct_script: str
    piece_word: str
    calibration_hint: str
    progress: Callable[[list[dict]], list[dict]] | None = None
    progress_title: str = "This game"
    calibration_findings: Callable[[dict], list[str]] = lambda summary: []


WEB_GAMES = Parts("web page part")
WEB_GAMES.register("varanasi", "webui.varanasi_page:PAGE")
WEB_GAMES.register("wari", "webui.wari_page:PAGE")
WEB_GAMES.register("nanku", "webui.nanku_page:PAGE")


def web_game(game: object) -> WebGame | None:
    """The game's web part, or None for a game the pages cannot draw."""
    return WEB_GAMES.get(game) if game in WEB_GAMES else None


def drawn_game(state: object) -> str:
    """The game of a position the pages can draw, or ArbiterError naming the games they draw."""
    game = state.get("game") if isinstance(state, dict) else None
    if web_game(game) is None:
        raise ArbiterError(f"cannot draw a position of game {game!r}: expected one of {', '.join(WEB_GAMES.games())}")
    return game


def board_svg(state: dict, pieceset: dict | None = None, names: dict | None = None) -> str:
    """The clean drawing of a position of any game that has one; `names` the players' names by
    side, where the table knows them."""
    return web_game(drawn_game(state)).draw(state, pieceset, names or {})
