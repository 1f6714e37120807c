"""The worked example games of the pbmserv Wari help (seed 003), replayed board by board.

Boards are transcribed from the help's diagrams as printed: the top row is the second player
(North) from f down to a, the bottom row the first player (South) from a to f. A diagram marks
captured pits with '*' and still shows their seeds; the board after the capture has them empty.
"""
import json
from pathlib import Path

from engines import check_record, load_rules
from engines.wari import WariMove

EXAMPLES = Path(__file__).parents[2] / "examples"

RULES = load_rules({"game": "wari", "variant": "pbmserv"})


def board(north_f_to_a, south_a_to_f, stores, to_move):
    return RULES.state_from_json({
        "game": "wari",
        "pits": list(south_a_to_f) + list(reversed(north_f_to_a)),
        "stores": list(stores),
        "to_move": to_move,
    })


def move(player, pit):
    return RULES.move_from_json({"player": player, "pit": pit})


# (move, board after it) from the standard start; South is the help's "1st player".
GAME_1234 = [
    (("south", "b"), board([4, 4, 4, 4, 4, 4], [4, 0, 5, 5, 5, 5], (0, 0), "north")),
    (("north", "d"), board([5, 5, 0, 4, 4, 4], [5, 1, 5, 5, 5, 5], (0, 0), "south")),
    (("south", "f"), board([5, 6, 1, 5, 5, 5], [5, 1, 5, 5, 5, 0], (0, 0), "north")),
    # "you capture the stones in this house ... The score is now 2 to 0 in your favour"
    (("north", "c"), board([6, 7, 2, 0, 5, 5], [6, 0, 5, 5, 5, 0], (0, 2), "south")),
    # "this left 3 stones in this house, which your opponent captures ... 2 to 3"
    (("south", "e"), board([6, 7, 0, 1, 6, 6], [6, 0, 5, 5, 0, 1], (3, 2), "north")),
]


def test_game_1234_board_by_board():
    state = RULES.start()
    for (player, pit), expected in GAME_1234:
        before = state
        state = RULES.apply(state, move(player, pit))
        assert (state.pits, state.stores, state.to_move) == (expected.pits, expected.stores, expected.to_move)
        assert RULES.explain(before, expected).moves == (move(player, pit),)
    assert not RULES.is_over(state)


def check_example(name):
    """`arbiter check` on a shipped record, as the CLI reads it."""
    record = json.loads((EXAMPLES / name).read_text())
    rules = load_rules(record["rules"])
    start = rules.state_from_json(record["start"]) if "start" in record else rules.start()
    return check_record(rules, start, [rules.move_from_json(m) for m in record["moves"]])


def test_shipped_example_is_game_1234():
    result = check_example("wari-pbmserv-example.json")
    assert result["legal"] and result["first_illegal"] is None
    assert result["final"]["pits"] == list(GAME_1234[-1][1].pits)
    assert result["result"] == {"over": False, "winner": None, "scores": {"south": 3, "north": 2}}


def test_shipped_grand_slam_and_must_feed_examples():
    slam = check_example("wari-pbmserv-grand-slam.json")
    assert slam["legal"] and slam["result"] == {"over": True, "winner": "north", "scores": {"south": 10, "north": 27}}
    unfed = check_example("wari-pbmserv-must-feed.json")
    assert (unfed["legal"], unfed["first_illegal"], unfed["reason"]) == (
        False, 0, "South must feed North: d leaves North empty")


def test_game_2346_grand_slam_takes_all_fifteen():
    # The help does not print game 2346's scores: any stores adding to 22 with North on 10 or
    # more fit "you take 15 stones in a single move and win the game"; 12 and 10 are chosen.
    states = [
        board([17, 1, 4, 0, 0, 1], [0, 3, 0, 0, 0, 0], (10, 12), "north"),
        board([17, 1, 4, 0, 1, 0], [0, 3, 0, 0, 0, 0], (10, 12), "south"),
        board([17, 1, 4, 0, 1, 0], [0, 0, 1, 1, 1, 0], (10, 12), "north"),
        # the 17 go twice round, skipping North f; South's 2 2 3 3 3 2 are all captured
        board([0, 2, 5, 1, 2, 1], [0, 0, 0, 0, 0, 0], (10, 27), "south"),
    ]
    moves = [("north", "a"), ("south", "b"), ("north", "f")]
    state = states[0]
    assert RULES.legal_moves(states[1]) == [WariMove(0, 1)]  # "Your opponent has only one move"
    for (player, pit), expected in zip(moves, states[1:]):
        state = RULES.apply(state, move(player, pit))
        assert (state.pits, state.stores, state.to_move) == (expected.pits, expected.stores, expected.to_move)
    outcome = RULES.outcome(state)
    assert outcome.over and outcome.winner == "north" and outcome.scores == {"south": 10, "north": 27}
