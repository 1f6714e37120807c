"""Calibration's reading of a start photo's pits: the pit clusters, the counts the spotters show."""
from __future__ import annotations

import cv2
import numpy as np

from calibration.wari import _ALIKE_PITS, _best_grid, _groupings, _other_count_most_shown


def test_pits_whose_seeds_touch_in_one_blob_are_found_beside_specks_of_the_board_edge():
    mask = np.zeros((240, 640), np.uint8)
    pits = [(170 + 60 * column, 90 + 70 * row) for row in (0, 1) for column in range(6)]
    for x, y in pits:
        cv2.circle(mask, (x, y), 14, 1, -1)
    for x, y in ((10, 10), (630, 12), (15, 225)):  # far from the pits and from each other
        mask[y : y + 3, x : x + 3] = 1
    centres = _best_grid(*_groupings(mask), _ALIKE_PITS)
    assert centres is not None
    found = sorted(map(tuple, np.round(centres).astype(int)))
    assert found == sorted(pits)


def test_another_count_counts_only_where_every_pit_shows_a_seed():
    heaped = np.array([
        [2, 2, 2, 2, 4, 3, 4, 2, 3, 2, 1, 1],  # a shape threshold at which heaps of nuts show 1-2 peaks
        [2, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1],  # higher: a lone nut vanishes, every heap shows 1
    ])
    assert _other_count_most_shown([heaped]) == (2, 6)
    five_each = np.array([[5] * 11 + [4], [5] * 10 + [3, 4]])
    assert _other_count_most_shown([heaped, five_each]) == (5, 11)
