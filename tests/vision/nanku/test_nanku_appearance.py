"""Nanku's faces as each picture shows them: measured where the known structure is drawn, and a
standing first piece's hidden colour."""
from __future__ import annotations

import numpy as np

from calibration.nanku import calibrate
from device.synthetic_nanku import Look, render
from vision.nanku_camera import BLACK_SIDE, BLACK_TOP, TABLE, WHITE_SIDE, WHITE_TOP, Pose
from vision.nanku_pixels import Appearance, class_costs, measured

TABLE_BGR = np.array([110.0, 105.0, 100.0], np.float32)
WHITE_BGR = np.array([215.0, 225.0, 235.0], np.float32)
BLACK_BGR = np.array([25.0, 25.0, 28.0], np.float32)


def _picture_and_drawing(black_seen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A table with a white top, a white side at 0.6 of its light and a black top seen as `black_seen`."""
    drawing = np.full((40, 90), TABLE, np.uint8)
    drawing[10:30, 5:25] = WHITE_TOP
    drawing[10:30, 25:35] = WHITE_SIDE
    drawing[10:30, 50:70] = BLACK_TOP
    pixels = np.empty((40, 90, 3), np.float32)
    for cls, colour in ((TABLE, TABLE_BGR), (WHITE_TOP, WHITE_BGR), (WHITE_SIDE, 0.6 * WHITE_BGR), (BLACK_TOP, black_seen)):
        pixels[drawing == cls] = colour
    pixels += np.random.default_rng(0).normal(0.0, 2.0, pixels.shape).astype(np.float32)
    return pixels, drawing


def test_a_black_top_is_judged_by_the_black_tops_of_the_same_picture():
    """A glossy black top four times as bright as the calibration photo's black costs much under
    the calibration's colours, and little once measured on the structure's own black tops."""
    calibrated = Appearance({TABLE: TABLE_BGR, WHITE_TOP: WHITE_BGR, WHITE_SIDE: WHITE_BGR,
                             BLACK_TOP: BLACK_BGR, BLACK_SIDE: BLACK_BGR}, 4.0)
    pixels, drawing = _picture_and_drawing(4.0 * BLACK_BGR)
    lit = measured(calibrated, pixels, drawing, cube_px=20.0)
    assert np.allclose(lit.colours[BLACK_TOP], 4.0 * BLACK_BGR, atol=3.0)
    black = drawing == BLACK_TOP
    assert class_costs(pixels, calibrated)[BLACK_TOP][black].mean() > 2.0
    assert class_costs(pixels, lit)[BLACK_TOP][black].mean() < 0.5
    # The white side, measured, is still told from the black top: each costs much as the other.
    costs = class_costs(pixels, lit)
    assert costs[WHITE_SIDE][black].mean() > 2.0
    assert costs[BLACK_TOP][drawing == WHITE_SIDE].mean() > 2.0
    # A class the drawing shows too little of keeps the calibration's colour and range.
    assert np.array_equal(lit.colours[BLACK_SIDE], BLACK_BGR)
    assert lit.ranges()[BLACK_SIDE] == calibrated.ranges()[BLACK_SIDE]


def test_a_standing_first_piece_hides_its_other_colour_and_its_shadow_is_not_taken_for_it():
    """White on top: the black cube's colour follows from the white by the albedo ratio, darker
    than the table even in shadow, not the dim outline around the piece."""
    look = Look.drawn(8100)
    image = render([[0, 0, 1, "white"], [0, 0, 0, "black"]], look, Pose(0.7, -0.28, -2.1))
    profile = calibrate(image)
    colours = profile["appearance"]["colours_bgr"]
    assert profile["summary"]["first_piece"] == "standing"
    assert sum(colours["black_top"]) < 0.4 * sum(colours["table"])
    assert sum(colours["white_top"]) > 1.5 * sum(colours["table"])


def test_a_hidden_colour_is_a_guessed_grey_that_a_tinted_face_fits_until_a_picture_shows_it():
    """Black on top: the white is guessed, a grey (a black's tint says nothing of the white's) and
    marked so in the profile; a bluish white top costs little under it, but much under the table
    and the black top; once a picture's structure shows a white top, the white is measured there
    and no longer guessed."""
    look = Look.drawn(8100)
    image = render([[0, 0, 0, "white"], [0, 0, 1, "black"]], look, Pose(0.7, -0.28, -2.1))
    profile = calibrate(image)
    appearance = Appearance.from_json(profile["appearance"])
    assert profile["summary"]["first_piece"] == "standing"
    assert profile["appearance"]["guessed"] == ["white_side", "white_top"]
    white = np.array(profile["appearance"]["colours_bgr"]["white_top"])
    assert np.ptp(white) < 1.0
    tinted = np.full((8, 8, 3), [235.0, 215.0, 195.0], np.float32)  # a bluish white, in BGR
    costs = class_costs(tinted, appearance)
    assert costs[WHITE_TOP].mean() < 1.5
    assert costs[TABLE].mean() > 3.0 and costs[BLACK_TOP].mean() > 3.0
    unguessed = Appearance(appearance.colours, appearance.spread)
    assert class_costs(tinted, unguessed)[WHITE_TOP].mean() > 2 * costs[WHITE_TOP].mean()
    drawing = np.full((40, 40), TABLE, np.uint8)
    drawing[10:30, 10:30] = WHITE_TOP
    pixels = np.full((40, 40, 3), appearance.colours[TABLE], np.float32)
    pixels[drawing == WHITE_TOP] = [235.0, 215.0, 195.0]
    lit = measured(appearance, pixels, drawing, cube_px=20.0)
    assert WHITE_TOP not in lit.guessed and WHITE_SIDE in lit.guessed


def test_a_white_top_beside_a_standing_black_first_piece_is_the_placement_played():
    """A camera over a greenish table, the first piece standing black on top: its white is
    guessed. A piece stood beside it, white on top (a bluish white, far from any grey the black
    could tell of), is judged as the placement played, not as no move."""
    from arbiter.judge import Judge
    from engines.nanku import NankuRules, canonical_cubes
    from vision.nanku import recognize

    look = Look.drawn(8408)
    first = [[0, 0, 0, "white"], [0, 0, 1, "black"]]
    played = first + [[0, 1, 0, "black"], [0, 1, 1, "white"]]
    rules = NankuRules()
    profile = calibrate(render(first, look, Pose(0.3, -0.2, 0.4), 1))
    assert profile["appearance"]["guessed"] == ["white_side", "white_top"]
    judge = Judge(rules, [rules.state_from_json({"game": "nanku", "pieces": [first]})])
    verdict = judge.judge(recognize(render(played, look, Pose(-0.4, 0.5, 2.2), 2), profile))
    wanted = rules.state_from_json({"game": "nanku", "pieces": [first, played[2:]]})
    assert verdict.legal and canonical_cubes(verdict.state) == canonical_cubes(wanted)
