"""Is the board in view, and is anything (a hand) over it? Coarse checks on a grid of cells."""
from __future__ import annotations

import cv2
import numpy as np

# Lightness on a board varies with vignetting and the lamp's falloff far more than its tint does,
# so lightness gets this much more tolerance than the colour axes.
LIGHTNESS_SLACK = 4.0
BOARD_SIGMA = 4.0
DISC_MARGIN = 1.3


def board_distance2(lab_pixels: np.ndarray, board_model: dict) -> np.ndarray:
    """Squared Mahalanobis distance of (n, 3) Lab pixels from the board, lenient on lightness."""
    return board_distance2_and_log_norm(lab_pixels, board_model)[0]


def board_distance2_and_log_norm(lab_pixels: np.ndarray, board_model: dict) -> tuple[np.ndarray, float]:
    """The distances and the Gaussian's -0.5 log det, to compare with colour likelihoods."""
    mean = np.asarray(board_model["lab_mean"], dtype=float)
    covariance = np.asarray(board_model["lab_covariance"], dtype=float).copy()
    covariance[0, :] *= LIGHTNESS_SLACK
    covariance[:, 0] *= LIGHTNESS_SLACK
    whitened = (np.asarray(lab_pixels, dtype=np.float32) - mean.astype(np.float32)) @ np.linalg.cholesky(
        np.linalg.inv(covariance)
    ).astype(np.float32)
    distance2 = (whitened * whitened) @ np.ones(3, dtype=np.float32)  # faster than a short-axis sum
    return distance2, float(-0.5 * np.log(np.linalg.det(covariance)))


def board_like_grid(lab: np.ndarray, board_model: dict, grid: tuple[int, int]) -> np.ndarray:
    """(rows, cols) booleans: does most of each cell look like the calibrated board surface?"""
    cols, rows = grid
    small = cv2.resize(lab, (cols * 4, rows * 4), interpolation=cv2.INTER_AREA).reshape(-1, 3)
    close = (board_distance2(small, board_model) <= BOARD_SIGMA ** 2).reshape(rows, 4, cols, 4)
    return close.mean(axis=(1, 3)) >= 0.5


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
