"""The lamp's light of a Nanku frame, measured on a reduced frame, against the same measure at
full resolution."""
from __future__ import annotations

import cv2
import numpy as np

from vision.nanku_params import LIGHT_REACH
from vision.nanku_pixels import local_light

TABLE_BGR = np.array([110.0, 105.0, 100.0], np.float32)
WHITE_BGR = np.array([215.0, 225.0, 235.0], np.float32)


def _lamp_picture() -> tuple[np.ndarray, np.ndarray]:
    """A table under a lamp off the picture's middle (1.3 under it, 0.8 in the far corner), with
    white and dark cubes on it, and the lamp's light at each place."""
    height, width = 240, 320
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    lamp = 0.8 + 0.5 * np.exp(-((x - 110.0) ** 2 + (y - 90.0) ** 2) / (2.0 * 140.0 ** 2))
    picture = lamp[..., None] * TABLE_BGR
    picture[60:90, 140:170] = WHITE_BGR
    picture[150:200, 40:80] = 20.0
    picture += np.random.default_rng(1).normal(0.0, 2.0, picture.shape).astype(np.float32)
    return np.clip(picture, 0, 255).astype(np.uint8), lamp


def _light_at_full_resolution(picture: np.ndarray, cube_px: float) -> np.ndarray:
    """The normalised convolution of the table's brightness over the whole frame, pixel by pixel."""
    pixels = picture.astype(np.float32)
    share = pixels @ TABLE_BGR / float(TABLE_BGR @ TABLE_BGR)
    miss = np.linalg.norm(pixels - share[..., None] * TABLE_BGR, axis=2)
    weight = ((share > 0.7) & (share < 1.3) & (miss < 0.08 * float(np.linalg.norm(TABLE_BGR)) + 1.0)).astype(np.float32)
    sigma = LIGHT_REACH * cube_px
    light = cv2.GaussianBlur(share * weight, (0, 0), sigma) / cv2.GaussianBlur(weight, (0, 0), sigma)
    return np.clip(light, 0.5, 1.5)


def test_the_light_measured_on_a_reduced_frame_is_the_full_resolution_light():
    picture, lamp = _lamp_picture()
    cube_px = 12.0
    light = local_light(picture, TABLE_BGR, cube_px)
    assert light.shape == picture.shape[:2] and light.dtype == np.float32
    assert np.abs(light - _light_at_full_resolution(picture, cube_px)).max() < 0.003
    # Under the cubes the light is the table's around them (smoothed: a few hundredths off the
    # lamp's where it curves), not the cubes' colours (white 2.0, dark 0.2 of the table).
    assert np.abs(light[60:90, 140:170] - lamp[60:90, 140:170]).max() < 0.05
    assert np.abs(light[150:200, 40:80] - lamp[150:200, 40:80]).max() < 0.05
