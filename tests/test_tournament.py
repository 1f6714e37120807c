"""Pairings, standings and match totals of arbiter.tournament."""
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.tournament import (
    BYE_POINTS,
    Result,
    TournamentError,
    number_rounds,
    round_robin,
    standings,
    swiss_round,
)
from engines.errors import ArbiterError

field_sizes = st.integers(min_value=2, max_value=13)


def names(count):
    return [f"P{i:02d}" for i in range(count)]


@given(field_sizes)
def test_round_robin_meets_every_pair_exactly_once(count):
    rounds = round_robin(names(count))
    games = [frozenset((p.home, p.away)) for r in rounds for p in r if p.away is not None]
    assert sorted(games, key=sorted) == sorted((frozenset(c) for c in combinations(names(count), 2)), key=sorted)
    assert len(rounds) == count - 1 + count % 2
    for number, pairings in enumerate(rounds, 1):
        seated = [n for p in pairings for n in (p.home, p.away) if n is not None]
        assert sorted(seated) == names(count)
        assert {p.round for p in pairings} == {number}
        assert [p.table for p in pairings] == list(range(1, len(pairings) + 1))


def test_round_robin_alternates_home_for_the_fixed_entrant():
    homes = [next(p.home == "P00" for p in r if "P00" in (p.home, p.away)) for r in round_robin(names(6))]
    assert homes == [True, False, True, False, True]


def test_round_robin_gives_each_entrant_one_bye_in_an_odd_field():
    byes = [p.home for r in round_robin(names(5)) for p in r if p.away is None]
    assert sorted(byes) == names(5)


@pytest.mark.parametrize("entrants, message", [
    (["Ann"], "at least two"),
    (["Ann", " Ann "], "Ann appears twice"),
    (["Ann", "  "], "needs a name"),
])
def test_bad_entrant_lists_are_refused_with_a_reason(entrants, message):
    with pytest.raises(TournamentError, match=message):
        round_robin(entrants)
    assert issubclass(TournamentError, ArbiterError)


def play_round(pairings, scores):
    """Results of a round where the home side scores `scores(home, away)`."""
    return [Result(p.round, p.home, p.away, *scores(p.home, p.away)) for p in pairings if p.away]


def play_swiss(count, rounds, rng):
    entrants = names(count)
    results, byes = [], []
    for _ in range(rounds):
        pairings = swiss_round(entrants, results, byes)
        seated = [n for p in pairings for n in (p.home, p.away) if n is not None]
        assert sorted(seated) == entrants
        byes += [p.home for p in pairings if p.away is None]
        results += play_round(pairings, lambda home, away: (rng.randint(0, 3), rng.randint(0, 3)))
    return results, byes


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=2, max_value=7), st.randoms(use_true_random=False))
def test_swiss_never_rematches_while_a_fresh_pairing_must_exist(half, rng):
    # After k < n/2 rounds each entrant has met k others, so the "not yet met" graph has
    # degree >= n/2 and (Dirac) a Hamiltonian cycle, hence a rematch-free pairing.
    results, _ = play_swiss(2 * half, half, rng)
    met = [frozenset((r.home, r.away)) for r in results]
    assert len(met) == len(set(met))


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.randoms(use_true_random=False))
def test_swiss_gives_nobody_a_second_bye_in_an_odd_field(half, rng):
    _, byes = play_swiss(2 * half + 1, 2 * half + 1, rng)
    assert sorted(byes) == names(2 * half + 1)


def test_swiss_pairs_leaders_together_and_gives_the_bye_to_the_last():
    entrants = names(5)
    first = [Result(1, "P00", "P01", 3, 0), Result(1, "P02", "P03", 4, 1)]
    pairings = swiss_round(entrants, first, byes=["P04"])
    assert {pairings[0].home, pairings[0].away} == {"P00", "P02"}
    assert pairings[-1].away is None and pairings[-1].home in {"P01", "P03"}
    assert all(p.round == 2 for p in pairings)


def test_swiss_allows_a_rematch_only_when_nothing_else_is_possible():
    results = [Result(1, "A", "B", 1, 0)]
    assert [(p.home, p.away) for p in swiss_round(["A", "B"], results)] == [("B", "A")]  # B's turn at home


def test_swiss_round_one_of_a_rated_field_pairs_top_half_against_bottom_half():
    ratings = {"Ann": 2100, "Bob": 1900, "Cy": 1800, "Dee": 1700, "Eve": 1650, "Fay": 1500, "Gus": 1400}
    entrants = list(ratings) + ["Hal"]  # unrated: seeded last
    pairings = swiss_round(entrants, [], ratings=ratings)
    assert [frozenset((p.home, p.away)) for p in pairings] == [
        frozenset(pair) for pair in (("Ann", "Eve"), ("Bob", "Fay"), ("Cy", "Gus"), ("Dee", "Hal"))]
    # Home alternates down the tables: the higher seed is home on odd tables.
    assert [p.home for p in pairings] == ["Ann", "Fay", "Cy", "Hal"]


def test_swiss_pairs_within_score_groups_top_half_against_bottom_half():
    ratings = {name: 2000 - 10 * index for index, name in enumerate(names(8))}
    first = swiss_round(names(8), [], ratings=ratings)
    results = [Result(1, p.home, p.away, 1, 0) for p in first]  # the home side wins every game
    winners = sorted((p.home for p in first), key=lambda n: -ratings[n])
    second = swiss_round(names(8), results, ratings=ratings)
    top = [frozenset((p.home, p.away)) for p in second if {p.home, p.away} <= set(winners)]
    assert top == [frozenset((winners[0], winners[2])), frozenset((winners[1], winners[3]))]


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=2, max_value=6), st.randoms(use_true_random=False))
def test_swiss_keeps_home_and_away_within_two_of_even(half, rng):
    results, _ = play_swiss(2 * half, min(2 * half - 1, 7), rng)
    for name in names(2 * half):
        homes = sum(r.home == name for r in results)
        aways = sum(r.away == name for r in results)
        assert abs(homes - aways) <= 2, (name, homes, aways)


def test_standings_apply_the_tie_breaks_in_order():
    entrants = ["Ann", "Bob", "Cy", "Dee"]
    results = [
        Result(1, "Ann", "Bob", 5, 2),   # Ann beats Bob
        Result(1, "Cy", "Dee", 3, 1),    # Cy beats Dee
        Result(2, "Ann", "Cy", 2, 2),    # draw
        Result(2, "Bob", "Dee", 6, 0),   # Bob beats Dee
    ]
    table = {s.entrant: s for s in standings(entrants, results)}
    assert table["Ann"].points == table["Cy"].points == 1.5
    # Same points; Ann's opponents (Bob 1, Cy 1.5) outscore Cy's (Dee 0, Ann 1.5).
    assert table["Ann"].buchholz == 2.5 and table["Cy"].buchholz == 1.5
    assert table["Ann"].rank == 1 and table["Cy"].rank == 2
    assert table["Ann"].sonneborn_berger == 1 * 1 + 0.5 * 1.5
    assert table["Bob"].score_difference == -3 + 6
    assert (table["Ann"].wins, table["Ann"].draws, table["Ann"].losses) == (1, 1, 0)


def test_sonneborn_berger_breaks_a_buchholz_tie():
    # Two entrants with equal points and Buchholz; the one who beat the stronger opponent leads.
    results = [
        Result(1, "A", "X", 1, 0), Result(1, "B", "Y", 1, 0),
        Result(2, "A", "Y", 0, 1), Result(2, "B", "X", 0, 1),
        Result(3, "X", "Y", 1, 0),
    ]
    table = {s.entrant: s for s in standings(["A", "B", "X", "Y"], results)}
    assert table["A"].points == table["B"].points == 1
    assert table["A"].buchholz == table["B"].buchholz
    assert table["A"].sonneborn_berger > table["B"].sonneborn_berger
    assert table["A"].rank < table["B"].rank


def test_a_bye_counts_as_a_win_without_tie_break():
    table = {s.entrant: s for s in standings(["A", "B", "C"], [Result(1, "A", "B", 1, 1)], byes=["C"])}
    assert table["C"].points == BYE_POINTS and table["C"].buchholz == 0
    assert table["C"].rank == 1


def test_standings_refuse_results_for_strangers():
    with pytest.raises(TournamentError, match="unknown entrant 'Zed'"):
        standings(["A", "B"], [Result(1, "A", "Zed", 1, 0)])


def test_rounds_are_recovered_from_the_order_games_were_paired():
    schedule = round_robin(names(5))
    games, expected = [], {}
    for pairings in schedule:
        for pairing in pairings:
            game_id = len(games) + 1
            games.append((game_id, [n for n in (pairing.home, pairing.away) if n]))
            expected[game_id] = pairing.round
    assert number_rounds(games) == expected


def test_entrants_level_on_every_tie_break_share_their_place():
    # A and B draw, C and D draw: every tie-break is level inside each pair.
    results = [Result(1, "A", "B", 1, 1), Result(1, "C", "D", 1, 1)]
    table = standings(["A", "B", "C", "D"], results)
    assert [(s.place, s.entrant) for s in table] == [("1=", "A"), ("1=", "B"), ("1=", "C"), ("1=", "D")]
    results.append(Result(2, "A", "C", 1, 0))
    table = standings(["A", "B", "C", "D"], results)
    assert [s.place for s in table][0] == "1" and not table[0].shared


def test_a_bye_is_counted_beside_the_games():
    table = {s.entrant: s for s in standings(["A", "B", "C"], [Result(1, "A", "B", 1, 0)], byes=["C"])}
    assert table["C"].byes == 1 and table["C"].played == 0 and table["A"].byes == 0


def test_direct_encounter_breaks_a_tie_before_score_difference():
    results = [Result(1, "A", "B", 2, 1), Result(1, "A", "C", 1, 1), Result(2, "A", "D", 2, 1),
               Result(2, "B", "C", 2, 1), Result(3, "B", "D", 1, 1), Result(3, "C", "D", 3, 0)]
    table = {s.entrant: s for s in standings(["A", "B", "C", "D"], results)}
    level = ("points", "buchholz", "sonneborn_berger")
    assert [getattr(table["B"], k) for k in level] == [getattr(table["C"], k) for k in level]
    assert table["C"].score_difference > table["B"].score_difference
    # B beat C: ahead of C, whose better score difference comes after the direct encounter.
    assert (table["B"].rank, table["C"].rank) == (2, 3) and not table["B"].shared


def test_direct_encounter_is_left_out_where_the_tied_have_not_all_met():
    results = [Result(1, "A", "X", 1, 0), Result(1, "B", "Y", 3, 0)]
    table = {s.entrant: s for s in standings(["A", "B", "X", "Y"], results)}
    assert table["B"].rank == 1 and table["A"].rank == 2  # by score difference: A and B never met
