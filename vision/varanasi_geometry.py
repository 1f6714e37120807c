"""Circle measurement for Varanasi discs: colour edges, centre voting and rim coverage.

Everything here works on a reduced copy of the frame (`WORK_SCALE`) for speed; callers pass and
receive full-resolution pixel coordinates through `to_work` / `to_full`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import NamedTuple

import cv2
import numpy as np

from vision.varanasi_rims import score_rims

WORK_SCALE = 0.5
# At most 62: the compiled rim tests take a circle's directions as the bits of one int64.
RIM_ANGLES = 48
# An edge counts once its gradient is this many times the frame's median gradient, which on a
# mostly empty board is the sensor noise; a floor keeps a flat synthetic image from lighting up.
EDGE_NOISE_FACTOR = 4.0
EDGE_FLOOR = 12.0
# That median is taken on every this many pixels each way.
NOISE_SAMPLING = 4
RADIAL_ALIGNMENT = 0.85
# Rims of nested discs lie a few pixels apart, so a rim must be found within a pixel of its circle.
RIM_BAND_PX = 1.0
GRID_PX = 3.0
# A dark rim line must be darker than the faces this far (px) to either side of it.
VALLEY_SIDE_PX = 4.0
# A dark line is judged on the lightness of each direction averaged with its neighbours either
# way (a short arc: pixel noise falls by sqrt(3)), against its depth divided by VALLEY_ARC_EASING
# (3 ** 0.25: half the noise gain; the full sqrt(3) let face shading make ghosts on the plain
# bench), but never less than a whole grey level on average (a face of one grey level through a
# soft lens has a noise, and so a depth, of 0). A line 1-2 grey levels deep through a soft or
# resampling lens then shows. The mean spreads one dark speck over three directions, so a
# direction counts in runs of five there, not three.
VALLEY_ARC_EASING = 3.0 ** 0.25
VALLEY_LEAST_DEPTH = 2.0 / 3.0  # averages of whole grey levels step by a third
# A 3x3 Sobel answers a step of h with about 4h: an edge threshold over this is a step in
# lightness.
SOBEL_GAIN = 4.0
_ANGLES = np.linspace(0.0, 2.0 * np.pi, RIM_ANGLES, endpoint=False)
_COS = np.cos(_ANGLES)
_SIN = np.sin(_ANGLES)
# Centre votes are counted per unit of circumference, 2 pi r.
# Votes are smoothed by a Gaussian of sigma 1 px cut at 2 sigma (OpenCV's own size for it reaches
# 4 sigma, for about 5% of the weight at twice the cost).
VOTE_BLUR_SIZE = 5
VOTE_WEIGHT = 2.0 * np.pi
# Gradients are float32: float32 tables keep products from being widened to float64.
_COS32 = _COS.astype(np.float32)
_SIN32 = _SIN.astype(np.float32)


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
    # Sobels straight from the 8-bit planes: the same gradients as from float copies, which cost
    # more than the Sobels (OpenCV's magnitude of them may differ in its last bit, see the notes).
    planes = cv2.split(lab_bytes)
    # OpenCV's masked copies are many times faster than numpy's on frames this size.
    best_gx = cv2.Sobel(planes[0], cv2.CV_32F, 1, 0, ksize=3)
    best_gy = cv2.Sobel(planes[0], cv2.CV_32F, 0, 1, ksize=3)
    magnitude = cv2.magnitude(best_gx, best_gy)
    for plane in planes[1:]:
        gx = cv2.Sobel(plane, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(plane, cv2.CV_32F, 0, 1, ksize=3)
        strength = cv2.magnitude(gx, gy)
        stronger = cv2.compare(strength, magnitude, cv2.CMP_GT)
        cv2.copyTo(gx, stronger, best_gx)
        cv2.copyTo(gy, stronger, best_gy)
        cv2.max(magnitude, strength, magnitude)
    if threshold is None:
        threshold = _noise_threshold(magnitude[::NOISE_SAMPLING, ::NOISE_SAMPLING])
    return EdgeField(best_gx, best_gy, magnitude, threshold, lab_bytes)


def _noise_threshold(sampled_magnitudes: np.ndarray) -> float:
    """The edge threshold from gradient magnitudes on every NOISE_SAMPLING-th pixel each way:
    plenty for a median, at a fraction of the cost."""
    return max(EDGE_FLOOR, EDGE_NOISE_FACTOR * float(_median_of_many(sampled_magnitudes)))


def _median_of_many(values: np.ndarray) -> np.float32:
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
    for plane, counts in enumerate(_smoothed_vote_planes(edges, radii)):
        np.divide(counts, radii[plane], out=votes[plane])
    votes /= VOTE_WEIGHT  # per unit of circumference
    return votes


def centre_vote_peaks(edges: EdgeField, radii: np.ndarray, bar: float) -> list[tuple[float, int, int, float]]:
    """(votes, x, y, radius) of each local maximum (over its 5x5 neighbourhood, clipped to the
    frame) over `bar` of a plane of `centre_votes`: the same values, normalised only where the
    bar can be passed (whole planes cost more to divide than to smooth)."""
    width = edges.shape[1]
    peaks = []
    for plane, (radius_map, counts) in enumerate(zip(radii, _smoothed_vote_planes(edges, radii))):
        # Over the bar only where the counts pass it at the plane's smallest radius; slightly
        # under that bound, so that no rounding can leave a peak out.
        least = 0.999 * bar * VOTE_WEIGHT * _least_radii(radii)[plane]
        xs, ys = _columns_and_rows(_points_over(counts, least), width)
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
        kept = (votes > np.float32(bar)) & (votes >= _neighbourhood_votes(counts, radius_map, ys, xs, _NEAREST).max(axis=1))
        votes, xs, ys, radius = votes[kept], xs[kept], ys[kept], radius[kept]
        kept = votes >= _neighbourhood_votes(counts, radius_map, ys, xs, _OUTER_RING).max(axis=1)
        # As Python numbers (the same values): the recogniser compares peaks one by one, which
        # costs several times more on numpy's scalars.
        peaks += zip(votes[kept].tolist(), xs[kept].tolist(), ys[kept].tolist(), radius[kept].tolist())
    return peaks


def _neighbourhood_votes(counts, radius_map, ys, xs, offsets) -> np.ndarray:
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


def _points_over(plane: np.ndarray, bar: float) -> np.ndarray:
    """Flat indices, in row order, of the pixels of a float32 plane over `bar` (compared in
    float32, as OpenCV's `compare` of such a plane with a number does). numpy lists them from
    its boolean mask several times faster than OpenCV's `findNonZero` from an 8-bit one, whose
    pixel-by-pixel search cost 0.26 ms on a frame's strong edge pixels (8% of a 640x480 frame,
    numpy 0.09) and 0.13 ms on a vote plane over its bar (peaks only, numpy 0.04)."""
    return np.flatnonzero(plane > np.float32(bar))


def _columns_and_rows(flat: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns and rows of flat indices into an image `width` pixels wide (one division: a
    remainder costs as much again)."""
    rows = flat // width
    return flat - rows * width, rows


# (dy, dx) of a vote peak's 5x5 neighbourhood, split into its 8 nearest pixels and the 16 around them.
_NEAREST = np.array([(dy, dx) for dy in range(-1, 2) for dx in range(-1, 2) if dy or dx])
_OUTER_RING = np.array([(dy, dx) for dy in range(-2, 3) for dx in range(-2, 3) if max(abs(dy), abs(dx)) == 2])


def _smoothed_vote_planes(edges: EdgeField, radii: np.ndarray):
    """`centre_votes` before they are divided by the circumference, plane by plane (H x W
    float32, in one buffer, overwritten by the next plane): each is counted, smoothed and used
    while it is still in the processor's cache, which four whole planes (5 MB) are not."""
    height, width = edges.shape
    votes = np.empty((height, width), dtype=np.float32)
    flat = _points_over(edges.magnitude, edges.threshold)
    if len(flat) == 0:
        votes[:] = 0.0
        for _ in radii:
            yield votes
        return
    columns, rows = _columns_and_rows(flat, width)
    # Gathered by flat index (`take`): faster than indexing by rows and columns.
    norm = edges.magnitude.take(flat)
    ux = edges.gx.take(flat) / norm
    uy = edges.gy.take(flat) / norm
    ys, xs = rows.astype(np.float32), columns.astype(np.float32)
    count = len(rows)
    cx, cy = np.empty((2 * count, 1), dtype=np.float32), np.empty((2 * count, 1), dtype=np.float32)
    # Every plane's radii at the strong pixels in one gather (of one row per pixel, where the maps
    # are stored pixel by pixel, see `_radius_maps`; a copy first otherwise); the steps written
    # into one buffer per axis (the same float32 values as concatenating the two ways).
    for r in radii.transpose(1, 2, 0).reshape(-1, len(radii)).take(flat, axis=0).T:
        # Steps along the gradient, taken both ways, to whole pixels.
        step_x, step_y = r * ux, r * uy
        np.add(xs, step_x, out=cx[:count, 0])
        np.subtract(xs, step_x, out=cx[count:, 0])
        np.add(ys, step_y, out=cy[:count, 0])
        np.subtract(ys, step_y, out=cy[count:, 0])
        np.rint(cx, out=cx)
        np.rint(cy, out=cy)
        # OpenCV counts them straight into the plane (as float32, exact for counts), leaving out
        # those outside the frame, in a fraction of the time of numpy's counting and conversion.
        cv2.calcHist([cy, cx], [0, 1], None, [height, width], [0, height, 0, width], hist=votes)
        cv2.GaussianBlur(votes, (VOTE_BLUR_SIZE, VOTE_BLUR_SIZE), 1.0, dst=votes)
        yield votes


# Where each direction of a rim test is sampled, across the circle from inside out (added to
# its radius): the inner side, the band's inner edge, the circle, the band's outer edge, the
# outer side.
_ACROSS_RIM = np.array([-VALLEY_SIDE_PX, -RIM_BAND_PX, 0.0, RIM_BAND_PX, VALLEY_SIDE_PX])


def rim_scores(
    edges: EdgeField, centres: np.ndarray, radius: float, exclude=(), gap: float = 0.0,
    strictness: float = 1.0, valley: "DarkLine | None" = None, whole_circle: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """(coverage, sharpness) for each candidate centre (n, 2; rounded to whole pixels), the share of the rim showing
    a radial edge.

    A direction counts when, within a pixel of the radius, an edge above the threshold points
    along the radius. With `valley`, it counts instead when the rim is a thin dark line, darker
    than both sides a few pixels away, as where a disc rests on one of its own colour (its side
    and the crack below it), while a shadow is too wide for that; see `DarkLine`.

    Directions outside the frame, or within `gap` of the rim of a circle in `exclude` ((x, y, r)
    of known neighbours, whose own edges would answer), are left out; a circle with less than a
    third of its rim left to judge scores 0. With `whole_circle`, coverage is instead counted over
    every direction, those left out as misses (a rim shared with a neighbour is the neighbour's).
    Only runs of at least three neighbouring directions count (five for a dark line, judged on
    lightness averaged over three: see VALLEY_ARC_EASING): a rim is continuous, whereas texture
    gives scattered hits. `strictness` multiplies the edge
    threshold.

    Coverage saturates within a pixel or two of the true centre; sharpness, the mean edge
    strength exactly on the circle, peaks there and so breaks the tie.
    """
    return _rim_scores(edges, [(centres, radius)], _rims_to_exclude(exclude, gap), strictness, valley, whole_circle)


def rim_hits(edges: EdgeField, centre, radius: float, exclude=(), gap: float = 0.0, strictness: float = 1.0) -> np.ndarray:
    """The directions (RIM_ANGLES booleans) that count towards `rim_scores`' coverage of one circle."""
    return _rim_scores(edges, [(centre, radius)], _rims_to_exclude(exclude, gap), strictness, None, hits_only=True)[0]


def _rim_scores(
    edges: EdgeField, circles, known: "RimsToExclude", strictness: float, valley: "DarkLine | None",
    whole_circle: bool = False, scattered: bool = False, hits_only: bool = False,
) -> tuple[np.ndarray, ...]:
    """`rim_scores` of several groups of centres, (centres, radius) each, in one pass, their
    scores one after the other. The rims to exclude come as `_rims_to_exclude` made them. With
    `scattered`, a third array: the share of directions that pass before the run rule. With
    `hits_only`, instead the directions that count (n, RIM_ANGLES booleans)."""
    if len(circles) == 1:
        centres = _as_centres(circles[0][0])
    else:
        centres = np.concatenate([_as_centres(points) for points, _ in circles])
    counts = np.array([len(points) for points, _ in circles], dtype=np.int64)
    radii = np.array([radius for _, radius in circles], dtype=np.float64)
    height, width = edges.shape
    if valley is None:
        floor, lightness, labels, allowed, bar = edges.rim_floor(strictness), _NO_LIGHTNESS, _NO_LABELS, _NO_LABELS_ALLOWED, np.float32(0.0)
    else:
        floor, lightness, labels, allowed = _NO_FLOOR, edges.lightness, valley.labels.reshape(-1), valley.allowed
        bar = np.float32(max(valley.depth / VALLEY_ARC_EASING, VALLEY_LEAST_DEPTH))
    # Hits count in runs of five directions for a dark line (see VALLEY_ARC_EASING), of three for
    # a rim; the floor's radial alignment keeps a rim crossed at a slant (another disc's) out.
    counted, coverage, sharpness, spread = score_rims(
        edges.gx.reshape(-1), edges.gy.reshape(-1), width, height, centres, counts, radii, _ACROSS_RIM, _COS, _SIN,
        _COS32, _SIN32, floor, lightness, labels, allowed, bar, known.centres, known.bounds2, valley is not None, whole_circle,
        2 if valley is not None else 1, hits_only)
    if hits_only:
        return counted
    return (coverage, sharpness, spread) if scattered else (coverage, sharpness)


# What a rim test passes for the inputs of the other kind of test (see `score_rims`).
_NO_FLOOR = np.zeros(0, dtype=np.float32)
_NO_LIGHTNESS = np.zeros(0, dtype=np.uint16)
_NO_LABELS = np.zeros(0, dtype=np.uint8)
_NO_LABELS_ALLOWED = np.zeros(0, dtype=bool)


class RimsToExclude(NamedTuple):
    """Rims (x, y, r) to leave out of rim tests, as `score_rims` takes them: their centres
    (k, 2; float32, as the rims are compared) and the squared outer and inner radii of the
    annulus within the gap of each (k, 2; in the type the rims and the gap give them, float64
    here either way, which compares the same)."""

    centres: np.ndarray
    bounds2: np.ndarray


def _rims_to_exclude(exclude, gap: float) -> RimsToExclude:
    """`exclude` (x, y, r of known neighbours) as `_rim_scores` takes it."""
    if len(exclude) == 0:
        return _NO_RIMS
    known = np.asarray(exclude, dtype=np.float32)
    radii = known[:, 2]
    outer2, inner2 = (radii + gap) ** 2, np.maximum(radii - gap, 0.0) ** 2
    return RimsToExclude(np.ascontiguousarray(known[:, :2]), np.stack([outer2, inner2], axis=1).astype(np.float64))


_NO_RIMS = RimsToExclude(np.zeros((0, 2), dtype=np.float32), np.zeros((0, 2), dtype=np.float64))


def _as_centres(centres) -> np.ndarray:
    """Centres as `score_rims` takes them, (n, 2) float64 (the searches' grids come so already)."""
    if type(centres) is np.ndarray and centres.ndim == 2 and centres.dtype == np.float64 and centres.flags.c_contiguous:
        return centres
    return np.ascontiguousarray(np.atleast_2d(np.asarray(centres, dtype=np.float64)))


def best_circle(
    edges: EdgeField, centre, radius: float, reach: float, exclude=(), gap: float = 0.0,
    strictness: float = 1.0, valley: "DarkLine | None" = None,
) -> tuple[np.ndarray, float]:
    """The centre within `reach` of `centre` whose rim of `radius` shows best: a grid of
    `GRID_PX` (the band judged around the radius is about that wide), then the 8 neighbours of
    its best point, unless nothing on the grid showed a rim (a dark line: see `best_circles`)."""
    return best_circles(edges, [(centre, radius, reach)], exclude, gap, strictness, valley)[0]


def best_circles(
    edges: EdgeField, searches, exclude=(), gap: float = 0.0, strictness: float = 1.0,
    valley: "DarkLine | None" = None, pixels: PixelSearch | None = None,
) -> list[tuple[np.ndarray, float]]:
    """`best_circle` of each (centre, radius, reach) in `searches`, their grids scored in one pass.
    A dark-line search whose grid shows no line may try every whole pixel off its grid instead
    (see `PixelSearch`, `_confirmed`)."""
    return best_circles_and_grid_points(edges, searches, exclude, gap, strictness, valley, pixels)[0]


def best_circles_and_grid_points(
    edges: EdgeField, searches, exclude=(), gap: float = 0.0, strictness: float = 1.0,
    valley: "DarkLine | None" = None, pixels: PixelSearch | None = None,
) -> tuple[list[tuple[np.ndarray, float]], list[np.ndarray]]:
    """`best_circles`, and the best point of each search's grid (before the points around it or
    off the grid are tried): what a wider search around the same centre must beat on its grid
    (see `circles_beyond`)."""
    if not searches:
        return [], []
    known = _rims_to_exclude(exclude, gap)  # once for the two or three passes below
    grids = [(_disc_of_points(centre, reach, GRID_PX), radius) for centre, radius, reach in searches]
    grid_scores = _split(_rim_scores(edges, grids, known, strictness, valley, scattered=pixels is not None), grids)
    bests = []
    for (candidates, _), scores in zip(grids, grid_scores):
        index = _best(scores)
        # The best point has the highest coverage: whether it is above 0 is whether any is.
        bests.append((candidates[index], scores[0][index] > 0.0))
    # A dark line is about a pixel wide and counts only in runs of five directions: from a grid
    # point a pixel off its centre it can break into shorter runs, so the grid steps over it.
    dense = [index for index, ((_, shown), scores) in enumerate(zip(bests, grid_scores))
             if pixels is not None and not shown and scores[2].max() >= pixels.least]
    on_grid = [best for best, _ in bests]  # where a search that finds nothing leaves its circle
    if dense:
        off_grid = [(_off_grid_points(searches[i][0], min(searches[i][2], pixels.reach)), grids[i][1]) for i in dense]
        pixel_scores = _split(_rim_scores(edges, off_grid, known, strictness, valley), off_grid)
        for search, (points, _), scores in zip(dense, off_grid, pixel_scores):
            index = _best(scores)
            if scores[0][index] > 0.0:
                bests[search] = (points[index], True)
    # No rim anywhere on a grid (most sizes tried are absent): a pixel off would not show one
    # either, since coverage fades over a pixel or two from the true centre; otherwise the 8
    # neighbours of its best point are tried too (after a search of every pixel, they only
    # confirm it).
    refinements = iter(_around(edges, [(best, radius) for (best, shown), (_, radius) in zip(bests, grids) if shown],
                               known, strictness, valley))
    found = []
    for search, (best, shown) in enumerate(bests):
        if not shown:
            found.append((best, 0.0))
            continue
        around, scores = next(refinements)
        if search in dense:
            found.append((best, float(scores[0][_MIDDLE])) if _confirmed(scores[0]) else (on_grid[search], 0.0))
            continue
        found.append(_best_of(around, scores))
    return found, on_grid


def circles_beyond(
    edges: EdgeField, searches, exclude=(), gap: float = 0.0, valley: "DarkLine | None" = None,
) -> list[tuple[np.ndarray, float] | None]:
    """For each (centre, radius, inner reach, reach, rival) in `searches`: `best_circle` of the
    search of `reach` around `centre`, where the search of `inner reach` around it found `rival`
    the best point of its grid (see `best_circles_and_grid_points`), None when it finds nothing
    beyond that search: its grid's best is then the rival, whose circle that search has found
    already, or shows no rim. Only the grid points beyond `inner reach` and the rival are scored
    (the grids are alike inside, in the same order, so the same point is best)."""
    if not searches:
        return []
    known = _rims_to_exclude(exclude, gap)
    grids = [(_ring_of_points(centre, inner, reach, rival), radius) for centre, radius, inner, reach, rival in searches]
    bests = []
    for (candidates, _), scores, (*_, rival) in zip(grids, _split(_rim_scores(edges, grids, known, 1.0, valley), grids),
                                                   searches):
        index = _best(scores)
        beyond = scores[0][index] > 0.0 and not np.array_equal(candidates[index], rival)
        bests.append(candidates[index] if beyond else None)
    refinements = iter(_around(edges, [(best, radius) for best, (_, radius) in zip(bests, grids) if best is not None],
                               known, 1.0, valley))
    return [None if best is None else _best_of(*next(refinements)) for best in bests]


def _best_of(centres: np.ndarray, scores) -> tuple[np.ndarray, float]:
    """(centre, coverage) of the best of `centres` by their `scores` (see `_best`)."""
    index = _best(scores)
    return centres[index], float(scores[0][index])


def _around(edges: EdgeField, points, known: "RimsToExclude", strictness: float,
            valley: "DarkLine | None") -> list[tuple[np.ndarray, tuple[np.ndarray, ...]]]:
    """(centres, scores) of each (point, radius) of `points` and its 8 neighbours, in one pass."""
    if not points:
        return []
    refined = [(_NEIGHBOURS + point, radius) for point, radius in points]
    return list(zip((around for around, _ in refined), _split(_rim_scores(edges, refined, known, strictness, valley),
                                                                 refined)))


def centres_as_good(edges: EdgeField, centre, radius: float, reach: float) -> np.ndarray:
    """The whole pixels within `reach` of `centre` (a whole pixel) at which a rim of `radius`
    shows at least as well as at `centre` (as `best_circle` judges it), `centre` among them. A
    blurred rim covers fully over several pixels of centres, and the sharpest circle among
    them, the one fitted, may lie anywhere on that plateau."""
    points = _disc_of_points(centre, reach, 1.0)
    coverage = rim_scores(edges, points, radius)[0]
    at_centre = coverage[(points == np.rint(np.asarray(centre, dtype=float))).all(axis=1)][0]
    return points[coverage >= at_centre]


def _confirmed(coverage: np.ndarray) -> bool:
    """Whether a dark line found by trying every pixel (coverage at `_NEIGHBOURS` around its best
    centre) shows from most of the centres a pixel off it too. A real line a pixel wide still
    lies within the band over part of its arc from a centre a pixel off, and enough of it stays
    in runs; noise that happens to line up into one run along one circle (a search of every
    pixel tries nine times the grid's centres, so its best arc of noise is longer) does not
    survive the shift."""
    return np.count_nonzero(np.delete(coverage, _MIDDLE) > 0.0) >= len(_NEIGHBOURS) // 2


def _split(scores, groups) -> list[tuple[np.ndarray, ...]]:
    """Scores of groups scored together, (coverage, sharpness, ...) of each group (by slices:
    `np.split` costs more than the scores of a small group)."""
    split, start = [], 0
    for centres, _ in groups:
        end = start + len(centres)
        split.append(tuple(score[start:end] for score in scores))
        start = end
    return split


# The best grid point and its 8 neighbours.
_NEIGHBOURS = np.array([[x, y] for x in (-1, 0, 1) for y in (-1, 0, 1)], dtype=float)
_MIDDLE = 4  # the best point itself, in `_NEIGHBOURS`


def _off_grid_points(centre, reach: float) -> np.ndarray:
    """The whole pixels within `reach` of `centre` (rounded) that the grid of GRID_PX leaves out."""
    offsets = _disc_offsets(reach, 1.0)
    return offsets[(offsets % GRID_PX != 0.0).any(axis=1)] + np.rint(np.asarray(centre, dtype=float))


def _ring_of_points(centre, inner: float, reach: float, kept) -> np.ndarray:
    """The points of the grid of `_disc_of_points(centre, reach, GRID_PX)` beyond `inner` of it
    and the point `kept`, in that grid's order."""
    offsets, distance2 = _grid_offsets(math.ceil(reach / GRID_PX), GRID_PX)
    middle = np.rint(np.asarray(centre, dtype=float))
    # The bounds of `_disc_offsets`, so that the points within `inner` are those of its disc.
    wanted = _within_reach(distance2, reach) & (~_within_reach(distance2, inner) | (offsets == kept - middle).all(axis=1))
    return offsets[wanted] + middle


def _disc_of_points(centre, reach: float, spacing: float) -> np.ndarray:
    """The points of a square grid of `spacing` around `centre` (rounded to a whole pixel) within
    `reach` of it."""
    return _disc_offsets(reach, spacing) + np.rint(np.asarray(centre, dtype=float))


# Typed: a reach as float32 bounds the disc in float32 arithmetic, as the plain form did.
@lru_cache(maxsize=256, typed=True)
def _disc_offsets(reach: float, spacing: float) -> np.ndarray:
    """The offsets of `_disc_of_points`, once per reach: a tower's searches keep their reaches
    from round to round (about two calls in three on the bench find them here)."""
    offsets, distance2 = _grid_offsets(math.ceil(reach / spacing), spacing)
    return offsets[_within_reach(distance2, reach)]


def _within_reach(distance2: np.ndarray, reach: float) -> np.ndarray:
    """Which squared distances lie within `reach`, a hair beyond it included (grid points exactly
    on the bound stay in despite rounding)."""
    return distance2 <= reach * reach + 1e-9


@lru_cache(maxsize=64)
def _grid_offsets(steps: int, spacing: float) -> tuple[np.ndarray, np.ndarray]:
    """The square grid of `spacing` reaching `steps` points each way from the centre,
    as (x, y) offsets (in the order of the rows of a meshgrid) and their squared lengths."""
    line = np.arange(-steps, steps + 1) * spacing
    dx, dy = np.meshgrid(line, line)
    offsets = np.stack([dx.ravel(), dy.ravel()], axis=1)
    return offsets, (dx * dx + dy * dy).ravel()


def _best(scores) -> int:
    """Index of the highest coverage, the sharpest rim among equals (further scores ignored)."""
    coverage, sharpness = scores[:2]
    return int(np.lexsort((sharpness, coverage))[-1])


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
