"""The compiled rings (vision/varanasi_rings.c) are the plain numpy form's: the same ring of
pixels (float64 circle tests), the same choice of coloured pixels, numpy's medians, OpenCV's
counts of labels."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.varanasi_disc_colours import ring_medians
from vision.varanasi_params import COLOURED_SHARE, MIN_RING_PIXELS
from vision.varanasi_pixels import ring_counts


def plain_ring_medians(lab_bytes, labels, other, centre, inside, hidden_by=None):
    """The plain form: boolean masks over the circle's window, numpy's median of the pixels."""
    cx, cy = centre
    y0, y1 = max(0, math.floor(cy - inside)), min(labels.shape[0], math.ceil(cy + inside) + 1)
    x0, x1 = max(0, math.floor(cx - inside)), min(labels.shape[1], math.ceil(cx + inside) + 1)
    yy, xx = np.arange(y0, max(y0, y1))[:, None], np.arange(x0, max(x0, x1))[None, :]
    window = (slice(y0, max(y0, y1)), slice(x0, max(x0, x1)))
    region = (xx - cx) ** 2 + (yy - cy) ** 2 <= inside ** 2
    if hidden_by is not None:
        (ax, ay), away = hidden_by
        region &= (xx - ax) ** 2 + (yy - ay) ** 2 > away ** 2
    coloured = region & (labels[window] != other)
    shown = max(MIN_RING_PIXELS, COLOURED_SHARE * np.count_nonzero(region))
    ring = coloured if np.count_nonzero(coloured) >= shown else region
    if np.count_nonzero(ring) < MIN_RING_PIXELS:
        return None
    return np.median(lab_bytes[window][ring].astype(np.float32), axis=0)


@pytest.mark.parametrize("seed", range(40))
def test_ring_medians_are_numpy_s(seed):
    rng = np.random.default_rng(seed)
    height, width = rng.integers(20, 90, 2)
    # Few distinct values, so that middle pairs and ties are common.
    lab = (rng.integers(50, 56, (height, width, 3)) * rng.integers(1, 5)).astype(np.uint8)
    labels = rng.choice(np.array([0, 3, 7], dtype=np.uint8), (height, width), p=[0.5, 0.1, 0.4])
    other = 7 if seed % 4 else 3
    centre = tuple(rng.uniform(-5, max(height, width) + 5, 2))
    if seed % 5 == 0:
        centre = (float(round(centre[0])), float(round(centre[1])))  # whole pixels: circles through centres
    inside = float(rng.uniform(0.5, 40))
    hidden_by = None if seed % 3 == 0 else ((centre[0] + rng.uniform(-4, 4), centre[1] + rng.uniform(-4, 4)),
                                             float(rng.uniform(0, inside)))
    ours = ring_medians(lab, labels, other, centre, inside, hidden_by)
    theirs = plain_ring_medians(lab, labels, other, centre, inside, hidden_by)
    if theirs is None:
        assert ours is None
    else:
        assert ours.dtype == np.float32 and ours.tobytes() == theirs.tobytes()


def test_a_ring_the_disc_above_covers_is_hidden():
    lab = np.full((40, 40, 3), 120, dtype=np.uint8)
    labels = np.zeros((40, 40), dtype=np.uint8)
    assert ring_medians(lab, labels, 7, (20.0, 20.0), 10.0, ((20.0, 20.0), 10.5)) is None
    assert ring_medians(lab, labels, 7, (20.0, 20.0), 10.0, ((20.0, 20.0), 8.0)).tolist() == [120.0] * 3


def test_an_even_ring_s_median_is_the_mean_of_its_middle_two():
    # The four pixels next to the middle one of a 3x3 image (the middle one is under the disc above).
    lab = np.zeros((3, 3, 3), dtype=np.uint8)
    for (y, x), value in zip(((0, 1), (1, 0), (1, 2), (2, 1)), (10, 20, 10, 21)):
        lab[y, x] = (value, 2 * value, 255 - value)
    labels = np.zeros((3, 3), dtype=np.uint8)
    medians = ring_medians(lab, labels, 7, (1.0, 1.0), 1.0, ((1.0, 1.0), 0.5))
    assert medians.tolist() == [15.0, 30.0, 240.0]
    assert medians.tobytes() == plain_ring_medians(lab, labels, 7, (1.0, 1.0), 1.0, ((1.0, 1.0), 0.5)).tobytes()


def plain_ring_counts(labels, colour_count, centre, radius, inner, outer):
    """The plain form: a float64 mask over the circle's window, OpenCV's masked histogram."""
    cx, cy = centre
    limit = radius - inner
    y0, y1 = max(0, math.floor(cy - limit)), min(labels.shape[0], math.ceil(cy + limit) + 1)
    x0, x1 = max(0, math.floor(cx - limit)), min(labels.shape[1], math.ceil(cx + limit) + 1)
    y1, x1 = max(y0, y1), max(x0, x1)
    yy, xx = np.arange(y0, y1)[:, None], np.arange(x0, x1)[None, :]
    distance2 = (xx - cx) ** 2 + (yy - cy) ** 2
    ring = (distance2 <= (radius - inner) ** 2) & (distance2 >= (radius - outer) ** 2)
    window = np.ascontiguousarray(labels[y0:y1, x0:x1])
    return cv2.calcHist([window], [0], ring.view(np.uint8), [colour_count], [0, colour_count]).ravel()


@pytest.mark.parametrize("seed", range(30))
def test_ring_counts_are_opencv_s_counts_of_the_numpy_ring(seed):
    rng = np.random.default_rng(100 + seed)
    height, width = rng.integers(5, 70, 2)
    labels = rng.integers(0, 9, (height, width)).astype(np.uint8)
    centre = tuple(rng.uniform(-8, max(height, width) + 8, 2))
    if seed % 4 == 0:
        centre = (float(round(centre[0])), float(round(centre[1])))
    radius = float(rng.uniform(0.5, 35))
    inner, outer = (1.0, 4.0) if seed % 3 else tuple(sorted(rng.uniform(0, radius + 3, 2)))
    colour_count = int(rng.integers(1, 10))
    ours = ring_counts(labels, colour_count, centre, radius, inner, outer)
    theirs = plain_ring_counts(labels, colour_count, centre, radius, inner, outer)
    assert ours.dtype == np.float32 and ours.tobytes() == theirs.tobytes()
