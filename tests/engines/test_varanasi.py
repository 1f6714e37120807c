"""Varanasi rules options, state and move parsing, apply, legal_moves and outcome."""
import json

import pytest

from engines import check_record, load_rules
from engines.errors import IllegalMove, MoveError, RulesError, StateError
from engines.varanasi import Disc, Relocate, Take


def rules(**options):
    return load_rules({"game": "varanasi", **options})


def state(*stacks, to_move=0, **options):
    return rules(**options).state_from_json({"game": "varanasi", "stacks": [list(t) for t in stacks],
                                             "to_move": to_move})


def move(obj):
    return rules().move_from_json(obj)


def towers_json(s):
    return sorted(s.to_json()["stacks"])


# -- rules ---------------------------------------------------------------------------------------

def test_default_rules_are_nestor_two_players_first_to_ten():
    assert rules().to_json() == {"game": "varanasi", "relocation": "nestor", "players": 2, "misere": False,
                                 "doubles": False, "weights": {"1": 1, "2": 1, "3": 1, "4": 1}, "target": 10}


@pytest.mark.parametrize("options", [
    {"relocation": "wiki", "players": 3, "sets": 5},
    {"misere": True, "weights": {"1": 4, "4": 0.5}, "target": 25},
    {"doubles": True, "credit": "team"},
    {"players": 4, "doubles": True, "credit": "player", "sets": 2},
])
def test_rules_round_trip_through_json(options):
    first = rules(**options)
    again = load_rules(json.loads(json.dumps(first.to_json())))
    assert again == first
    assert all(first.to_json()[key] == value for key, value in options.items() if key != "weights")


def test_doubles_means_four_players_with_player_credit_by_default():
    doubles = rules(doubles=True)
    assert (doubles.players, doubles.credit) == (4, "player")


@pytest.mark.parametrize("options, words", [
    ({"colour": "red"}, "unknown key 'colour'"),
    ({"relocation": "higher"}, "\"relocation\" must be 'nestor' or 'wiki'"),
    ({"players": 5}, "\"players\" must be 2, 3 or 4"),
    ({"players": True}, "\"players\""),
    ({"misere": "yes"}, "\"misere\" must be true or false"),
    ({"misere": True, "players": 3}, "misere is a two-player variant"),
    ({"doubles": True, "players": 3}, "doubles is played by 4 players"),
    ({"credit": "team"}, "\"credit\" only applies to doubles"),
    ({"doubles": True, "credit": "seat"}, "\"credit\" must be 'player' or 'team'"),
    ({"weights": {"5": 2}}, "weights key '5' is not a size"),
    ({"weights": {"1": -1}}, "weight of size 1"),
    ({"weights": {"1": True}}, "weight of size 1"),
    ({"weights": [1, 2]}, "\"weights\" must be an object"),
    ({"target": 0}, "\"target\""),
    ({"sets": 2.5}, "\"sets\""),
    ({"target": 5, "sets": 3}, "not both"),
])
def test_bad_rules_raise_rules_error_naming_the_problem(options, words):
    with pytest.raises(RulesError, match="^varanasi rules: ") as info:
        rules(**options)
    assert words in str(info.value)
    assert "\n" not in str(info.value)


def test_there_is_no_standard_start():
    with pytest.raises(RulesError, match="start position"):
        rules().start()


# -- states --------------------------------------------------------------------------------------

def test_stack_order_carries_no_meaning_but_is_kept_for_display():
    left = state(["4red", "2blue", "1red"], ["3green"])
    right = state(["3green"], ["4red", "2blue", "1red"])
    assert left == right and hash(left) == hash(right)
    assert right.to_json()["stacks"] == [["3green"], ["4red", "2blue", "1red"]]
    assert left != state(["4red", "2blue", "1red"], ["3green"], to_move=1)
    assert left != state(["4red", "2blue"], ["3green", "1red"])


def test_state_json_round_trips_and_to_move_may_be_omitted():
    s = rules(players=3).state_from_json({"game": "varanasi", "stacks": [["3dark green", "1x"]]})
    assert s.to_move == 0
    assert rules(players=3).state_from_json(json.loads(json.dumps(s.to_json()))) == s
    assert s.stacks[0][0] == Disc(3, "dark green")


@pytest.mark.parametrize("stacks, to_move, message", [
    ([["4red", "2blue"], ["2red", "3blue"]], 0, "tower 2: 3blue rests on 2red; a disc only goes on a bigger one"),
    ([["3red", "3blue"]], 0, "tower 1: 3blue rests on 3red; two discs of one size never stack"),
    ([["4red", "2blue"], ["3green", "2blue"]], 0, "2blue appears twice (in towers 1 and 2)"),
    ([["4red", "2red", "4red"]], 0, "tower 1: 4red rests on 2red"),
    ([["5red"]], 0, "unknown size 5 in 5red: sizes run 1 to 4"),
    ([["0red"]], 0, "unknown size 0 in 0red"),
    ([["red"]], 0, "'red' is not a disc code"),
    ([["2"]], 0, "'2' is not a disc code"),
    ([["2 red"]], 0, "'2 red' is not a disc code"),
    ([[2]], 0, "2 is not a disc code"),
    ([[]], 0, "tower 1: a tower is a non-empty list"),
    ([["2red"]], 2, "to_move 2 is not a seat: this game has 2 players (seats 0-1)"),
    ([["2red"]], -1, "to_move -1 is not a seat"),
    ([["2red"]], "0", "to_move '0' is not a seat"),
])
def test_impossible_states_raise_state_error_naming_discs_and_tower(stacks, to_move, message):
    with pytest.raises(StateError) as info:
        rules().state_from_json({"game": "varanasi", "stacks": stacks, "to_move": to_move})
    assert message in str(info.value)


@pytest.mark.parametrize("obj, words", [
    ([["4red"]], "an object"),
    ({"game": "wari", "stacks": []}, "not a varanasi state"),
    ({"stacks": [["4red"]], "turn": 1}, "unknown key 'turn'"),
    ({"stacks": "4red"}, "\"stacks\" must be a list"),
    ({"stacks": [["4red"]], "last_take": {"seat": 0, "discs": ["1red"]}}, "discs are still on it"),
    ({"stacks": [], "last_take": {"seat": 0, "discs": ["1red", "2blue"]}}, "distinct discs of one colour"),
    ({"stacks": [], "last_take": {"seat": 0, "discs": ["1red", "1red"]}}, "distinct discs of one colour"),
    ({"stacks": [], "last_take": {"seat": 3, "discs": ["1red"]}}, "last_take seat 3 is not a seat"),
    ({"stacks": [], "last_take": {"seat": 0}}, "\"last_take\" must be"),
])
def test_malformed_states_raise_state_error(obj, words):
    with pytest.raises(StateError) as info:
        rules().state_from_json(obj)
    assert words in str(info.value)


# -- moves ---------------------------------------------------------------------------------------

def test_moves_parse_print_and_round_trip():
    take, relocate = move({"take": "red"}), move({"move": "2blue", "onto": "4red"})
    assert (take, relocate) == (Take("red"), Relocate(Disc(2, "blue"), Disc(4, "red")))
    assert [rules().notation(m) for m in (take, relocate)] == ["take red", "2blue onto 4red"]
    assert [m.to_json() for m in (take, relocate)] == [{"take": "red"}, {"move": "2blue", "onto": "4red"}]


@pytest.mark.parametrize("obj", [
    {"take": ""}, {"take": "2red"}, {"take": 3}, {"move": "2blue"}, {"move": "blue", "onto": "4red"},
    {"move": "2blue", "onto": "9red"}, {"take": "red", "onto": "4red"}, ["take", "red"], "take red",
])
def test_malformed_moves_raise_move_error(obj):
    with pytest.raises(MoveError):
        move(obj)


# -- apply -----------------------------------------------------------------------------------------

def test_take_removes_every_top_disc_of_the_colour_one_per_tower():
    before = state(["4red", "2red"], ["3blue", "1red"], ["2green"], ["4green", "3red"], to_move=1)
    after = rules().apply(before, Take("red"))
    assert towers_json(after) == [["2green"], ["3blue"], ["4green"], ["4red"]]
    assert after.to_move == 0 and after.last_take is None


def test_take_drops_emptied_towers_and_turns_pass_clockwise():
    three = rules(players=3)
    before = state(["1red"], ["4blue", "2red"], to_move=2, players=3)
    after = three.apply(before, Take("red"))
    assert towers_json(after) == [["4blue"]] and after.to_move == 0


def test_declaring_a_colour_on_no_top_is_an_illegal_pass():
    with pytest.raises(IllegalMove, match="no tower has a red disc on top"):
        rules().apply(state(["4red", "2blue"]), Take("red"))


def test_relocation_puts_the_part_on_the_other_tower_in_place():
    before = state(["4red", "3blue", "1red"], ["4green", "3green", "2green"])
    after = rules().apply(before, move({"move": "1red", "onto": "2green"}))
    assert after.to_json()["stacks"] == [["4red", "3blue"], ["4green", "3green", "2green", "1red"]]
    whole = rules().apply(state(["2blue", "1red"], ["4green"]), move({"move": "2blue", "onto": "4green"}))
    assert whole.to_json()["stacks"] == [["4green", "2blue", "1red"]]


@pytest.mark.parametrize("relocation, legal", [("nestor", True), ("wiki", False)])
def test_nestor_needs_the_top_disc_to_rise_wiki_needs_a_higher_tower(relocation, legal):
    # 2blue's tower is 2 high, so is 3green's: 2blue's top rises to level 3 (Nestor) but the
    # destination tower is not higher (wiki).
    before = state(["4red", "2blue"], ["4green", "3green"], relocation=relocation)
    relocate = move({"move": "2blue", "onto": "3green"})
    if legal:
        assert towers_json(rules(relocation=relocation).apply(before, relocate)) == [
            ["4green", "3green", "2blue"], ["4red"]]
    else:
        with pytest.raises(IllegalMove, match=r"the tower on 4green \(2 high\) is not higher than the tower "
                                              r"on 4red \(2 high\)"):
            rules(relocation=relocation).apply(before, relocate)


@pytest.mark.parametrize("stacks, relocate, reason", [
    ([["4red", "3blue", "1red"], ["4green", "2green"]], ("1red", "2green"),
     "the moved part's top disc 1red would stay at level 3; it must end higher"),
    ([["4red", "3blue", "2red", "1red"], ["3green"]], ("2red", "3green"),
     "the moved part's top disc 1red would drop from level 4 to level 3; it must end higher"),
    ([["4red", "2blue"], ["4green", "1green"]], ("2blue", "1green"),
     "2blue may not rest on 1green: a disc only goes on a bigger one"),
    ([["4red", "2blue"], ["4green", "2green"]], ("2blue", "2green"),
     "2blue may not rest on 2green: a disc only goes on a bigger one"),
    ([["4red", "2blue"], ["4green", "3green"]], ("2blue", "4green"),
     "4green is covered by 3green; a part only goes on top of a tower"),
    ([["4red", "2blue", "1red"]], ("1red", "2blue"),
     "1red and 2blue are in the same tower; a part goes onto another tower"),
    ([["4red", "2blue"]], ("2blue", "2blue"), "2blue cannot go onto itself"),
    ([["4red", "2blue"]], ("1red", "2blue"), "1red is not on the table"),
    ([["4red", "2blue"]], ("2blue", "3red"), "3red is not on the table"),
])
def test_illegal_relocations_say_why_naming_the_discs(stacks, relocate, reason):
    with pytest.raises(IllegalMove) as info:
        rules().apply(state(*stacks), move({"move": relocate[0], "onto": relocate[1]}))
    assert str(info.value) == reason


@pytest.mark.parametrize("relocation", ["nestor", "wiki"])
def test_legal_moves_are_exactly_the_moves_apply_accepts(relocation):
    engine = rules(relocation=relocation)
    before = state(["4red", "3blue", "1red"], ["4green", "2red"], ["3green", "2blue", "1green"], ["1blue"],
                   relocation=relocation)
    discs = [d for tower in before.stacks for d in tower]
    candidates = [Take(c) for c in ("red", "green", "blue", "pink")]
    candidates += [Relocate(part, onto) for part in discs for onto in discs]
    accepted = set()
    for candidate in candidates:
        try:
            engine.apply(before, candidate)
        except IllegalMove:
            continue
        accepted.add(candidate)
    listed = engine.legal_moves(before)
    assert len(listed) == len(set(listed))
    assert set(listed) == accepted
    assert Take("pink") not in accepted and Take("red") in accepted


def test_legal_moves_do_not_depend_on_stack_order():
    engine = rules()
    one = state(["4red", "3blue", "1red"], ["4green", "2red"], ["1blue"])
    other = state(["1blue"], ["4green", "2red"], ["4red", "3blue", "1red"])
    assert engine.legal_moves(one) == engine.legal_moves(other)


# -- outcome and records ---------------------------------------------------------------------------

def test_whoever_takes_the_last_discs_wins_the_set_and_scores_them():
    engine = rules(players=3)
    last = engine.apply(state(["1red"], ["3red"], to_move=2, players=3), Take("red"))
    assert engine.is_over(last)
    assert last.to_json() == {"game": "varanasi", "stacks": [], "to_move": 0,
                              "last_take": {"seat": 2, "discs": ["1red", "3red"]}}
    assert engine.state_from_json(last.to_json()) == last
    assert engine.outcome(last).to_json() == {"over": True, "winner": 2, "scores": {0: 0, 1: 0, 2: 2}}


def test_size_weights_make_the_set_score():
    engine = rules(weights={"1": 5, "3": 2.5})
    last = engine.apply(state(["1red"], ["3red"], ["4red"], to_move=1), Take("red"))
    assert engine.outcome(last).scores == {0: 0, 1: 5 + 2.5 + 1}


def test_misere_gives_the_set_to_the_other_player_with_the_losers_discs():
    engine = rules(misere=True)
    last = engine.apply(state(["1red"], ["2red"], to_move=0), Take("red"))
    assert engine.outcome(last).to_json() == {"over": True, "winner": 1, "scores": {0: 0, 1: 2}}


def test_a_set_still_on_the_table_has_no_winner_yet():
    assert rules().outcome(state(["2red"])).to_json() == {"over": False, "winner": None, "scores": {0: 0, 1: 0}}


def test_an_empty_table_without_last_take_is_over_with_unknown_winner():
    empty = rules().state_from_json({"game": "varanasi", "stacks": [], "to_move": 1})
    assert rules().outcome(empty).to_json() == {"over": True, "winner": None, "scores": {}}
    assert rules().legal_moves(empty) == []


def test_check_record_replays_to_the_first_illegal_move():
    engine = rules()
    start = state(["4red", "2blue"], ["3green", "1red"])
    moves = [move(m) for m in ({"move": "1red", "onto": "2blue"}, {"take": "red"}, {"take": "pink"})]
    report = check_record(engine, start, moves)
    assert report["legal"] is False and report["first_illegal"] == 2
    assert report["reason"] == "no tower has a pink disc on top; a take needs at least one"
    assert report["final"]["stacks"] == [["4red", "2blue"], ["3green"]]
    finished = check_record(engine, start, moves[:2] + [Take("blue"), Take("green"), Take("red")])
    assert finished["legal"] is True
    assert finished["result"] == {"over": True, "winner": 0, "scores": {0: 1, 1: 0}}
