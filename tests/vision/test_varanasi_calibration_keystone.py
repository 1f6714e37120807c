"""Varanasi calibration through a tilted camera: the keystone must not swap discs for other circles.

Under a strong keystone and a tinted lamp the far side's discs shrink towards the next size's
radius, and a ring of the board's drawing can fit a size better than a real disc does. Radii
alone then assign the wrong circles; each colour once per size tells the real discs apart.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())


@pytest.mark.parametrize("session, lamp", [(0, (1.15, 0.95, 0.75)), (1, (0.7, 0.95, 1.15))])
def test_every_disc_is_named_where_it_lies_under_a_keystone_and_a_tinted_lamp(session, lamp):
    # The benchmark's synthetic sessions with the camera tilted -10 degrees: radii alone gave a
    # 4red's slot to the 4orange and the 4orange's to a circle that is no disc.
    profile = calibrate(render_calibration(STANDARD, seed=100 + session, session=session, tilt_deg=-10,
                                           lamp=lamp), STANDARD)
    # render_calibration lays one colour per row, sizes left to right; a tilt about the
    # horizontal axis keeps that order.
    centres = {disc["code"]: disc["centre"] for disc in profile["discs"]}
    colours, sizes = list(STANDARD["colours"]), sorted(STANDARD["sizes"], key=int)
    rows = [[centres[f"{size}{colour}"] for size in sizes] for colour in colours]
    row_heights = [np.mean([y for _, y in row]) for row in rows]
    assert row_heights == sorted(row_heights)
    for row in rows:
        assert [x for x, _ in row] == sorted(x for x, _ in row)
    highest_of_each_row = [max(y for _, y in row) for row in rows]
    lowest_of_each_row = [min(y for _, y in row) for row in rows]
    assert all(high < low for high, low in zip(highest_of_each_row, lowest_of_each_row[1:]))
