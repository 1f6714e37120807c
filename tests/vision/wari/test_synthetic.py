"""The synthetic Wari table renderer used by tests, the simulated camera and the demo."""
from __future__ import annotations

import numpy as np
import pytest

from device.synthetic_wari import PIT_RADIUS, STYLES, render_board, seed_places, seed_shape
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


@pytest.mark.parametrize("style", STYLES)
def test_piled_seeds_rest_in_hollows_without_passing_through_each_other(style):
    # A seed sown onto a full floor rests in a hollow of the layer below: seeds of one layer never
    # overlap, and no tower grows beside bare floor (which would hide most of a pile).
    _, _, spacing = seed_shape(style)
    for photo in range(5):
        places = np.array(seed_places(np.zeros(2), (PIT_RADIUS, PIT_RADIUS), 30, style, np.random.default_rng(photo)))
        layers = places[:, 2].astype(int)
        assert layers.max() >= 1  # 30 seeds pile
        for layer in range(layers.max() + 1):
            seeds = places[layers == layer, :2]
            gaps = np.linalg.norm(seeds[:, None] - seeds[None], axis=2) + np.eye(len(seeds)) * 1e9
            assert gaps.min() > spacing - 1e-6
            if layer > 0:  # each rests on two seeds of the layer below
                below = places[layers == layer - 1, :2]
                touching = np.linalg.norm(seeds[:, None] - below[None], axis=2) <= spacing
                assert (touching.sum(axis=1) >= min(2, len(below))).all()
        # The floor fills before a layer grows on it: the upper layers hold no more than the floor.
        assert np.bincount(layers)[1:].max() <= np.bincount(layers)[0] + 1
