"""Calibration moves each pit's circle from its start seeds' centre onto the pit's rim."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.wari_rims import lightness_edges as _lightness_edges, pits_on_their_rims as _pits_on_their_rims
from vision.wari_board import PIT_COUNT, BoardGeometry

FRAME = (640, 480)
PITCH_PX = 80.0


def board_geometry(shift=(0.0, 0.0), pit_radius=0.4) -> BoardGeometry:
    """A board 80 px a pitch, seen a little from one end, its frame moved by `shift` pitches."""
    to_image = np.array([[PITCH_PX, 6.0, 110.0], [-4.0, PITCH_PX, 180.0], [0.00012, 0.0, 1.0]])
    moved = to_image @ np.array([[1.0, 0.0, shift[0]], [0.0, 1.0, shift[1]], [0.0, 0.0, 1.0]])
    return BoardGeometry(tuple((moved / moved[2, 2]).reshape(-1)), FRAME, 1.15, pit_radius, 1.05, 0.45, 0.95)


def photo(truth: BoardGeometry, seed_reach: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Wood with grain, each pit a bowl lit from one side, its 4 dark-rimmed seeds pushed to one
    side, reaching `seed_reach` pitches from the pit's middle; and the seeds' mask."""
    image = np.empty((FRAME[1], FRAME[0], 3), np.float32)
    image[:] = (40, 95, 160)
    for row in range(0, FRAME[1], 9):
        cv2.line(image, (0, row), (FRAME[0], row + 5), (32, 82, 140), 1)
    bowls = np.zeros(image.shape[:2], np.uint8)
    lit = np.zeros(image.shape[:2], np.float32)
    for pit in range(PIT_COUNT):
        cv2.fillPoly(bowls, [np.round(truth.outline_in_image(pit)).astype(np.int32)], 1)
        middle = truth.to_image(np.array([truth.centre_in_board(pit)]) + (0.1, 0.1))[0]
        cv2.circle(lit, tuple(int(v) for v in middle), int(0.3 * PITCH_PX), 1.0, -1)
    lit = cv2.GaussianBlur(lit, (0, 0), 8)
    image[bowls > 0] = (np.array([20, 50, 95]) + lit[bowls > 0, None] * np.array([15, 30, 45]))
    image += rng.normal(0, 4, image.shape).astype(np.float32)
    seeds = np.zeros(image.shape[:2], np.uint8)
    for pit in range(PIT_COUNT):
        centre = np.array(truth.centre_in_board(pit))
        side = rng.uniform(0, 2 * np.pi)
        for seed in range(4):
            angle = side + rng.uniform(-0.9, 0.9)
            middle = centre + (seed_reach - 0.15) * rng.uniform(0.5, 1.0) * np.array([np.cos(angle), np.sin(angle)])
            outline = truth.to_image(middle + 0.15 * np.column_stack([np.cos(a := np.linspace(0, 2 * np.pi, 24)), 0.7 * np.sin(a)]))
            cv2.fillPoly(image, [np.round(outline).astype(np.int32)], (150, 160, 150), cv2.LINE_AA)
            cv2.polylines(image, [np.round(outline).astype(np.int32)], True, (40, 50, 40), 2, cv2.LINE_AA)
            cv2.fillPoly(seeds, [np.round(outline).astype(np.int32)], 1)
    return np.clip(image, 0, 255).astype(np.uint8), seeds


def pit_centres(geometry: BoardGeometry) -> np.ndarray:
    return geometry.to_image(np.array([geometry.centre_in_board(pit) for pit in range(PIT_COUNT)]))


@pytest.mark.parametrize("seed_reach", [0.3, 0.38])
@pytest.mark.parametrize("shift", [(0.1, -0.07), (-0.06, 0.09)])
def test_pits_land_on_their_rims_from_off_centre_seeds(shift, seed_reach):
    truth = board_geometry()
    image, seeds = photo(truth, seed_reach, np.random.default_rng(int(100 * seed_reach)))
    found = _pits_on_their_rims(board_geometry(shift, pit_radius=0.48), _lightness_edges(image), 1.0, seeds)
    misses = np.linalg.norm(pit_centres(found) - pit_centres(truth), axis=1) / (truth.pit_radius * PITCH_PX)
    assert misses.max() < 0.1, misses.round(2)
    assert found.pit_radius == pytest.approx(truth.pit_radius, abs=0.015)
