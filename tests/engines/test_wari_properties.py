"""Properties every variant keeps over random games drawn by hypothesis."""
from hypothesis import assume, given, settings, strategies as st

from engines import load_rules
from engines.wari import PITS, TOTAL_SEEDS, VARIANTS, WariState

RULES = [load_rules({"game": "wari", "variant": name}) for name in VARIANTS] + [
    load_rules({"game": "wari", "variant": "aware", "capture_side": "any"}),
    load_rules({"game": "wari", "variant": "four-capture", "remainder": "sides"}),
]
# A random game is at most a few hundred plies; repetition ends every game long before 2000.
MAX_PLIES = 2000


def random_game(rules, draw):
    """Every state of one game, the start first, choosing moves with hypothesis."""
    states = [rules.start()]
    while not rules.is_over(states[-1]):
        assert len(states) < MAX_PLIES, "game did not end"
        moves = rules.legal_moves(states[-1])
        states.append(rules.apply(states[-1], moves[draw(st.integers(0, len(moves) - 1))]))
    return states


@settings(max_examples=25)
@given(rules=st.sampled_from(RULES), data=st.data())
def test_random_games_end_conserve_seeds_and_round_trip(rules, data):
    states = random_game(rules, data.draw)
    for state in states:
        assert sum(state.pits) + sum(state.stores) == TOTAL_SEEDS
        assert min(state.pits) >= 0
        assert rules.state_from_json(state.to_json()) == state
    outcome = rules.outcome(states[-1])
    assert outcome.over and sum(outcome.scores.values()) <= TOTAL_SEEDS
    assert all(not rules.outcome(s).over for s in states[:-1])


@settings(max_examples=25)
@given(rules=st.sampled_from(RULES), data=st.data())
def test_every_legal_move_is_explained_back_as_itself(rules, data):
    states = random_game(rules, data.draw)
    for before in states[:-1]:
        for move in rules.legal_moves(before):
            after = rules.apply(before, move)
            explanation = rules.explain(before, after)
            assert explanation.legal and move in explanation.moves


@settings(max_examples=25)
@given(rules=st.sampled_from(RULES), data=st.data())
def test_a_perturbed_board_is_never_explained(rules, data):
    states = random_game(rules, data.draw)
    before = states[data.draw(st.integers(0, len(states) - 2))]
    successors = {(a.pits, a.stores) for a in (rules.apply(before, m) for m in rules.legal_moves(before))}
    after = rules.apply(before, rules.legal_moves(before)[0])
    assume(any(after.pits))
    source = data.draw(st.sampled_from([i for i in range(PITS) if after.pits[i]]))
    target = data.draw(st.integers(0, PITS - 1).filter(lambda i: i != source))
    pits = list(after.pits)
    pits[source] -= 1
    pits[target] += 1
    perturbed = WariState(tuple(pits), after.stores, after.mover)
    explanation = rules.explain(before, perturbed)
    if (perturbed.pits, perturbed.stores) not in successors:
        assert not explanation.legal and explanation.reason
