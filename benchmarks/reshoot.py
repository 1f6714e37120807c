"""Another camera for the bench photos: a stand-in for unseen sessions, shared by the benchmarks.

`turned` (rotated 8 degrees, 10 % smaller, shifted, a warmer lamp), `tilted` (a keystoned view,
dimmer, noisier), `soft` (rotated the other way, 5 % larger, a cooler lamp, slightly out of focus)
or `webcam` (960x720 pixels, so that a Wari pit is about 95 pixels across, turned 3 degrees, out of
focus, noisy, under a warm lamp that turns the seeds olive: what a webcam over a real board shows).
"""
from __future__ import annotations

import cv2
import numpy as np

FRAME = (1280, 960)


def _corners_moved(shifts) -> np.ndarray:
    width, height = FRAME
    corners = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    return cv2.getPerspectiveTransform(corners, corners + np.float32(shifts))


def _turn(angle: float, scale: float, shift: tuple[float, float]) -> np.ndarray:
    matrix = cv2.getRotationMatrix2D((FRAME[0] / 2, FRAME[1] / 2), angle, scale)
    matrix[:, 2] += shift
    return np.vstack([matrix, [0, 0, 1]])


CAMERAS = {
    # homography, BGR gains, blur sigma, noise sigma
    "turned": (_turn(8, 0.9, (30, -20)), (0.8, 1.0, 1.15), 0.0, 0.0),
    "tilted": (_corners_moved([[77, 38], [-77, -23], [15, 23], [-15, -38]]), (0.7, 0.7, 0.7), 0.0, 4.0),
    "soft": (_turn(-10, 1.05, (-20, 10)), (1.2, 1.0, 0.85), 1.0, 0.0),
    "webcam": (_turn(3, 1.0, (0, 0)), (0.7, 0.95, 1.1), 1.0, 3.0),
}
# Cameras that take smaller pictures than the bench's: the re-shot photo is scaled down to this size.
SIZES = {"webcam": (960, 720)}


def reshoot(image: np.ndarray, camera: str | None, rng: np.random.Generator) -> np.ndarray:
    """The photo as another camera would take it (unchanged without a camera), re-encoded as JPEG."""
    if camera is None:
        return image
    homography, gains, blur, noise = CAMERAS[camera]
    shot = cv2.warpPerspective(image.astype(np.float32), homography, FRAME, borderMode=cv2.BORDER_REFLECT)
    if camera in SIZES:
        shot = cv2.resize(shot, SIZES[camera], interpolation=cv2.INTER_AREA)
    shot *= np.float32(gains)
    if blur:
        shot = cv2.GaussianBlur(shot, (0, 0), blur)
    if noise:
        shot += rng.normal(0, noise, shot.shape).astype(np.float32)
    _, encoded = cv2.imencode(".jpg", np.clip(shot, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 85])
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR)
