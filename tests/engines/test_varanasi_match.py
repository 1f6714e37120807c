"""VaranasiMatch: sets recorded from engine outcomes until the target score or the last set."""
import json

import pytest

from engines import load_rules
from engines.base import Outcome
from engines.errors import StateError
from engines.varanasi import Take
from engines.varanasi_match import VaranasiMatch


def new_match(**options):
    return VaranasiMatch(load_rules({"game": "varanasi", **options}))


def won(seat, points, players=2):
    scores = dict.fromkeys(range(players), 0)
    scores[seat] = points
    return Outcome(True, seat, scores)


def play(match, *results):
    for seat, points in results:
        match = match.record_set(won(seat, points, match.rules.players))
    return match


def test_first_to_the_target_wins_the_match():
    match = play(new_match(target=5), (0, 3), (1, 4))
    assert not match.is_over() and match.winners() == () and match.standings == (3, 4)
    match = play(match, (0, 2))
    assert match.is_over() and match.winners() == (0,)
    with pytest.raises(StateError, match="the match is already over"):
        play(match, (1, 1))


def test_default_target_is_ten():
    assert not play(new_match(), (0, 9)).is_over()
    assert play(new_match(), (0, 9), (0, 1)).winners() == (0,)


def test_fixed_sets_end_after_the_last_set_with_the_highest_total_winning():
    match = play(new_match(sets=2, players=3), (2, 30), (1, 4))
    assert match.is_over() and match.winners() == (2,) and match.standings == (0, 4, 30)
    tied = play(new_match(sets=2), (0, 3), (1, 3))
    assert tied.winners() == (0, 1)


def test_doubles_with_team_credit_pools_the_partners_scores():
    match = play(new_match(doubles=True, credit="team", target=6), (0, 3), (1, 5), (2, 3))
    assert match.team_standings == (6, 5)
    assert match.is_over() and match.winners() == (0, 2)


def test_doubles_with_player_credit_needs_one_player_to_reach_the_target():
    match = play(new_match(doubles=True, target=6), (0, 3), (1, 5), (2, 3))
    assert not match.is_over()
    match = play(match, (1, 1))
    assert match.winners() == (1, 3) and match.to_json()["teams"] == {"0": 6, "1": 6}


def test_doubles_over_fixed_sets_compares_team_totals():
    match = play(new_match(doubles=True, sets=3), (0, 5), (1, 3), (3, 3))
    assert match.winners() == (1, 3)


def test_a_misere_set_is_recorded_for_the_player_who_did_not_take_last():
    engine = load_rules({"game": "varanasi", "misere": True, "target": 2})
    last = engine.apply(engine.state_from_json({"stacks": [["1red"], ["2red"]], "to_move": 0}), Take("red"))
    match = VaranasiMatch(engine).record_set(engine.outcome(last))
    assert match.standings == (0, 2) and match.winners() == (1,)


@pytest.mark.parametrize("outcome, words", [
    (Outcome(False, None, {0: 0, 1: 0}), "the set is not over yet"),
    (Outcome(True, None, {}), "the winner must be a seat 0-1, not None"),
    (Outcome(True, 2, {2: 1}), "the winner must be a seat"),
    (Outcome(True, 0, {0: 1, 5: 0}), "5 is not a seat of this game"),
    (Outcome(True, 0, {0: -1}), "a score is a number 0 or more"),
])
def test_unusable_outcomes_are_refused(outcome, words):
    with pytest.raises(StateError) as info:
        new_match().record_set(outcome)
    assert words in str(info.value)


@pytest.mark.parametrize("options, results", [
    ({}, [(0, 3), (1, 2)]),
    ({"sets": 2, "weights": {"4": 2.5}}, [(1, 2.5), (0, 1)]),
    ({"doubles": True, "credit": "team"}, [(3, 4)]),
])
def test_matches_round_trip_through_json(options, results):
    match = play(new_match(**options), *results)
    obj = json.loads(json.dumps(match.to_json()))
    assert VaranasiMatch.from_json(obj) == match
    assert obj["over"] == match.is_over() and obj["winners"] == list(match.winners())


@pytest.mark.parametrize("obj, words", [
    ({"sets": []}, "an object with \"rules\""),
    ({"rules": {"game": "varanasi"}, "games": []}, "unknown key 'games'"),
    ({"rules": {"game": "varanasi"}, "sets": {}}, "\"sets\" must be a list"),
    ({"rules": {"game": "varanasi"}, "sets": [{"winner": 0}]}, "set 1 must be"),
    ({"rules": {"game": "varanasi"}, "sets": [{"winner": 0, "scores": {"0": "3"}}]}, "set 1: a score is a number"),
    ({"rules": {"game": "varanasi", "target": 1}, "sets": [{"winner": 0, "scores": {"0": 1}}] * 2},
     "the match is already over"),
])
def test_bad_match_json_is_refused(obj, words):
    with pytest.raises(StateError) as info:
        VaranasiMatch.from_json(obj)
    assert words in str(info.value)
