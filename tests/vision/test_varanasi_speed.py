"""Varanasi recognition's speed-ups keep every value: each faster form against the plain one."""
from __future__ import annotations

import cv2
import numpy as np

from vision.varanasi_geometry import ScaleField, centre_vote_peaks, edge_field, radius_maps, to_full, to_work


def test_radius_maps_are_stored_pixel_by_pixel_with_the_same_values():
    # Votes gather every size's radius at a strong pixel in one memory row (see `_radius_maps`).
    scale = ScaleField(3.1, 2e-4, -1e-4)
    radii_mm = (12.5, 17.5, 22.5, 27.5)
    maps = radius_maps((48, 64), scale, radii_mm)
    assert maps.shape == (4, 48, 64)
    assert maps.transpose(1, 2, 0).flags.c_contiguous
    ys, xs = np.mgrid[0:48, 0:64].astype(np.float32)
    px_per_mm = scale.at(to_full(xs), to_full(ys))
    expected = np.array([to_work(px_per_mm * r) for r in radii_mm], dtype=np.float32)
    assert np.array_equal(maps, expected)


def test_vote_peaks_are_python_numbers():
    # The recogniser compares peaks one by one, which costs several times more on numpy scalars.
    image = np.full((240, 320, 3), 180, dtype=np.uint8)
    cv2.circle(image, (160, 120), 40, (40, 40, 200), -1)
    edges = edge_field(image)
    peaks = centre_vote_peaks(edges, radius_maps(edges.shape, ScaleField(2.0), (40.0,)), 0.01)
    assert peaks
    for votes, x, y, radius in peaks:
        assert type(votes) is float and type(x) is int and type(y) is int and type(radius) is float
    best = max(peaks)
    assert abs(best[1] - 160) <= 1 and abs(best[2] - 120) <= 1
