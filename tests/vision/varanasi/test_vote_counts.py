"""The compiled vote counts (vision/varanasi_votes.c) are the plain form's: numpy's float32 steps,
rounded half to even, counted by OpenCV's histogram, then smoothed."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.varanasi_geometry import EdgeField, ScaleField, edge_field
from vision.varanasi_params import VOTE_BLUR_SIZE
from vision.varanasi_votes import radius_maps, smoothed_vote_planes


def plain_vote_planes(edges: EdgeField, radii: np.ndarray):
    height, width = edges.shape
    flat = np.flatnonzero(edges.magnitude > np.float32(edges.threshold))
    rows = flat // width
    xs, ys = (flat - rows * width).astype(np.float32), rows.astype(np.float32)
    norm = edges.magnitude.take(flat)
    ux, uy = edges.gx.take(flat) / norm, edges.gy.take(flat) / norm
    for radius_map in radii:
        r = radius_map.reshape(-1).take(flat)
        cx = np.rint(np.concatenate([xs + r * ux, xs - r * ux]))[:, None]
        cy = np.rint(np.concatenate([ys + r * uy, ys - r * uy]))[:, None]
        votes = cv2.calcHist([cy, cx], [0, 1], None, [height, width], [0, height, 0, width])
        yield cv2.GaussianBlur(votes, (VOTE_BLUR_SIZE, VOTE_BLUR_SIZE), 1.0)


@pytest.mark.parametrize("seed", range(6))
def test_vote_planes_are_the_plain_form_s(seed):
    rng = np.random.default_rng(seed)
    image = np.full((90, 120, 3), 170, dtype=np.uint8)
    for _ in range(4):  # discs, some cut by the frame's edge: votes fall outside it
        centre = tuple(int(v) for v in rng.integers(-10, 130, 2))
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        cv2.circle(image, centre, int(rng.integers(8, 30)), colour, -1)
    image = cv2.add(image, rng.integers(0, 12, image.shape, dtype=np.uint8))  # texture: scattered edges
    edges = edge_field(image)
    radii = radius_maps(edges.shape, ScaleField(2.0 + 0.1 * seed, 1e-3, -2e-3), (6.25, 9.5, 12.0, 15.75))
    for ours, theirs in zip(smoothed_vote_planes(edges, radii), plain_vote_planes(edges, radii), strict=True):
        assert ours.tobytes() == theirs.tobytes()


def test_steps_half_way_between_pixels_round_to_even():
    # One strong pixel per row, gradient along x: steps of 1.5 and 2.5 px land half way.
    gx = np.zeros((4, 8), dtype=np.float32)
    gx[:, 3] = 40.0
    edges = EdgeField(gx, np.zeros_like(gx), np.abs(gx), 20.0, np.zeros((4, 8, 3), dtype=np.uint8))
    radii = np.stack([np.full((4, 8), 1.5, np.float32), np.full((4, 8), 2.5, np.float32)])
    for ours, theirs in zip(smoothed_vote_planes(edges, radii), plain_vote_planes(edges, radii), strict=True):
        assert ours.tobytes() == theirs.tobytes()
