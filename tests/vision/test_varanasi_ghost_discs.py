"""Varanasi recognition: no ghost bigger disc read under a tower (branch vghost).

A tower's shadow and, through a tilted camera, its side band lie on the board beside it; their
outer edge can pass for the rim of a bigger disc under the tower. Such a ring is the board beyond
it in shade, not a face of its own. Frames come from the project's own renderer
(device/synthetic_varanasi.py), with the layouts and sessions of the synthetic bench.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import _parsed_profile, _shaded_board, recognize

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


@pytest.mark.parametrize(
    "session, lamp, towers, ghost",
    [
        # Plain lamp: a "3green" under the 2orange, 1purple tower.
        (1, None, [["2orange", "1purple"], ["3red", "2yellow"], ["3yellow", "2green"], ["2blue", "1red"],
                   ["4red", "2red", "1blue"], ["4orange"], ["4purple"]], "3green"),
        # Orange lamp: a "4yellow" under the 3purple, 1blue tower (no real 4yellow to argue it away).
        (2, (0.7, 0.95, 1.15), [["3purple", "1blue"], ["1green"], ["1red"], ["3yellow", "1orange"], ["1yellow"],
                                ["2green"], ["4orange"]], "4yellow"),
    ],
)
def test_no_ghost_bigger_disc_under_a_tower_seen_from_a_tilted_camera(session, lamp, towers, ghost):
    profile = calibrate(render_calibration(STANDARD, seed=100 + session, session=session, tilt_deg=10, lamp=lamp),
                        STANDARD)
    image = render_table(towers, STANDARD, seed=1001, session=session, tilt_deg=10, lamp=lamp, glare=True)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert ghost not in {disc for tower in stacks for disc in tower}
    assert same(stacks, towers)


@pytest.fixture(scope="module")
def frame():
    return _parsed_profile(calibrate(render_calibration(STANDARD, seed=11), STANDARD))


def test_a_ring_is_the_board_in_shade_only_when_darker_and_of_its_chromaticity(frame):
    board = np.array([230.0, 128.0, 140.0])  # a cream board, 8-bit Lab
    shade = np.array([160.0, 128.0, 136.0])  # the same surface with less light on it
    step = 10.0
    assert _shaded_board(shade, board, step, frame)
    # Barely darker: not the shade that drew a rim.
    assert not _shaded_board(board - [step / 2, 0, 0], board, step, frame)
    # A face of a colour of the set, even a pale one, has a chromaticity of its own.
    for name in ("orange", "yellow", "green"):
        face = frame.colours.means[frame.colours.names.index(name)]
        assert not _shaded_board(face, board, step, frame)
