"""Draw what Varanasi recognition saw on top of the frame (for the web page and for checking)."""
from __future__ import annotations

import cv2
import numpy as np

from vision.varanasi_params import OVERLAY_DOUBT

SURE_BGR = (60, 220, 60)
DOUBT_BGR = (0, 140, 255)
WRONG_BGR = (40, 40, 230)  # a tower the expected position does not hold
TEXT_BGR = (255, 255, 255)


def draw_overlay(image: np.ndarray, observation, expected: dict | None = None) -> np.ndarray:
    """A copy of `image` with each recognised disc's circle and code, doubtful ones in orange.

    `observation` is a `VaranasiObservation` or its `to_json()` dict. Given the `expected`
    position (JSON), towers read as no tower of it are drawn in red, thicker.
    """
    data = observation if isinstance(observation, dict) else observation.to_json()
    canvas = image.copy()
    scale = max(1.0, canvas.shape[1] / 1280)
    unmatched = [list(tower) for tower in expected.get("stacks", [])] if expected else None
    for tower in data.get("evidence", {}).get("towers", []):
        codes = [disc["code"] for disc in tower["discs"]]
        wrong = unmatched is not None and codes not in unmatched
        if unmatched is not None and not wrong:
            unmatched.remove(codes)
        for disc in tower["discs"]:
            centre = (int(round(disc["centre"][0])), int(round(disc["centre"][1])))
            colour = WRONG_BGR if wrong else SURE_BGR if disc["confidence"] >= OVERLAY_DOUBT else DOUBT_BGR
            cv2.circle(canvas, centre, int(round(disc["radius"])), colour, max(1, int(scale)) * (3 if wrong else 1),
                       cv2.LINE_AA)
        if tower["discs"]:
            bottom = tower["discs"][0]
            label = " ".join(d["code"] for d in tower["discs"])
            origin = (int(bottom["centre"][0] - bottom["radius"]), int(bottom["centre"][1] + bottom["radius"] + 16 * scale))
            _label(canvas, label, origin, scale)
    _label(canvas, f"confidence {data.get('confidence', 0.0):.2f}", (10, int(24 * scale)), scale)
    return canvas


def _label(canvas: np.ndarray, text: str, origin: tuple[int, int], scale: float) -> None:
    """White text with a dark outline, readable on any board."""
    font, size = cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale
    cv2.putText(canvas, text, origin, font, size, (0, 0, 0), int(3 * scale), cv2.LINE_AA)
    cv2.putText(canvas, text, origin, font, size, TEXT_BGR, max(1, int(scale)), cv2.LINE_AA)
