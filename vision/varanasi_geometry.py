"""Geometry of Varanasi discs in a frame: the reduced work frame, its colour edges and their noise
threshold, the scale across the view, and what a rim search takes and gives.

Everything here works on a reduced copy of the frame (`WORK_SCALE`) for speed; callers pass and
receive full-resolution pixel coordinates through `to_work` / `to_full`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from vision import _varanasi_edges
from vision.varanasi_params import EDGE_FLOOR, EDGE_NOISE_FACTOR, NOISE_SAMPLING, RADIAL_ALIGNMENT, WORK_SCALE


@dataclass(frozen=True)
class DarkLine:
    """How a rim is judged as a thin dark line: darker by `depth` (lightness) than both sides, with
    its outer side on a pixel whose label (in `labels`, over the edge field) `allowed` (indexed
    by label) accepts: on the disc it rests on, not on the board or a disc lower down."""

    depth: float
    labels: np.ndarray
    allowed: np.ndarray


@dataclass(frozen=True)
class PixelSearch:
    """Where a dark-line search whose grid shows no line tries every whole pixel off its grid:
    within `reach` of its centre, and only when some grid point already sees `least` of its judged
    directions dark (before the run rule). A line a pixel wide, seen from a grid point a pixel off
    its centre, still lies within the band over much of its arc; the runs it breaks into are what
    the grid misses."""

    reach: float
    least: float


@dataclass(frozen=True)
class EdgeField:
    """Gradient of the strongest Lab channel at each pixel of the reduced frame."""

    gx: np.ndarray
    gy: np.ndarray
    magnitude: np.ndarray
    threshold: float
    lab_bytes: np.ndarray  # Lab as OpenCV gave it, 8 bits per channel

    @property
    def shape(self) -> tuple[int, int]:
        return self.magnitude.shape

    @cached_property
    def lab(self) -> np.ndarray:
        """Lab in float32, made when asked: a tower crop's is read only by dark-line tests."""
        return self.lab_bytes.astype(np.float32)

    @cached_property
    def lightness(self) -> np.ndarray:
        """Flat: the L plane in 16 bits (dark-line tests read it many times per field and add
        three of its values, at most 765: half the bytes of float32 to gather and add)."""
        return self.lab_bytes[..., 0].astype(np.uint16).reshape(-1)

    def rim_floor(self, strictness: float) -> np.ndarray:
        """Flat: the least radial gradient a rim test of `strictness` accepts at each pixel, once
        per field and strictness: RADIAL_ALIGNMENT of the gradient there and more than
        `strictness` times the threshold (in float32, as the gradients are compared)."""
        if strictness not in self._rim_floors:
            above = np.nextafter(np.float32(strictness * self.threshold), np.float32(np.inf))
            self._rim_floors[strictness] = np.maximum(RADIAL_ALIGNMENT * self.magnitude.reshape(-1), above)
        return self._rim_floors[strictness]

    @cached_property
    def _rim_floors(self) -> dict:
        return {}


def to_work(value):
    return np.asarray(value, dtype=float) * WORK_SCALE


def to_full(value):
    return np.asarray(value, dtype=float) / WORK_SCALE


def reduce(image_bgr: np.ndarray) -> np.ndarray:
    height, width = image_bgr.shape[:2]
    size = (max(1, round(width * WORK_SCALE)), max(1, round(height * WORK_SCALE)))
    return cv2.resize(image_bgr, size, interpolation=cv2.INTER_AREA)


def edge_field(image_bgr: np.ndarray, threshold: float | None = None) -> EdgeField:
    """Colour edges (not just brightness ones: a red disc on a green one can match in lightness).

    Without a threshold it is set from this image's own median gradient (its noise).
    """
    lab_bytes = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB)
    best_gx, best_gy, magnitude = edge_planes(lab_bytes)
    if threshold is None:
        threshold = _noise_threshold(magnitude[::NOISE_SAMPLING, ::NOISE_SAMPLING])
    return EdgeField(best_gx, best_gy, magnitude, threshold, lab_bytes)


def edge_planes(lab_bytes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gx, gy, magnitude), float32: at each pixel the 3x3 Sobel gradient of the Lab channel
    whose gradient is strongest (the first of equals, L before a before b) and its size, OpenCV's
    default border (reflected about the edge pixel) at the image's edges.

    Compiled (vision/varanasi_edges.c): one pass over the bytes, where OpenCV's split, six Sobels,
    three magnitudes and the masked copies between them cost several times more on a tower's crop.
    The Sobels are whole numbers, so these are OpenCV's bits; magnitudes are correctly rounded
    square roots (OpenCV's magnitude, through Intel's IPP, may be a last bit off)."""
    height, width = lab_bytes.shape[:2]
    lab_bytes = np.ascontiguousarray(lab_bytes)
    gx, gy, magnitude = (np.empty((height, width), dtype=np.float32) for _ in range(3))
    _varanasi_edges.edge_planes(lab_bytes, width, height, gx, gy, magnitude)
    return gx, gy, magnitude


def _noise_threshold(sampled_magnitudes: np.ndarray) -> float:
    """The edge threshold from gradient magnitudes on every NOISE_SAMPLING-th pixel each way:
    plenty for a median, at a fraction of the cost."""
    return max(EDGE_FLOOR, EDGE_NOISE_FACTOR * float(median_of_many(sampled_magnitudes)))


def median_of_many(values: np.ndarray) -> np.float32:
    """`np.median` of float32 values, by one partition: `np.median` asks for both middle order
    statistics (a second selection), where the lower one is the largest value below the upper
    (0.25 to 0.17 ms on a 640x480 frame's 19 200 samples). The two are averaged in float32, as
    `np.median` does."""
    values = values.ravel()
    middle = len(values) // 2
    parted = np.partition(values, middle)
    if len(values) % 2:
        return parted[middle]
    return (parted[:middle].max() + parted[middle]) / np.float32(2)


def full_resolution_threshold(image_bgr: np.ndarray) -> float:
    """Edge threshold for full-resolution crops, from the noise of a strip across the frame
    (a crop around a tower is all edges, so its own median would say nothing about noise)."""
    height = image_bgr.shape[0]
    middle = height // 2
    strip = image_bgr[max(0, middle - 32): middle + 32]
    # Only the median's sample is needed (every NOISE_SAMPLING-th pixel each way, as in
    # `edge_field`): each sampled row is converted and differentiated with the rows either side
    # (reflected at the strip's ends, as OpenCV's border is), a quarter fewer rows, and only the
    # magnitudes of the sampled pixels are taken. OpenCV's magnitude can round the last bit of a
    # value differently with the arrays it is given (even with their place in memory), so the
    # threshold may differ from the whole strip's in its last bit (about 1% of the bench photos
    # and crops of them tried).
    rows = np.arange(0, len(strip), NOISE_SAMPLING)
    last = len(strip) - 1
    around = np.stack([np.abs(rows - 1), rows, last - np.abs(last - rows - 1)], axis=1)
    bands = cv2.cvtColor(strip[np.clip(around, 0, last).ravel()], cv2.COLOR_BGR2LAB)
    magnitude = None
    for plane in cv2.split(bands):
        plane = plane.astype(np.float32)
        # The middle row of each band of three, where its Sobel is the strip's.
        gx = np.ascontiguousarray(cv2.Sobel(plane, cv2.CV_32F, 1, 0, ksize=3)[1::3, ::NOISE_SAMPLING])
        gy = np.ascontiguousarray(cv2.Sobel(plane, cv2.CV_32F, 0, 1, ksize=3)[1::3, ::NOISE_SAMPLING])
        strength = cv2.magnitude(gx, gy)
        magnitude = strength if magnitude is None else cv2.max(magnitude, strength)
    return _noise_threshold(magnitude)


@dataclass(frozen=True)
class ScaleField:
    """Pixels per millimetre on the table plane, varying linearly across a tilted camera's view.

    `px_per_mm(x, y) = a + b * x + c * y` in full-resolution pixels.
    """

    a: float
    b: float = 0.0
    c: float = 0.0

    @classmethod
    def fit(cls, centres: np.ndarray, px_per_mm: np.ndarray) -> "ScaleField":
        """Least-squares plane; fewer than six samples only give a constant."""
        centres = np.asarray(centres, dtype=float)
        px_per_mm = np.asarray(px_per_mm, dtype=float)
        if len(px_per_mm) < 6:
            return cls(float(np.median(px_per_mm)))
        design = np.column_stack([np.ones(len(centres)), centres])
        a, b, c = np.linalg.lstsq(design, px_per_mm, rcond=None)[0]
        return cls(float(a), float(b), float(c))

    def at(self, x, y):
        return self.a + self.b * np.asarray(x, dtype=float) + self.c * np.asarray(y, dtype=float)

    def to_json(self) -> list[float]:
        return [round(self.a, 6), round(self.b, 9), round(self.c, 9)]
