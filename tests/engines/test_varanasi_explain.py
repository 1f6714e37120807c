"""Varanasi `explain`: the legal move behind a change on the table, or a reason a player understands."""
import pytest

from engines import load_rules
from engines.errors import StateError
from engines.varanasi import Disc, Relocate, Take

BEFORE = [["4red", "2blue", "1red"], ["3green"], ["4green", "3blue", "1green"], ["2red"], ["4blue", "1blue"]]


def rules(**options):
    return load_rules({"game": "varanasi", **options})


def explain(after, before=BEFORE, **options):
    engine = rules(**options)
    return engine.explain(engine.state_from_json({"game": "varanasi", "stacks": before, "to_move": 0}),
                          {"game": "varanasi", "stacks": after})


def test_a_legal_take_is_explained_whatever_the_stack_order():
    verdict = explain([["4blue", "1blue"], ["4red", "2blue"], ["3green"], ["4green", "3blue", "1green"]])
    assert verdict.to_json() == {"legal": True, "moves": [{"take": "red"}], "reason": None}


def test_a_legal_relocation_is_explained():
    verdict = explain([["4red", "2blue", "1red"], ["3green", "2red"], ["4green", "3blue", "1green"],
                       ["4blue", "1blue"]])
    assert verdict.moves == (Relocate(Disc(2, "red"), Disc(3, "green")),)


def test_states_or_json_both_work_and_the_claimed_turn_is_ignored():
    engine = rules()
    before = engine.state_from_json({"stacks": [["4red", "2blue"], ["3green", "1red"]], "to_move": 1})
    after = engine.state_from_json({"stacks": [["4red", "2blue", "1red"], ["3green"]], "to_move": 1})
    verdict = engine.explain(before.to_json(), after)
    assert verdict.legal and verdict.moves == (Relocate(Disc(1, "red"), Disc(2, "blue")),)


@pytest.mark.parametrize("after, reason", [
    (BEFORE, "nothing changed"),
    (BEFORE + [["2pink"]], "discs appeared: 2pink"),
    ([["4red", "2blue", "1red"], ["3green"], ["4green", "3blue", "1green"], ["2pink"], ["4blue", "1blue"]],
     "discs appeared: 2pink; 2red vanished"),
    ([["4red", "2blue", "1red"], ["3green"], ["4green", "3blue"], ["2red"], ["4blue"]],
     "1blue and 1green vanished; a take removes one colour only"),
    ([["4red", "1red"], ["3green"], ["4green", "3blue", "1green"], ["2red"], ["4blue", "1blue"]],
     "2blue was taken from under 1red; a take removes only top discs"),
    ([["4red", "2blue"], ["3green"], ["4green", "3blue", "1green"], ["2red"], ["4blue", "1blue"]],
     "red was declared but 2red is still on the table"),
    ([["4red", "2blue", "1red"], ["3green"], ["4green", "3blue", "1green"], ["4blue", "1blue"]],
     "red was declared but 1red is still on top of the tower on 4red"),
    ([["4red", "2blue"], ["3green", "1blue"], ["4green", "3blue", "1green"], ["4blue"]],
     "this looks like two moves: red was taken and 1blue moved"),
    ([["4red", "2blue", "1red"], ["3green", "2red", "1blue"], ["4green", "3blue", "1green"], ["4blue"]],
     "this looks like two moves: 1blue and 2red each changed what they rest on"),
    ([["4red", "2blue"], ["1red"], ["3green"], ["4green", "3blue", "1green"], ["2red"], ["4blue", "1blue"]],
     "1red was set down as a new tower; a moved part must go onto another tower"),
    ([["4red"], ["3green", "2blue", "1red"], ["4green", "3blue", "1green"], ["2red"], ["4blue", "1blue"]],
     "the moved part's top disc 1red would stay at level 3; it must end higher"),
    ([["4red", "2blue", "1red", "3green"], ["4green", "3blue", "1green"], ["2red"], ["4blue", "1blue"]],
     "3green may not rest on 1red: a disc only goes on a bigger one"),
    ([["4red", "2blue", "1red", "2red"], ["3green"], ["4green", "3blue", "1green"], ["4blue", "1blue"]],
     "2red may not rest on 1red: a disc only goes on a bigger one"),
])
def test_illegal_changes_get_a_reason_naming_the_discs(after, reason):
    verdict = explain(after)
    assert verdict.to_json() == {"legal": False, "moves": [], "reason": reason}


def test_wiki_relocation_needs_a_higher_tower():
    before = [["4red", "2blue"], ["4green", "3green"]]
    after = [["4red"], ["4green", "3green", "2blue"]]
    assert explain(after, before).legal
    assert explain(after, before, relocation="wiki").reason == (
        "the tower on 4green (2 high) is not higher than the tower on 4red (2 high); "
        "a part only goes onto a higher tower")


def test_taking_the_last_discs_is_explained_on_an_empty_table():
    assert explain([["4blue", "1red"]], [["2red"], ["4blue", "1red"]]).to_json() == {
        "legal": False, "moves": [], "reason": "red was declared but 1red is still on top of the tower on 4blue"}
    verdict = explain([], [["2red"], ["1red"]])
    assert verdict.moves == (Take("red"),)


def test_a_finished_set_has_no_move_left():
    assert explain([], []).reason == "nothing changed"
    assert explain([["2red"]], []).reason == "discs appeared: 2red"


def test_the_before_state_must_itself_be_possible():
    with pytest.raises(StateError, match="3green rests on 2red"):
        explain([["4red"]], [["2red", "3green"]])


def test_an_after_reading_with_a_repeated_disc_is_a_state_error():
    with pytest.raises(StateError, match="2red appears twice"):
        explain([["2red"], ["4blue", "2red"]], [["2red"], ["4blue"]])


def test_discs_that_left_the_game_are_named_and_a_difference_is_told_disc_by_disc():
    engine = rules()
    before = engine.state_from_json({"game": "varanasi", "stacks": [["4red", "2blue"], ["3green"]]})
    read = {"game": "varanasi", "stacks": [["4red", "3red", "2blue"], ["3green", "1yellow"], ["bogus"]]}
    assert engine.out_of_play(before, read) == "1yellow and 3red"
    assert engine.out_of_play(before, {"game": "varanasi", "stacks": [["4red"]]}) is None
    phantom = engine.state_from_json({"game": "varanasi", "stacks": [["4red", "3red", "2blue"], ["3green"]]})
    assert engine.difference(phantom, before) == "no 3red on 4red"
    assert engine.difference(before, phantom) == "a 3red under 2blue"
