"""Rim tests of many candidate circles, compiled (vision/varanasi_rims.c): the innermost loop of
tower reading.

A tower's searches score a few to a few hundred centres at a time (the median call on the bench
scores 9), about 90 calls a frame. In numpy each call would be some 40 array operations on a
few hundred samples, whose fixed costs, not their arithmetic, would make up most of a frame's
rim tests; one compiled pass over the samples does the same arithmetic in float32, in the same
order, and gives the same bits as the plain numpy form (see tests/vision/varanasi/test_fast_rim_tests.py).

The rules themselves are stated in `varanasi_circles.rim_scores`; this module only carries them
out. The kernel is C (vision/varanasi_rims.c), built with the package (setup.py); it lets go of
the GIL while it runs, checks the arrays' item sizes and lengths against what it reads (the
types themselves are the caller's to get right: `varanasi_circles.rim_scores_of_groups`), and
loads in a millisecond where a just-in-time compiler would cost over half a second at start-up.
"""
from __future__ import annotations

import numpy as np

try:
    from vision import _varanasi_rims
except ImportError as exc:  # a source tree nobody installed
    raise ImportError("the Varanasi rim tests' kernel (vision/varanasi_rims.c) is not built: run "
                      "`pip install -e .`, which needs a C compiler and Python's headers") from exc


def score_rims(
    gx, gy, width, height, centres, counts, radii, across, cos64, sin64, cos32, sin32,
    floor, lightness, labels, allowed, valley_bar, known_centres, known_bounds2, valley, whole_circle, run_reach,
    keep_counted,
):
    """Rim tests of `centres` (n, 2), rounded to whole pixels, in groups of `counts` centres
    whose circles have the `radii` of the group (rounded to quarter pixels for the samples),
    in an image `width` by `height` (gx, gy, floor, lightness and labels flat over it). Each
    direction (`cos64`, `sin64`; float32 copies for gradients and rims) is sampled at the circle's
    radius plus each of `across` (5: inner side, band's inner edge, circle, band's outer edge,
    outer side), to whole pixels. `known_centres` (k, 2; float32) and `known_bounds2` (outer and
    inner squared radius of the annulus left out around each) give the known rims.

    Edge tests (`valley` False) count a direction when one of its band's three samples has a
    radial gradient (|gx cos + gy sin|, float32) at least `floor` there; dark-line tests
    (`valley` True) when the darkest of the three middle samples' lightness, each summed with the
    directions either side, is below both sides' less `valley_bar` (in thirds, float32), and the
    outer side's label is `allowed`. Directions with a sample outside the image, or whose point
    on the circle (float32) lies within a known rim's annulus, are not judged. Hits count in runs
    of 2 * run_reach + 1 directions around the circle.

    Returns (counted (n, directions) bool, with `keep_counted`, else empty, coverage, sharpness,
    scattered share (n, float64 each)): shares of the judged directions, of every direction with
    `whole_circle`, 0 where fewer than a third are judged; sharpness is the on-circle radial
    gradient, summed in numpy's pairwise order over the judged directions.
    """
    count, directions = centres.shape[0], cos64.shape[0]
    counted = np.zeros((count if keep_counted else 0, directions), dtype=np.bool_)
    coverage, sharpness, scattered = np.empty(count), np.empty(count), np.empty(count)
    _varanasi_rims.score_rims(
        gx, gy, width, height, centres, counts, radii, across, cos64, sin64, cos32, sin32, floor, lightness, labels,
        allowed, valley_bar, known_centres, known_bounds2, valley, whole_circle, run_reach, keep_counted,
        counted, coverage, sharpness, scattered)
    return counted, coverage, sharpness, scattered


def best_circles(
    gx, gy, width, height, centres, counts, radii, across, cos64, sin64, cos32, sin32,
    floor, lightness, labels, allowed, valley_bar, known_centres, known_bounds2, valley, run_reach,
):
    """The best circle of each group of `centres` (grid points, `counts` of them a group, each
    group at least one) and `radii`, scored as `score_rims` scores them: the grid point with the
    highest coverage (the sharpest among equals, the last among equals in both), then, where its
    coverage is above 0, the best of it and its 8 neighbours (x major) the same way.

    Returns (found (groups, 2), their coverage (0 where no grid point showed a rim), the grid's
    best points (groups, 2)), float64.
    """
    groups = counts.shape[0]
    found, coverage, grid_bests = np.empty((groups, 2)), np.empty(groups), np.empty((groups, 2))
    _varanasi_rims.best_circles(
        gx, gy, width, height, centres, counts, radii, across, cos64, sin64, cos32, sin32, floor, lightness, labels,
        allowed, valley_bar, known_centres, known_bounds2, valley, run_reach, found, coverage, grid_bests)
    return found, coverage, grid_bests
