"""The motion gate: say when the table has settled and no hand is over it.

Players' hands cover the board while they move, so a position is read only from a picture that
has been still for a moment and shows no hand. Two cheap tests on a small colour copy of each
frame, a pixel counting as changed when any colour channel changed (a disc moved onto one of
another hue but the same brightness changes no grey level):
- motion: the fraction of pixels that changed since the previous frame;
- hand: a region that changed since the last settled picture and reaches the edge of the frame.
  Arms come in from outside the picture, while pieces stay on the board inside it, so a change
  touching the border is an arm (even one held perfectly still), and a change inside is a move.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

MOVING, HAND, STABLE = "moving", "hand", "stable"

WORK_WIDTH = 160  # pixels: enough to see an arm, cheap enough for every frame on a Pi
BLUR = 5  # kernel on the small picture, to ignore sensor noise and JPEG blocks
PIXEL_THRESHOLD = 18  # levels of a colour channel: a pixel "changed" above this (noise is a few levels)
MOTION_FRACTION = 0.003  # of the picture changing between frames = something moves
STILL_SECONDS = 0.6  # still this long before reading: the hand has left and pieces stopped rocking
MIN_HAND_FRACTION = 0.005  # of the picture: smaller border changes are noise, not an arm
BOARD_CHANGE_FRACTION = 0.0005  # of the picture differing from the last read one: the board changed
RELIGHT_FRACTION = 0.6  # of the picture changed at once while still: the light changed, not the board
HAND_PATIENCE_SECONDS = 20.0  # a still "hand" this long is something left at the edge, not a hand


@dataclass(frozen=True)
class GateReading:
    """`status` is moving / hand / stable; `settled` is True on the one frame to read."""

    status: str
    settled: bool = False
    motion: float = 0.0


def small_picture(frame: np.ndarray) -> np.ndarray:
    """The frame WORK_WIDTH pixels wide, blurred, in colour (a grey frame is read as it is)."""
    height, width = frame.shape[:2]
    size = (WORK_WIDTH, max(1, round(height * WORK_WIDTH / width)))
    return cv2.GaussianBlur(cv2.resize(frame, size, interpolation=cv2.INTER_AREA), (BLUR, BLUR), 0)


def changed_mask(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1 where any channel changed by more than PIXEL_THRESHOLD."""
    difference = cv2.absdiff(a, b)
    if difference.ndim == 3:
        difference = difference.max(axis=2)
    return (difference > PIXEL_THRESHOLD).astype(np.uint8)


def touches_border_area(mask: np.ndarray) -> float:
    """Fraction of the picture covered by changed regions that reach the frame's edge."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    height, width = mask.shape
    area = 0
    for label in range(1, count):
        x, y, w, h, size = stats[label]
        if x == 0 or y == 0 or x + w == width or y + h == height:
            area += size
    return area / mask.size


class MotionGate:
    """Feed every frame with its time; read the position only when `settled` is True."""

    def __init__(self, still_seconds: float = STILL_SECONDS, hand_patience: float = HAND_PATIENCE_SECONDS):
        self.still_seconds = still_seconds
        self.hand_patience = hand_patience
        self._previous: np.ndarray | None = None
        self._reference: np.ndarray | None = None  # the last settled picture
        self._still_since: float | None = None
        self._settled = False  # the current still period has been read already

    def update(self, frame: np.ndarray, now: float) -> GateReading:
        small = small_picture(frame)
        previous, self._previous = self._previous, small
        motion = 1.0 if previous is None or previous.shape != small.shape else float(changed_mask(previous, small).mean())
        if motion > MOTION_FRACTION:
            self._still_since = None
            self._settled = False
            return GateReading(MOVING, motion=motion)
        if self._still_since is None:
            self._still_since = now
        still_for = now - self._still_since
        if self._reference is not None and self._reference.shape == small.shape:
            change = changed_mask(self._reference, small)
            relit = change.mean() > RELIGHT_FRACTION
            if not relit and touches_border_area(change) > MIN_HAND_FRACTION and still_for < self.hand_patience:
                self._settled = False
                return GateReading(HAND, motion=motion)
            if self._settled and change.mean() > BOARD_CHANGE_FRACTION:
                # The board changed with no motion seen: a hand too quick for the frame rate.
                self._settled = False
                self._still_since, still_for = now, 0.0
        if still_for < self.still_seconds:
            return GateReading(MOVING, motion=motion)
        if self._settled:
            return GateReading(STABLE, motion=motion)
        self._settled = True
        self._reference = small
        return GateReading(STABLE, settled=True, motion=motion)
