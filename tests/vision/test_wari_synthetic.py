"""The synthetic Wari table renderer used by tests, the simulated camera and the demo."""
from __future__ import annotations

import numpy as np
import pytest

from device.synthetic_wari import render_board
from engines.errors import ArbiterError


def test_frames_are_1280x960_bgr():
    image = render_board([4] * 12, [0, 0])
    assert image.shape == (960, 1280, 3) and image.dtype == np.uint8


def test_same_seed_same_photo_other_seed_other_photo():
    pits = [3, 0, 5, 1, 2, 8, 0, 4, 4, 1, 0, 2]
    first = render_board(pits, [2, 1], seed=4, style="glass", session=2)
    assert np.array_equal(first, render_board(pits, [2, 1], seed=4, style="glass", session=2))
    assert not np.array_equal(first, render_board(pits, [2, 1], seed=5, style="glass", session=2))


def test_a_session_keeps_the_table_still_between_photos():
    """Only seeds and noise change with the seed: an empty board differs by noise alone."""
    first = render_board([0] * 12, [0, 0], seed=1, session=3).astype(np.int16)
    second = render_board([0] * 12, [0, 0], seed=2, session=3).astype(np.int16)
    assert np.median(np.abs(first - second)) < 6


def test_more_seeds_cover_more_of_the_board():
    empty = render_board([0] * 12, [0, 0], seed=1).astype(np.int16)
    few = render_board([1] * 12, [0, 0], seed=1).astype(np.int16)
    many = render_board([9] * 12, [0, 0], seed=1).astype(np.int16)
    changed = [np.count_nonzero(np.abs(other - empty).max(axis=2) > 40) for other in (few, many)]
    assert 0 < changed[0] < changed[1]


@pytest.mark.parametrize(
    "pits, stores, style",
    [([4] * 11, [0, 0], "nicker"), ([4] * 12, [0], "nicker"), ([-1] + [4] * 11, [0, 0], "nicker"),
     (["x"] * 12, [0, 0], "nicker"), ([4] * 12, [0, 0], "marbles")],
    ids=["eleven-pits", "one-store", "negative", "not-numbers", "unknown-style"],
)
def test_bad_arguments_are_errors(pits, stores, style):
    with pytest.raises(ArbiterError):
        render_board(pits, stores, style=style)
