"""Shapes shared by every game engine: outcomes, explanations and the Rules protocol."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable, Protocol, Sequence

from engines.errors import IllegalMove


@dataclass(frozen=True)
class Outcome:
    """`result` of the contract: scores are those of the game or set just finished."""

    over: bool
    winner: Any = None
    scores: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"over": self.over, "winner": self.winner, "scores": dict(self.scores)}


@dataclass(frozen=True)
class Explanation:
    """Every legal move turning one position into another, or why none does."""

    legal: bool
    moves: tuple = ()
    reason: str | None = None

    def to_json(self) -> dict:
        return {
            "legal": self.legal,
            "moves": [m.to_json() for m in self.moves],
            "reason": self.reason,
        }


class Rules(Protocol):
    """What every game's rules object offers (python-chess/OpenSpiel shaped).

    States and moves are immutable and hashable and have `to_json()`.
    """

    game: str
    players: int  # how many play one game
    sides: tuple  # each player's side as states and moves name it ("south", "white", seat 0), in seat order
    has_standard_start: bool  # False where players set up freely: a record must give its start
    history_keys: tuple  # state JSON keys that record history, not the position (Wari's "seen")

    def side_name(self, side) -> str: ...  # "South", "White", "Seat 1"
    def to_json(self) -> dict: ...
    def start(self) -> Hashable: ...
    def state_from_json(self, obj: Any) -> Hashable: ...
    def move_from_json(self, obj: Any) -> Hashable: ...
    def legal_moves(self, state) -> Sequence: ...
    def apply(self, state, move): ...
    def is_over(self, state) -> bool: ...
    def outcome(self, state) -> Outcome: ...
    def explain(self, before, after) -> Explanation: ...
    def notation(self, move) -> str: ...
    # Optional: `slips(state)`, the states a player's common slips leave (each with `.kind` and
    # `.after`), which a judge weighs as explanations of their own (engines/wari_slips.py).


def check_record(rules: Rules, start, moves: Sequence) -> dict:
    """Replay moves from start; stop at the first illegal one (contract `arbiter check`)."""
    state = start
    for index, move in enumerate(moves):
        try:
            state = rules.apply(state, move)
        except IllegalMove as exc:
            return {
                "legal": False,
                "first_illegal": index,
                "reason": str(exc),
                "final": state.to_json(),
                "result": rules.outcome(state).to_json(),
            }
    return {
        "legal": True,
        "first_illegal": None,
        "reason": None,
        "final": state.to_json(),
        "result": rules.outcome(state).to_json(),
    }
