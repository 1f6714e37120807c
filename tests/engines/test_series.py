import pytest
from hypothesis import given, settings, strategies as st

from engines.base import Outcome
from engines.errors import ArbiterError, StateError
from engines.series import Series


def finished(winner, south, north):
    return Outcome(True, winner, {"south": south, "north": north})


def test_first_to_two_ends_when_a_player_reaches_two_wins():
    series = Series.new(["Ann", "Bob"], first_to=2)
    series = series.record(finished("south", 30, 18), seats={"south": "Ann", "north": "Bob"})
    assert not series.is_over()
    series = series.record(finished(None, 24, 24), seats={"south": "Bob", "north": "Ann"})
    assert not series.is_over() and series.winner() is None
    series = series.record(finished("north", 20, 28), seats={"south": "Bob", "north": "Ann"})
    assert series.is_over() and series.winner() == "Ann"
    ann, bob = series.standings()
    assert (ann.player, ann.wins, ann.draws, ann.losses, ann.points) == ("Ann", 2, 1, 0, 82)
    assert (bob.player, bob.wins, bob.draws, bob.losses, bob.points) == ("Bob", 0, 1, 2, 62)


def test_fixed_number_of_games_breaks_equal_wins_on_points_and_may_end_level():
    series = Series.new(["south", "north"], games=2)
    series = series.record(finished("south", 25, 23)).record(finished("north", 10, 38))
    assert series.is_over() and series.winner() == "north"
    level = Series.new(["south", "north"], games=2)
    level = level.record(finished("south", 25, 23)).record(finished("north", 23, 25))
    assert level.is_over() and level.winner() is None


def test_no_game_after_the_series_is_over():
    series = Series.new(["south", "north"], games=1).record(finished("south", 25, 23))
    with pytest.raises(StateError, match="already over"):
        series.record(finished("south", 25, 23))


def test_unfinished_game_and_unknown_seats_are_rejected():
    series = Series.new(["Ann", "Bob"], games=3)
    with pytest.raises(StateError, match="finished"):
        series.record(Outcome(False, None, {"south": 3, "north": 4}), seats={"south": "Ann", "north": "Bob"})
    with pytest.raises(StateError, match="Cid"):
        series.record(finished("south", 25, 23), seats={"south": "Ann", "north": "Cid"})
    with pytest.raises(StateError, match="north"):
        series.record(finished("north", 23, 25), seats={"south": "Ann"})


def test_json_round_trip_recomputes_standings():
    series = Series.new(["Ann", "Bob"], first_to=3)
    series = series.record(finished("south", 30, 18), seats={"south": "Ann", "north": "Bob"})
    data = series.to_json()
    assert data["standings"][0] == {"player": "Ann", "wins": 1, "draws": 0, "losses": 0, "points": 30}
    again = Series.from_json(data)
    assert again == series and hash(again) == hash(series)


@pytest.mark.parametrize("bad", [
    None,
    {"players": ["Ann"], "games": 3},
    {"players": ["Ann", "Ann"], "games": 3},
    {"players": ["Ann", "Bob"]},
    {"players": ["Ann", "Bob"], "games": 3, "first_to": 2},
    {"players": ["Ann", "Bob"], "games": 0},
    {"players": ["Ann", "Bob"], "games": True},
    {"players": ["Ann", "Bob"], "games": 3, "colour": "red"},
    {"players": ["Ann", "Bob"], "games": 3, "results": [{"winner": "Cid", "points": {}}]},
    {"players": ["Ann", "Bob"], "games": 3, "results": [{"winner": None, "points": {"Ann": "x"}}]},
    {"players": ["Ann", "Bob"], "games": 1, "results": [{"winner": None, "points": {}}] * 2},
])
def test_bad_series_json_raises_one_line_errors(bad):
    with pytest.raises(ArbiterError) as info:
        Series.from_json(bad)
    assert "\n" not in str(info.value)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 5) | st.floats(allow_nan=False) | st.sampled_from(["Ann", "Bob", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["players", "games", "first_to", "results", "winner", "points", "Ann"]), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=100)
@given(JSON)
def test_any_json_is_read_or_refused_with_a_one_line_arbiter_error(obj):
    try:
        series = Series.from_json(obj)
    except ArbiterError as exc:
        assert "\n" not in str(exc)
    else:
        assert Series.from_json(series.to_json()) == series
