"""Rule engines: pure Python, no I/O. `load_rules` turns a contract rules object into a Rules."""
from __future__ import annotations

from typing import Any

from engines import nanku, varanasi, varanasi_match, wari
from engines.base import Explanation, Outcome, Rules, check_record
from engines.errors import (
    ArbiterError,
    IllegalMove,
    MoveError,
    RulesError,
    StateError,
)
from engines.registry import GameInfo, game_info, game_names, register_game

# One line per game: everything outside its engine module asks the registry.
register_game(GameInfo("varanasi", "Varanasi", varanasi.VaranasiRules, match_standing=varanasi_match.match_standing,
                       match_format=varanasi_match.match_format, game_word="set",
                       random_opening=varanasi.random_opening))
register_game(GameInfo("wari", "Wari", wari.WariRules))
register_game(GameInfo("nanku", "Nanku", nanku.NankuRules))


def load_rules(obj: Any) -> Rules:
    """Build the rules object a contract rules JSON names; unknown keys or values raise RulesError."""
    if not isinstance(obj, dict):
        raise RulesError("rules must be a JSON object such as {\"game\": \"wari\"}")
    return game_info(obj.get("game")).rules_class.from_json(obj)


__all__ = [
    "ArbiterError",
    "Explanation",
    "GameInfo",
    "IllegalMove",
    "MoveError",
    "Outcome",
    "Rules",
    "RulesError",
    "StateError",
    "check_record",
    "game_info",
    "game_names",
    "load_rules",
]
