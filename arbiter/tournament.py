"""Tournament bookkeeping, pure: round-robin and Swiss pairings, standings with tie-breaks.

Entrants are names (a doubles team is one entrant, e.g. "Ann & Bob"). A game between two
entrants is a `Result` carrying each side's score (Varanasi discs, Wari seeds...); the higher
score wins and equal scores draw. Interpretations and their sources are in docs/webui.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from engines.errors import ArbiterError

# Match points per game: the chess-style 1 / half / 0 that Buchholz and Sonneborn-Berger assume.
WIN, DRAW, LOSS = 1.0, 0.5, 0.0
# A bye counts as a win with no score, as in FIDE Swiss rules (C.04.1.c "pairing-allocated bye").
BYE_POINTS = WIN


class TournamentError(ArbiterError):
    """Entrants, pairings or results that do not make a tournament."""


@dataclass(frozen=True)
class Pairing:
    """One table of one round; `away` is None for a bye."""

    round: int
    table: int
    home: str
    away: str | None

    def to_json(self) -> dict:
        return {"round": self.round, "table": self.table, "home": self.home, "away": self.away}


@dataclass(frozen=True)
class Result:
    """The finished game of a pairing, with each side's score."""

    round: int
    home: str
    away: str
    home_score: float
    away_score: float

    def points_for(self, entrant: str) -> float:
        mine, theirs = self.scores_of(entrant)
        return WIN if mine > theirs else DRAW if mine == theirs else LOSS

    def opponent_of(self, entrant: str) -> str:
        return self.away if entrant == self.home else self.home

    def scores_of(self, entrant: str) -> tuple[float, float]:
        if entrant == self.home:
            return self.home_score, self.away_score
        if entrant == self.away:
            return self.away_score, self.home_score
        raise TournamentError(f"{entrant!r} did not play in this game")

    def to_json(self) -> dict:
        return {
            "round": self.round,
            "home": self.home,
            "away": self.away,
            "home_score": self.home_score,
            "away_score": self.away_score,
        }


@dataclass(frozen=True)
class Standing:
    """One line of the standings table; the tie-break columns in the order they are applied."""

    rank: int
    entrant: str
    played: int
    wins: int
    draws: int
    losses: int
    points: float
    buchholz: float
    sonneborn_berger: float
    score_difference: float
    byes: int = 0
    shared: bool = False  # another entrant is level on every tie-break: the place is shared

    @property
    def place(self) -> str:
        """"3" or, shared, "3=" as a crosstable writes it."""
        return f"{self.rank}=" if self.shared else str(self.rank)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def check_entrants(entrants: Sequence[str]) -> tuple[str, ...]:
    """Entrant names stripped, non-empty and unique, or TournamentError naming the problem."""
    names = tuple(name.strip() for name in entrants)
    if any(not name for name in names):
        raise TournamentError("an entrant needs a name")
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise TournamentError(f"entrant names must differ: {', '.join(duplicates)} appears twice")
    if len(names) < 2:
        raise TournamentError("a tournament needs at least two entrants")
    return names


def round_robin(entrants: Sequence[str]) -> list[list[Pairing]]:
    """Every entrant meets every other once (circle method, as in the Berger tables).

    One entrant stays fixed while the others rotate; home and away alternate for the fixed
    entrant so nobody is at home in every round. With an odd number, one entrant sits out
    (a bye) each round.
    """
    names = list(check_entrants(entrants))
    if len(names) % 2:
        names.append(None)
    count = len(names)
    rounds = []
    for round_index in range(count - 1):
        tables = []
        for table_index in range(count // 2):
            first, second = names[table_index], names[count - 1 - table_index]
            if table_index == 0 and round_index % 2:
                first, second = second, first
            tables.append((first, second))
        rounds.append(_number_tables(round_index + 1, tables))
        names = [names[0], names[-1], *names[1:-1]]
    return rounds


def swiss_round(entrants: Sequence[str], results: Iterable[Result], byes: Iterable[str] = ()) -> list[Pairing]:
    """Pair the next Swiss round: equal scores meet, nobody meets the same opponent twice.

    Entrants are ranked by the current standings; the top unpaired entrant takes the
    highest-ranked opponent it has not met, backtracking when that leaves the rest unpairable.
    With an odd number, the lowest-ranked entrant without a bye sits out. If no rematch-free
    pairing exists (a small field late in the event), rematches are allowed rather than failing.
    """
    names = check_entrants(entrants)
    results = list(results)
    byes = set(byes)
    next_round = 1 + max((r.round for r in results), default=0)
    ranked = [s.entrant for s in standings(names, results, byes)]
    met = {name: set() for name in names}
    for result in results:
        met.setdefault(result.home, set()).add(result.away)
        met.setdefault(result.away, set()).add(result.home)

    bye = None
    if len(ranked) % 2:
        bye = next((name for name in reversed(ranked) if name not in byes), ranked[-1])
        ranked.remove(bye)
    tables = _pair_without_rematches(ranked, met) or _pair_without_rematches(ranked, None)
    if bye is not None:
        tables.append((bye, None))
    return _number_tables(next_round, tables)


def _pair_without_rematches(ranked: list[str], met: dict[str, set] | None) -> list[tuple[str, str]] | None:
    if not ranked:
        return []
    first, rest = ranked[0], ranked[1:]
    for index, candidate in enumerate(rest):
        if met is not None and candidate in met[first]:
            continue
        remainder = _pair_without_rematches(rest[:index] + rest[index + 1:], met)
        if remainder is not None:
            return [(first, candidate), *remainder]
    return None


def _number_tables(round_number: int, tables: Sequence[tuple[str | None, str | None]]) -> list[Pairing]:
    """Tables numbered from 1 with the bye (if any) last; a None home means the away entrant sits out."""
    games = [(home, away) for home, away in tables if home is not None and away is not None]
    sitting_out = [home or away for home, away in tables if home is None or away is None]
    pairings = [Pairing(round_number, number, home, away) for number, (home, away) in enumerate(games, 1)]
    pairings += [Pairing(round_number, len(games) + 1, name, None) for name in sitting_out]
    return pairings


def standings(entrants: Sequence[str], results: Iterable[Result], byes: Iterable[str] = ()) -> list[Standing]:
    """Rank entrants by match points, then Buchholz, Sonneborn-Berger, score difference, name.

    Buchholz is the sum of the opponents' points, Sonneborn-Berger the sum of the points of the
    opponents beaten plus half of those drawn (FIDE tie-break regulations, sections 8.1 and 9.1).
    Each bye (one entry per bye received) adds BYE_POINTS and nothing to the tie-breaks.
    """
    names = check_entrants(entrants)
    results = list(results)
    known = set(names)
    for result in results:
        for side in (result.home, result.away):
            if side not in known:
                raise TournamentError(f"result for unknown entrant {side!r}")
    byes = list(byes)
    points = {name: BYE_POINTS * byes.count(name) for name in names}
    for result in results:
        for side in (result.home, result.away):
            points[side] += result.points_for(side)

    rows = []
    for name in names:
        games = [r for r in results if name in (r.home, r.away)]
        earned = [r.points_for(name) for r in games]
        opponents = [r.opponent_of(name) for r in games]
        difference = sum(r.scores_of(name)[0] - r.scores_of(name)[1] for r in games)
        rows.append(dict(
            entrant=name,
            played=len(games),
            wins=earned.count(WIN),
            draws=earned.count(DRAW),
            losses=earned.count(LOSS),
            points=points[name],
            buchholz=sum(points[o] for o in opponents),
            sonneborn_berger=sum(p * points[o] for p, o in zip(earned, opponents)),
            score_difference=difference,
            byes=byes.count(name),
        ))

    def merit(row: dict) -> tuple:
        return (-row["points"], -row["buchholz"], -row["sonneborn_berger"], -row["score_difference"])

    # Entrants level on every tie-break share a place (listed by name); the next place counts
    # every entrant ahead of it.
    rows.sort(key=lambda row: (merit(row), row["entrant"]))
    levels = [merit(row) for row in rows]
    return [Standing(rank=levels.index(level) + 1, shared=levels.count(level) > 1, **row)
            for row, level in zip(rows, levels)]


def number_rounds(games: Sequence[tuple[int, Sequence[str]]]) -> dict[int, int]:
    """Round numbers of games listed in the order they were paired, as {game id: round}.

    Each game is (id, entrants seated, a bye seating one). Every entrant plays once per round, byes
    included, so a game belongs to the round after the latest round any of its entrants played in.
    """
    last_round: dict[str, int] = {}
    rounds = {}
    for game_id, seated in games:
        number = 1 + max((last_round.get(name, 0) for name in seated), default=0)
        rounds[game_id] = number
        for name in seated:
            last_round[name] = number
    return rounds
