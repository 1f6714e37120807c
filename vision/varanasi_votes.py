"""Centre voting for Varanasi discs: each strong edge votes for the centres of the circles of
each calibrated radius through it, and the vote peaks are the towers' candidates.
"""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from vision import _varanasi_votes
from vision.varanasi_geometry import EdgeField, ScaleField, to_full, to_work
from vision.varanasi_params import VOTE_BLUR_SIZE, VOTE_WEIGHT


def radius_maps(shape: tuple[int, int], scale: "ScaleField", radii_mm: tuple[float, ...]) -> np.ndarray:
    """(sizes, H, W): expected radius (work pixels) of a flat disc of each size centred at each
    pixel of the reduced frame. Cached: a camera's frames all have one shape and one profile."""
    return _radius_maps(tuple(shape), scale, tuple(radii_mm))


@lru_cache(maxsize=4)
def _radius_maps(shape, scale, radii_mm) -> np.ndarray:
    height, width = shape
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    px_per_mm = scale.at(to_full(xs), to_full(ys))
    # Stored pixel by pixel (the sizes' radii of a pixel side by side) and seen as (sizes, H, W):
    # votes gather every size's radius at the strong pixels, one memory row per pixel instead
    # of one in each of four planes. The same float32 values either way.
    by_pixel = np.empty((height, width, len(radii_mm)), dtype=np.float32)
    for plane, r in enumerate(radii_mm):
        by_pixel[..., plane] = to_work(px_per_mm * r)
    return by_pixel.transpose(2, 0, 1)


def centre_votes(edges: EdgeField, radii: np.ndarray) -> np.ndarray:
    """Hough votes for circle centres, one plane per radius map.

    `radii` is (n, H, W): the expected radius (work pixels) of a circle centred near each pixel.
    Each strong edge pixel votes on both sides along its gradient, since a disc may be lighter or
    darker than what surrounds it. Planes are divided by the circumference so that a full rim
    scores about the same whatever the size.
    """
    votes = np.empty(radii.shape, dtype=np.float32)
    for plane, counts in enumerate(smoothed_vote_planes(edges, radii)):
        np.divide(counts, radii[plane], out=votes[plane])
    votes /= VOTE_WEIGHT  # per unit of circumference
    return votes


def centre_vote_peaks(edges: EdgeField, radii: np.ndarray, bar: float) -> list[tuple[float, int, int, float]]:
    """(votes, x, y, radius) of each local maximum (over its 5x5 neighbourhood, clipped to the
    frame) over `bar` of a plane of `centre_votes`: the same values, normalised only where the
    bar can be passed (whole planes cost more to divide than to smooth). Found by one compiled
    pass a plane (vision/varanasi_votes.c), as Python numbers: the recogniser compares peaks one
    by one, which costs several times more on numpy's scalars."""
    height, width = edges.shape
    by_pixel = np.ascontiguousarray(radii.transpose(1, 2, 0))  # as stored (see `_radius_maps`)
    peaks = []
    for plane, counts in enumerate(smoothed_vote_planes(edges, radii)):
        # Over the bar only where the counts pass it at the plane's smallest radius; slightly
        # under that bound, so that no rounding can leave a peak out. The bar is compared in
        # float32 (OpenCV compared a float32 plane with it in float32).
        least = 0.999 * bar * VOTE_WEIGHT * _least_radii(radii)[plane]
        peaks += _varanasi_votes.plane_peaks(counts, width, height, by_pixel, len(radii), plane, least, bar,
                                             VOTE_WEIGHT)
    return peaks


def _least_radii(radii: np.ndarray) -> list[float]:
    """The smallest radius of each radius map, kept with the (cached) maps they come from."""
    kept = _LEAST_RADII.get(id(radii))
    if kept is None or kept[0] is not radii:
        _LEAST_RADII.clear()  # one camera's maps at a time, as a rule
        kept = _LEAST_RADII[id(radii)] = (radii, [float(radius_map.min()) for radius_map in radii])
    return kept[1]


_LEAST_RADII: dict[int, tuple[np.ndarray, list[float]]] = {}


def points_over(plane: np.ndarray, bar: float) -> np.ndarray:
    """Flat indices, in row order, of the pixels of a float32 plane over `bar` (compared in
    float32, as OpenCV's `compare` of such a plane with a number does). numpy lists them from
    its boolean mask several times faster than OpenCV's `findNonZero` from an 8-bit one, whose
    pixel-by-pixel search cost 0.26 ms on a frame's strong edge pixels (8% of a 640x480 frame,
    numpy 0.09)."""
    return np.flatnonzero(plane > np.float32(bar))


def smoothed_vote_planes(edges: EdgeField, radii: np.ndarray):
    """`centre_votes` before they are divided by the circumference, plane by plane (H x W
    float32, in one buffer, overwritten by the next plane): each is counted, smoothed and used
    while it is still in the processor's cache, which four whole planes (5 MB) are not.

    Each strong edge pixel (over the threshold) steps its plane's radius along its gradient
    (float32, the gradient divided by its magnitude), both ways, to whole pixels (half to even);
    the steps landing in the frame are counted. Counted by a compiled pass
    (vision/varanasi_votes.c), where numpy's steps and OpenCV's histogram took a dozen calls on
    tens of thousands of pixels a plane."""
    height, width = edges.shape
    votes = np.empty((height, width), dtype=np.float32)
    flat = points_over(edges.magnitude, edges.threshold)
    # Gathered by flat index (`take`): faster than indexing by rows and columns.
    norm = edges.magnitude.take(flat)
    ux, uy = edges.gx.take(flat) / norm, edges.gy.take(flat) / norm
    # The maps as they are stored, pixel by pixel (see `_radius_maps`; a copy otherwise); the
    # kernel reads flat indices as 64-bit (numpy's own are 32-bit on a 32-bit system).
    by_pixel = np.ascontiguousarray(radii.transpose(1, 2, 0))
    strong = flat.astype(np.int64, copy=False)
    for plane in range(len(radii)):
        _varanasi_votes.count_votes(ux, uy, strong, by_pixel, len(radii), plane, width, height, votes)
        cv2.GaussianBlur(votes, (VOTE_BLUR_SIZE, VOTE_BLUR_SIZE), 1.0, dst=votes)
        yield votes
