from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.errors import StateError
from engines.nanku import FACE_STEPS, SUPPLY, Cube, NankuRules, Piece, Place

RULES = NankuRules()


def shifted(piece, dx, dy):
    return Piece(*(cube._replace(x=cube.x + dx, y=cube.y + dy) for cube in piece.cubes))


def turned(state, quarters, dx, dy):
    """The state's JSON seen after turning the table by quarter turns and sliding it by (dx, dy)."""
    pieces = []
    for piece in state.to_json()["pieces"]:
        cubes = []
        for x, y, z, colour in piece:
            for _ in range(quarters):
                x, y = -y, x
            cubes.append([x + dx, y + dy, z, colour])
        pieces.append(cubes)
    return {**state.to_json(), "pieces": pieces}


def assert_physically_sound(state):
    cells = state.colour_at
    assert len(state.pieces) <= SUPPLY
    assert len(cells) == 2 * len(state.pieces), "two cubes share a cell"
    for x, y, z in cells:
        assert z >= 0
        assert z == 0 or (x, y, z - 1) in cells, f"({x},{y},{z}) overhangs"
    if cells:
        start = next(iter(cells))
        reached, frontier = {start}, [start]
        while frontier:
            x, y, z = frontier.pop()
            for dx, dy, dz in FACE_STEPS:
                neighbour = (x + dx, y + dy, z + dz)
                if neighbour in cells and neighbour not in reached:
                    reached.add(neighbour)
                    frontier.append(neighbour)
        assert reached == set(cells), "the structure is not one face-connected block"
    assert state.to_move == ("white", "black")[len(state.pieces) % 2]


@settings(max_examples=10, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), dx=st.integers(-50, 50), dy=st.integers(-50, 50))
def test_random_legal_play_keeps_every_invariant_and_explains_each_move(data, dx, dy):
    state = RULES.start()
    while not RULES.is_over(state):
        moves = RULES.legal_moves(state)
        assert moves and len(set(moves)) == len(moves)
        move = data.draw(st.sampled_from(moves))
        if not state.pieces:
            move = Place(shifted(move.piece, dx, dy))  # the first piece may go anywhere on the table
        after = RULES.apply(state, move)

        assert_physically_sound(after)
        assert RULES.state_from_json(after.to_json()) == after
        assert RULES.explain(state, after).moves == (move,)
        seen_turned = RULES.state_from_json(turned(after, data.draw(st.integers(1, 3)), dx, dy))
        explanation = RULES.explain(state, seen_turned)
        assert explanation.legal
        # A symmetric structure (or the empty table) may look unmoved: then it is read in place.
        in_place = all(seen_turned.colour_at.get(cell) == colour for cell, colour in state.colour_at.items())
        assert in_place or move in explanation.moves
        # Placing only covers faces, so any line it makes runs through the piece just placed.
        for _, cells in after.lines:
            assert set(cells) & set(move.piece.cells)
        state = after

    assert RULES.legal_moves(state) == ()
    outcome = RULES.outcome(state)
    assert outcome.over and sum(outcome.scores.values()) == 1
    assert (outcome.winner is None) == (not state.lines and len(state.pieces) == SUPPLY)


@settings(max_examples=10)
@given(data=st.data(), plies=st.integers(1, 12))
def test_every_listed_move_applies_and_is_explained_as_itself(data, plies):
    state = RULES.start()
    for _ in range(plies):
        if RULES.is_over(state):
            break
        state = RULES.apply(state, data.draw(st.sampled_from(RULES.legal_moves(state))))
    for move in RULES.legal_moves(state):
        assert RULES.explain(state, RULES.apply(state, move)).moves == (move,)


@settings(max_examples=10)
@given(data=st.data(), plies=st.integers(1, 10), dx=st.integers(-9, 9), dy=st.integers(-9, 9))
def test_legal_moves_follow_the_structure_across_the_table(data, plies, dx, dy):
    state = RULES.start()
    for _ in range(plies):
        if RULES.is_over(state):
            break
        state = RULES.apply(state, data.draw(st.sampled_from(RULES.legal_moves(state))))
    moved = RULES.state_from_json(
        {"game": "nanku", "pieces": [shifted(piece, dx, dy).to_json() for piece in state.pieces]}
    )
    assert set(RULES.legal_moves(moved)) == {Place(shifted(m.piece, dx, dy)) for m in RULES.legal_moves(state)}


@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(0, 3),
                          st.sampled_from(FACE_STEPS), st.booleans()), max_size=6))
def test_state_json_never_crashes_and_accepts_only_sound_structures(raw):
    pieces = []
    for x, y, z, (sx, sy, sz), white_first in raw:
        first, second = [x, y, z], [x + sx, y + sy, z + sz]
        white, black = (first, second) if white_first else (second, first)
        pieces.append([[*white, "white"], [*black, "black"]])
    try:
        state = RULES.state_from_json({"game": "nanku", "pieces": pieces})
    except StateError as exc:
        assert "\n" not in str(exc)
        return
    assert_physically_sound(state)
    assert {Cube(*c[:3], c[3]) for p in pieces for c in p} == {c for p in state.pieces for c in p.cubes}
