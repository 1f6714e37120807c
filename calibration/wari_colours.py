"""Learning a Wari board's seed and wood colours from its start photo."""
from __future__ import annotations

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.wari_board import PIT_COUNT, PITS_PER_ROW, BoardGeometry
from vision.wari_seeds import SeedColourModel, vivid
from calibration.wari_start_checks import NOT_A_START
from vision.wari_params import (
    BAND_PIXELS,
    LIGHTNESS_BAND,
    WOOD_RIM_BAND,
    WOOD_SPREAD,
)


def learn_colours(frame: np.ndarray, geometry: BoardGeometry, seed_mask: np.ndarray) -> SeedColourModel:
    """Seed colours from the contrasted pixels inside pits whose colour is not the wood's, and
    from the vivid ones off the wood however little they contrast; board colours from two
    samples, the board top and what the pits show besides their seeds.

    The whole board top counts as board, lit spots and store highlights included: recognition must
    not take a lamp's hot spot in an emptied pit for seeds. A deep bowl's shaded wall contrasts
    with the lit board as much as a grey seed does, so contrast alone would learn it as seed.
    """
    height, width = frame.shape[:2]
    scale = width / geometry.image_size[0]
    pits = np.zeros((height, width), np.uint8)
    pit_middles = np.zeros((height, width), np.uint8)
    for region in range(PIT_COUNT):
        cv2.fillPoly(pits, [np.round(geometry.outline_in_image(region, scale)).astype(np.int32)], 1)
        cv2.fillPoly(pit_middles, [np.round(geometry.outline_in_image(region, scale, WOOD_RIM_BAND)).astype(np.int32)], 1)
    board = np.zeros((height, width), np.uint8)
    cv2.fillPoly(board, [np.round(board_outline(geometry, scale)).astype(np.int32)], 1)
    # The board top shows the wood in light; start seeds gather in the middle of their pits, so a
    # pit's outer band shows its bowl's wood in shade too, but a seed may reach into it.
    top = (board > 0) & (pits == 0)
    bowl_bands = (pits > 0) & (pit_middles == 0)
    # A seed's outline blends its colour with the wood's: those pixels stay seed beside the seed.
    off_wood = unlike_wood(frame, top, bowl_bands, seed_mask)
    contrasted_off_wood = seed_mask & off_wood.astype(np.uint8)
    seed_mask = seed_mask & cv2.dilate(contrasted_off_wood, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    near_seed = cv2.dilate(seed_mask, np.ones((5, 5), np.uint8)) & pits
    # Vivid colours off the wood in a pit are seeds the contrast missed: under a warm lamp red
    # beads on red wood stand out less than half as much as blue ones (unseen glass 1225), and
    # learned as board, a lone red bead reads as an empty pit. Glare and crevices are not vivid.
    missed = (pits > 0) & off_wood & vivid(frame) & (near_seed == 0)
    # Missed pixels lie 3 pixels or more from the mask, so one erosion takes both cores.
    core_seed = cv2.erode(seed_mask | missed.astype(np.uint8), np.ones((3, 3), np.uint8)) & pits
    # Neither `near_seed` nor `missed` reaches the top: they lie in the pits.
    seeds, top_pixels = frame[core_seed > 0], frame[top]
    bowl_pixels = frame[(pits > 0) & (near_seed == 0) & ~missed]
    if len(seeds) < 100 or len(top_pixels) < 100:
        raise ArbiterError(f"the photo {NOT_A_START}")
    # The bowls, what a pit shows besides its seeds, are a board sample of their own. Pooled with
    # the top, the shaded walls of unseen nicker 1228's dark pits (through the soft camera) took
    # seed probabilities of 0.56 from the dark blurred outlines of its pale nuts. Weighed alike
    # with it instead, the top's lit wood lost weight, and the lit floors of unseen nicker 1259's
    # emptied bowls read as 1-2 seeds.
    board_samples = (top_pixels, bowl_pixels) if len(bowl_pixels) >= 100 else (top_pixels,)
    return SeedColourModel.learn(seeds, *board_samples)


def unlike_wood(frame: np.ndarray, top: np.ndarray, bowl_bands: np.ndarray, seed_mask: np.ndarray) -> np.ndarray:
    """Pixels whose colour lies off the wood's colours at their own lightness.

    Shade moves the wood's colour along a path through Lab (darker, and towards the colour of the
    light that reaches the shade), traced as the median a, b per lightness band of the board top's
    pixels or the bowls' outer bands', whichever shows more of that band: where the top shows it
    too, the few pixels of seeds reaching into the bowls' bands are outnumbered, and the darkest
    shade, which only the bowls show, is in the seed mask too (a deep bowl's wall contrasts with
    the lit top as much as a seed does). Light reflected off the wood makes the bowls' shade more
    saturated than the top's grain as dark, so their path is traced again away from the seed mask
    (whose blurred outlines hold seed colours), and a pixel is off the wood when it is off both
    paths: further from the path's median than WOOD_SPREAD times the distance most of that
    band's wood pixels keep.
    """
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB).astype(np.float32)
    band = (lab[..., 0] // LIGHTNESS_BAND).astype(int)
    away_from_seeds = bowl_bands & (cv2.dilate(seed_mask, np.ones((5, 5), np.uint8)) == 0)
    paths = [
        _wood_path([(band[wood], lab[..., 1:][wood]) for wood in woods]) for woods in ((top, bowl_bands), (away_from_seeds,))
    ]
    # Seeds may hide every bowl's band; the top alone still traces the first path.
    paths = [path for path in paths if path is not None]
    if not paths:
        raise ArbiterError(f"the photo {NOT_A_START}")
    unlike = np.ones(frame.shape[:2], bool)
    for median, spread in paths:
        unlike &= np.linalg.norm(lab[..., 1:] - median[band], axis=2) > WOOD_SPREAD * spread[band]
    return unlike


def _wood_path(samples: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray] | None:
    """Per lightness band, the median a, b of whichever sample of wood pixels (their bands, their
    a, b) shows more of that band, and the distance from it that 90 % of them keep; bands no
    sample shows take the nearest band's. None if no sample shows a band with enough pixels."""
    bands = 256 // LIGHTNESS_BAND
    median = np.full((bands, 2), np.nan)
    spread = np.full(bands, np.nan)
    for index in range(bands):
        chroma = max((ab[shown == index] for shown, ab in samples), key=len)
        if len(chroma) >= BAND_PIXELS:
            median[index] = np.median(chroma, axis=0)
            spread[index] = np.percentile(np.linalg.norm(chroma - median[index], axis=1), 90)
    known = np.flatnonzero(np.isfinite(spread))
    if len(known) == 0:
        return None
    every = np.arange(bands)
    median = np.column_stack([np.interp(every, known, median[known, channel]) for channel in range(2)])
    return median, np.interp(every, known, spread[known])


def board_outline(geometry: BoardGeometry, scale: float) -> np.ndarray:
    """The board's playing surface: a rectangle just around the pits and stores."""
    margin = 0.1
    left = -geometry.store_offset - geometry.store_half_length - margin
    right = PITS_PER_ROW - 1 + geometry.store_offset + geometry.store_half_length + margin
    bottom = -geometry.pit_radius - margin
    top = geometry.row_spacing + geometry.pit_radius + margin
    return geometry.to_image(np.array([[left, bottom], [right, bottom], [right, top], [left, top]]), scale)
