"""A match of several games between two or more players: N games, or first to K wins.

Game-agnostic: a finished game is recorded from its engine `Outcome`, with `seats` mapping the
engine's sides ("south"/"north", "white"/"black") to the people playing them, since players
usually change sides between games.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from engines.base import Outcome
from engines.errors import RulesError, StateError


@dataclass(frozen=True)
class GameResult:
    """One finished game: its winner (None for a draw) and the points each player scored."""

    winner: str | None
    points: tuple[tuple[str, float], ...]

    def points_of(self, player: str) -> float:
        return dict(self.points).get(player, 0)

    def to_json(self) -> dict:
        return {"winner": self.winner, "points": dict(self.points)}


@dataclass(frozen=True)
class Standing:
    player: str
    wins: int
    draws: int
    losses: int
    points: float

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Series:
    """Exactly one of `games` (play N games) and `first_to` (first to K wins) is set.

    Standings rank by wins, then by points; the series winner is the leader once it is over,
    or None when the first two are level on both.
    """

    players: tuple[str, ...]
    games: int | None = None
    first_to: int | None = None
    results: tuple[GameResult, ...] = ()

    def __post_init__(self) -> None:
        if not all(isinstance(p, str) and p for p in self.players):
            raise RulesError("series players must be non-empty names")
        if len(self.players) < 2 or len(set(self.players)) != len(self.players):
            raise RulesError(f"a series needs two or more distinct players, got {list(self.players)}")
        if (self.games is None) == (self.first_to is None):
            raise RulesError("a series has exactly one of \"games\" (N games) and \"first_to\" (K wins)")
        length = self.games if self.games is not None else self.first_to
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise RulesError(f"series length must be a positive integer, got {length!r}")

    @classmethod
    def new(cls, players, *, games: int | None = None, first_to: int | None = None) -> Series:
        return cls(tuple(players), games=games, first_to=first_to)

    def record(self, outcome: Outcome, seats: Mapping[str, str] | None = None) -> Series:
        """The series with one more finished game; `seats` maps engine sides to players."""
        if not outcome.over:
            raise StateError("only a finished game can be added to a series")
        seats = dict(seats) if seats is not None else {p: p for p in self.players}
        unknown = sorted(str(p) for p in seats.values() if p not in self.players)
        if unknown:
            raise StateError(f"not a player of this series: {', '.join(unknown)}")
        if set(outcome.scores) - set(seats):
            missing = sorted(str(s) for s in set(outcome.scores) - set(seats))
            raise StateError(f"no player is seated at {', '.join(missing)}")
        if outcome.winner is not None and outcome.winner not in seats:
            raise StateError(f"no player is seated at {outcome.winner}")
        winner = seats[outcome.winner] if outcome.winner is not None else None
        points = tuple((seats[side], score) for side, score in outcome.scores.items())
        return self._with(GameResult(winner, points))

    def _with(self, result: GameResult) -> Series:
        if self.is_over():
            raise StateError(f"the series is already over after {len(self.results)} games")
        return Series(self.players, self.games, self.first_to, self.results + (result,))

    def standings(self) -> list[Standing]:
        table = []
        for player in self.players:
            wins = sum(r.winner == player for r in self.results)
            draws = sum(r.winner is None for r in self.results)
            points = sum(r.points_of(player) for r in self.results)
            table.append(Standing(player, wins, draws, len(self.results) - wins - draws, points))
        return sorted(table, key=lambda s: (-s.wins, -s.points))

    def is_over(self) -> bool:
        if self.games is not None:
            return len(self.results) >= self.games
        return self.standings()[0].wins >= self.first_to

    def winner(self) -> str | None:
        if not self.is_over():
            return None
        first, second = self.standings()[:2]
        if (first.wins, first.points) == (second.wins, second.points):
            return None
        return first.player

    def to_json(self) -> dict:
        return {
            "players": list(self.players),
            "games": self.games,
            "first_to": self.first_to,
            "results": [r.to_json() for r in self.results],
            "over": self.is_over(),
            "winner": self.winner(),
            "standings": [s.to_json() for s in self.standings()],
        }

    @classmethod
    def from_json(cls, obj: Any) -> Series:
        """Read `to_json` output; the derived keys (over, winner, standings) are recomputed."""
        if not isinstance(obj, dict) or "players" not in obj:
            raise RulesError("a series is an object with \"players\" and \"games\" or \"first_to\"")
        unknown = set(obj) - {"players", "games", "first_to", "results", "over", "winner", "standings"}
        if unknown:
            raise RulesError(f"unknown series keys: {', '.join(sorted(unknown))}")
        players = obj["players"]
        if not isinstance(players, list):
            raise RulesError("series \"players\" must be a list of names")
        series = cls(tuple(players), games=obj.get("games"), first_to=obj.get("first_to"))
        results = obj.get("results", [])
        if not isinstance(results, list):
            raise StateError("series \"results\" must be a list")
        for index, result in enumerate(results):
            series = series._with(_result_from_json(result, series.players, index))
        return series


def _result_from_json(obj: Any, players: tuple[str, ...], index: int) -> GameResult:
    if not isinstance(obj, dict) or set(obj) != {"winner", "points"}:
        raise StateError(f"series result {index} must be {{\"winner\": ..., \"points\": {{...}}}}")
    winner, points = obj["winner"], obj["points"]
    if winner is not None and winner not in players:
        raise StateError(f"series result {index}: winner {winner!r} is not a player")
    if not isinstance(points, dict) or set(points) - set(players):
        raise StateError(f"series result {index}: points must map players to numbers")
    for value in points.values():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise StateError(f"series result {index}: points must map players to numbers")
    return GameResult(winner, tuple(points.items()))
