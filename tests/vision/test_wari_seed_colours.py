"""Seed colours: a vivid colour the start photo never showed is a seed's, a dark one is no one's."""
from __future__ import annotations

import numpy as np

from calibration.wari import calibrate
from device.synthetic_wari import render_board
from vision.wari import recognize
from vision.wari_seeds import SeedColourModel


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
    assert not model.is_known(pixels([40, 45, 170])).any()


def test_a_red_bead_darker_than_any_in_the_start_photo_is_counted():
    # Synthetic glass session 7: its lone red bead beside South's store shows shades of red the
    # start photo's beads did not, and was read as an empty pit, surely.
    profile = calibrate(render_board([4] * 12, [0, 0], seed=0, style="glass", session=7))
    pits = [3, 4, 7, 3, 2, 1, 3, 0, 4, 6, 2, 4]
    observation = recognize(render_board(pits, [5, 4], seed=1, style="glass", session=7), profile)
    assert observation.pits[5] == 1 and observation.regions[5][1] > 0.9
