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
    bar can be passed (whole planes cost more to divide than to smooth)."""
    width = edges.shape[1]
    peaks = []
    for plane, (radius_map, counts) in enumerate(zip(radii, smoothed_vote_planes(edges, radii))):
        # Over the bar only where the counts pass it at the plane's smallest radius; slightly
        # under that bound, so that no rounding can leave a peak out.
        least = 0.999 * bar * VOTE_WEIGHT * _least_radii(radii)[plane]
        xs, ys = columns_and_rows(points_over(counts, least), width)
        if len(xs) == 0:
            continue
        radius = radius_map[ys, xs]
        votes = counts[ys, xs] / radius
        votes /= VOTE_WEIGHT
        # Over the bar (OpenCV compared a float32 plane with it in float32) and a local maximum:
        # first against the 8 nearest neighbours, which most candidates (the slopes around a
        # peak, a few hundred a plane at the weak bar) fail, then the few left against the rest
        # of their 5x5 neighbourhood. Each is one selection on all the points left: each numpy
        # call on a few dozen points costs more than its arithmetic.
        kept = (votes > np.float32(bar)) & (votes >= neighbourhood_votes(counts, radius_map, ys, xs, _NEAREST).max(axis=1))
        votes, xs, ys, radius = votes[kept], xs[kept], ys[kept], radius[kept]
        kept = votes >= neighbourhood_votes(counts, radius_map, ys, xs, _OUTER_RING).max(axis=1)
        # As Python numbers (the same values): the recogniser compares peaks one by one, which
        # costs several times more on numpy's scalars.
        peaks += zip(votes[kept].tolist(), xs[kept].tolist(), ys[kept].tolist(), radius[kept].tolist())
    return peaks


def neighbourhood_votes(counts, radius_map, ys, xs, offsets) -> np.ndarray:
    """(points, offsets) `centre_votes` of one plane at each (dy, dx) of `offsets` from each
    point, clipped to the frame; the same float32 values as the point's own votes."""
    height, width = counts.shape
    around_y = np.clip(ys[:, None] + offsets[:, 0], 0, height - 1)
    around_x = np.clip(xs[:, None] + offsets[:, 1], 0, width - 1)
    around = counts[around_y, around_x] / radius_map[around_y, around_x]
    around /= VOTE_WEIGHT
    return around


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
    numpy 0.09) and 0.13 ms on a vote plane over its bar (peaks only, numpy 0.04)."""
    return np.flatnonzero(plane > np.float32(bar))


def columns_and_rows(flat: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns and rows of flat indices into an image `width` pixels wide (one division: a
    remainder costs as much again)."""
    rows = flat // width
    return flat - rows * width, rows


# (dy, dx) of a vote peak's 5x5 neighbourhood, split into its 8 nearest pixels and the 16 around them.
_NEAREST = np.array([(dy, dx) for dy in range(-1, 2) for dx in range(-1, 2) if dy or dx])
_OUTER_RING = np.array([(dy, dx) for dy in range(-2, 3) for dx in range(-2, 3) if max(abs(dy), abs(dx)) == 2])


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
