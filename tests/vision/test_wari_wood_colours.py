"""Calibration's wood colours: the bowls' shade is wood however it is tinted; seeds are not."""
from __future__ import annotations

import numpy as np

from calibration.wari_colours import unlike_wood as _unlike_wood

LIT_WOOD = (40, 95, 160)  # BGR; Lab lightness 119
GRAIN = (30, 56, 84)  # the top's dark grain: lightness 67
SHADED_WOOD = (10, 50, 100)  # the bowls' walls, lightness 68, lit by light off the wood: more saturated
RED_BEAD = (60, 60, 190)  # lightness 115, redder than the wood


def test_seeds_are_off_the_wood_and_the_bowls_shade_is_on_it_where_the_top_shows_more_grain_as_dark():
    frame = np.empty((100, 100, 3), np.float32)
    frame[:30] = LIT_WOOD  # the board top...
    frame[30:70] = GRAIN  # ...and its dark grain, more of it than the bowls show of their shade
    frame[70:] = SHADED_WOOD  # the bowls' outer bands...
    frame[70:76] = RED_BEAD  # ...into which beads reach
    frame = np.clip(frame + np.random.default_rng(3).normal(0, 2, frame.shape), 0, 255).astype(np.uint8)
    top = np.zeros(frame.shape[:2], bool)
    top[:70] = True
    seed_mask = np.zeros(frame.shape[:2], np.uint8)
    seed_mask[70:76] = 1  # the beads stand out...
    seed_mask[90:] = 1  # ...and so does the darkest shade
    unlike = _unlike_wood(frame, top, ~top, seed_mask)
    assert unlike[70:76].mean() > 0.9
    assert unlike[:70].mean() < 0.05
    assert unlike[76:].mean() < 0.05


def test_bowls_whose_bands_the_seeds_hide_leave_the_wood_to_the_top():
    # The top shows more of the beads' lightness than the bands do, so it traces the first path.
    frame = np.empty((30, 100, 3), np.uint8)
    frame[:20] = LIT_WOOD
    frame[20:] = RED_BEAD
    top = np.zeros(frame.shape[:2], bool)
    top[:20] = True
    seed_mask = (~top).astype(np.uint8)  # every pixel of the bowls' bands is seed
    unlike = _unlike_wood(frame, top, ~top, seed_mask)
    assert not unlike[:20].any() and unlike[20:].all()
