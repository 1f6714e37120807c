"""Rule engines: pure Python, no I/O. `load_rules` turns a contract rules object into a Rules."""
from __future__ import annotations

from typing import Any

from engines.base import Explanation, Outcome, Rules, check_record
from engines.errors import (
    ArbiterError,
    IllegalMove,
    MoveError,
    RulesError,
    StateError,
)

GAMES = ("varanasi", "wari", "nanku")


def load_rules(obj: Any) -> Rules:
    """Build the rules object a contract rules JSON names; unknown keys or values raise RulesError."""
    if not isinstance(obj, dict):
        raise RulesError("rules must be a JSON object such as {\"game\": \"wari\"}")
    game = obj.get("game")
    if game == "varanasi":
        from engines.varanasi import VaranasiRules as cls
    elif game == "wari":
        from engines.wari import WariRules as cls
    elif game == "nanku":
        from engines.nanku import NankuRules as cls
    else:
        raise RulesError(f"unknown game {game!r}: expected one of {', '.join(GAMES)}")
    return cls.from_json(obj)


__all__ = [
    "ArbiterError",
    "Explanation",
    "IllegalMove",
    "MoveError",
    "Outcome",
    "Rules",
    "RulesError",
    "StateError",
    "check_record",
    "load_rules",
]
