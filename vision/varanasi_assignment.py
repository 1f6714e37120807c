"""Minimum-cost assignment (Hungarian method) for matching discs, colours and towers.

Kept here rather than importing SciPy: Arbiter's run-time dependencies are NumPy, OpenCV and
Flask, and the matrices involved are tiny (at most a few dozen rows). Plain Python floats: on
matrices this small each NumPy call would cost more than its arithmetic (the judge solves one
for every candidate position it weighs). The steps are NumPy's element-wise ones in the same
order, so the pairs and every potential come out the same to the last bit.
"""
from __future__ import annotations

import math

import numpy as np

try:
    from vision import _varanasi_assignment
except ImportError as exc:  # a source tree nobody installed
    raise ImportError("the Varanasi judge's assignment kernel (vision/varanasi_assignment.c) is not built: run "
                      "`pip install -e .`, which needs a C compiler and Python's headers") from exc

_INF = math.inf


def matched_gain(columns: list[list[float]], seen: int) -> float:
    """The gains (each counted above zero) of the pairs `assign_rows` picks on the negated gains,
    one column of `seen` floats per candidate stack (rows: the towers seen), summed in the order
    of the towers: `sum(max(0.0, columns[j][i]) for i, j in assign(-gains))`, compiled
    (vision/varanasi_assignment.c): the judge solves one for every candidate it weighs."""
    return _varanasi_assignment.matched_gain(columns, seen)


def assign(cost) -> list[tuple[int, int]]:
    """Pairs (row, column) of least total cost; every row of the smaller side gets a partner."""
    cost = np.asarray(cost, dtype=float)
    if cost.size == 0:
        return []
    transposed = cost.shape[0] > cost.shape[1]
    return assign_rows((cost.T if transposed else cost).tolist(), transposed)


def assign_rows(matrix: list[list[float]], transposed: bool = False) -> list[tuple[int, int]]:
    """`assign` of a matrix given as rows of floats, no more rows than columns (`transposed`:
    the pairs are given as (column, row))."""
    rows, cols = len(matrix), len(matrix[0])
    # Shortest augmenting paths with potentials (the O(rows^2 * cols) form of Kuhn-Munkres);
    # index 0 is a virtual column/row so the lists below are 1-based.
    u = [0.0] * (rows + 1)
    v = [0.0] * (cols + 1)
    row_of_col = [0] * (cols + 1)
    way = [0] * (cols + 1)
    for row in range(1, rows + 1):
        row_of_col[0] = row
        col = 0
        min_slack = [_INF] * (cols + 1)
        used, free = [0], list(range(1, cols + 1))  # columns, in increasing order
        while row_of_col[col] != 0:
            current_row = row_of_col[col]
            costs, shift = matrix[current_row - 1], u[current_row]
            delta, next_col = _INF, 0
            for c in free:
                slack = costs[c - 1] - shift - v[c]
                if slack < min_slack[c]:
                    min_slack[c] = slack
                    way[c] = col
                if min_slack[c] < delta:
                    delta, next_col = min_slack[c], c
            if next_col == 0:  # nothing below inf: NumPy's argmin picks the first column
                next_col = 1
            for c in used:
                u[row_of_col[c]] += delta
                v[c] -= delta
            for c in free:
                min_slack[c] -= delta
            col = next_col
            if col in free:
                used.append(col)
                free.remove(col)
        while col:
            previous = way[col]
            row_of_col[col] = row_of_col[previous]
            col = previous
    pairs = [(row_of_col[c] - 1, c - 1) for c in range(1, cols + 1) if row_of_col[c]]
    if transposed:
        pairs = [(c, r) for r, c in pairs]
    return sorted(pairs)
