"""Telling seed pixels from board pixels.

Calibration has no colour model yet, so it finds seeds as small things that differ from their
surroundings (`local_contrast`). From the seeds it finds it learns a colour model
(`SeedColourModel`): a coarse BGR histogram of seed pixels against one of board pixels, under this
session's lamp, turned into a per-colour seed probability that recognition looks up per pixel.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.wari_params import (
    UNSEEN_SEED_PROBABILITY,
    VIVID,
    WORKING_WIDTH,
)

_LEVELS = 16  # histogram levels per colour channel
_SHIFT = 8 - 4  # 256 / 16 levels


def _vivid_bins() -> np.ndarray:
    """For each colour bin, whether its centre's channels span at least VIVID."""
    centres = (np.arange(_LEVELS) + 0.5) * (256 / _LEVELS)
    bgr = np.stack(np.meshgrid(centres, centres, centres, indexing="ij"), axis=-1).reshape(-1, 3)
    return np.ptp(bgr, axis=1) >= VIVID


_VIVID_BINS = _vivid_bins()


def working_frame(image: np.ndarray) -> np.ndarray:
    """The frame downscaled to the working width (area averaging also tames sensor noise)."""
    height, width = image.shape[:2]
    if width == WORKING_WIDTH:
        return image
    return cv2.resize(image, (WORKING_WIDTH, round(height * WORKING_WIDTH / width)), interpolation=cv2.INTER_AREA)


def local_contrast(frame: np.ndarray, window: int) -> np.ndarray:
    """How far each pixel's colour is from the median of its neighbourhood, in Lab units.

    Lightness counts a quarter: pit shading changes lightness, seeds differ mostly in colour.
    """
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    window |= 1
    background = np.dstack([cv2.medianBlur(channel, window) for channel in cv2.split(lab)])
    difference = lab.astype(np.float32) - background.astype(np.float32)
    difference[..., 0] *= 0.25
    return np.sqrt((difference**2).sum(axis=2))


def vivid(pixels: np.ndarray) -> np.ndarray:
    """Whether each BGR pixel's colour bin is vivid (see VIVID)."""
    return _VIVID_BINS[colour_bins(pixels)]


def colour_bins(pixels: np.ndarray) -> np.ndarray:
    """Histogram bin index of each BGR pixel (any leading shape)."""
    quantised = (pixels >> _SHIFT).astype(np.int32)
    return (quantised[..., 0] * _LEVELS + quantised[..., 1]) * _LEVELS + quantised[..., 2]


def _smoothed_histogram(pixels: np.ndarray) -> np.ndarray:
    """Colour histogram spread to neighbouring bins, so colours just missed in calibration still count."""
    counts = np.bincount(colour_bins(pixels.reshape(-1, 3)), minlength=_LEVELS**3).astype(np.float32)
    cube = counts.reshape(_LEVELS, _LEVELS, _LEVELS)
    for axis in range(3):
        padded = np.concatenate([cube.take([0], axis), cube, cube.take([-1], axis)], axis=axis)
        cube = 0.25 * padded.take(range(0, _LEVELS), axis) + 0.5 * cube + 0.25 * padded.take(range(2, _LEVELS + 2), axis)
    return cube.reshape(-1) / max(float(counts.sum()), 1.0)


@dataclass(frozen=True)
class SeedColourModel:
    """P(seed | colour) for each coarse BGR colour, learned from one calibration photo."""

    seed_probability: np.ndarray  # float32, one entry per colour bin
    known: np.ndarray  # bool: colour bins seen often enough in calibration to be trusted

    @classmethod
    def learn(cls, seed_pixels: np.ndarray, *board_samples: np.ndarray) -> "SeedColourModel":
        """From seed pixels and one or more samples of board pixels (N x 3 BGR each). A colour is
        as much board as it is in the sample showing it most: a bowl's wood in shade, a small share
        of the board's pixels, must outweigh the few of its colours in seeds' blurred outlines, and
        the top's lit wood keep its weight where an emptied bowl shows it."""
        seed = _smoothed_histogram(seed_pixels)
        board = np.max([_smoothed_histogram(sample) for sample in board_samples], axis=0)
        # Equal priors: a pit's pixels are roughly as likely seed as board once a few seeds lie in it.
        floor = 1e-6
        probability = (seed + floor) / (seed + board + 2 * floor)
        known = (seed + board) > 2e-5
        probability[~known & _VIVID_BINS] = UNSEEN_SEED_PROBABILITY
        return cls(probability.astype(np.float32), known)

    def probability(self, pixels: np.ndarray) -> np.ndarray:
        return np.take(self.seed_probability, colour_bins(pixels))

    def read(self, pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each pixel's chance of being seed, and whether calibration saw its colour often enough
        to trust that: both from one binning of the pixels."""
        bins = colour_bins(pixels)
        # np.take: the same entries as indexing, in half its time on a frame's bins.
        return np.take(self.seed_probability, bins), np.take(self.known, bins)

    def to_json(self) -> dict:
        return {
            "levels": _LEVELS,
            "seed_probability": [round(float(p), 3) for p in self.seed_probability],
            "known": [int(k) for k in self.known],
        }

    @classmethod
    def from_json(cls, obj: object) -> "SeedColourModel":
        try:
            probability = np.asarray(obj["seed_probability"], np.float32)
            known = np.asarray(obj["known"], bool)
            levels = int(obj["levels"])
        except (KeyError, TypeError, ValueError):
            raise ArbiterError("the Wari profile's seed colours are missing or malformed; calibrate again") from None
        if levels != _LEVELS or probability.shape != (_LEVELS**3,) or known.shape != probability.shape:
            raise ArbiterError("the Wari profile's seed colours are malformed; calibrate again")
        return cls(probability, known)
