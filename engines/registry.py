"""The games Arbiter knows, each declared once; every layer asks here instead of naming games.

A game is one engine module plus one `GameInfo` registered in `engines/__init__.py`. The other
layers (vision, calibration, device, webui) register their own parts for a game under the same
name; see docs/adding-a-game.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from random import Random
from typing import Callable

from engines.errors import RulesError


@dataclass(frozen=True)
class GameInfo:
    """What a game is, for every layer that is not its engine.

    `match_standing(rules, results)` scores a match whose length the rules fix (Varanasi: sets to a
    target); None where a match is a series the organiser sets (`engines.series.Series`).
    `game_word` is what one finished game of a match is called ("set" in Varanasi).
    `random_opening(rules, rng)` sets up a game where players set up freely (no standard start):
    simulations and the conformance tests start there.
    """

    name: str
    title: str
    rules_class: type
    match_standing: Callable[[object, list[dict]], dict] | None = None
    match_format: Callable[[object], str] | None = None
    game_word: str = "game"
    random_opening: Callable[[object, Random], object] | None = None

    def opening(self, rules, rng: Random):
        """The standard start, or a random set-up where the game has none."""
        if rules.has_standard_start:
            return rules.start()
        if self.random_opening is None:
            raise RulesError(f"{self.title} has no standard start and no random set-up")
        return self.random_opening(rules, rng)


_GAMES: dict[str, GameInfo] = {}


def register_game(info: GameInfo) -> GameInfo:
    if info.name in _GAMES:
        raise ValueError(f"game {info.name!r} is registered twice")
    _GAMES[info.name] = info
    return info


def game_names() -> tuple[str, ...]:
    """Every registered game, in registration order."""
    return tuple(_GAMES)


def game_info(name: object) -> GameInfo:
    """The registered game of this name; RulesError naming the known games otherwise."""
    info = _GAMES.get(name) if isinstance(name, str) else None
    if info is None:
        raise RulesError(f"unknown game {name!r}: expected one of {', '.join(_GAMES)}")
    return info


class Parts:
    """One layer's part for each game ("the recogniser", "the calibrator"), registered by import path.

    Parts are named as "package.module:attribute" and imported on first use, so that a command
    which never reads a Varanasi photo never loads its recogniser.
    """

    def __init__(self, what: str):
        self.what = what
        self._paths: dict[str, str] = {}
        self._loaded: dict[str, object] = {}

    def register(self, game: str, path: str) -> None:
        if game in self._paths:
            raise ValueError(f"{self.what} of {game!r} is registered twice")
        self._paths[game] = path

    def games(self) -> tuple[str, ...]:
        return tuple(self._paths)

    def __contains__(self, game: object) -> bool:
        return isinstance(game, str) and game in self._paths  # a name from JSON may be a list

    def get(self, game: object):
        """The part registered for `game`; RulesError naming the games that have one otherwise."""
        if game not in self:
            have = ", ".join(self._paths) or "none"
            raise RulesError(f"no {self.what} for game {game!r}: games with one: {have}")
        if game not in self._loaded:
            module_name, _, attribute = self._paths[game].partition(":")
            self._loaded[game] = getattr(import_module(module_name), attribute)
        return self._loaded[game]
