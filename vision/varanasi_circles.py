"""Rim tests and circle searches for Varanasi discs: how much of a circle's rim shows (as a
colour edge or a thin dark line), and the best circle of a radius near a point.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from vision.varanasi_geometry import DarkLine, EdgeField, PixelSearch
from vision.varanasi_params import (
    GRID_PX,
    RIM_ANGLES,
    RIM_BAND_PX,
    VALLEY_ARC_EASING,
    VALLEY_LEAST_DEPTH,
    VALLEY_SIDE_PX,
)
from vision.varanasi_rims import best_circles as compiled_best_circles
from vision.varanasi_rims import score_rims

_ANGLES = np.linspace(0.0, 2.0 * np.pi, RIM_ANGLES, endpoint=False)
_COS = np.cos(_ANGLES)
_SIN = np.sin(_ANGLES)
# Gradients are float32: float32 tables keep products from being widened to float64.
_COS32 = _COS.astype(np.float32)
_SIN32 = _SIN.astype(np.float32)
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
    return rim_scores_of_groups(edges, [(centres, radius)], rims_to_exclude(exclude, gap), strictness, valley, whole_circle)


def rim_hits(edges: EdgeField, centre, radius: float, exclude=(), gap: float = 0.0, strictness: float = 1.0) -> np.ndarray:
    """The directions (RIM_ANGLES booleans) that count towards `rim_scores`' coverage of one circle."""
    return rim_scores_of_groups(edges, [(centre, radius)], rims_to_exclude(exclude, gap), strictness, None, hits_only=True)[0]


def rim_scores_of_groups(
    edges: EdgeField, circles, known: "RimsToExclude", strictness: float, valley: "DarkLine | None",
    whole_circle: bool = False, scattered: bool = False, hits_only: bool = False,
) -> tuple[np.ndarray, ...]:
    """`rim_scores` of several groups of centres, (centres, radius) each, in one pass, their
    scores one after the other. The rims to exclude come as `rims_to_exclude` made them. With
    `scattered`, a third array: the share of directions that pass before the run rule. With
    `hits_only`, instead the directions that count (n, RIM_ANGLES booleans)."""
    (*arguments, is_valley, run_reach) = _rim_test_arguments(edges, circles, known, strictness, valley)
    counted, coverage, sharpness, spread = score_rims(*arguments, is_valley, whole_circle, run_reach, hits_only)
    if hits_only:
        return counted
    return (coverage, sharpness, spread) if scattered else (coverage, sharpness)


def _rim_test_arguments(edges: EdgeField, circles, known: "RimsToExclude", strictness: float,
                        valley: "DarkLine | None") -> tuple:
    """The arguments of the compiled rim tests (`score_rims`, `best_circles` in
    vision/varanasi_rims.py) for groups of (centres, radius), up to and with whether they test for
    a dark line, and the reach of the runs counted."""
    groups = [_as_centres(points) for points, _ in circles]
    centres = groups[0] if len(groups) == 1 else np.concatenate(groups)
    counts = np.array([len(points) for points in groups], dtype=np.int64)
    radii = np.array([radius for _, radius in circles], dtype=np.float64)
    height, width = edges.shape
    if valley is None:
        floor, lightness, labels, allowed, bar = edges.rim_floor(strictness), _NO_LIGHTNESS, _NO_LABELS, _NO_LABELS_ALLOWED, np.float32(0.0)
    else:
        floor, lightness, labels, allowed = _NO_FLOOR, edges.lightness, valley.labels.reshape(-1), valley.allowed
        bar = np.float32(max(valley.depth / VALLEY_ARC_EASING, VALLEY_LEAST_DEPTH))
    # Hits count in runs of five directions for a dark line (see VALLEY_ARC_EASING), of three for
    # a rim; the floor's radial alignment keeps a rim crossed at a slant (another disc's) out.
    return (edges.gx.reshape(-1), edges.gy.reshape(-1), width, height, centres, counts, radii, _ACROSS_RIM, _COS, _SIN,
            _COS32, _SIN32, floor, lightness, labels, allowed, bar, known.centres, known.bounds2, valley is not None,
            2 if valley is not None else 1)


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


def rims_to_exclude(exclude, gap: float) -> RimsToExclude:
    """`exclude` (x, y, r of known neighbours) as `rim_scores_of_groups` takes it."""
    if len(exclude) == 0:
        return _NO_RIMS
    known = np.asarray(exclude, dtype=np.float32)
    radii = known[:, 2]
    # Filled column by column: `np.stack` and a cast cost more than the arithmetic (some 20 calls
    # a frame); float32 widens to float64 exactly either way.
    bounds2 = np.empty((len(radii), 2))
    bounds2[:, 0] = (radii + gap) ** 2
    bounds2[:, 1] = np.maximum(radii - gap, 0.0) ** 2
    return RimsToExclude(np.ascontiguousarray(known[:, :2]), bounds2)


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
    known = rims_to_exclude(exclude, gap)  # once for the two or three passes below
    grids = [(disc_of_points(centre, reach, GRID_PX), radius) for centre, radius, reach in searches]
    if pixels is None:
        # No search of every pixel: the grids, their best points and their neighbours in one
        # compiled call (the same choices as below).
        found, coverage, grid_bests = compiled_best_circles(*_rim_test_arguments(edges, grids, known, strictness, valley))
        return list(zip(found, coverage.tolist())), list(grid_bests)
    grid_scores = _split(rim_scores_of_groups(edges, grids, known, strictness, valley, scattered=pixels is not None), grids)
    bests = []
    for (candidates, _), scores in zip(grids, grid_scores):
        index = best_index(scores)
        # The best point has the highest coverage: whether it is above 0 is whether any is.
        bests.append((candidates[index], scores[0][index] > 0.0))
    # A dark line is about a pixel wide and counts only in runs of five directions: from a grid
    # point a pixel off its centre it can break into shorter runs, so the grid steps over it.
    dense = [index for index, ((_, shown), scores) in enumerate(zip(bests, grid_scores))
             if pixels is not None and not shown and scores[2].max() >= pixels.least]
    on_grid = [best for best, _ in bests]  # where a search that finds nothing leaves its circle
    if dense:
        off_grid = [(_off_grid_points(searches[i][0], min(searches[i][2], pixels.reach)), grids[i][1]) for i in dense]
        pixel_scores = _split(rim_scores_of_groups(edges, off_grid, known, strictness, valley), off_grid)
        for search, (points, _), scores in zip(dense, off_grid, pixel_scores):
            index = best_index(scores)
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
    known = rims_to_exclude(exclude, gap)
    grids = [(_ring_of_points(centre, inner, reach, rival), radius) for centre, radius, inner, reach, rival in searches]
    bests = []
    for (candidates, _), scores, (*_, rival) in zip(grids, _split(rim_scores_of_groups(edges, grids, known, 1.0, valley), grids),
                                                   searches):
        index = best_index(scores)
        beyond = scores[0][index] > 0.0 and not np.array_equal(candidates[index], rival)
        bests.append(candidates[index] if beyond else None)
    refinements = iter(_around(edges, [(best, radius) for best, (_, radius) in zip(bests, grids) if best is not None],
                               known, 1.0, valley))
    return [None if best is None else _best_of(*next(refinements)) for best in bests]


def _best_of(centres: np.ndarray, scores) -> tuple[np.ndarray, float]:
    """(centre, coverage) of the best of `centres` by their `scores` (see `best_index`)."""
    index = best_index(scores)
    return centres[index], float(scores[0][index])


def _around(edges: EdgeField, points, known: "RimsToExclude", strictness: float,
            valley: "DarkLine | None") -> list[tuple[np.ndarray, tuple[np.ndarray, ...]]]:
    """(centres, scores) of each (point, radius) of `points` and its 8 neighbours, in one pass."""
    if not points:
        return []
    refined = [(_NEIGHBOURS + point, radius) for point, radius in points]
    return list(zip((around for around, _ in refined), _split(rim_scores_of_groups(edges, refined, known, strictness, valley),
                                                                 refined)))


def centres_as_good(edges: EdgeField, centre, radius: float, reach: float) -> np.ndarray:
    """The whole pixels within `reach` of `centre` (a whole pixel) at which a rim of `radius`
    shows at least as well as at `centre` (as `best_circle` judges it), `centre` among them. A
    blurred rim covers fully over several pixels of centres, and the sharpest circle among
    them, the one fitted, may lie anywhere on that plateau."""
    points = disc_of_points(centre, reach, 1.0)
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
    offsets = disc_offsets(reach, 1.0)
    return offsets[(offsets % GRID_PX != 0.0).any(axis=1)] + np.rint(np.asarray(centre, dtype=float))


def _ring_of_points(centre, inner: float, reach: float, kept) -> np.ndarray:
    """The points of the grid of `disc_of_points(centre, reach, GRID_PX)` beyond `inner` of it
    and the point `kept`, in that grid's order."""
    offsets, distance2 = _grid_offsets(math.ceil(reach / GRID_PX), GRID_PX)
    middle = np.rint(np.asarray(centre, dtype=float))
    # The bounds of `disc_offsets`, so that the points within `inner` are those of its disc.
    wanted = _within_reach(distance2, reach) & (~_within_reach(distance2, inner) | (offsets == kept - middle).all(axis=1))
    return offsets[wanted] + middle


def disc_of_points(centre, reach: float, spacing: float) -> np.ndarray:
    """The points of a square grid of `spacing` around `centre` (rounded to a whole pixel) within
    `reach` of it."""
    return disc_offsets(reach, spacing) + np.rint(np.asarray(centre, dtype=float))


# Typed: a reach as float32 bounds the disc in float32 arithmetic, as the plain form did.
@lru_cache(maxsize=256, typed=True)
def disc_offsets(reach: float, spacing: float) -> np.ndarray:
    """The offsets of `disc_of_points`, once per reach: a tower's searches keep their reaches
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


def best_index(scores) -> int:
    """Index of the highest coverage, the sharpest rim among equals (further scores ignored)."""
    coverage, sharpness = scores[:2]
    return int(np.lexsort((sharpness, coverage))[-1])
