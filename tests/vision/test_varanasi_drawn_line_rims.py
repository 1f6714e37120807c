"""Varanasi recognition: a circle fitted to the edges of a line drawn on the board is not a disc
(branch vdrawn).

The board's drawing around a tower (an arch) has two edges a few millimetres apart, and circles of
the sizes under the tower fit them (soft S1 pos004 read a ghost 4 and 3 under a lone 2red). Along
such a rim the edge bounds a band with the board on both sides whose colour is not the board's in
shade; a disc's rim has its own face on one side, and a white disc's shadow on a cream board is the
board's colour, only darker. A frame of the project's renderer (device/synthetic_varanasi.py) and
hand-built Lab frames (8-bit, as OpenCV gives them).
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
from vision.varanasi_drawn_lines import _band_medians, _drawn_bands, _inked

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())

BOARD_BGR = (200, 225, 235)  # cream
INK_BGR = (90, 120, 150)  # a brown line
SHADE_BGR = tuple(round(0.6 * c) for c in BOARD_BGR)  # the board with less light on it
CENTRE, RIM, BAND_WIDTH, REACH = (100.0, 100.0), 50.0, 8, 24
STEP = 6.0  # the edge threshold's lightness step


BOARD_NOISE = 0.005  # the board's chromaticity noise


def drawn_band(lab, radius: float, direction: int, reach: int, board, known) -> bool:
    """Whether the rim of the circle of `radius` around CENTRE bounds a drawn band in `direction`."""
    bands = _drawn_bands(lab, CENTRE, radius, np.array([direction]), reach, board, STEP, known)
    return bool(bands) and bool(_inked(bands, board, BOARD_NOISE)[0])


def frame_with_ring(band_bgr) -> tuple[np.ndarray, np.ndarray]:
    """(Lab float32, the board's median Lab) of a board with a band of `band_bgr` from the rim
    outwards."""
    image = np.zeros((200, 200, 3), np.uint8)
    image[:] = BOARD_BGR
    cv2.circle(image, (100, 100), int(RIM + BAND_WIDTH), band_bgr, -1)
    cv2.circle(image, (100, 100), int(RIM), BOARD_BGR, -1)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    return lab, lab[0, 0]


@pytest.mark.parametrize("direction", [0, 12, 30])
def test_a_rim_on_the_edge_of_an_ink_band_with_the_board_beyond_is_a_drawn_line(direction):
    lab, board = frame_with_ring(INK_BGR)
    above = [(100.0, 100.0, 35.0)]  # the disc found above it, well inside
    assert drawn_band(lab, RIM, direction, REACH, board, above)


def test_a_band_of_the_board_in_shade_is_a_disc_s_shadow_not_a_line():
    lab, board = frame_with_ring(SHADE_BGR)
    assert not drawn_band(lab, RIM, 0, REACH, board, [(100.0, 100.0, 35.0)])


def test_a_band_bounded_by_a_face_of_the_board_s_colour_found_above_is_a_disc_s_ring():
    # A coloured disc under a white one on a cream board: its ring, seen between the board and
    # the white face above, is no line.
    lab, board = frame_with_ring(INK_BGR)
    white_face_above = [(100.0, 100.0, RIM + BAND_WIDTH + 1.0)]
    assert not drawn_band(lab, RIM + BAND_WIDTH, 0, REACH, board, white_face_above)


def test_a_band_wider_than_the_reach_is_a_surface_not_a_line():
    lab, board = frame_with_ring(INK_BGR)
    assert not drawn_band(lab, RIM, 0, BAND_WIDTH - 2, board, [(100.0, 100.0, 35.0)])


def test_every_direction_is_judged_in_one_call_as_alone():
    # The rays of all directions are sampled at once (`rim_of_drawn_line` asked up to 48
    # directions one call each); a direction's band does not depend on the others judged with it.
    lab, board = frame_with_ring(INK_BGR)
    lab[100:, :110] = board  # the band erased over a quarter of the circle and a bit more
    directions = np.arange(0, 48, 3)
    together = _drawn_bands(lab, CENTRE, RIM, directions, REACH, board, STEP, [(100.0, 100.0, 35.0)])
    alone = [_drawn_bands(lab, CENTRE, RIM, directions[[i]], REACH, board, STEP, [(100.0, 100.0, 35.0)])
             for i in range(len(directions))]
    assert 0 < len(together) < len(directions)
    assert len(together) == sum(len(bands) for bands in alone)
    assert all(np.array_equal(a, b) for a, b in zip(together, [bands[0] for bands in alone if bands]))
    assert _inked(together, board, BOARD_NOISE).all()


@pytest.mark.parametrize("top", ["1green", "1purple"])
def test_no_ghost_disc_from_the_drawn_curve_around_a_lone_disc(top):
    # Session 1's drawn curve peaks at about (820, 200) with a bend of about 20 mm radius, the
    # size of the biggest discs: a lone 1 just inside the bend sees the curve's inner edge as an
    # arc around it (a "2yellow" was read under it, the line's tan read yellow).
    session = 1
    profile = calibrate(render_calibration(STANDARD, seed=100 + session, session=session), STANDARD)
    towers = [[top], ["3yellow", "1orange"]]
    image = render_table(towers, STANDARD, seed=47, session=session, centres_px=[(820.0, 240.0), (300.0, 600.0)])
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert sorted(map(tuple, stacks)) == sorted(map(tuple, towers))


def test_band_medians_are_numpy_s_medians():
    # Bands of odd and even lengths, of whole Lab levels (a blurred 8-bit frame) and of fractions.
    rng = np.random.default_rng(5)
    bands = [rng.integers(0, 256, (length, 3)).astype(np.float32) for length in (1, 2, 3, 6, 11, 30)]
    bands += [rng.normal(128.0, 40.0, (length, 3)).astype(np.float32) for length in (2, 5, 8)]
    expected = np.array([np.median(band, axis=0) for band in bands])
    assert np.array_equal(_band_medians(bands), expected)
