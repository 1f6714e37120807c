"""Small piles on unseen cameras: seed-coloured things that are not seeds (no bench photos)."""
from __future__ import annotations

import cv2
import numpy as np

from vision.wari_board import RegionMask
from vision.wari_measure import SeedSpotter, crevice_pixels


def _seeds_by_a_rim(patch_centre):
    """A flat frame: a bowl (left of x = 80), two glinted seeds against its rim and a glintless
    seed-coloured patch touching the right one. Returns the frame, its seed-coloured pixels and
    the bowl."""
    frame = np.full((120, 200, 3), 90, np.uint8)
    seed_like = np.zeros((120, 200), np.uint8)
    for x in (60, 72):
        cv2.circle(seed_like, (x, 60), 6, 1, -1)
        cv2.circle(frame, (x, 60), 1, (250, 250, 250), -1)
    cv2.circle(seed_like, patch_centre, 5, 1, -1)
    bowls = np.zeros((120, 200), bool)
    bowls[:, :80] = True
    return frame, seed_like.astype(bool), bowls


def test_a_glintless_patch_beyond_the_rim_is_not_a_buried_seed():
    # Beyond the rim the patch is the wood, lit or noisy (the re-shot, noisier camera: a 6-nut pit
    # read 7); inside the bowl, beside a seed, it may be a seed half buried under it.
    spotter = SeedSpotter("glint", 13, 20.0)
    found = []
    for patch_centre in ((84, 60), (72, 72)):
        frame, seed_like, bowls = _seeds_by_a_rim(patch_centre)
        apart, crowded = spotter.spots(frame, seed_like, bowls=bowls)
        assert len(np.unique(apart)) - 1 == 2
        found.append(len(np.unique(crowded)) - 1)
    assert found == [2, 3]


def test_a_crevice_s_shadow_is_no_seed_s_area():
    # Two glints and a shaded patch (-1) of 6 pixels, 4 of them where the pit is measured (the
    # left half): seeds lying side by side, so the patch is the crevice between them.
    crowded = np.zeros((4, 8), np.int32)
    crowded[0, :2], crowded[0, 6:], crowded[2, 2:8] = 1, 2, -1
    measured = RegionMask(0, 0, np.arange(8)[None, :].repeat(4, axis=0) < 6)
    spotted = np.unique(crowded)
    assert crevice_pixels(measured, crowded, spotted, apart_count=2) == 4
    # A third glint the count as lying apart merged: the seeds pile and the dark patch may be a
    # seed in the pile's shadow, counted and measured as one.
    assert crevice_pixels(measured, crowded, np.append(spotted, 3), apart_count=2) == 0
