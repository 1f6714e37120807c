"""A Varanasi match: sets played until a score reaches the target, or a fixed number of sets.

The rules object carries the match options ("target" or "sets", "doubles", "credit"). In doubles
team 0 is seats 0 and 2, team 1 seats 1 and 3. With credit "team" the match is decided on the
team's pooled score; with credit "player" a player's own score must reach the target (their team
wins), and a fixed number of sets is decided on team totals either way. Interpretations and
their sources: docs/rules/varanasi.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.base import Outcome
from engines.errors import StateError
from engines.varanasi import VaranasiRules

MATCH_KEYS = ("rules", "sets", "standings", "teams", "over", "winners")


def _points(value: Any, where: str):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
        raise StateError(f"{where}: a score is a number 0 or more, not {value!r}")
    return value


@dataclass(frozen=True)
class SetResult:
    """One finished set: who won it and the points of every seat (index = seat)."""

    winner: int
    scores: tuple

    def to_json(self) -> dict:
        return {"winner": self.winner, "scores": {str(seat): n for seat, n in enumerate(self.scores)}}


@dataclass(frozen=True)
class VaranasiMatch:
    rules: VaranasiRules
    sets: tuple = ()

    def record_set(self, outcome: Outcome) -> VaranasiMatch:
        """The match with one more finished set, from the engine's `outcome` of its last state."""
        if not outcome.over:
            raise StateError("the set is not over yet: only a finished set can be recorded")
        return self._with(outcome.winner, outcome.scores, "set outcome")

    def _with(self, winner: Any, scores: Any, where: str) -> VaranasiMatch:
        if self.is_over():
            raise StateError(f"{where}: the match is already over, won by seat(s) "
                             f"{', '.join(map(str, self.winners()))}")
        seats = range(self.rules.players)
        if isinstance(winner, bool) or winner not in seats:
            raise StateError(f"{where}: the winner must be a seat 0-{self.rules.players - 1}, not {winner!r}")
        if not isinstance(scores, dict):
            raise StateError(f"{where}: scores must map seats to points")
        by_seat = {}
        for seat, value in scores.items():
            if str(seat) not in {str(s) for s in seats}:
                raise StateError(f"{where}: {seat!r} is not a seat of this game")
            by_seat[int(seat)] = _points(value, where)
        result = SetResult(winner, tuple(by_seat.get(seat, 0) for seat in seats))
        return VaranasiMatch(self.rules, self.sets + (result,))

    @property
    def standings(self) -> tuple:
        """Each seat's own total."""
        return tuple(sum(result.scores[seat] for result in self.sets) for seat in range(self.rules.players))

    @property
    def team_standings(self) -> tuple | None:
        """Team 0 (seats 0, 2) and team 1 (seats 1, 3) totals in doubles, else None."""
        if not self.rules.doubles:
            return None
        own = self.standings
        return own[0] + own[2], own[1] + own[3]

    def _sides(self, reaching_target: bool) -> list:
        """(seats who win together, their total) for each side the match is decided between."""
        own = self.standings
        if not self.rules.doubles:
            return [((seat,), total) for seat, total in enumerate(own)]
        if reaching_target and self.rules.credit == "player":
            return [(tuple(sorted((seat, (seat + 2) % 4))), total) for seat, total in enumerate(own)]
        return [((team, team + 2), total) for team, total in enumerate(self.team_standings)]

    def is_over(self) -> bool:
        if self.rules.sets is not None:
            return len(self.sets) >= self.rules.sets
        return any(total >= self.rules.target for _, total in self._sides(reaching_target=True))

    def winners(self) -> tuple:
        """The winning seats (both of a team in doubles); several sides on a tie; () while playing."""
        if not self.is_over():
            return ()
        if self.rules.sets is None:
            sides = [seats for seats, total in self._sides(True) if total >= self.rules.target]
        else:
            sides = self._sides(False)
            best = max(total for _, total in sides)
            sides = [seats for seats, total in sides if total == best]
        return tuple(sorted({seat for seats in sides for seat in seats}))

    def to_json(self) -> dict:
        obj = {"rules": self.rules.to_json(), "sets": [result.to_json() for result in self.sets],
               "standings": {str(seat): total for seat, total in enumerate(self.standings)}}
        if self.rules.doubles:
            obj["teams"] = {str(team): total for team, total in enumerate(self.team_standings)}
        obj["over"] = self.is_over()
        obj["winners"] = list(self.winners())
        return obj

    @classmethod
    def from_json(cls, obj: Any) -> VaranasiMatch:
        """Read `to_json` output; the derived keys (standings, teams, over, winners) are recomputed."""
        if not isinstance(obj, dict) or "rules" not in obj:
            raise StateError("a varanasi match is an object with \"rules\" and \"sets\"")
        unknown = sorted(set(obj) - set(MATCH_KEYS))
        if unknown:
            raise StateError(f"varanasi match: unknown key {', '.join(map(repr, unknown))}")
        match = cls(VaranasiRules.from_json(obj["rules"]))
        results = obj.get("sets", [])
        if not isinstance(results, list):
            raise StateError("varanasi match: \"sets\" must be a list")
        for number, result in enumerate(results, start=1):
            where = f"set {number}"
            if not isinstance(result, dict) or set(result) != {"winner", "scores"}:
                raise StateError(f"{where} must be {{\"winner\": SEAT, \"scores\": {{SEAT: POINTS}}}}")
            match = match._with(result["winner"], result["scores"], where)
        return match


def match_standing(rules: VaranasiRules, results: list[dict]) -> dict:
    """The match after its finished sets (stored results, as `Outcome.to_json` writes them).

    A set whose winner the engine cannot name (the table was set by hand to empty) scores nothing.
    """
    match = VaranasiMatch(rules)
    for result in results:
        if result.get("over") and result.get("winner") is not None:
            match = match.record_set(Outcome(True, result["winner"], result.get("scores", {})))
    return match.to_json()


def match_format(rules: VaranasiRules) -> str:
    """How long the match is, in the words a score sheet uses."""
    return f"first to {rules.target} points" if rules.target else f"{rules.sets} sets"
