"""Calibration's wood colours: seeds reaching into a bowl's outer band are not learned as wood."""
from __future__ import annotations

import numpy as np

from calibration.wari import _unlike_wood

LIT_WOOD = (40, 95, 160)  # BGR; Lab lightness 119
SHADED_WOOD = (20, 50, 95)  # the bowls' walls, lightness 66
RED_BEAD = (60, 60, 190)  # lightness 115, redder than the wood


def test_seeds_in_the_bowls_bands_stay_off_the_wood_where_the_top_shows_their_lightness():
    rng = np.random.default_rng(3)
    frame = np.empty((60, 100, 3), np.float32)
    frame[:20] = LIT_WOOD  # the board top
    frame[20:] = SHADED_WOOD  # the bowls' outer bands...
    frame[20:26] = RED_BEAD  # ...into which beads reach: 600 of their 4000 pixels
    frame = np.clip(frame + rng.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)
    top = np.zeros(frame.shape[:2], bool)
    top[:20] = True
    unlike = _unlike_wood(frame, top, ~top)
    assert unlike[20:26].mean() > 0.9
    assert unlike[:20].mean() < 0.05
    assert unlike[26:].mean() < 0.05
