"""A disc found by the dark-line test is judged again where its line was found: if the ring just
inside its rim there steps in colour from the disc below, it is judged by its rim, not as a disc
on one of its own colour (see `_judged_where_found`)."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from calibration.varanasi import calibrate
from device.synthetic_varanasi import layout_table, render_calibration, render_table
from vision.varanasi import (
    EDGE_GAP_MM,
    MAX_STEP_OFFSET_MM,
    SEED_REACH_MM,
    _EdgeContext,
    _Frame,
    _growth,
    _judged_where_found,
    _labels,
)
from vision.varanasi_geometry import edge_field, full_resolution_threshold, reduce

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
CENTRE = (640, 480)
HALF = 100  # the crop around the tower, full pixels (even, so that it maps onto the reduced frame)


def _tower(codes: list[str]):
    """(edge-test context of a crop around a rendered tower `codes`, the frame, the crop's circles
    (centre, radius) of its discs, bottom first)."""
    profile = calibrate(render_calibration(STANDARD, seed=11), STANDARD)
    frame = _Frame.from_profile(profile)
    image = render_table([codes], STANDARD, seed=71, centres_px=[CENTRE], offsets_mm=[[(0.0, 0.0)] * (len(codes) - 1)])
    x0, y0 = CENTRE[0] - HALF, CENTRE[1] - HALF
    crop = image[y0:y0 + 2 * HALF, x0:x0 + 2 * HALF]
    edges = edge_field(crop, full_resolution_threshold(image))
    work = edge_field(reduce(image)).lab[y0 // 2:(y0 + 2 * HALF) // 2, x0 // 2:(x0 + 2 * HALF) // 2]
    labels = cv2.resize(_labels(work, frame), (2 * HALF, 2 * HALF), interpolation=cv2.INTER_NEAREST)
    px_per_mm = float(frame.scale.at(*CENTRE))
    radii = {size: r * px_per_mm for size, r in zip(frame.pieces.sizes, frame.pieces.radii_mm)}
    context = _EdgeContext(edges, labels, frame, np.array([HALF, HALF], float), radii, SEED_REACH_MM * px_per_mm,
                           MAX_STEP_OFFSET_MM * px_per_mm, EDGE_GAP_MM * px_per_mm, ())
    discs = layout_table([codes], STANDARD, 71, [CENTRE], offsets_mm=[[(0.0, 0.0)] * (len(codes) - 1)])[0]
    circles = [(np.array(d.centre) - (x0, y0), radii[d.size] * _growth(d.level, frame.pieces)) for d in discs]
    return context, frame, circles


def test_a_dark_line_test_whose_ring_steps_in_colour_is_judged_by_its_rim():
    # Soft S1 ill01b's 2black on its 3blue was judged by a dark line: the first rim test fitted it a
    # few pixels off, where half its ring lay on the 3blue. Where its line is found the ring is
    # the upper disc's colour, and its rim shows all round.
    context, frame, ((lower, lower_radius), (upper, radius)) = _tower(["4purple", "3red"])
    purple, red = frame.colours.names.index("purple"), frame.colours.names.index("red")
    known = [(lower[0], lower[1], lower_radius)]
    centre, coverage, ring, colour_below = _judged_where_found(context, known, (upper, 0.3, purple, purple), radius)
    assert colour_below is None
    assert ring == red
    assert coverage > 0.9


def test_a_disc_on_its_own_colour_stays_a_dark_line_test():
    context, frame, ((lower, lower_radius), (upper, radius)) = _tower(["4purple", "3purple"])
    purple = frame.colours.names.index("purple")
    known = [(lower[0], lower[1], lower_radius)]
    test = (upper, 0.3, purple, purple)
    assert _judged_where_found(context, known, test, radius) is test
