"""Drawing what Wari recognition read on top of the camera frame (for the web page and for debugging)."""
from __future__ import annotations

import cv2
import numpy as np

from vision.wari import WariObservation

_SURE = (80, 220, 80)  # BGR: the reading holds at least this share of its region's probability
_UNSURE = (0, 170, 255)
_WRONG = (40, 40, 230)  # a count off the expected position's
_SURE_SHARE = 0.9
# A count is written this tall against its region's outline (its narrow side), so that it reads on a phone, where the
# live view is a fraction of the camera's width.
_LABEL_HEIGHT_SHARE = 0.45


def draw_overlay(image: np.ndarray, observation: WariObservation, expected: dict | None = None) -> np.ndarray:
    """A copy of the frame with every pit and store outlined and labelled with its most likely count.

    Regions whose reading is uncertain are drawn in orange with a question mark. Given the
    `expected` position (JSON), regions read otherwise are drawn in red, thicker, with the count
    expected under the one read ("should 3").
    """
    canvas = image.copy()
    geometry = observation.geometry
    scale = canvas.shape[1] / geometry.image_size[0]
    thickness = max(1, round(2 * scale))
    should = list(expected.get("pits", [])) + list(expected.get("stores", [])) if expected else []
    for region, distribution in enumerate(observation.regions):
        count = max(distribution, key=distribution.get)
        sure = distribution[count] >= _SURE_SHARE
        wrong = region < len(should) and should[region] != count
        colour = _WRONG if wrong else _SURE if sure else _UNSURE
        outline = np.round(geometry.outline_in_image(region, scale)).astype(np.int32)
        cv2.polylines(canvas, [outline], True, colour, thickness * (3 if wrong else 1), cv2.LINE_AA)
        label = str(count) if sure or wrong else f"{count}?"
        centre = geometry.to_image(np.array([geometry.centre_in_board(region)]), scale)[0]
        span = outline.max(axis=0) - outline.min(axis=0)
        _label(canvas, label, centre, colour, scale, float(span.min()))
        if wrong:
            below = centre + np.array([0.0, 0.45 * float(span.min())])
            _label(canvas, f"should {should[region]}", below, colour, scale, 0.6 * float(span.min()))
    _label(canvas, f"confidence {observation.confidence:.2f}", np.array([140, 30]) * scale, (255, 255, 255), scale)
    return canvas


def _label(canvas: np.ndarray, text: str, centre: np.ndarray, colour, scale: float,
           height_px: float | None = None) -> None:
    """Text centred on a point, with a dark outline so it reads on wood and on seeds alike; as tall
    as a share of `height_px` when given."""
    font_scale = 1.0 * scale
    if height_px:
        digit_height = cv2.getTextSize("0", cv2.FONT_HERSHEY_SIMPLEX, 1.0, 1)[0][1]
        font_scale = max(font_scale, _LABEL_HEIGHT_SHARE * height_px / digit_height)
    weight = max(1, round(2 * font_scale))
    (width, height), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, weight)
    origin = (int(centre[0] - width / 2), int(centre[1] + height / 2))
    cv2.putText(canvas, text, origin, cv2.FONT_HERSHEY_SIMPLEX, font_scale, (0, 0, 0), weight + 3, cv2.LINE_AA)
    cv2.putText(canvas, text, origin, cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, weight, cv2.LINE_AA)
