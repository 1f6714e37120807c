"""Property tests: legal_moves + apply define the rules; explain, JSON and set play must agree."""
import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engines import load_rules
from engines.varanasi import Take, parse_disc, random_setup

COLOURS = ("red", "blue", "green", "yellow", "black", "white")
RULES = st.sampled_from([
    {"game": "varanasi"},
    {"game": "varanasi", "relocation": "wiki"},
    {"game": "varanasi", "players": 3, "weights": {"1": 3, "4": 0}},
    {"game": "varanasi", "doubles": True, "credit": "team"},
    {"game": "varanasi", "misere": True},
]).map(load_rules)


@st.composite
def positions(draw, engine):
    """A random valid set-up with 1-24 discs of 1-6 colours, as players might build it."""
    colours = draw(st.lists(st.sampled_from(COLOURS), min_size=1, max_size=6, unique=True))
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4, unique=True))
    discs = draw(st.integers(1, len(colours) * len(sizes)))
    seat = draw(st.integers(0, engine.players - 1))
    return random_setup(draw(st.randoms(use_true_random=False)), colours, sizes, discs, seat)


@st.composite
def games(draw):
    engine = draw(RULES)
    return engine, draw(positions(engine))


def discs_of(state):
    return Counter(d for tower in state.stacks for d in tower)


def successors(engine, state):
    """Canonical towers -> the legal moves that reach them."""
    reached = {}
    for move in engine.legal_moves(state):
        reached.setdefault(engine.apply(state, move).towers, []).append(move)
    return reached


@settings(max_examples=60)
@given(games())
def test_positions_are_valid_and_survive_json_in_any_stack_order(game):
    engine, state = game
    obj = json.loads(json.dumps(state.to_json()))
    assert engine.state_from_json(obj) == state
    obj["stacks"].reverse()
    flipped = engine.state_from_json(obj)
    assert flipped == state and hash(flipped) == hash(state)


@settings(max_examples=60)
@given(games())
def test_every_legal_move_conserves_discs_and_is_explained_back_as_itself(game):
    engine, state = game
    moves = engine.legal_moves(state)
    assert moves, "a position with discs always offers a take"
    for move in moves:
        after = engine.apply(state, move)
        assert after.to_move == (state.to_move + 1) % engine.players
        taken = discs_of(state) - discs_of(after)
        assert discs_of(after) + taken == discs_of(state)
        if isinstance(move, Take):
            assert taken == Counter(t[-1] for t in state.stacks if t[-1].colour == move.colour)
        else:
            assert not taken
        assert engine.move_from_json(json.loads(json.dumps(move.to_json()))) == move
        verdict = engine.explain(state, after)
        assert verdict.legal and verdict.moves == (move,), engine.notation(move)
        assert engine.explain(state, after.to_json()).moves == (move,)


@settings(max_examples=40)
@given(games(), st.randoms(use_true_random=False))
def test_random_play_always_finishes_and_the_last_taker_scores(game, rng):
    engine, state = game
    total = sum(discs_of(state).values())
    # Each relocation lifts every moved disc, so a set is bounded by the discs' possible rises.
    for _ in range(total * total * 4 + total):
        if engine.is_over(state):
            break
        mover, before = state.to_move, state
        state = engine.apply(state, rng.choice(engine.legal_moves(state)))
    assert engine.is_over(state)
    last = state.last_take
    assert last.seat == mover and Counter(last.discs) == discs_of(before)
    outcome = engine.outcome(state)
    assert outcome.winner == (1 - mover if engine.misere else mover)
    assert sum(outcome.scores.values()) == engine.set_score(last.discs)
    assert engine.outcome(engine.state_from_json(json.loads(json.dumps(state.to_json())))) == outcome


def perturbations(state):
    """Table changes players might make by mistake (or on purpose), as camera JSON."""
    stacks = [list(map(str, tower)) for tower in state.stacks]
    for source in range(len(stacks)):
        for level in range(len(stacks[source])):
            part = stacks[source][level:]
            rest = [t for i, t in enumerate(stacks) if i != source] + ([stacks[source][:level]] if level else [])
            yield rest + [part]  # set down as a new tower
            for dest in range(len(rest)):
                yield [t + part if i == dest else t for i, t in enumerate(rest)]  # any size, any height
        if len(stacks[source]) > 1:
            yield [t[:-2] + t[-1:] if i == source else t for i, t in enumerate(stacks)]  # a buried disc taken
    tops = [t[-1] for t in stacks]
    for drop in range(len(tops)):
        yield [t[:-1] if i == drop else t for i, t in enumerate(stacks)]  # one top taken alone


@settings(max_examples=40)
@given(games())
def test_explain_agrees_with_legal_moves_on_every_perturbation(game):
    engine, state = game
    reached = successors(engine, state)
    for stacks in perturbations(state):
        stacks = [t for t in stacks if t]
        reading = {"game": "varanasi", "stacks": stacks}
        verdict = engine.explain(state, reading)
        towers = tuple(sorted(tuple(parse_disc(code) for code in tower) for tower in stacks))
        assert verdict.legal == (towers in reached), (stacks, verdict.reason)
        if verdict.legal:
            assert list(verdict.moves) == reached[towers]
        else:
            assert verdict.reason and "\n" not in verdict.reason


@settings(max_examples=40)
@given(games(), st.randoms(use_true_random=False))
def test_two_moves_in_a_row_are_legal_only_when_one_move_does_the_same(game, rng):
    engine, state = game
    middle = engine.apply(state, rng.choice(engine.legal_moves(state)))
    if engine.is_over(middle):
        return
    after = engine.apply(middle, rng.choice(engine.legal_moves(middle)))
    reached = successors(engine, state)
    verdict = engine.explain(state, after)
    assert verdict.legal == (after.towers in reached)
    if verdict.legal:
        assert list(verdict.moves) == reached[after.towers]
