"""Varanasi recognition: towers whose structure the colour footprints alone misread (branch vstruct).

Frames come from the project's own renderer (device/synthetic_varanasi.py).
"""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import recognize
from vision.varanasi_circles import rim_scores
from vision.varanasi_geometry import edge_field

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


@pytest.fixture(scope="module")
def profile():
    return calibrate(render_calibration(STANDARD, seed=11), STANDARD)


def test_a_doubtful_size_of_the_colour_chain_is_left_to_the_edge_tests():
    # Under an orange lamp, tilted, with glare: the footprint of the 3green, 2purple, 1green
    # tower fits the 3 with a rim that barely shows (presence 0.40). Kept as found, that size was
    # never tried by its edges, and a ghost 4 took the tower's bottom instead.
    lamp = (0.7, 0.95, 1.15)
    profile = calibrate(render_calibration(STANDARD, seed=100, session=0, tilt_deg=-10, lamp=lamp), STANDARD)
    towers = [["3yellow", "1yellow"], ["4yellow"], ["3green", "2purple", "1green"], ["2orange", "1orange"],
              ["3blue"], ["4orange", "2blue"], ["4blue"], ["4purple"], ["4green"], ["4red"]]
    image = render_table(towers, STANDARD, seed=1003, session=0, tilt_deg=-10, lamp=lamp, glare=True)
    assert same(recognize(image, profile).to_json()["state"]["stacks"], towers)


def test_a_disc_between_two_of_one_colour_with_the_top_one_overhanging_it(profile):
    # The 3yellow sits 3 mm one way off the 4purple, and the 2purple on top 4 mm the other way,
    # reaching past the 3yellow's rim onto the 4purple: much of the ring just inside the
    # 3yellow's rim is purple, the rest yellow. Judged as a disc on its own colour (by a dark line
    # alone) it was lost; its yellow half steps in colour from the purple below.
    towers = [["3red", "2green", "1red"], ["4orange", "3blue", "2orange"], ["4purple", "3yellow", "2purple"], ["2yellow"]]
    offsets = [[(-3.0, 0.0), (4.0, 0.0)], [(0.0, 3.0), (0.0, -4.0)], [(2.1, 2.1), (-2.8, -2.8)], []]
    image = render_table(towers, STANDARD, seed=70, offsets_mm=offsets)
    assert same(recognize(image, profile).to_json()["state"]["stacks"], towers)


@pytest.mark.parametrize("direction, seed", [((0.0, 1.0), 70), ((-1.0, 0.0), 70), ((0.0, -1.0), 71)])
def test_a_top_disc_of_a_lower_colour_overhanging_the_disc_it_rests_on(profile, direction, seed):
    # The 1red rests 6.5 mm off the 2purple's centre (the step searched around a disc below is
    # 4 mm) and overhangs it onto the 3red. The colour chain does not see it (above the 3red its
    # footprint is what is not red), and the edge test near the 2purple found only part of its
    # rim: lost, the 2purple's ring then took in its red and the inventory argued the "2red" away.
    # Its whole rim drew a centre-vote peak of its size, where it is now looked for too.
    towers = [["4blue", "3red", "2purple", "1red"], ["2red"], ["3yellow", "2yellow", "1purple"], ["4green"]]
    way = np.array(direction)
    offsets = [[tuple(-1.5 * way), tuple(-1.0 * way), tuple(6.5 * way)], [], [(1.0, 0.0), (0.0, 1.0)], []]
    image = render_table(towers, STANDARD, seed=seed, offsets_mm=offsets)
    assert same(recognize(image, profile).to_json()["state"]["stacks"], towers)


def test_a_lone_disc_does_not_stand_on_the_rims_of_towers_read_before():
    # A patch of board squeezed between towers is ringed by their rims: the share of a circle's
    # rim that a neighbouring tower's outline explains counts as missing, not as left out.
    image = np.full((200, 240, 3), 200, np.uint8)
    cv2.circle(image, (100, 100), 40, (60, 60, 60), 2)
    neighbour = (100 + 40 + 30, 100, 30)  # touching the circle on its right
    cv2.circle(image, neighbour[:2], neighbour[2], (60, 60, 60), -1)
    edges = edge_field(image, 20.0)
    centre = np.array([[100, 100]])
    judged, _ = rim_scores(edges, centre, 40, [neighbour], 6.0)
    whole, _ = rim_scores(edges, centre, 40, [neighbour], 6.0, whole_circle=True)
    assert judged[0] == pytest.approx(1.0)
    assert 0.7 < whole[0] < 0.95
