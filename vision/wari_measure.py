"""Measuring each pit and store of a frame: how much of it is seed, and how much is unexplained."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.wari_board import REGION_COUNT, BoardGeometry, region_masks
from vision.wari_seeds import SeedColourModel

# Pits are measured slightly inside their rim: the rim's highlight and shadow are neither seed nor floor.
PIT_SHRINK = 0.95


@dataclass(frozen=True)
class RegionMeasures:
    """Per region (12 pits, South's store, North's store) of one frame."""

    seed_pixels: np.ndarray  # pixels classified as seed
    unknown_share: np.ndarray  # share of pixels whose colour calibration never saw (a hand, a shadow)
    visible_share: np.ndarray  # share of the region inside the frame


def measure_regions(frame: np.ndarray, geometry: BoardGeometry, colours: SeedColourModel) -> RegionMeasures:
    """Classify every pixel of every region of a working-size frame."""
    height, width = frame.shape[:2]
    full_masks = region_masks(geometry, (width, height), PIT_SHRINK)
    seed_pixels = np.zeros(REGION_COUNT)
    unknown_share = np.ones(REGION_COUNT)
    visible_share = np.zeros(REGION_COUNT)
    for region, mask in enumerate(full_masks):
        pixels = mask.pixels(frame)
        expected = _expected_area(geometry, region, width)
        visible_share[region] = min(len(pixels) / expected, 1.0) if expected else 0.0
        if len(pixels) == 0:
            continue
        seed_pixels[region] = np.count_nonzero(colours.probability(pixels) > 0.5)
        unknown_share[region] = 1.0 - np.count_nonzero(colours.is_known(pixels)) / len(pixels)
    return RegionMeasures(seed_pixels, unknown_share, visible_share)


def _expected_area(geometry: BoardGeometry, region: int, frame_width: int) -> float:
    """The region's area if it lay wholly inside the frame (its polygon's area)."""
    outline = geometry.outline_in_image(region, frame_width / geometry.image_size[0], PIT_SHRINK)
    x, y = outline[:, 0], outline[:, 1]
    return float(abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))) / 2)
