import itertools

import pytest

from engines import check_record, load_rules
from engines.errors import ArbiterError, IllegalMove, MoveError, RulesError, StateError
from engines.nanku import LINE_STEPS, Collapse, Cube, NankuRules, Piece, Place, canonical_cubes, four_in_lines
from engines.series import Series

RULES = NankuRules()


def piece(white, black):
    return Piece(Cube(*white, "white"), Cube(*black, "black"))


def play(*pieces, start=None):
    """Apply the placements (white cell, black cell) in turn; no game may end before the last."""
    state = RULES.start() if start is None else start
    for index, (white, black) in enumerate(pieces):
        assert index == 0 or not RULES.is_over(state), f"game ended before placement {index}"
        state = RULES.apply(state, Place(piece(white, black)))
    return state


def state_json(*pieces, **extra):
    """Contract JSON for pieces given as (white cell, black cell)."""
    return {
        "game": "nanku",
        "pieces": [[[*w, "white"], [*b, "black"]] for w, b in pieces],
        "to_move": "white" if len(pieces) % 2 == 0 else "black",
        **extra,
    }


def line(start, step):
    return {tuple(s + k * d for s, d in zip(start, step)) for k in range(4)}


def line_sets(found, colour):
    return {frozenset(cells) for c, cells in found if c == colour}


# Three in a row for each colour along x (white at y=0, black at y=1); (3,0,0)-(3,1,0) completes both.
BOTH_THREES = [((x, 0, 0), (x, 1, 0)) for x in range(3)]
BOTH_FOURS = ((3, 0, 0), (3, 1, 0))

# A (0,0,0)-(3,0,3) white staircase in the plane y=0, supported by columns of its own pieces.
STAIRCASE = [
    ((0, 0, 0), (1, 0, 0)),
    ((3, 0, 0), (2, 0, 0)),
    ((1, 0, 1), (2, 0, 1)),
    ((3, 0, 1), (3, 0, 2)),
    ((2, 0, 2), (2, 0, 3)),
    ((3, 0, 3), (3, 0, 4)),
]


def no_line_table(count):
    """`count` standing pieces on a 5-wide grid. The bottom colour follows (x + 2y) mod 4, so every
    four consecutive cells along x, y or an xy diagonal hold two of each colour: no line ever."""
    pieces = []
    for index in range(count):
        x, y = index % 5, index // 5
        low, high = (x, y, 0), (x, y, 1)
        pieces.append((low, high) if (x + 2 * y) % 4 < 2 else (high, low))
    return pieces


# --- the 9 line directions -------------------------------------------------------------------

def test_there_are_nine_line_directions_none_through_corners_only():
    assert len(LINE_STEPS) == 9
    for step in LINE_STEPS:
        assert 1 <= sum(map(abs, step)) <= 2  # face (1) or edge (2) contact, never corner (3)


@pytest.mark.parametrize("step", [
    (1, 0, 0), (0, 1, 0), (0, 0, 1),
    (1, 1, 0), (1, -1, 0), (1, 0, 1), (1, 0, -1), (0, 1, 1), (0, 1, -1),
    (-1, 0, 0), (0, -1, -1), (-1, 1, 0),
])
def test_four_exposed_cubes_in_each_direction_make_a_line(step):
    cells = line((0, 0, 4), step)
    colour_at = {cell: "black" for cell in cells}
    assert line_sets(four_in_lines(colour_at), "black") == {frozenset(cells)}
    assert line_sets(four_in_lines(colour_at), "white") == set()


@pytest.mark.parametrize("step", [(1, 1, 1), (1, -1, 1), (-1, 1, 1), (1, 1, -1)])
def test_body_diagonal_touching_only_at_corners_is_no_line(step):
    colour_at = {cell: "white" for cell in line((0, 0, 4), step)}
    assert four_in_lines(colour_at) == ()


def test_three_cubes_or_a_gap_or_a_foreign_cube_make_no_line():
    assert four_in_lines({(x, 0, 0): "white" for x in range(3)}) == ()
    assert four_in_lines({(x, 0, 0): "white" for x in (0, 1, 2, 4)}) == ()
    assert four_in_lines({(x, 0, 0): "black" if x == 2 else "white" for x in range(4)}) == ()


def test_five_in_a_row_holds_two_lines_of_four():
    found = four_in_lines({(x, 0, 0): "white" for x in range(5)})
    assert line_sets(found, "white") == {frozenset(line((0, 0, 0), (1, 0, 0))), frozenset(line((1, 0, 0), (1, 0, 0)))}


def test_covering_every_face_of_one_cube_breaks_its_line():
    colour_at = {(x, 0, 0): "white" for x in range(4)}
    assert four_in_lines(colour_at)
    colour_at.update({(1, 1, 0): "black", (1, -1, 0): "black"})
    assert four_in_lines(colour_at), "the top face of (1,0,0) still shows"
    colour_at[(1, 0, 1)] = "black"
    assert four_in_lines(colour_at) == ()


# --- wins in play ----------------------------------------------------------------------------

def test_completing_the_opponents_row_makes_him_win():
    # Black places the fourth piece, whose white end completes White's row along x.
    state = play(((0, 0, 0), (0, 1, 0)), ((1, 0, 0), (1, -1, 0)), ((2, 0, 0), (2, 1, 0)), ((3, 0, 0), (3, -1, 0)))
    assert RULES.is_over(state)
    assert RULES.outcome(state).to_json() == {"over": True, "winner": "white", "scores": {"white": 1, "black": 0}}
    assert line_sets(state.lines, "white") == {frozenset(line((0, 0, 0), (1, 0, 0)))}


def test_vertical_column_wins():
    state = play(((0, 0, 0), (1, 0, 0)), ((0, 0, 1), (1, 0, 1)), ((0, 0, 2), (1, 0, 2)), ((0, 0, 3), (0, 0, 4)))
    assert RULES.outcome(state).winner == "white"
    assert line_sets(state.lines, "white") == {frozenset(line((0, 0, 0), (0, 0, 1)))}


def test_diagonal_staircase_wins():
    state = play(*STAIRCASE)
    assert RULES.outcome(state).winner == "white"
    assert line_sets(state.lines, "white") == {frozenset(line((0, 0, 0), (1, 0, 1)))}
    assert line_sets(state.lines, "black") == set()


@pytest.mark.parametrize("opening, mover", [([], "black"), ([((-2, 0, 0), (-1, 0, 0))], "white")])
def test_one_placement_completing_both_colours_wins_for_the_mover(opening, mover):
    before = play(*opening, *BOTH_THREES)
    assert not RULES.is_over(before) and before.to_move == mover
    after = play(BOTH_FOURS, start=before)
    assert {colour for colour, _ in after.lines} == {"white", "black"}
    assert RULES.outcome(after).winner == mover
    assert RULES.outcome(RULES.state_from_json(after.to_json())).winner == mover


def test_covered_middle_cube_does_not_count_towards_a_line():
    cover_top = ((1, 0, 0), (1, 0, 1))
    rest = [((0, 0, 0), (-1, 0, 0)), ((0, -1, 0), (1, -1, 0)), ((2, 0, 0), (2, -1, 0))]
    cover_side = ((2, 1, 0), (1, 1, 0))
    fourth = ((3, 0, 0), (4, 0, 0))
    covered = play(cover_top, *rest, cover_side, fourth)
    assert not RULES.is_over(covered)
    assert four_in_lines(covered.colour_at) == ()
    open_side = play(cover_top, *rest, fourth)
    assert RULES.outcome(open_side).winner == "white"


def test_no_moves_after_a_win():
    state = play(*STAIRCASE)
    assert RULES.legal_moves(state) == ()
    with pytest.raises(IllegalMove, match="white has four in a line"):
        RULES.apply(state, Place(piece((5, 0, 0), (6, 0, 0))))


# --- draw, collapse, series -------------------------------------------------------------------

def test_supply_used_up_without_a_line_is_a_draw():
    state = play(*no_line_table(40))
    assert len(state.pieces) == 40 and state.lines == ()
    assert RULES.is_over(state) and RULES.legal_moves(state) == ()
    assert RULES.outcome(state).to_json() == {"over": True, "winner": None, "scores": {"white": 0.5, "black": 0.5}}
    with pytest.raises(IllegalMove, match="all 40 pieces"):
        RULES.apply(state, Place(piece((0, 8, 0), (1, 8, 0))))


def test_forty_first_piece_is_a_state_error():
    with pytest.raises(StateError, match="41 pieces"):
        RULES.state_from_json(state_json(*no_line_table(41)))


@pytest.mark.parametrize("culprit, winner", [("white", "black"), ("black", "white")])
def test_collapse_loses_for_whoever_caused_it(culprit, winner):
    before = play(((0, 0, 0), (1, 0, 0)))
    after = RULES.apply(before, RULES.move_from_json({"collapse": culprit}))
    assert after.pieces == before.pieces and after.collapsed == culprit
    assert RULES.outcome(after).to_json() == {"over": True, "winner": winner, "scores": {winner: 1, culprit: 0}}
    assert after.to_json()["collapsed"] == culprit
    assert RULES.state_from_json(after.to_json()) == after
    assert RULES.explain(before, after).to_json() == {"legal": True, "moves": [{"collapse": culprit}], "reason": None}
    with pytest.raises(IllegalMove, match=f"{culprit} made the structure collapse"):
        RULES.apply(after, Collapse(winner))


def test_collapse_cannot_follow_a_finished_game():
    with pytest.raises(IllegalMove, match="over"):
        RULES.apply(play(*STAIRCASE), Collapse("black"))
    won = play(*STAIRCASE).to_json()
    with pytest.raises(StateError, match="four in a line"):
        RULES.state_from_json({**won, "collapsed": "black"})


def test_outcomes_feed_a_series_with_players_changing_sides():
    series = Series.new(["Ann", "Bob"], games=2)
    series = series.record(RULES.outcome(play(*STAIRCASE)), seats={"white": "Ann", "black": "Bob"})
    series = series.record(RULES.outcome(play(*no_line_table(40))), seats={"white": "Bob", "black": "Ann"})
    assert series.is_over() and series.winner() == "Ann"
    assert [(s.player, s.points) for s in series.standings()] == [("Ann", 1.5), ("Bob", 0.5)]


def test_game_in_progress_scores_nothing_yet():
    state = play(((0, 0, 0), (1, 0, 0)))
    assert RULES.outcome(state).to_json() == {"over": False, "winner": None, "scores": {"white": 0, "black": 0}}


# --- placement rules -------------------------------------------------------------------------

def test_first_piece_may_lie_or_stand_anywhere_on_the_table():
    for white, black in [((7, -3, 0), (7, -3, 1)), ((-5, 2, 1), (-5, 2, 0)), ((4, 4, 0), (4, 5, 0))]:
        state = play((white, black))
        assert state.to_move == "black" and state.colour_at == {white: "white", black: "black"}


def test_first_piece_must_rest_on_the_table():
    with pytest.raises(IllegalMove, match=r"cube at \(0,0,1\) has nothing under it"):
        play(((0, 0, 1), (1, 0, 1)))


def test_legal_first_moves_are_the_three_shapes_at_the_origin_in_both_colourings():
    moves = {RULES.notation(m) for m in RULES.legal_moves(RULES.start())}
    assert moves == {
        "W(0,0,0) B(1,0,0)", "W(1,0,0) B(0,0,0)",
        "W(0,0,0) B(0,1,0)", "W(0,1,0) B(0,0,0)",
        "W(0,0,0) B(0,0,1)", "W(0,0,1) B(0,0,0)",
    }


def test_overhanging_piece_is_illegal_and_named():
    state = play(((0, 0, 0), (1, 0, 0)))
    with pytest.raises(IllegalMove, match=r"^cube at \(2,0,1\) has nothing under it$"):
        RULES.apply(state, Place(piece((1, 0, 1), (2, 0, 1))))
    assert Place(piece((1, 0, 1), (2, 0, 1))) not in RULES.legal_moves(state)
    assert Place(piece((0, 0, 1), (1, 0, 1))) in RULES.legal_moves(state)


def test_piece_not_touching_the_structure_face_to_face_is_illegal():
    state = play(((0, 0, 0), (1, 0, 0)))
    with pytest.raises(IllegalMove, match=r"\(2,1,0\)-\(3,1,0\) touches no placed piece"):
        RULES.apply(state, Place(piece((2, 1, 0), (3, 1, 0))))  # edge contact only


def test_piece_on_a_taken_cell_is_illegal():
    state = play(((0, 0, 0), (1, 0, 0)))
    with pytest.raises(IllegalMove, match=r"cell \(1,0,0\) is already taken by a black cube"):
        RULES.apply(state, Place(piece((1, 0, 0), (2, 0, 0))))


def test_legal_moves_around_one_standing_piece_counted_by_hand():
    state = play(((0, 0, 0), (0, 0, 1)))
    shapes = {frozenset(m.piece.cells) for m in RULES.legal_moves(state)}
    # On top: one standing piece. Beside the foot: each of its 4 free sides starts 4 shapes (3 lying
    # away from it, 1 standing); nothing at height 1 can lie beside the top cube without overhang.
    assert frozenset({(0, 0, 2), (0, 0, 3)}) in shapes
    assert frozenset({(1, 0, 0), (1, 0, 1)}) in shapes
    assert frozenset({(1, 0, 1), (2, 0, 1)}) not in shapes
    assert len(shapes) == 1 + 4 * 4
    assert len(RULES.legal_moves(state)) == 2 * len(shapes)


# --- validation and JSON ---------------------------------------------------------------------

@pytest.mark.parametrize("pieces, message", [
    ([[[0, 0, 0, "white"], [2, 0, 0, "black"]]], r"cubes at \(0,0,0\) and \(2,0,0\) of one piece do not share a face"),
    ([[[0, 0, 0, "white"], [1, 1, 0, "black"]]], "do not share a face"),
    ([[[0, 0, 0, "white"], [1, 0, 0, "white"]]], r"two white cubes in one piece, at \(0,0,0\) and \(1,0,0\)"),
    ([[[0, 0, 0, "white"], [1, 0, 0, "black"]], [[1, 0, 0, "white"], [2, 0, 0, "black"]]], r"two cubes at \(1,0,0\)"),
    ([[[0, 0, 0, "white"], [1, 0, 0, "black"]], [[1, 0, 1, "white"], [2, 0, 1, "black"]]], r"cube at \(2,0,1\) has nothing under it"),
    ([[[0, 0, 0, "white"], [1, 0, 0, "black"]], [[3, 0, 0, "white"], [4, 0, 0, "black"]]], r"\(3,0,0\)-\(4,0,0\) is cut off"),
    ([[[0, 0, -1, "white"], [0, 0, 0, "black"]]], r"\(0,0,-1\) is below the table"),
    ([[[0, 0, 0, "red"], [1, 0, 0, "black"]]], "colour"),
    ([[[0, 0.5, 0, "white"], [1, 0, 0, "black"]]], "off the grid by half a cube"),
    ([[[0, True, 0, "white"], [1, 0, 0, "black"]]], "integer"),
    ([[[0, 0, 0, "white"]]], "two cubes"),
    ([[[0, 0, 0], [1, 0, 0, "black"]]], "a cube is"),
    ("none", "list"),
])
def test_impossible_states_are_rejected_with_a_reason(pieces, message):
    with pytest.raises(StateError, match=message):
        RULES.state_from_json({"game": "nanku", "pieces": pieces, "to_move": "black"})


def test_state_keys_and_turn_are_checked():
    one = state_json(((0, 0, 0), (1, 0, 0)))
    with pytest.raises(StateError, match="black is to move, not white"):
        RULES.state_from_json({**one, "to_move": "white"})
    with pytest.raises(StateError, match="unknown Nanku state keys: winner"):
        RULES.state_from_json({**one, "winner": "white"})
    with pytest.raises(StateError, match="collapsed"):
        RULES.state_from_json({**one, "collapsed": "grey"})
    with pytest.raises(StateError):
        RULES.state_from_json({**one, "game": "wari"})
    without_turn = {k: v for k, v in one.items() if k != "to_move"}
    assert RULES.state_from_json(without_turn) == RULES.state_from_json(one)


@pytest.mark.parametrize("move, message", [
    ({"cubes": [[0, 0, 0, "white"], [0, 0, 2, "black"]]}, "do not share a face"),
    ({"cubes": [[0, 0, 0, "black"], [0, 0, 1, "black"]]}, "two black cubes"),
    ({"cubes": [[0, 0, 0, "white"]]}, "two cubes"),
    ({"cubes": [[0, 0, 0, "white"], [1, 0, 0, "black"]], "player": "white"}, "a Nanku move is"),
    ({"collapse": "nobody"}, "collapse"),
    ([0, 0, 0], "a Nanku move is"),
])
def test_malformed_moves_are_move_errors(move, message):
    with pytest.raises(MoveError, match=message):
        RULES.move_from_json(move)


def test_errors_are_one_line_arbiter_errors():
    for bad in ({"game": "nanku", "pieces": [[[0, 0, 0, "white"], [5, 0, 0, "black"]]]}, {"game": "nanku"}, []):
        with pytest.raises(ArbiterError) as info:
            RULES.state_from_json(bad)
        assert "\n" not in str(info.value)


def test_rules_json():
    assert load_rules({"game": "nanku"}).to_json() == {"game": "nanku"}
    with pytest.raises(RulesError, match="unknown Nanku rules keys: board"):
        load_rules({"game": "nanku", "board": 8})


def test_state_and_move_json_round_trip_in_canonical_order():
    state = play(*STAIRCASE[:4])
    data = state.to_json()
    assert RULES.state_from_json(data) == state and hash(RULES.state_from_json(data)) == hash(state)
    shuffled = {**data, "pieces": [[b, w] for w, b in reversed(data["pieces"])]}
    assert RULES.state_from_json(shuffled) == state
    assert data["pieces"][0][0][3] == "white"
    move = RULES.move_from_json({"cubes": [[1, 0, 0, "black"], [0, 0, 0, "white"]]})
    assert move.to_json() == {"cubes": [[0, 0, 0, "white"], [1, 0, 0, "black"]]}
    assert RULES.move_from_json(move.to_json()) == move


def test_check_record_stops_at_the_first_illegal_placement():
    moves = [Place(piece(w, b)) for w, b in STAIRCASE[:2]] + [Place(piece((9, 9, 0), (9, 8, 0)))]
    result = check_record(RULES, RULES.start(), moves)
    assert result["legal"] is False and result["first_illegal"] == 2
    assert "touches no placed piece" in result["reason"]
    assert len(result["final"]["pieces"]) == 2


# --- explain ---------------------------------------------------------------------------------

def test_explain_finds_a_first_piece_anywhere():
    after = play(((10, -4, 0), (10, -4, 1)))
    explanation = RULES.explain(RULES.start(), after)
    assert explanation.to_json() == {
        "legal": True, "moves": [{"cubes": [[10, -4, 0, "white"], [10, -4, 1, "black"]]}], "reason": None,
    }


def test_explain_reasons():
    before = play(*STAIRCASE[:2])
    two_more = play(*STAIRCASE[2:4], start=before)
    assert RULES.explain(before, two_more).reason == "2 pieces appeared: a turn places one"
    assert RULES.explain(before, before).reason == "nothing changed"

    recoloured = RULES.state_from_json(state_json(((0, 0, 0), (1, 0, 0)), ((2, 0, 0), (3, 0, 0))))
    assert RULES.explain(before, recoloured).reason == "the cube at (2,0,0) turned from black to white"
    moved = RULES.state_from_json(state_json(((0, 0, 0), (1, 0, 0)), ((2, 1, 0), (2, 0, 0))))
    assert RULES.explain(before, moved).reason == "the white cube at (3,0,0) was moved or taken away"


def test_explain_rejects_a_placement_together_with_a_collapse():
    before = play(*STAIRCASE[:2])
    after = RULES.apply(play(STAIRCASE[2], start=before), Collapse("black"))
    assert RULES.explain(before, after).reason == "the piece at (1,0,1)-(2,0,1) was placed and the structure collapsed"


def test_explain_after_the_end_of_the_game():
    won = play(*STAIRCASE)
    collapsed = RULES.apply(play(*STAIRCASE[:5]), Collapse("white"))
    assert RULES.explain(won, won).reason == "nothing changed"
    assert RULES.explain(collapsed, won).reason == "the game was already over: white made the structure collapse"


def test_explain_re_paired_cubes():
    before = play(((0, 0, 0), (1, 0, 0)), ((1, 1, 0), (0, 1, 0)))
    re_paired = RULES.state_from_json(state_json(((0, 0, 0), (0, 1, 0)), ((1, 1, 0), (1, 0, 0))))
    assert RULES.explain(before, re_paired).reason == "no piece was added, but the cubes are paired differently"
    re_paired_and_one_more = play(((2, 0, 0), (2, 0, 1)), start=re_paired)
    assert RULES.explain(before, re_paired_and_one_more).reason == "the cubes already placed are paired differently"
    assert RULES.explain(before, play(((2, 0, 0), (2, 0, 1)), start=before)).legal


def turned_json(state, dx, dy):
    """The state's JSON after a quarter turn of the table, (x, y) -> (-y, x), and a shift."""
    return {**state.to_json(), "pieces": [[[-y + dx, x + dy, z, colour] for x, y, z, colour in piece]
                                          for piece in state.to_json()["pieces"]]}


def test_explain_sees_through_a_turned_and_shifted_structure():
    before = play(*STAIRCASE[:3])
    move = Place(piece((0, 1, 0), (0, 2, 0)))
    after = RULES.state_from_json(turned_json(RULES.apply(before, move), 6, -2))
    assert after.colour_at != RULES.apply(before, move).colour_at
    assert RULES.explain(before, after).to_json() == {"legal": True, "moves": [move.to_json()], "reason": None}
    only_turned = RULES.state_from_json(turned_json(before, 6, -2))
    assert RULES.explain(before, only_turned).reason == "the structure was only turned or shifted: no piece was placed"


def test_explain_keeps_the_unturned_reading_of_a_symmetric_structure():
    # Half a turn about (0.5, 0.5, z) maps these two pieces onto themselves, so the new piece reads
    # as placed where it appears, not turned back.
    before = play(((0, 0, 0), (1, 0, 0)), ((1, 1, 0), (0, 1, 0)))
    after = RULES.apply(before, Place(piece((2, 0, 0), (2, 1, 0))))
    half_turned = RULES.state_from_json(turned_json(RULES.state_from_json(turned_json(after, 0, 0)), 1, 1))
    assert half_turned.colour_at[(-1, 1, 0)] == "white"
    assert RULES.explain(before, half_turned).moves == (Place(piece((-1, 1, 0), (-1, 0, 0))),)


def test_explain_names_every_legal_successor_in_a_position():
    state = play(*STAIRCASE[:3])
    for move in RULES.legal_moves(state):
        assert RULES.explain(state, RULES.apply(state, move)).moves == (move,)


def test_legal_moves_agree_with_apply_on_every_placement_near_the_structure():
    state = play(*STAIRCASE[:4])
    xs, ys, zs = zip(*state.colour_at)
    cells = itertools.product(range(min(xs) - 2, max(xs) + 3), range(min(ys) - 2, max(ys) + 3), range(0, max(zs) + 3))
    accepted = set()
    for cell in cells:
        for step in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
            other = tuple(c + d for c, d in zip(cell, step))
            for white, black in ((cell, other), (other, cell)):
                move = Place(piece(white, black))
                try:
                    RULES.apply(state, move)
                except IllegalMove:
                    continue
                accepted.add(move)
    assert set(RULES.legal_moves(state)) == accepted


def test_a_cube_half_a_cube_off_the_grid_is_named_as_such():
    """What a camera reads of a piece set down half a cube from the grid (a slip to call)."""
    rules = NankuRules()
    with pytest.raises(StateError, match=r"cube at \(1.5, 0, 0\) is off the grid by half a cube"):
        rules.state_from_json({"game": "nanku", "pieces": [[[0, 0, 0, "white"], [1, 0, 0, "black"]],
                                                           [[1.5, 0, 0, "white"], [2.5, 0, 0, "black"]]]})
    with pytest.raises(StateError, match="must be an integer"):
        rules.state_from_json({"game": "nanku", "pieces": [[[0.25, 0, 0, "white"], [1, 0, 0, "black"]]]})


def test_a_structure_turned_or_shifted_has_the_same_canonical_cubes():
    rules = NankuRules()
    placed = rules.state_from_json({"game": "nanku", "pieces": [[[0, 0, 0, "white"], [1, 0, 0, "black"]],
                                                               [[1, 1, 0, "white"], [1, 1, 1, "black"]]]})
    turned = rules.state_from_json({"game": "nanku", "pieces": [[[5, 2, 0, "white"], [5, 3, 0, "black"]],
                                                               [[4, 3, 0, "white"], [4, 3, 1, "black"]]]})
    mirrored = rules.state_from_json({"game": "nanku", "pieces": [[[0, 0, 0, "white"], [1, 0, 0, "black"]],
                                                                 [[1, -1, 0, "white"], [1, -1, 1, "black"]]]})
    assert canonical_cubes(placed) == canonical_cubes(turned)
    assert canonical_cubes(placed) != canonical_cubes(mirrored)
