"""Bad rules, states and moves give one-line errors; explain names what went wrong."""
import pytest
from hypothesis import given, settings, strategies as st

from engines import ArbiterError, IllegalMove, MoveError, RulesError, StateError, load_rules
from engines.wari import WariMove, WariState

PBMSERV = load_rules({"game": "wari"})
START = {"game": "wari", "pits": [4] * 12, "stores": [0, 0], "to_move": "south"}


def one_line(info):
    assert "\n" not in str(info.value)
    return str(info.value)


@pytest.mark.parametrize("obj, message", [
    ({"game": "wari", "variant": "kalah"}, "unknown Wari variant 'kalah'"),
    ({"game": "wari", "variant": "pbmserv", "seeds": 4}, "unknown key for Wari variant pbmserv: seeds"),
    ({"game": "wari", "variant": "pbmserv", "capture_side": "any"}, "capture_side"),
    ({"game": "wari", "variant": "aware", "capture_side": "own"}, "capture_side must be one of opponent, any"),
    ({"game": "wari", "variant": "four-capture", "remainder": "starter"}, "remainder must be one of nobody, sides"),
])
def test_bad_rules(obj, message):
    with pytest.raises(RulesError) as info:
        load_rules(obj)
    assert message in one_line(info)


@pytest.mark.parametrize("obj", [
    {"game": "wari"},
    {"game": "wari", "variant": "aware", "capture_side": "any"},
    {"game": "wari", "variant": "four-capture", "remainder": "sides"},
])
def test_rules_json_round_trip(obj):
    rules = load_rules(obj)
    assert load_rules(rules.to_json()).to_json() == rules.to_json()
    assert set(obj.items()) <= set(rules.to_json().items()) | {("variant", "pbmserv")}


@pytest.mark.parametrize("change, message", [
    ({"pits": [4] * 11 + [5]}, "49 seeds on the board and in the stores: a Wari set has 48"),
    ({"pits": [4] * 11}, "pits must be a list of 12 seed counts"),
    ({"pits": [4] * 10 + [-1, 9]}, "negative count (-1)"),
    ({"pits": [4] * 11 + [4.0]}, "whole numbers"),
    ({"pits": [4] * 11 + [True]}, "whole numbers"),
    ({"stores": [0]}, "stores must be a list of 2 seed counts"),
    ({"to_move": "east"}, "to_move must be \"south\" or \"north\", got 'east'"),
    ({"to_move": None}, "to_move must be"),
    ({"game": "nanku"}, "not a Wari state"),
    ({"board": []}, "unknown Wari state keys: board"),
    ({"seen": {}}, "\"seen\" must be a list"),
    ({"seen": [{"pits": [4] * 12}]}, "each Wari \"seen\" entry"),
    ({"seen": [{"pits": [5] * 12, "to_move": "north"}]}, "a \"seen\" position holds 60 seeds, the board 48"),
])
def test_bad_states(change, message):
    with pytest.raises(StateError) as info:
        PBMSERV.state_from_json({**START, **change})
    assert message in one_line(info)


def test_state_json_round_trip_keeps_the_optional_history():
    state = PBMSERV.apply(PBMSERV.start(), WariMove(0, 2))
    data = state.to_json()
    assert data["seen"] == [{"pits": [4] * 12, "to_move": "south"}]
    assert "seen" not in PBMSERV.start().to_json()
    assert PBMSERV.state_from_json(data) == state
    assert PBMSERV.state_from_json({k: v for k, v in data.items() if k != "seen"}).seen == frozenset()


@pytest.mark.parametrize("obj, message", [
    ({"player": "south"}, "a Wari move is"),
    ({"player": "south", "pit": "c", "seeds": 4}, "a Wari move is"),
    ({"player": "west", "pit": "c"}, "move player must be"),
    ({"player": "south", "pit": "g"}, "a Wari pit is one of a-f, got 'g'"),
    ({"player": "south", "pit": 3}, "a Wari pit is one of a-f, got 3"),
    ("south c", "a Wari move is"),
])
def test_bad_moves(obj, message):
    with pytest.raises(MoveError) as info:
        PBMSERV.move_from_json(obj)
    assert message in one_line(info)


def test_move_json_and_notation():
    move = PBMSERV.move_from_json({"player": "north", "pit": "e"})
    assert move.to_json() == {"player": "north", "pit": "e"}
    assert PBMSERV.notation(move) == "North e"


def test_illegal_moves_say_why():
    start = PBMSERV.start()
    with pytest.raises(IllegalMove, match="^it is South's turn, not North's$"):
        PBMSERV.apply(start, WariMove(1, 0))
    after = PBMSERV.apply(start, WariMove(0, 2))
    with pytest.raises(IllegalMove, match="^South c is empty$"):
        PBMSERV.apply(PBMSERV.apply(after, WariMove(1, 0)), WariMove(0, 2))
    over = WariState((0,) * 12, (24, 24), 0)
    with pytest.raises(IllegalMove, match="^the game is over: South a cannot be played$"):
        PBMSERV.apply(over, WariMove(0, 0))


AFTER_NORTH_C = {"game": "wari", "pits": [6, 0, 5, 5, 5, 0, 5, 5, 0, 2, 7, 6], "stores": [0, 2], "to_move": "south"}
BEFORE_NORTH_C = {"game": "wari", "pits": [5, 1, 5, 5, 5, 0, 5, 5, 5, 1, 6, 5], "stores": [0, 0], "to_move": "north"}


def explain(before, after, rules=PBMSERV):
    return rules.explain(rules.state_from_json(before), rules.state_from_json(after)).to_json()


def test_explain_a_legal_move_ignores_the_unseen_to_move():
    assert explain(BEFORE_NORTH_C, AFTER_NORTH_C | {"to_move": "north"}) == {
        "legal": True, "moves": [{"player": "north", "pit": "c"}], "reason": None}


def test_explain_a_capture_left_on_the_board():
    left = AFTER_NORTH_C | {"pits": [6, 2, 5, 5, 5, 0, 5, 5, 0, 2, 7, 6], "stores": [0, 0]}
    assert explain(BEFORE_NORTH_C, left)["reason"] == (
        "South's pit b should hold 0 seeds after North c, the board shows 2 (was a capture missed?)")


def test_explain_a_miscounted_sowing_names_the_first_wrong_pit():
    after = START | {"pits": [4, 4, 0, 5, 5, 6, 4, 4, 4, 4, 4, 4], "to_move": "north"}
    assert explain(START, after)["reason"] == ("South's pit f should hold 5 seeds after South c, the board shows 6 "
                                               "(were two seeds dropped in one pit?)")


def test_explain_a_skipped_pit_asks_about_it_in_table_words():
    skipped = START | {"pits": [4, 4, 0, 4, 5, 5, 5, 5, 4, 4, 4, 4], "to_move": "north"}  # d skipped
    assert explain(START, skipped)["reason"] == (
        "South's pit d should hold 5 seeds after South c, the board shows 4 "
        "(was a pit skipped while sowing, or a seed knocked into the next pit?)")


def test_explain_a_pit_of_one_seed_says_seed():
    before = {"game": "wari", "pits": [0, 0, 0, 0, 0, 1, 0, 5, 5, 5, 5, 5], "stores": [10, 12], "to_move": "south"}
    slipped = before | {"pits": [0, 0, 0, 0, 0, 0, 0, 6, 5, 5, 5, 5], "to_move": "north"}
    assert explain(before, slipped)["reason"].startswith("North's pit a should hold 1 seed after South f,")


def test_explain_a_store_only_difference():
    after = AFTER_NORTH_C | {"stores": [2, 0]}
    assert explain(BEFORE_NORTH_C, after)["reason"] == (
        "North's store should hold 2 seeds after North c, the board shows 0")


def test_explain_out_of_turn_two_moves_and_unchanged_boards():
    north_moved = START | {"pits": [5] + [4] * 5 + [4, 4, 0, 5, 5, 5]}
    assert explain(START, north_moved)["reason"] == "it is South's turn, but the board shows North c"
    two = PBMSERV.apply(PBMSERV.apply(PBMSERV.start(), WariMove(0, 1)), WariMove(1, 3))
    assert explain(START, two.to_json())["reason"] == "this looks like two moves: South b then North d"
    assert explain(START, START)["reason"] == "the board has not changed"


def test_explain_a_move_the_rules_forbid():
    before = {"game": "wari", "pits": [0, 0, 5, 1, 0, 0] + [0] * 6, "stores": [20, 22], "to_move": "south"}
    after = before | {"pits": [0, 0, 5, 0, 1, 0] + [0] * 6, "to_move": "north"}
    assert explain(before, after) == {
        "legal": False, "moves": [], "reason": "South must feed North: d leaves North empty"}


def test_explain_after_the_game_is_over():
    over = {"game": "wari", "pits": [1] * 12, "stores": [25, 11], "to_move": "north"}
    assert explain(over, over | {"pits": [1] * 6 + [2, 1, 1, 1, 1, 0]})["reason"] == "the game is over"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.floats(allow_nan=False) | st.sampled_from(
        ["wari", "south", "north", "c", "pbmserv", "aware", "any", "sides", ""]),
    lambda inner: st.lists(inner, max_size=13) | st.dictionaries(
        st.sampled_from(["game", "variant", "pits", "stores", "to_move", "seen", "player", "pit",
                         "capture_side", "remainder", "x"]), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=100)
@given(JSON)
def test_any_json_is_accepted_or_refused_with_a_one_line_arbiter_error(obj):
    for read in (load_rules, PBMSERV.state_from_json, PBMSERV.move_from_json):
        try:
            read(obj)
        except ArbiterError as exc:
            assert "\n" not in str(exc)
