"""The judge's hot path in plain floats and one compiled call: the assignment, its matched gain
and a candidate's likelihood are the NumPy forms' results bit for bit (floats compared as
bytes), and a candidate asked again is not worked out again."""
from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.errors import ArbiterError
from vision.varanasi_assignment import assign, matched_gain
from vision.varanasi_observation import DiscReading, TowerReading, VaranasiObservation
from vision.varanasi_params import MISSING_DISC_LOG, PROBABILITY_FLOOR


def _numpy_assign(cost: np.ndarray) -> list[tuple[int, int]]:
    """The Hungarian method in NumPy's element-wise steps, as the plain-float form replaces it."""
    transposed = cost.shape[0] > cost.shape[1]
    matrix = cost.T if transposed else cost
    rows, cols = matrix.shape
    u, v = np.zeros(rows + 1), np.zeros(cols + 1)
    row_of_col, way = np.zeros(cols + 1, dtype=int), np.zeros(cols + 1, dtype=int)
    for row in range(1, rows + 1):
        row_of_col[0], col = row, 0
        min_slack, used = np.full(cols + 1, np.inf), np.zeros(cols + 1, dtype=bool)
        while row_of_col[col] != 0:
            used[col] = True
            current_row = row_of_col[col]
            slack = matrix[current_row - 1] - u[current_row] - v[1:]
            free = ~used[1:]
            better = free & (slack < min_slack[1:])
            min_slack[1:][better] = slack[better]
            way[1:][better] = col
            candidates = np.where(free, min_slack[1:], np.inf)
            next_col = int(np.argmin(candidates)) + 1
            delta = candidates[next_col - 1]
            u[row_of_col[used]] += delta
            v[used] -= delta
            min_slack[1:][free] -= delta
            col = next_col
        while col:
            row_of_col[col] = row_of_col[way[col]]
            col = way[col]
    pairs = [(int(row_of_col[c]) - 1, c - 1) for c in range(1, cols + 1) if row_of_col[c]]
    return sorted((c, r) for r, c in pairs) if transposed else sorted(pairs)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32 - 1), st.booleans())
def test_the_assignment_is_numpys_even_with_ties(rows, cols, seed, ties):
    rng = np.random.default_rng(seed)
    cost = rng.integers(-2, 3, (rows, cols)).astype(float) if ties else rng.normal(size=(rows, cols))
    assert assign(cost) == _numpy_assign(cost)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 12), st.integers(0, 12), st.integers(0, 2**32 - 1), st.booleans())
def test_the_compiled_matching_sums_numpys_pairs_even_with_ties(seen, stacks, seed, ties):
    rng = np.random.default_rng(seed)
    gain = rng.integers(-2, 3, (seen, stacks)).astype(float) if ties else rng.normal(size=(seen, stacks))
    expected = 0.0
    if seen and stacks:
        for i, j in _numpy_assign(-gain):
            expected += max(0.0, gain[i, j])
    assert _bits(matched_gain(gain.T.tolist(), seen)) == _bits(float(expected))


def test_the_compiled_matching_refuses_ragged_columns():
    with pytest.raises(ValueError):
        matched_gain([[1.0, 2.0], [1.0]], 2)
    with pytest.raises(TypeError):
        matched_gain([[1.0, "2"]], 2)


def _numpy_log_likelihood(observation: VaranasiObservation, stacks: list[dict[int, str]]) -> float:
    """A candidate's score as NumPy arrays and `sum` give it."""
    seen = [t for t in observation.towers if t.discs]
    empty = np.array([t.log_likelihood({}) for t in seen])
    missing = np.array([MISSING_DISC_LOG * len(stack) for stack in stacks])
    total = float(empty.sum() + missing.sum())
    if seen and stacks:
        gain = np.array([[t.log_likelihood(s) - empty[i] - missing[j] for j, s in enumerate(stacks)]
                         for i, t in enumerate(seen)])
        total += sum(max(0.0, gain[i, j]) for i, j in _numpy_assign(-gain))
    return total


def _slot(size, presence, colours):
    best = max(colours, key=colours.get)
    return DiscReading(size, (10.0 * size, 5.0), 20.0 + size, presence,
                       tuple(sorted(colours.items(), key=lambda item: -item[1])), best)


def _bits(value: float) -> bytes:
    return struct.pack("<d", value)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_candidates_score_is_the_numpy_one_and_kept(seed):
    rng = np.random.default_rng(seed)
    names = ["red", "blue", "green", "white"]
    towers = []
    for _ in range(int(rng.integers(0, 9))):
        bottom = int(rng.integers(1, 5))
        slots = []
        for size in range(bottom, 0, -1):
            weights = rng.dirichlet(np.ones(len(names)))
            slots.append(_slot(size, float(rng.uniform(0, 1)), dict(zip(names, map(float, weights)))))
        towers.append(TowerReading(tuple(slots)))
    observation = VaranasiObservation(tuple(towers), 0.9)
    for _ in range(5):
        stacks = []
        for _ in range(int(rng.integers(0, 9))):
            sizes = sorted(rng.choice(4, int(rng.integers(1, 5)), replace=False) + 1, reverse=True)
            stacks.append([f"{size}{names[int(rng.integers(len(names)))]}" for size in sizes])
        state = {"game": "varanasi", "stacks": stacks}
        parsed = [{int(code[0]): code[1:] for code in stack} for stack in stacks]
        score = observation.log_likelihood(state)
        assert _bits(score) == _bits(_numpy_log_likelihood(observation, parsed))
        assert math.isfinite(score) and observation.log_likelihood(state) is score


def test_slot_logs_are_the_plain_sums():
    slot = _slot(2, 0.7, {"red": 0.6, "blue": 0.4})
    tower = TowerReading((_slot(3, 0.2, {"red": 1.0}), slot))
    presence = min(max(0.7, PROBABILITY_FLOOR), 1 - PROBABILITY_FLOOR)
    expected = math.log(1 - 0.2) + (math.log(presence) + math.log(slot.colour_probability("green")))
    assert _bits(tower.log_likelihood({2: "green"})) == _bits(expected)


def test_a_stack_met_again_is_read_as_before_and_bad_ones_are_refused():
    observation = VaranasiObservation((TowerReading((_slot(2, 0.9, {"red": 0.9, "blue": 0.1}),)),), 1.0)
    state = {"game": "varanasi", "stacks": [["2red"], ["1blue"]]}
    first = observation.log_likelihood(state)
    assert observation.log_likelihood({"game": "varanasi", "stacks": [["2red"], ["1blue"]]}) == first
    for bad in ([[["2red"]]], [[2]], [["red"]], [{}]):
        with pytest.raises(ArbiterError):
            observation.log_likelihood({"game": "varanasi", "stacks": bad})
