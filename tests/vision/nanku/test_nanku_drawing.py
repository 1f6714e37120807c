"""Nanku's drawing and pixel costs in their fast forms give what the plain forms give, pixel for pixel.

The fast forms: a structure's faces projected and painted as arrays (`project_cubes`,
`paint_classes`), and a drawn window's costs gathered by a compiled pass (vision/nanku_costs.c,
`Costs.cost`). The plain forms: each face painted by itself, far cubes first, and numpy's gather.
"""
from __future__ import annotations

import math

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.nanku_camera import CLASSES, Camera, Pose, paint_classes, project_cubes
from vision.nanku_pixels import Appearance, Costs, class_costs, colour_cost, colour_cost_plain

COLOURS = ("white", "black")


def painted_face_by_face(faces, cubes, shape, offset) -> np.ndarray:
    """Each cube's faces filled one call a face, farther cubes first."""
    image = np.zeros(shape, np.uint8)
    polygons = faces.polygons
    for cube in sorted(cubes, key=lambda cube: -faces.distance[cube]):
        for polygon, cls, _ in polygons[cube]:
            points = np.round((polygon - np.array(offset, dtype=float)) * 8.0).astype(np.int32)
            cv2.fillConvexPoly(image, points, cls, lineType=cv2.LINE_8, shift=3)
    return image


structures = st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(0, 3), st.sampled_from(COLOURS),
                                st.booleans()), min_size=1, max_size=20, unique_by=lambda c: c[:3])


@settings(max_examples=60, deadline=None)
@given(structures, st.floats(-3, 3), st.floats(-3, 3), st.floats(0, 2 * math.pi), st.floats(-0.15, 0.15),
       st.floats(-0.15, 0.15), st.floats(8, 20), st.integers(0, 40), st.integers(0, 40))
def test_a_structure_is_painted_as_face_by_face(cells, x, y, turn, pitch, roll, height, left, top):
    # Some cubes half a cell off the grid, as off-grid readings place them.
    cubes = [(cx + (0.5 if off else 0.0), float(cy), float(cz), colour) for cx, cy, cz, colour, off in cells]
    camera = Camera(400.0, 320.0, 240.0, height, pitch, roll)
    faces = project_cubes(cubes, camera, Pose(x, y, turn))
    assert np.array_equal(paint_classes(faces, (480, 640), (left, top)),
                          painted_face_by_face(faces, cubes, (480, 640), (left, top)))
    # A cube with another on it shows no top.
    cells_taken = {cube[:3] for cube in cubes}
    for cube, polygons in faces.polygons.items():
        if (cube[0], cube[1], cube[2] + 1.0) in cells_taken:
            assert all(normal[2] < 0.5 for _, _, normal in polygons)

@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 30), st.integers(1, 30), st.integers(0, 40), st.integers(0, 30))
def test_a_window_costs_what_numpy_gathers(seed, w, h, left, top):
    rng = np.random.default_rng(seed)
    costs = Costs((rng.random((CLASSES, 60, 70)) * 30).astype(np.float32), 10.0)
    classes = rng.integers(0, CLASSES, (h, w)).astype(np.uint8)
    assert costs.cost(classes, (left, top)) == costs.cost_plain(classes, (left, top))
    # A window cut from a larger drawing (not contiguous) costs the same.
    drawing = rng.integers(0, CLASSES, (60, 70)).astype(np.uint8)
    window = drawing[top:top + h, left:left + w]
    assert costs.cost(window, (left, top)) == costs.cost_plain(window, (left, top))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(0, 70), st.integers(0, 70), st.integers(0, 60), st.integers(0, 60))
def test_a_window_of_paid_pixels_sums_as_numpy_sums_it_cut_out(seed, x0, x1, y0, y1):
    rng = np.random.default_rng(seed)
    costs = Costs((rng.random((CLASSES, 60, 70)) * 30).astype(np.float32), 10.0)
    paid = costs.paid(rng.integers(0, CLASSES, (60, 70)).astype(np.uint8))
    left, right, top, bottom = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
    want = float(paid[top:bottom, left:right].copy().sum()) / costs.per_observation
    assert costs.total(paid, (left, top, right, bottom)) == want


def test_maps_of_unchanged_classes_are_the_ones_computed_afresh():
    rng = np.random.default_rng(3)
    pixels = (rng.random((40, 50, 3)) * 255).astype(np.float32)
    colours = {cls: np.array(rng.random(3) * 255, np.float32) for cls in range(CLASSES)}
    calibrated = Appearance(colours, 12.0)
    seen = Appearance({**colours, 1: np.array([200.0, 190.0, 180.0], np.float32)}, 12.0, {1: (0.7, 1.3)})
    maps = class_costs(pixels, calibrated)
    assert np.array_equal(class_costs(pixels, seen, (maps, calibrated)), class_costs(pixels, seen))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 30.0), st.sampled_from([255.0, 400.0]))
def test_a_class_costs_each_pixel_what_numpy_steps_give(seed, a, b, spread, brightest):
    rng = np.random.default_rng(seed)
    pixels = (rng.random((30, 40, 3)) * brightest).astype(np.float32)
    colour = (rng.random(3) * 255).astype(np.float32)
    low, high = min(a, b) * 1.5, max(a, b) * 1.5
    fast, plain = colour_cost(pixels, colour, low, high, spread), colour_cost_plain(pixels, colour, low, high, spread)
    assert fast.dtype == plain.dtype and np.array_equal(fast, plain)
