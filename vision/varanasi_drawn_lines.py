"""Rim tests against the board's drawing and shade: drawn bands, ink, a shaded board."""
from __future__ import annotations

import math

import numpy as np

from vision.varanasi_circles import rim_hits
from vision.varanasi_edge_context import EdgeContext, bottom_under_found
from vision.varanasi_params import (
    BAND_NEAR_PX,
    EDGE_STRICTNESS,
    LABEL_SIGMA,
    RIM_ANGLES,
    SHADE_CHROMA_SHARE,
    SOBEL_GAIN,
)
from vision.varanasi_pixels import rays_inside
from vision.varanasi_profile import ParsedProfile, chromaticity


def rim_of_drawn_line(context: EdgeContext, accepted: dict, known, size: int, centre, radius: float) -> bool:
    """Whether a bottom disc under accepted discs (whose rims are `known`, see `_known_rims`) was
    found on the edges of a line drawn on the board: along more than half of the directions where
    its rim shows, that edge bounds a band with the board on both sides (`drawn_bands`) whose
    colour is not the board's in shade (`inked`). The board's drawing around a tower (an arch)
    has two edges a few millimetres apart, and circles of the sizes under the tower fit them; a
    disc's rim has its own face on one side. Asked in every set: white on a cream board shows the
    board on both sides of its shadow too, but a shadow is the board's colour, only darker."""
    if not bottom_under_found(size, accepted):
        return False
    hits = np.flatnonzero(rim_hits(context.edges, centre, radius, known, context.gap, EDGE_STRICTNESS))
    if len(hits) == 0:
        return False
    board = context.board_lab
    if board is None:
        return False
    step = context.edges.threshold / SOBEL_GAIN
    reach = int(math.ceil(min(context.radii.values())))
    # Most of its rim: a real disc lying across a line shows the line's edge along a short arc.
    # Every direction's ray is sampled at once; the colour of a band (a colour conversion, and
    # the board's noise) is asked only when enough directions show one.
    needed = len(hits) // 2 + 1
    bands = drawn_bands(context.smooth_lab, centre, radius, hits, reach, board, step, known)
    if len(bands) < needed:
        return False
    return int(np.count_nonzero(inked(bands, board, context.board_noise))) >= needed


def drawn_bands(lab, centre, radius: float, directions: np.ndarray, reach: int, board, step: float,
                 known) -> list[np.ndarray]:
    """The Lab samples of the band on the board that the rim of a circle bounds, in each of
    `directions` (of RIM_ANGLES) that has one. Across the rim, from `reach` px inside to `reach`
    outside (the smallest disc's radius: a band as wide as a disc is a surface, such as another
    tower), samples within `step` (the lightness step the edge threshold stands for) of the
    board's Lab are board. The band is the run of other samples within BAND_NEAR_PX of the rim;
    it counts when board lies on both sides of it, not inside a disc already found (a face of the
    board's colour above). Whether it is drawn, not shade, is its colour's to tell (`inked`)."""
    angles = 2.0 * np.pi * directions / RIM_ANGLES
    along = radius + np.arange(-reach, reach + 1)
    xs = np.rint(centre[0] + along * np.cos(angles)[:, None]).astype(np.intp)
    ys = np.rint(centre[1] + along * np.sin(angles)[:, None]).astype(np.intp)
    inside = rays_inside(xs, ys, lab.shape)
    xs, ys = xs[inside], ys[inside]
    samples = lab[ys, xs]
    on_board = np.sqrt(((samples - board) ** 2).sum(axis=2)) <= step
    # Where each ray passes between board and other samples, as Python lists (a few per ray,
    # judged one by one).
    rays, changes = np.nonzero(np.diff(on_board.view(np.int8), axis=1))
    flags = on_board.tolist()
    bounds = [[0] for _ in flags]
    for ray, change in zip(rays.tolist(), (changes + 1).tolist()):
        bounds[ray].append(change)
    bands = []
    for ray, ray_bounds in enumerate(bounds):
        ray_bounds.append(len(along))
        band = _band_near_rim(flags[ray], ray_bounds, reach, xs[ray], ys[ray], known)
        if band is not None:
            bands.append(samples[ray, band[0]:band[1]])
    return bands


def _band_near_rim(on_board: list[bool], bounds: list[int], rim: int, xs, ys, known) -> tuple[int, int] | None:
    """(start, end) of the first run of a ray's samples (at pixels xs, ys) off the board within
    BAND_NEAR_PX of sample `rim`, with board on both sides (two samples at least: one may be
    blur) and not inside a circle of `known`, given the bounds of the ray's runs; None when there
    is none."""
    starts, ends = bounds[:-1], bounds[1:]
    for index, (start, end) in enumerate(zip(starts, ends)):
        if on_board[start] or not start - BAND_NEAR_PX <= rim < end + BAND_NEAR_PX:
            continue
        if index == 0 or index == len(starts) - 1 or min(ends[index - 1] - starts[index - 1],
                                                          ends[index + 1] - starts[index + 1]) < 2:
            continue
        sides = [(xs[start - 1], ys[start - 1]), (xs[end], ys[end])]
        if any((x - cx) ** 2 + (y - cy) ** 2 <= r * r for x, y in sides for cx, cy, r in known):
            continue
        return start, end
    return None


def inked(bands: list[np.ndarray], board, noise: float) -> np.ndarray:
    """Whether each band's median chromaticity is farther from the board's than LABEL_SIGMA times
    the board's pixel noise in chromaticity (`noise`): a shadow or a white disc's side is the
    board's colour in shade, an ink is not."""
    *inks, paper = chromaticity(np.array([*band_medians(bands), board], dtype=np.float64))
    return np.array([float(np.abs(ink - paper).sum()) > LABEL_SIGMA * noise for ink in inks])


def band_medians(bands: list[np.ndarray]) -> np.ndarray:
    """Each band's median Lab (float32 samples, (length, 3) each) as `np.median` gives it: the
    bands padded to one length with infinities and sorted in one call (a call of `np.median`
    costs many times the sorting of a band of a few samples)."""
    lengths = np.array([len(band) for band in bands])
    padded = np.full((len(bands), lengths.max(), 3), np.inf, dtype=np.float32)
    for row, band in zip(padded, bands):
        row[: len(band)] = band
    padded.sort(axis=1)
    rows = np.arange(len(bands))
    # The mean of the middle two in float32, as numpy takes it (the same one twice if odd).
    return (padded[rows, (lengths - 1) // 2] + padded[rows, lengths // 2]) / np.float32(2.0)


def shaded_board(ring_lab: np.ndarray, board_lab: np.ndarray, frame: ParsedProfile) -> bool:
    """Whether a ring's median Lab is the board's beyond it, in shade or partly so: no lighter
    than it, and of nearly its chromaticity (shade dims all three channels alike) — nearer to it
    than SHADE_CHROMA_SHARE of the way to the set's colour whose chromaticity is nearest the
    board's. The shade that drew part of a ghost's rim need not fill its ring: beside a small
    tower it falls on one side, the lit board fills the rest, and the median is then only a few
    levels darker than the board beyond (8 against an edge step of 11). Glare, which washes a
    face out towards the lamp's white, makes a ring lighter, and a lighter ring is never taken
    for board. A set with a colour of the board's chromaticity (black, white, grey on a neutral
    board) leaves almost no room."""
    if ring_lab[0] > board_lab[0]:
        return False
    ring, board = chromaticity(np.array([ring_lab, board_lab]))
    nearest_colour = np.abs(frame.chromaticities - board).sum(axis=1).min()
    return float(np.abs(ring - board).sum()) <= SHADE_CHROMA_SHARE * float(nearest_colour)
