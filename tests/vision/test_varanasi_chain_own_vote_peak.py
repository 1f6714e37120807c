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

The bottom disc keeps the tower's vote peak as its reference, since a tower's shadow on the board
draws an arc of the bottom size whose votes can outrank the disc's own. But where the tower's vote
peak (its top disc's) lies farther from the bottom disc than the half size step searched around it,
a fit pulled onto the shadow stays there, and its ring reads the disc above (a 4red under a 3yellow
read yellow, then argued away by a real 4yellow). The bottom size is then looked for around its own
vote peak too, and that fit kept when it shows as much rim and lies nearer the tower's vote peak,
which the shadow, beside the tower, does not pull.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import recognize
from vision.varanasi_colour_chain import _own_vote_peak

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
ORANGE_LAMP = (0.7, 0.95, 1.15)
BLUE_LAMP = (1.15, 0.95, 0.75)
BLUE_LAYOUT_20 = [["2blue"], ["2red", "1green"], ["2orange"], ["4red", "3yellow", "2yellow", "1blue"], ["3purple", "1purple"],
                  ["4yellow", "3orange"], ["4green", "1red"], ["3green"]]
# Session 2, orange lamp, tilt 0, layout 1 of the bench's --synthetic frames (glare on): a ghost
# 3blue between the 4blue and its 2orange (presence 0.549), gone with the 4blue fitted around its
# own vote peak (4 px from the fit before, both within 3 px of the renderer's outline centre).
ORANGE_LAYOUT_1 = [["4red", "3yellow", "2green"], ["4blue", "2orange"], ["4green", "1blue"], ["2purple", "1orange"],
                   ["3green", "2blue"], ["4yellow", "1red"], ["3red", "2yellow"], ["3orange"]]
LAYOUT_20 = [["1orange"], ["2blue", "1red"], ["2red"], ["3green", "2purple"], ["4red", "3purple", "2orange"]]


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


def test_a_disc_on_a_nearly_covered_one_is_fitted_at_its_own_vote_peak():
    profile = calibrate(render_calibration(STANDARD, seed=100, session=0, tilt_deg=10, lamp=ORANGE_LAMP), STANDARD)
    image = render_table(LAYOUT_20, STANDARD, seed=1020, session=0, tilt_deg=10, lamp=ORANGE_LAMP)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert ["4red", "3purple", "2orange"] in stacks
    assert same(stacks, LAYOUT_20)


@pytest.mark.parametrize("session, lamp, tilt, seed, glare, towers, tower", [
    (0, BLUE_LAMP, -10, 1020, False, BLUE_LAYOUT_20, ["4red", "3yellow", "2yellow", "1blue"]),
    (2, ORANGE_LAMP, 0, 1001, True, ORANGE_LAYOUT_1, ["4blue", "2orange"]),
], ids=["session 0, blue lamp, tilt -10, layout 20", "session 2, orange lamp, tilt 0, layout 1"])
def test_a_bottom_disc_pulled_onto_its_shadow_is_fitted_at_its_own_vote_peak(session, lamp, tilt, seed, glare, towers, tower):
    profile = calibrate(render_calibration(STANDARD, seed=100 + session, session=session, tilt_deg=tilt, lamp=lamp), STANDARD)
    image = render_table(towers, STANDARD, seed=seed, session=session, tilt_deg=tilt, lamp=lamp, glare=glare)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert tower in stacks
    assert same(stacks, towers)


def test_own_vote_peak_is_the_nearest_of_that_size_within_the_zone():
    reference = np.array([50.0, 50.0])
    peaks = ((2, np.array([58.0, 50.0])), (2, np.array([46.0, 53.0])), (3, np.array([50.0, 51.0])), (2, np.array([80.0, 50.0])))
    assert np.array_equal(_own_vote_peak(peaks, 2, reference, 10.0), [46.0, 53.0])
    assert np.array_equal(_own_vote_peak(peaks, 3, reference, 10.0), [50.0, 51.0])
    # None of that size within the zone: the reference itself.
    assert np.array_equal(_own_vote_peak(peaks, 1, reference, 10.0), reference)
    assert np.array_equal(_own_vote_peak(((2, np.array([80.0, 50.0])),), 2, reference, 10.0), reference)
