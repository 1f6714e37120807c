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


def swiss_round(entrants: Sequence[str], results: Iterable[Result], byes: Iterable[str] = (),
                ratings: dict[str, float] | None = None, withdrawn: Iterable[str] = ()) -> list[Pairing]:
    """Pair the next Swiss round: score groups, the top half of each meeting its bottom half, no
    rematches, home and away balanced.

    Entrants are ranked by points, then rating (`ratings`, optional: seeding; unrated entrants
    rank below rated ones), then the standings' tie-breaks and name. Within a score group of n
    the entrant ranked i meets the one ranked i + n/2 (as in the Dutch system: round 1 of a rated
    field pairs 1 v 5, 2 v 6 ... of eight), an odd one out floating down to the next group;
    backtracking finds the nearest pairing with no rematch. With an odd number, the
    lowest-ranked entrant without a bye sits out. `withdrawn` entrants keep their results (their
    opponents' tie-breaks count them) but are not paired. If no rematch-free pairing exists (a small
    field late in the event), rematches are allowed rather than failing. Of each pair, the
    entrant who has been home less often is home (seat 0); level, the one away in their last
    game; still level, the higher-ranked on odd tables and the lower on even ones.
    """
    names = check_entrants(entrants)
    results = list(results)
    byes = list(byes)
    next_round = 1 + max((r.round for r in results), default=0)
    ratings = ratings or {}
    table = standings(names, results, byes)
    order = {s.entrant: index for index, s in enumerate(table)}
    points = {s.entrant: s.points for s in table}
    withdrawn = set(withdrawn)
    ranked = sorted((n for n in names if n not in withdrawn),
                    key=lambda n: (-points[n], -ratings.get(n, float("-inf")), order[n]))
    met = {name: set() for name in names}
    for result in results:
        met.setdefault(result.home, set()).add(result.away)
        met.setdefault(result.away, set()).add(result.home)

    bye = None
    if len(ranked) % 2:
        bye = next((name for name in reversed(ranked) if name not in byes), ranked[-1])
        ranked.remove(bye)
    pairs = _pair_score_groups(ranked, points, met) or _pair_score_groups(ranked, points, None)
    seats = [_seated(first, second, results, table_number)
             for table_number, (first, second) in enumerate(pairs, 1)]
    if bye is not None:
        seats.append((bye, None))
    return _number_tables(next_round, seats)


def _pair_score_groups(ranked: list[str], points: dict[str, float],
                       met: dict[str, set] | None) -> list[tuple[str, str]] | None:
    """Pairs of the ranked entrants, the first of each meeting the top of its score group's bottom
    half first; None if every way leaves a rematch (where `met` is given)."""
    if not ranked:
        return []
    first, rest = ranked[0], ranked[1:]
    group = [name for name in rest if points[name] == points[first]]
    half = (len(group) + 1) // 2  # the first of the bottom half of [first] + group
    preferred = group[half - 1:] + group[:half - 1][::-1] + [name for name in rest if name not in group]
    for candidate in preferred:
        if met is not None and candidate in met[first]:
            continue
        remainder = _pair_score_groups([name for name in rest if name != candidate], points, met)
        if remainder is not None:
            return [(first, candidate), *remainder]
    return None


def _seated(first: str, second: str, results: list[Result], table_number: int) -> tuple[str, str]:
    """(home, away) of a pair, `first` the higher-ranked: home and away balanced (swiss_round)."""
    def balance(name: str) -> tuple[int, int]:
        played = [r for r in results if name in (r.home, r.away)]
        homes = sum(r.home == name for r in played)
        last_home = 1 if played and played[-1].home == name else 0
        return homes - (len(played) - homes), last_home

    if balance(first) < balance(second):
        return first, second
    if balance(second) < balance(first):
        return second, first
    return (first, second) if table_number % 2 else (second, first)


def _number_tables(round_number: int, tables: Sequence[tuple[str | None, str | None]]) -> list[Pairing]:
    """Tables numbered from 1 with the bye (if any) last; a None home means the away entrant sits out."""
    games = [(home, away) for home, away in tables if home is not None and away is not None]
    sitting_out = [home or away for home, away in tables if home is None or away is None]
    pairings = [Pairing(round_number, number, home, away) for number, (home, away) in enumerate(games, 1)]
    pairings += [Pairing(round_number, len(games) + 1, name, None) for name in sitting_out]
    return pairings


def standings(entrants: Sequence[str], results: Iterable[Result], byes: Iterable[str] = ()) -> list[Standing]:
    """Rank entrants by match points, then Buchholz, Sonneborn-Berger, direct encounter, score
    difference, name.

    Buchholz is the sum of the opponents' points, Sonneborn-Berger the sum of the points of the
    opponents beaten plus half of those drawn (FIDE tie-break regulations, sections 8.1 and 9.1).
    Direct encounter ranks entrants still level by the points they scored in the games among
    themselves, where every one of them has met every other (else it leaves them level).
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

    def level(row: dict) -> tuple:
        return (-row["points"], -row["buchholz"], -row["sonneborn_berger"])

    groups: dict[tuple, list[str]] = {}
    for row in rows:
        groups.setdefault(level(row), []).append(row["entrant"])
    encounter = {name: score for group in groups.values() for name, score in _direct_encounter(group, results).items()}

    def merit(row: dict) -> tuple:
        return level(row) + (-encounter[row["entrant"]], -row["score_difference"])

    # Entrants level on every tie-break share a place (listed by name); the next place counts
    # every entrant ahead of it.
    rows.sort(key=lambda row: (merit(row), row["entrant"]))
    levels = [merit(row) for row in rows]
    return [Standing(rank=levels.index(level) + 1, shared=levels.count(level) > 1, **row)
            for row, level in zip(rows, levels)]


def _direct_encounter(tied: list[str], results: list[Result]) -> dict[str, float]:
    """Each tied entrant's points in the games among them, or 0 for all where some pair never met."""
    among = [r for r in results if r.home in tied and r.away in tied]
    met = {frozenset((r.home, r.away)) for r in among}
    if len(met) < len(tied) * (len(tied) - 1) // 2:
        return dict.fromkeys(tied, 0.0)
    return {name: sum(r.points_for(name) for r in among if name in (r.home, r.away)) for name in tied}


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
