"""Each variant's special rules on small hand-made positions (pits: South a..f, North a..f)."""
import pytest

from engines import IllegalMove, load_rules
from engines.wari import WariMove, WariState

SOUTH, NORTH = 0, 1


def rules(variant, **options):
    return load_rules({"game": "wari", "variant": variant, **options})


def position(south, north, to_move=SOUTH):
    """South's and North's rows a..f; the stores take whatever makes 48 seeds."""
    on_board = sum(south) + sum(north)
    rest = 48 - on_board
    return WariState(tuple(south) + tuple(north), (rest // 2, rest - rest // 2), to_move)


def play(variant_rules, state, player, pit, **options):
    return variant_rules.apply(state, WariMove(player, "abcdef".index(pit)))


def test_twelve_or_more_seeds_skip_the_origin_pit():
    state = position([12, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1])
    after = play(rules("pbmserv"), state, SOUTH, "a")
    assert after.pits == (0, 3, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2)


def test_capture_chains_backwards_on_the_opponents_row_only():
    # South e sows South f (1->2), North a (1->2), North b (2->3): North b and a are taken.
    state = position([0, 0, 0, 0, 3, 1], [1, 2, 1, 1, 1, 1])
    after = play(rules("pbmserv"), state, SOUTH, "e")
    assert after.pits == (0, 0, 0, 0, 0, 2, 0, 0, 1, 1, 1, 1)
    assert after.stores[SOUTH] == state.stores[SOUTH] + 5


GRAND_SLAM = position([1, 0, 0, 0, 0, 2], [1, 2, 0, 0, 0, 0])  # South f would take 2 + 3


def test_pbmserv_grand_slam_captures_everything():
    after = play(rules("pbmserv"), GRAND_SLAM, SOUTH, "f")
    assert after.pits[6:] == (0,) * 6 and after.stores[SOUTH] == GRAND_SLAM.stores[SOUTH] + 5


def test_abapa_grand_slam_is_legal_and_captures_nothing():
    after = play(rules("abapa"), GRAND_SLAM, SOUTH, "f")
    assert after.pits[6:8] == (2, 3) and after.stores == GRAND_SLAM.stores


def test_oware_ver1_grand_slam_is_illegal():
    ver1 = rules("oware-ver1")
    assert ver1.legal_moves(GRAND_SLAM) == [WariMove(SOUTH, 0)]
    with pytest.raises(IllegalMove, match="South f would capture all of North's seeds"):
        play(ver1, GRAND_SLAM, SOUTH, "f")


NORTH_EMPTY = position([0, 0, 5, 1, 0, 0], [0] * 6)  # only c reaches North


@pytest.mark.parametrize("variant", ["pbmserv", "abapa", "oware-ver1"])
def test_must_feed_an_empty_opponent(variant):
    feeding = rules(variant)
    assert feeding.legal_moves(NORTH_EMPTY) == [WariMove(SOUTH, 2)]
    with pytest.raises(IllegalMove, match="South must feed North: d leaves North empty"):
        play(feeding, NORTH_EMPTY, SOUTH, "d")


@pytest.mark.parametrize("variant", ["four-capture", "aware"])
def test_no_feeding_rule(variant):
    more_than_eight = position([3, 0, 5, 1, 0, 0], [0] * 6)  # four-capture ends at 8 or fewer
    assert len(rules(variant).legal_moves(more_than_eight)) == 3


CANNOT_FEED = WariState((2, 1, 0, 0, 0, 0) + (0,) * 6, (22, 23), SOUTH)


@pytest.mark.parametrize("variant", ["pbmserv", "abapa"])
def test_no_feeding_move_ends_the_game_and_the_mover_takes_his_row(variant):
    outcome = rules(variant).outcome(CANNOT_FEED)
    assert rules(variant).legal_moves(CANNOT_FEED) == []
    assert outcome.over and outcome.winner == "south" and outcome.scores == {"south": 25, "north": 23}


def test_oware_ver1_without_a_feeding_move_any_move_is_played_and_north_then_loses():
    ver1 = rules("oware-ver1")
    assert len(ver1.legal_moves(CANNOT_FEED)) == 2
    after = play(ver1, CANNOT_FEED, SOUTH, "a")
    outcome = ver1.outcome(after)
    assert outcome.over and outcome.winner == "south" and outcome.scores == {"south": 22, "north": 23}


@pytest.mark.parametrize("variant, winner, scores", [
    # he loses whatever the scores, and nobody collects the board
    ("oware-ver1", "north", {"south": 24, "north": 10}),
    ("aware", "north", {"south": 24, "north": 10}),
    # the game ends and each takes his own row
    ("pbmserv", None, {"south": 24, "north": 24}),
    ("abapa", None, {"south": 24, "north": 24}),
])
def test_a_player_who_cannot_move(variant, winner, scores):
    stuck = WariState((0,) * 6 + (4, 4, 2, 0, 0, 4), (24, 10), SOUTH)
    assert rules(variant).outcome(stuck).to_json() == {"over": True, "winner": winner, "scores": scores}


def test_repetition_ends_the_game_and_each_takes_his_row():
    pbmserv = rules("pbmserv")
    start = WariState((1, 0, 0, 0, 0, 1) + (0,) * 6, (23, 23), SOUTH)
    state, plies = start, 0
    while pbmserv.legal_moves(state):
        state = pbmserv.apply(state, pbmserv.legal_moves(state)[0])
        plies += 1
    assert plies == 12 and state.position == start.position
    assert pbmserv.outcome(state).to_json() == {"over": True, "winner": "south", "scores": {"south": 25, "north": 23}}
    assert pbmserv.state_from_json(state.to_json()) == state


def test_a_capture_forgets_earlier_positions():
    after = play(rules("pbmserv"), position([0, 0, 0, 0, 3, 1], [1, 2, 1, 1, 1, 1]), SOUTH, "e")
    assert after.seen == frozenset()
    quiet = play(rules("pbmserv"), rules("pbmserv").start(), SOUTH, "a")
    assert quiet.seen == {rules("pbmserv").start().position}


def test_scores_end_the_game_at_25_or_24_all():
    pbmserv = rules("pbmserv")
    assert pbmserv.outcome(WariState((1,) * 12, (25, 11), NORTH)).to_json() == {
        "over": True, "winner": "south", "scores": {"south": 25, "north": 11}}
    assert pbmserv.outcome(WariState((0,) * 12, (24, 24), NORTH)).winner is None
    assert not pbmserv.is_over(WariState((1,) * 12, (24, 12), NORTH))


def test_abapa_gives_the_seeds_left_at_the_end_to_their_rows_owner():
    outcome = rules("abapa").outcome(WariState((1,) * 6 + (2,) * 6, (25, 5), NORTH))
    assert outcome.scores == {"south": 31, "north": 17} and outcome.winner == "south"


def test_four_capture_last_seed_making_four_on_the_opponents_row_is_captured():
    state = position([0, 0, 0, 0, 0, 1], [3, 1, 1, 1, 1, 1])
    after = play(rules("four-capture"), state, SOUTH, "f")
    assert after.pits[5:7] == (0, 0) and after.stores[SOUTH] == state.stores[SOUTH] + 4


def test_four_capture_relays_a_four_made_on_the_own_row():
    # a -> b makes 4: lifted and sown c d e f, f makes 4: lifted and sown into North a b c d,
    # d makes 4 on North's row and South takes it. A relay sows exactly 4 seeds, so it reaches
    # the opponent's row by the second relay at the latest and cannot go round forever.
    state = position([1, 3, 0, 0, 0, 3], [0, 0, 0, 3, 1, 1])
    after = play(rules("four-capture"), state, SOUTH, "a")
    assert after.pits == (0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1)
    assert after.stores[SOUTH] == state.stores[SOUTH] + 4


def test_four_capture_a_four_made_on_the_way_goes_to_the_pits_owner():
    state = position([0, 0, 0, 0, 3, 0], [3, 0, 1, 1, 1, 1])
    after = play(rules("four-capture"), state, SOUTH, "e")  # f, North a (3 -> 4), North b
    assert after.pits[5:8] == (1, 0, 1)
    assert after.stores == (state.stores[SOUTH], state.stores[NORTH] + 4)
    own = position([3, 3, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1])
    after = play(rules("four-capture"), own, SOUTH, "a")  # b (3 -> 4) is South's own
    assert after.pits[:4] == (0, 0, 1, 1) and after.stores[SOUTH] == own.stores[SOUTH] + 4


@pytest.mark.parametrize("remainder, scores, winner", [
    ("nobody", {"south": 21, "north": 19}, "south"),
    ("sides", {"south": 22, "north": 26}, "north"),
])
def test_four_capture_ends_at_eight_seeds_left(remainder, scores, winner):
    four = rules("four-capture", remainder=remainder)
    state = WariState((1, 0, 0, 0, 0, 0, 1, 2, 1, 1, 1, 1), (21, 19), SOUTH)
    assert four.legal_moves(state) == []
    assert four.outcome(state).to_json() == {"over": True, "winner": winner, "scores": scores}
    assert not four.is_over(WariState((1, 0, 0, 0, 0, 1, 1, 2, 1, 1, 1, 1), (20, 19), SOUTH))


def test_four_capture_a_player_without_seeds_ends_the_game():
    state = WariState((0,) * 6 + (2, 2, 2, 2, 2, 2), (20, 16), SOUTH)
    assert rules("four-capture").outcome(state).to_json() == {
        "over": True, "winner": "south", "scores": {"south": 20, "north": 16}}


def test_aware_skips_a_pit_holding_twelve():
    state = position([0, 0, 0, 0, 0, 2], [12, 0, 0, 1, 1, 1])
    after = play(rules("aware"), state, SOUTH, "f")
    assert after.pits[6:9] == (12, 1, 1)


def test_aware_sows_into_the_origin_on_a_long_lap():
    state = position([12, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1])
    after = play(rules("aware"), state, SOUTH, "a")
    assert after.pits[0] == 1 and after.pits[1] == 1


@pytest.mark.parametrize("side, taken", [("opponent", 0), ("any", 2)])
def test_aware_capture_side_option(side, taken):
    state = position([1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1])
    after = play(rules("aware", capture_side=side), state, SOUTH, "a")
    assert after.stores[SOUTH] == state.stores[SOUTH] + taken
