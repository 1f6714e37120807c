"""Pixel helpers of Varanasi recognition: pixel labels, rings, circle windows, components."""
from __future__ import annotations

import math

import cv2
import numpy as np

from vision import _varanasi_labels, _varanasi_rings
from vision.varanasi_colour import moments_of
from vision.varanasi_params import (
    CAMERA_HEIGHT_MM,
    FACE_NOISE_SAMPLING,
    LABEL_SIGMA,
    LABEL_SMOOTHING,
    LOCAL_BOARD_FLOOR,
    LOCAL_BOARD_SHARE,
    LOCAL_BORDER,
    MIN_RING_PIXELS,
    TRIM_FRACTION,
    WORK_SCALE,
)
from vision.varanasi_pieces import PieceSet
from vision.varanasi_profile import ParsedProfile, chromaticity
from vision.varanasi_scene import board_terms, board_terms_of


def masked_median(lab_bytes: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """The median of each channel over the pixels of a 0/1 mask (as `np.median` gives it), from the
    channels' histograms: gathering the pixels first costs several times more. None for fewer
    than MIN_RING_PIXELS pixels."""
    count = cv2.countNonZero(mask)
    if count < MIN_RING_PIXELS:
        return None
    middle = [(count - 1) // 2, count // 2]  # the middle two of the sorted values (one if odd)
    return np.array([
        np.searchsorted(np.cumsum(cv2.calcHist([lab_bytes], [channel], mask, [256], [0, 256]).ravel()), middle,
                        side="right").mean()
        for channel in range(3)
    ])


def chromaticity_noise(lab_bytes: np.ndarray, mask: np.ndarray) -> float:
    """The pixel noise in chromaticity over a 0/1 mask, as a robust standard deviation."""
    # Every FACE_NOISE_SAMPLING-th pixel of the mask, in row order, gathered by its flat index (a
    # boolean mask over the crop's three channels costs several times more).
    sample = np.flatnonzero(mask)[::FACE_NOISE_SAMPLING]
    values = chromaticity(lab_bytes.reshape(-1, 3).take(sample, axis=0).astype(np.float64))
    spread = np.abs(values - np.median(values, axis=0)).sum(axis=1)
    return 1.4826 * float(np.median(spread))


def level_growth(level: int, pieces: PieceSet) -> float:
    """Apparent enlargement of a disc resting `level` discs above the table."""
    return 1.0 / (1.0 - level * pieces.thickness_mm / CAMERA_HEIGHT_MM)


def pixel_labels(lab: np.ndarray, frame: ParsedProfile) -> np.ndarray:
    """Per pixel: index of the nearest disc colour, BOARD, or OTHER (disc sides, shadows, lines).

    Labels are taken on a lightly smoothed copy, against the board as it looks right around this
    tower: a white disc differs from a cream board by a few Lab units only, which pixel noise
    hides but a local average shows. The most likely label (the largest Gaussian log norm less
    half the squared distance, the first of equals) wins, unless every distance is beyond
    LABEL_SIGMA: then OTHER.

    Compiled (vision/varanasi_labels.c): the distances and the choice in one pass over the
    pixels, where numpy took some thirty calls a crop (its matrix products' bits included)."""
    smooth = cv2.blur(lab, (LABEL_SMOOTHING, LABEL_SMOOTHING))
    board_mean, board_whitening, board_log_norm = _local_board(smooth, frame.board)
    whitening, centres = frame.colours.float32_terms
    labels = np.empty(lab.shape[:2], dtype=np.uint8)
    # Distances are taken in float32 (a frame's Lab comes so; a crop of bytes is smoothed first).
    _varanasi_labels.pixel_labels(np.ascontiguousarray(smooth, dtype=np.float32), labels.size, whitening, centres, frame.colours.float64_log_norms,
                                  np.ascontiguousarray(board_mean), np.ascontiguousarray(board_whitening),
                                  float(board_log_norm), LABEL_SIGMA ** 2, labels)
    return labels


def _local_board(smooth_lab: np.ndarray, board: dict):
    """Board colour terms (see `board_terms`) from the crop's border (LOCAL_BORDER pixels wide)
    where it looks like the calibrated board (within LABEL_SIGMA); the calibrated board's when
    too little of the border does (other towers close by).

    The border's board-like pixels, trimmed as `colour_moments` trims them, come from one compiled
    pass (vision/varanasi_labels.c): the distances as `board_distance2` takes them (float32, its
    matrix product's bits), the trimming's quantiles in `linear_quantiles`' arithmetic."""
    height, width = smooth_lab.shape[:2]
    terms = board_terms(board)
    mean, whitening, _ = terms
    kept = np.empty((2 * LOCAL_BORDER * (width + height), 3))
    border, board_like, count = _varanasi_labels.local_board_pixels(
        np.ascontiguousarray(smooth_lab, dtype=np.float32), width, height, LOCAL_BORDER, mean,
        np.ascontiguousarray(whitening), LABEL_SIGMA ** 2, TRIM_FRACTION, kept)
    if board_like < LOCAL_BOARD_SHARE * border:
        return terms
    # Used at once: neither rounded into a readable model nor cached.
    return board_terms_of(*moments_of(kept[:count], LOCAL_BOARD_FLOOR))


def rays_inside(xs: np.ndarray, ys: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Whether each ray sampled at pixels (xs, ys), a ray along the last axis, lies within an
    image of `shape`: a ray is straight, so it does when both its ends do."""
    ends_x, ends_y = xs[..., [0, -1]], ys[..., [0, -1]]
    return ((ends_x >= 0) & (ends_y >= 0) & (ends_x < shape[1]) & (ends_y < shape[0])).all(axis=-1)


def median_of(values: np.ndarray) -> float:
    """`np.median` of a short 1-d array, by sorting: a fraction of its cost on a few dozen values."""
    ordered = np.sort(values)
    return 0.5 * float(ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2])


def circle_through(points: np.ndarray) -> np.ndarray:
    """(x, y, radius) of the circle fitting `points` (n, 2) best in the algebraic least-squares
    sense (Kåsa's fit). Taken about the points' mean, the offset term is the mean of the squared
    distances and the centre solves 2 x 2 normal equations, written out: a general solver costs
    more than the sums, and the fit runs a few times per disc of the colour chain."""
    count = len(points)
    # Means as numpy's `mean` takes them (a sum divided by the count), without its overhead.
    mean = np.add.reduce(points, axis=0) / count
    u, v = (points - mean).T
    squares = u * u + v * v
    uu, uv, vv, uz, vz = u @ u, u @ v, v @ v, u @ squares, v @ squares
    determinant = uu * vv - uv * uv
    cx, cy = (uz * vv - vz * uv) / (2 * determinant), (vz * uu - uz * uv) / (2 * determinant)
    return np.array([cx + mean[0], cy + mean[1], math.sqrt(cx * cx + cy * cy + float(np.add.reduce(squares) / count))])


def size_spacing(radii: dict) -> float:
    """The least difference between the radii of two sizes (px): a size step."""
    ordered = sorted(radii.values())
    return min(b - a for a, b in zip(ordered, ordered[1:]))


def to_reduced(point) -> np.ndarray:
    """Full-resolution crop coordinates of a point -> reduced-label coordinates (pixel centres
    at whole numbers on both)."""
    return (np.asarray(point, dtype=float) - 0.5) * WORK_SCALE


def to_full_pixel(index):
    """Reduced-label pixel index -> the full-resolution coordinates of its centre (it covers two
    full-resolution pixels each way)."""
    return index / WORK_SCALE + 0.5


def ring_colour(labels, colour_count: int, centre, radius: float, inner: float = 1.0, outer: float = 4.0,
                 exclude: int | None = None) -> int | None:
    """Most common colour label (not board, not other, not `exclude`) between `outer` and `inner`
    px inside a circle, or None when there is none."""
    return most_common(ring_counts(labels, colour_count, centre, radius, inner, outer), exclude)


def most_common(counts: np.ndarray, exclude: int | None = None) -> int | None:
    """The colour label with most pixels in `counts` (per colour label), `exclude` left out, or
    None when there is none."""
    if exclude is not None and exclude < len(counts):
        counts = counts.copy()
        counts[exclude] = 0
    return int(counts.argmax()) if counts.any() else None


def ring_counts(labels, colour_count: int, centre, radius: float, inner: float = 1.0,
                 outer: float = 4.0) -> np.ndarray:
    """How many pixels of each colour label (float32, labels past `colour_count` left out) lie
    between `outer` and `inner` px inside a circle (circle tests in float64 as numpy takes them,
    pixel centres at whole numbers). Counted by one compiled pass over the circle's window
    (vision/varanasi_rings.c), where masks and a masked histogram took some ten calls."""
    counts = np.empty(colour_count, dtype=np.float32)
    height, width = labels.shape
    limit = radius - inner
    _varanasi_rings.ring_counts(np.ascontiguousarray(labels), width, height, float(centre[0]), float(centre[1]),
                                float(limit), float(limit) ** 2, float(radius - outer) ** 2, counts)
    return counts


def circle_window(shape: tuple[int, ...], centre, radius: float):
    """The image box holding a circle (clipped to the image) as slices, with its pixel
    coordinates as broadcastable column and row: circle masks need no more than that box."""
    # math's floor and ceil: the same whole numbers as numpy's, without its overhead on one value.
    y0, y1 = max(0, math.floor(centre[1] - radius)), min(shape[0], math.ceil(centre[1] + radius) + 1)
    x0, x1 = max(0, math.floor(centre[0] - radius)), min(shape[1], math.ceil(centre[0] + radius) + 1)
    y1, x1 = max(y0, y1), max(x0, x1)
    return (slice(y0, y1), slice(x0, x1)), *_pixel_grid(y0, y1, x0, x1)


def _pixel_grid(y0: int, y1: int, x0: int, x1: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column coordinates of a box, broadcastable (numpy's ogrid, without its overhead,
    which costs more than the masks built from it on boxes this small)."""
    return np.arange(y0, y1)[:, None], np.arange(x0, x1)[None, :]


def component_near(mask: np.ndarray, point, reach: float):
    """The biggest connected part of `mask` (0 and 1 bytes) coming within `reach` of `point`, or None."""
    # The same labelling as with OpenCV's statistics, which cost several times the labelling;
    # only the areas of the parts near the point are needed.
    count, components = cv2.connectedComponents(mask, connectivity=8)
    if count <= 1:
        return None
    height, width = mask.shape
    x0, x1 = max(0, int(point[0] - reach)), min(width, int(point[0] + reach) + 1)
    y0, y1 = max(0, int(point[1] - reach)), min(height, int(point[1] + reach) + 1)
    yy, xx = _pixel_grid(y0, y1, x0, x1)
    near = (xx - point[0]) ** 2 + (yy - point[1]) ** 2 <= reach * reach
    ids = np.flatnonzero(np.bincount(components[y0:y1, x0:x1][near], minlength=count)[1:]) + 1
    if len(ids) == 0:
        return None
    if count == 2:
        return mask  # the mask's one part (its 0 and 1 bytes, as the comparison below would give)
    # Areas of those parts only (mostly one or two): counting every part costs several times more.
    best = ids[0] if len(ids) == 1 else ids[np.argmax([np.count_nonzero(components == i) for i in ids])]
    # The first of equal areas, as ids ascend; 0 and 1 bytes as a view of the booleans (no copy).
    return (components == best).view(np.uint8)


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """The mask with every region it encloses filled (a same-coloured disc higher up)."""
    outside = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    # The background reached from the border is marked 2: what it does not reach is the mask or
    # a hole in it (0 and 1 bytes, a view of the booleans).
    cv2.floodFill(outside, None, (0, 0), 2)
    return (outside[1:-1, 1:-1] != 2).view(np.uint8)
