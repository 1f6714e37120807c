"""Minimum-cost assignment (Hungarian method) for matching discs, colours and towers.

Kept here rather than importing SciPy: Arbiter's run-time dependencies are NumPy, OpenCV and
Flask, and the matrices involved are tiny (at most a few dozen rows).
"""
from __future__ import annotations

import numpy as np


def assign(cost: np.ndarray) -> list[tuple[int, int]]:
    """Pairs (row, column) of least total cost; every row of the smaller side gets a partner."""
    cost = np.asarray(cost, dtype=float)
    if cost.size == 0:
        return []
    transposed = cost.shape[0] > cost.shape[1]
    matrix = cost.T if transposed else cost
    rows, cols = matrix.shape
    # Shortest augmenting paths with potentials (the O(rows^2 * cols) form of Kuhn-Munkres);
    # index 0 is a virtual column/row so the arrays below are 1-based.
    u = np.zeros(rows + 1)
    v = np.zeros(cols + 1)
    row_of_col = np.zeros(cols + 1, dtype=int)
    way = np.zeros(cols + 1, dtype=int)
    for row in range(1, rows + 1):
        row_of_col[0] = row
        col = 0
        min_slack = np.full(cols + 1, np.inf)
        used = np.zeros(cols + 1, dtype=bool)
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
            previous = way[col]
            row_of_col[col] = row_of_col[previous]
            col = previous
    pairs = [(int(row_of_col[c]) - 1, c - 1) for c in range(1, cols + 1) if row_of_col[c]]
    if transposed:
        pairs = [(c, r) for r, c in pairs]
    return sorted(pairs)
