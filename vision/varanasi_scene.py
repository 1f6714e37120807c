"""Is the board in view, and is anything (a hand) over it? Coarse checks on a grid of cells."""
from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from vision.varanasi_params import BOARD_SIGMA, CELL_SIDE, DISC_MARGIN, LIGHTNESS_SLACK


def board_distance2(lab_pixels: np.ndarray, board_model: dict) -> np.ndarray:
    """Squared Mahalanobis distance of (n, 3) Lab pixels from the board, lenient on lightness."""
    return board_distance2_by_terms(lab_pixels, board_terms(board_model))[0]


def board_distance2_by_terms(lab_pixels: np.ndarray, terms) -> tuple[np.ndarray, float]:
    """The distances from a board given by its terms (see `board_terms`), and the Gaussian's
    -0.5 log det, to compare with colour likelihoods."""
    mean, whitening, log_norm = terms
    whitened = (np.asarray(lab_pixels, dtype=np.float32) - mean) @ whitening
    distance2 = (whitened * whitened) @ np.ones(3, dtype=np.float32)  # faster than a short-axis sum
    return distance2, log_norm


def board_terms(board_model: dict) -> tuple[np.ndarray, np.ndarray, float]:
    """Mean, whitening matrix (float32) and -0.5 log det of a (readable) board model, lenient on
    lightness; cached, as every frame measures against the calibrated board several times."""
    return _board_terms(tuple(board_model["lab_mean"]), tuple(map(tuple, board_model["lab_covariance"])))


@lru_cache(maxsize=16)
def _board_terms(mean: tuple, covariance: tuple) -> tuple[np.ndarray, np.ndarray, float]:
    return board_terms_of(np.array(mean, dtype=float), np.array(covariance, dtype=float))


def board_terms_of(mean: np.ndarray, covariance: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """`board_terms` of a board's mean and covariance as arrays (a model used once)."""
    covariance = covariance.copy()
    covariance[0, :] *= LIGHTNESS_SLACK
    covariance[:, 0] *= LIGHTNESS_SLACK
    whitening, determinant = whitening_of(covariance)
    return mean.astype(np.float32), whitening, -0.5 * math.log(determinant)


def whitening_of(covariance: np.ndarray) -> tuple[np.ndarray, float]:
    """The lower-triangular L (float32) with L Lᵀ the inverse of a 3x3 covariance (the Cholesky
    factor of the inverse), and the covariance's determinant, written out in Python numbers
    (inverse by cofactors). A tower's local board needs them once per crop, where numpy's
    inverse, Cholesky and determinant wrappers cost several times the arithmetic (about 20 us
    each in place). In float32 L is numpy's factor (every one of 20 000 random and bench
    covariances); the determinant may differ from numpy's in its last bits."""
    (a, b, d), (_, e, f), (_, _, g) = covariance.tolist()
    # Cofactors of the symmetric matrix: the inverse's upper triangle times the determinant.
    i00, i01, i02 = e * g - f * f, d * f - b * g, b * f - d * e
    i11, i12, i22 = a * g - d * d, b * d - a * f, a * e - b * b
    determinant = a * i00 + b * i01 + d * i02
    p00, p01, p02 = i00 / determinant, i01 / determinant, i02 / determinant
    p11, p12, p22 = i11 / determinant, i12 / determinant, i22 / determinant
    l00 = math.sqrt(p00)
    l10, l20 = p01 / l00, p02 / l00
    l11 = math.sqrt(p11 - l10 * l10)
    l21 = (p12 - l20 * l10) / l11
    l22 = math.sqrt(p22 - l20 * l20 - l21 * l21)
    return np.array([[l00, 0.0, 0.0], [l10, l11, 0.0], [l20, l21, l22]], dtype=np.float32), determinant


def board_like_grid(lab: np.ndarray, board_model: dict, grid: tuple[int, int]) -> np.ndarray:
    """(rows, cols) booleans: does most of each cell (at least half its CELL_SIDE x CELL_SIDE
    samples) look like the calibrated board surface?"""
    cols, rows = grid
    small = cv2.resize(lab, (cols * CELL_SIDE, rows * CELL_SIDE), interpolation=cv2.INTER_AREA).reshape(-1, 3)
    close = board_distance2(small, board_model) <= BOARD_SIGMA ** 2
    # Counted as bytes down each cell's rows, then along them: two one-axis sums, where numpy's
    # mean over two axes of the booleans cost 0.2 ms (a 40x30 grid) and these 0.04.
    down = close.view(np.uint8).reshape(rows, CELL_SIDE, cols * CELL_SIDE).sum(axis=1, dtype=np.uint8)
    return down.reshape(rows, cols, CELL_SIDE).sum(axis=2, dtype=np.uint8) >= (CELL_SIDE * CELL_SIDE + 1) // 2


def cells_near_circles(shape: tuple[int, int], grid: tuple[int, int], circles, margin: float = DISC_MARGIN) -> np.ndarray:
    """(rows, cols) booleans: cells whose centre lies within margin * r of some circle (x, y, r):
    a disc and its shadow hide the board but are no reason for doubt."""
    height, width = shape
    cols, rows = grid
    cx = (np.arange(cols) + 0.5) * width / cols
    cy = (np.arange(rows) + 0.5) * height / rows
    near = np.zeros((rows, cols), dtype=bool)
    for x, y, r in circles:
        near |= ((cx[None, :] - x) ** 2 + (cy[:, None] - y) ** 2) <= (margin * r) ** 2
    return near
