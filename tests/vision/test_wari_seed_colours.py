"""Seed colours: a vivid colour the start photo never showed is a seed's, a dark one is no one's."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.wari import calibrate
from calibration.wari_colours import learn_colours as _learn_colours
from calibration.wari_grid import standout_mask as _seed_mask
from device.synthetic_wari import render_board
from vision.wari import recognize
from vision.wari_board import PIT_COUNT, BoardGeometry
from vision.wari_seeds import SeedColourModel, local_contrast, working_frame


def pixels(*bgr) -> np.ndarray:
    return np.array(bgr, np.uint8)


def test_unseen_vivid_colours_are_seeds_unseen_dark_ones_are_not():
    wood = np.repeat(pixels([30, 75, 140], [25, 62, 120], [35, 85, 160]), 500, axis=0)
    beads = np.repeat(pixels([200, 90, 30], [40, 190, 60]), 50, axis=0)  # blue and green only
    model = SeedColourModel.learn(beads, wood)
    probability = model.probability(pixels([40, 45, 170], [20, 20, 30], [30, 75, 140], [200, 90, 30]))
    assert probability[0] > 0.5  # a red bead: vivid, never seen
    assert probability[1] <= 0.5  # a dark crevice or shadow: never seen, not vivid
    assert probability[2] < 0.5 and probability[3] > 0.5  # the wood and a blue bead, as learned
    # Unseen colours still count as unknown for the confidence (a hand over the board).
    probability, known = model.read(pixels([40, 45, 170], [30, 75, 140]))
    assert not known[0] and known[1]
    assert np.array_equal(probability, model.probability(pixels([40, 45, 170], [30, 75, 140])))


def test_a_red_bead_darker_than_any_in_the_start_photo_is_counted():
    # Synthetic glass session 7: its lone red bead beside South's store shows shades of red the
    # start photo's beads did not, and was read as an empty pit, surely.
    profile = calibrate(render_board([4] * 12, [0, 0], seed=0, style="glass", session=7))
    pits = [3, 4, 7, 3, 2, 1, 3, 0, 4, 6, 2, 4]
    observation = recognize(render_board(pits, [5, 4], seed=1, style="glass", session=7), profile)
    assert observation.pits[5] == 1 and observation.regions[5][1] > 0.9


def test_beads_the_start_photos_contrast_misses_are_learned_as_seed_not_board():
    # Unseen glass 1225 through a warm lamp: its 2 red beads stood out from the red wood less than
    # half as much as its blue ones, so they fell outside the seed mask, were learned as board, and
    # lone red beads later read as empty pits, surely.
    start = render_board([4] * 12, [0, 0], seed=0, style="glass", session=0)
    geometry = BoardGeometry.from_json(calibrate(start)["board"])
    frame = working_frame(start)
    b, g, r = (frame[..., channel].astype(int) for channel in range(3))
    red = ((r > 150) & (g < 100) & (b < 120)).astype(np.uint8)
    assert red.sum() > 100  # the start photo holds red beads
    seed_mask = _seed_mask(local_contrast(frame, frame.shape[1] // 16), 0.5)
    seed_mask[cv2.dilate(red, np.ones((9, 9), np.uint8)) > 0] = 0  # the contrast misses them
    model = _learn_colours(frame, geometry, seed_mask)
    assert np.median(model.probability(frame[red > 0])) > 0.5
    # The wood between the rows, beside which the mask missed nothing, is still board.
    scale = frame.shape[1] / geometry.image_size[0]
    centres = np.array([geometry.outline_in_image(pit, scale).mean(axis=0) for pit in range(PIT_COUNT)])
    between_rows = np.round((centres[:6] + centres[6:][::-1]) / 2).astype(int)
    wood = np.concatenate([frame[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3) for x, y in between_rows])
    assert np.median(model.probability(wood)) < 0.5


def deepen_bowls(image: np.ndarray, geometry: BoardGeometry) -> np.ndarray:
    """The photo with every pit a deep bowl under a lamp at the top left: the far wall in deep
    shade (down to a fifth of the light), the shade tinted towards the room's bluish light."""
    ys, xs = np.mgrid[0 : image.shape[0], 0 : image.shape[1]].astype(np.float32)
    shaded = image.astype(np.float32)
    tint = np.array([1.15, 1.0, 0.85], np.float32)  # BGR
    for region in range(PIT_COUNT):
        outline = geometry.outline_in_image(region)
        centre = outline.mean(axis=0)
        radius = np.linalg.norm(outline - centre, axis=1).mean()
        u, v = (xs - centre[0]) / radius, (ys - centre[1]) / radius
        distance = np.sqrt(u**2 + v**2)
        wall = np.clip((distance - 0.35) / 0.65, 0, 1) ** 2
        far_side = np.clip(0.5 - 0.7 * (u + v) / np.maximum(distance, 1e-3), 0, 1)
        light = (1 - 0.8 * wall * far_side)[..., None]
        inside = distance < 1
        shaded[inside] *= (light * (tint * (1 - light) + light))[inside]
    return np.clip(shaded, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("session", [0, 2])
def test_a_deep_bowls_shaded_wall_is_not_learned_as_seed(session):
    # Grey nuts differ from wood in shade mostly by lightness, as the wood does from itself: the
    # start photo's contrasted pixels take in the shaded walls, which must still count as wood.
    start = render_board([4] * 12, [0, 0], seed=0, style="nicker", session=session)
    plain = calibrate(start)
    geometry = BoardGeometry.from_json(plain["board"])
    profile = calibrate(deepen_bowls(start, geometry))
    pits = [0, 1, 0, 2, 0, 3, 1, 0, 2, 0, 1, 0]
    photo = deepen_bowls(render_board(pits, [20, 18], seed=1, style="nicker", session=session), geometry)
    observation = recognize(photo, profile)
    assert observation.pits == pits
    assert all(observation.regions[pit][0] > 0.9 for pit in range(PIT_COUNT) if pits[pit] == 0)
    seed_area, plain_area = profile["summary"]["seed_area_px"], plain["summary"]["seed_area_px"]
    assert abs(seed_area / plain_area - 1) < 0.2


def test_a_colour_is_as_much_board_as_in_the_board_sample_showing_it_most():
    # Unseen nicker 1228 through the soft camera: the shaded walls of its dark pits were a small
    # share of the board's pixels, the pale nuts' blurred outlines took some of their colour, and
    # pooled with the top the walls were learned as seed.
    top = np.repeat(pixels([60, 90, 150], [50, 80, 135]), 25_000, axis=0)
    wall = pixels([20, 25, 70])
    bowls = np.repeat(wall, 3_000, axis=0)
    nuts = np.concatenate([np.repeat(pixels([170, 180, 165]), 2_000, axis=0), np.repeat(wall, 150, axis=0)])
    assert SeedColourModel.learn(nuts, np.concatenate([top, bowls])).probability(wall)[0] > 0.5
    model = SeedColourModel.learn(nuts, top, bowls)
    assert model.probability(wall)[0] < 0.2
    # A colour of the top's keeps its weight however many bowl pixels join.
    assert model.probability(pixels([60, 90, 150]))[0] == SeedColourModel.learn(nuts, top).probability(pixels([60, 90, 150]))[0]
    assert model.probability(pixels([170, 180, 165]))[0] > 0.9 and model.probability(pixels([60, 90, 150]))[0] < 0.1
