"""Rim tests of many candidate circles, compiled (numba): the innermost loop of tower reading.

A tower's searches score a few to a few hundred centres at a time (the median call on the bench
scores 9), about 60 calls a frame. In numpy each call would be some 40 array operations on a
few hundred samples, whose fixed costs, not their arithmetic, would make up most of a frame's
rim tests; one compiled pass over the samples does the same arithmetic in float32, in the same
order, and gives the same bits as the plain numpy form (see tests/vision/varanasi/test_fast_rim_tests.py).

The rules themselves are stated in `varanasi_circles.rim_scores`; this module only carries
them out. Compiled code is cached on disk (numba's `cache=True`) so that only the first run on a
machine pays for compiling (a few seconds).
"""
from __future__ import annotations

import numpy as np
from numba import njit

# The sample of each direction's five (see `score_rims`) on the circle, and those on its inner
# and outer sides.
_INNER_SIDE, _ON_CIRCLE, _OUTER_SIDE = 0, 2, 4


@njit(cache=True, nogil=True)
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
    count = centres.shape[0]
    directions = cos64.shape[0]
    counted = np.zeros((count if keep_counted else 0, directions), dtype=np.bool_)
    coverage = np.zeros(count, dtype=np.float64)
    sharpness = np.zeros(count, dtype=np.float64)
    scattered = np.zeros(count, dtype=np.float64)
    dx = np.empty((directions, 5), dtype=np.int64)
    dy = np.empty((directions, 5), dtype=np.int64)
    step_x = np.empty(directions, dtype=np.float32)
    step_y = np.empty(directions, dtype=np.float32)
    index = np.empty((directions, 5), dtype=np.int64)
    light = np.empty((directions, 5), dtype=np.int64)
    judged = np.empty(directions, dtype=np.bool_)
    hits = np.empty(directions, dtype=np.bool_)
    on_circle = np.empty(directions, dtype=np.float32)
    c = 0
    for group in range(counts.shape[0]):
        radius = radii[group]
        quarters = np.rint(radius * 4.0)
        reach = 0
        for k in range(directions):
            for s in range(5):
                sampled = quarters / 4.0 + across[s]
                dx[k, s] = np.int64(np.rint(sampled * cos64[k]))
                dy[k, s] = np.int64(np.rint(sampled * sin64[k]))
                reach = max(reach, abs(dx[k, s]), abs(dy[k, s]))
            step_x[k] = np.float32(radius) * cos32[k]
            step_y[k] = np.float32(radius) * sin32[k]
        for _ in range(counts[group]):
            cx, cy = np.int64(np.rint(centres[c, 0])), np.int64(np.rint(centres[c, 1]))
            if reach <= cx < width - reach and reach <= cy < height - reach:
                # Every sample lies in the image: the usual case.
                for k in range(directions):
                    for s in range(5):
                        index[k, s] = (cy + dy[k, s]) * width + cx + dx[k, s]
                    judged[k] = True
            else:
                # Samples outside are read at the nearest pixel in the image, their directions not judged.
                for k in range(directions):
                    shown = True
                    for s in range(5):
                        x, y = cx + dx[k, s], cy + dy[k, s]
                        if x < 0 or x >= width or y < 0 or y >= height:
                            shown = False
                        index[k, s] = min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)
                    judged[k] = shown
            if known_centres.shape[0]:
                for k in range(directions):
                    if judged[k]:
                        fx = np.float32(cx) + step_x[k]
                        fy = np.float32(cy) + step_y[k]
                        for j in range(known_centres.shape[0]):
                            ax = fx - known_centres[j, 0]
                            ay = fy - known_centres[j, 1]
                            distance2 = ax * ax + ay * ay
                            if not (distance2 > known_bounds2[j, 0] or distance2 < known_bounds2[j, 1]):
                                judged[k] = False
                                break
            for k in range(directions):
                middle = index[k, _ON_CIRCLE]
                radial = np.abs(gx[middle] * cos32[k] + gy[middle] * sin32[k])
                on_circle[k] = radial if judged[k] else np.float32(0.0)
            if valley:
                for k in range(directions):
                    for s in range(5):
                        light[k, s] = lightness[index[k, s]]
                for k in range(directions):
                    hits[k] = False
                    if not judged[k]:
                        continue
                    before, after = k - 1 if k else directions - 1, k + 1 if k + 1 < directions else 0
                    inner = light[before, _INNER_SIDE] + light[k, _INNER_SIDE] + light[after, _INNER_SIDE]
                    outer = light[before, _OUTER_SIDE] + light[k, _OUTER_SIDE] + light[after, _OUTER_SIDE]
                    darkest = light[before, 1] + light[k, 1] + light[after, 1]
                    for s in range(2, 4):
                        darkest = min(darkest, light[before, s] + light[k, s] + light[after, s])
                    sides = np.float32(min(inner, outer)) / np.float32(3.0) - valley_bar
                    hits[k] = np.float32(darkest) / np.float32(3.0) < sides and allowed[labels[index[k, _OUTER_SIDE]]]
            else:
                for k in range(directions):
                    hits[k] = False
                    if not judged[k]:
                        continue
                    for s in range(1, 4):
                        sample = index[k, s]
                        if np.abs(gx[sample] * cos32[k] + gy[sample] * sin32[k]) >= floor[sample]:
                            hits[k] = True
                            break
            # Runs around the circle, on the directions as bits of one number (48 fit in an int64).
            hit_bits, judged_bits = 0, 0
            for k in range(directions):
                if hits[k]:
                    hit_bits |= 1 << k
                if judged[k]:
                    judged_bits |= 1 << k
            middles = hit_bits
            for step in range(1, run_reach + 1):
                middles &= _turned(hit_bits, step, directions) & _turned(hit_bits, directions - step, directions)
            near = middles
            for step in range(1, run_reach + 1):
                near |= _turned(middles, step, directions) | _turned(middles, directions - step, directions)
            if keep_counted:
                for k in range(directions):
                    counted[c, k] = (near >> k) & 1
            shown_count = _bits_set(judged_bits)
            if whole_circle:
                denominator = np.float64(directions)
            elif shown_count >= directions / 3:
                denominator = np.float64(shown_count)
            else:
                denominator = np.inf
            coverage[c] = _bits_set(near) / denominator
            sharpness[c] = np.float64(_pairwise_sum(on_circle)) / denominator
            scattered[c] = _bits_set(hit_bits) / denominator
            c += 1
    return counted, coverage, sharpness, scattered


@njit(cache=True, nogil=True)
def _pairwise_sum(values):
    """Sum of float32 values in numpy's order for a row of 8 to 128 (its `sum` along a contiguous
    axis): eight running sums over blocks of eight, added pairwise, then any remainder."""
    p0, p1, p2, p3, p4, p5, p6, p7 = values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7]
    whole = len(values) - len(values) % 8
    for start in range(8, whole, 8):
        p0 += values[start]
        p1 += values[start + 1]
        p2 += values[start + 2]
        p3 += values[start + 3]
        p4 += values[start + 4]
        p5 += values[start + 5]
        p6 += values[start + 6]
        p7 += values[start + 7]
    total = ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))
    for i in range(whole, len(values)):
        total += values[i]
    return total


@njit(cache=True, nogil=True, inline="always")
def _turned(bits, step, directions):
    """`bits` (the lowest `directions`) turned `step` places around the circle, towards higher bits."""
    return ((bits << step) | (bits >> (directions - step))) & ((1 << directions) - 1)


@njit(cache=True, nogil=True, inline="always")
def _bits_set(bits):
    """How many bits of a non-negative number are set."""
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count
