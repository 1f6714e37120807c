"""Varanasi recognition: a colour-chain disc higher up is looked for around its own size's vote
peak (branch vunseen3).

Above the bottom disc the chain's reference is the face of the disc below, and a disc resting on
it may lie up to 4 mm off that face, farther than the half size step the chain searches. When the
footprint of a disc higher up is cut short (a 3purple nearly covered by the 2orange on it, its thin
crescent on one side labelled the red of the 4red below), its inscribed circle fits the next size
down, 9 px from where that disc lies, with its rim showing only in part; the edge tests then fit
the skipped 3 between the two and its ring, half the 4red's crescent, read red. Where the rims of
that size point, its centre-vote peak, the 2orange's rim shows better. Frames come from the
project's own renderer (device/synthetic_varanasi.py), drawn as the synthetic bench draws session
0 under the orange lamp, tilted 10 degrees, layout 20.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import _own_vote_peak, recognize

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
ORANGE_LAMP = (0.7, 0.95, 1.15)
LAYOUT_20 = [["1orange"], ["2blue", "1red"], ["2red"], ["3green", "2purple"], ["4red", "3purple", "2orange"]]


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


def test_a_disc_on_a_nearly_covered_one_is_fitted_at_its_own_vote_peak():
    profile = calibrate(render_calibration(STANDARD, seed=100, session=0, tilt_deg=10, lamp=ORANGE_LAMP), STANDARD)
    image = render_table(LAYOUT_20, STANDARD, seed=1020, session=0, tilt_deg=10, lamp=ORANGE_LAMP)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert ["4red", "3purple", "2orange"] in stacks
    assert same(stacks, LAYOUT_20)


def test_own_vote_peak_is_the_nearest_of_that_size_within_the_zone():
    reference = np.array([50.0, 50.0])
    peaks = ((2, np.array([58.0, 50.0])), (2, np.array([46.0, 53.0])), (3, np.array([50.0, 51.0])), (2, np.array([80.0, 50.0])))
    assert np.array_equal(_own_vote_peak(peaks, 2, reference, 10.0), [46.0, 53.0])
    assert np.array_equal(_own_vote_peak(peaks, 3, reference, 10.0), [50.0, 51.0])
    # None of that size within the zone: the reference itself.
    assert np.array_equal(_own_vote_peak(peaks, 1, reference, 10.0), reference)
    assert np.array_equal(_own_vote_peak(((2, np.array([80.0, 50.0])),), 2, reference, 10.0), reference)
