"""Varanasi recognition: one camera frame + calibration profile -> towers of discs with confidences.

Seen from above a tower is nested circles, biggest at the bottom. Towers are found by Hough
voting for centres at the radii calibration measured for each size (on a half-size frame). Each
tower is then read at full resolution around its vote peak:
- by colour (`vision.varanasi_colour_chain`): what is neither board nor the colour of the disc
  below is the footprint of the discs above it; the circle that fits it gives the next disc's size;
- by edges (`vision.varanasi_edge_tests`), for every other size: a rim of that size near the disc
  below (a thin dark line when it sits on a disc of its own colour) reveals a disc colour cannot
  (same colour as the one below, or white on a cream board).
The ring each disc shows below the next gives its colour probabilities; colours are settled per
size with the inventory (each colour at most once per size), by the Hungarian method
(`vision.varanasi_disc_colours`).
"""
from __future__ import annotations

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.varanasi_colour_chain import colour_chain, doubt_of_handed_over
from vision.varanasi_disc_colours import colour_slots, settle_colours
from vision.varanasi_edge_context import EdgeContext, tower_level
from vision.varanasi_edge_tests import edge_candidates
from vision.varanasi_geometry import edge_field, full_resolution_threshold, reduce, to_full, to_work
from vision.varanasi_observation import DiscReading, TowerReading, VaranasiObservation
from vision.varanasi_params import (
    BOARD_GONE,
    BOARD_VISIBLE,
    COLOURED_MIDDLE_SHARE,
    DOUBTFUL,
    EDGE_GAP_MM,
    HIDDEN_BOARD_CONFIDENCE,
    MAX_STEP_OFFSET_MM,
    PROBABILITY_FLOOR,
    SEED_REACH_MM,
    SEED_SHARE,
    WEAK_SEED_SHARE,
    WORK_SCALE,
)
from vision.varanasi_pixels import level_growth, pixel_labels
from vision.varanasi_profile import ParsedProfile, parsed_profile
from vision.varanasi_scene import board_like_grid, cells_near_circles
from vision.varanasi_votes import centre_vote_peaks, radius_maps

# What callers import from here: the entry point and the readings it returns.
__all__ = ["DiscReading", "TowerReading", "VaranasiObservation", "recognize"]


def recognize(image_bgr: np.ndarray, profile: dict) -> VaranasiObservation:
    """Read every tower in the frame; odd frames give a low-confidence observation, not an error."""
    frame = parsed_profile(profile)
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or min(image_bgr.shape[:2]) < 16:
        raise ArbiterError("the frame is not a colour image")
    height, width = image_bgr.shape[:2]
    if frame.image_size is not None and (width, height) != frame.image_size:
        # Radii and the scale across the view are in the calibration photo's pixels.
        raise ArbiterError(
            f"the frame is {width}x{height} but the profile was calibrated on "
            f"{frame.image_size[0]}x{frame.image_size[1]} frames; calibrate this camera mode"
        )
    edges = edge_field(reduce(image_bgr))
    threshold = full_resolution_threshold(image_bgr)
    towers: list[TowerReading] = []
    # The bottom circle (x, y, radius) of each tower read, as Python numbers: every seed is
    # compared with them (about 70 comparisons a frame).
    outlines: list[tuple[float, float, float]] = []
    peaks, weak_peaks = vote_peaks(edges, frame)
    for seed, weak in _seeds(peaks, weak_peaks):
        # A weaker vote peak inside a tower already read is that tower again (an upper disc).
        if any(np.hypot(seed[0] - x, seed[1] - y) < radius for x, y, radius in outlines):
            continue
        if len(towers) == len(frame.pieces.sizes) * len(frame.pieces.colours):
            break  # a tower per disc of the set already: the rest cannot be towers
        if weak and not coloured_middle(edges.lab, frame, seed):
            continue
        tower = read_tower(image_bgr, edges.lab, frame, seed, threshold, tuple(outlines), peaks)
        if tower is not None:
            towers.append(tower)
            bottom = tower.discs[0]
            outlines.append((*bottom.centre, bottom.radius))
    towers = settle_colours(tuple(towers), frame.pieces)
    scene, note = _scene_confidence(edges.lab, frame, towers)
    return VaranasiObservation(towers, scene, note)


def vote_peaks(edges, frame: ParsedProfile) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """(x, y, radius) of each centre-vote peak over the seed bar, and of each weaker one over
    WEAK_SEED_SHARE, full-resolution pixels, strongest first, as Python numbers (peaks are
    compared one by one, which costs several times more on numpy's scalars)."""
    radii = radius_maps(edges.shape, frame.scale, frame.pieces.radii_mm)
    peaks = centre_vote_peaks(edges, radii, WEAK_SEED_SHARE * frame.weakest_votes)
    peaks.sort(reverse=True)
    # Compared in float32, as `centre_vote_peaks` compares its bar.
    bar = float(np.float32(SEED_SHARE * frame.weakest_votes))
    full = [(v > bar, (x / WORK_SCALE, y / WORK_SCALE, r / WORK_SCALE)) for v, x, y, r in peaks]
    return [peak for strong, peak in full if strong], [peak for strong, peak in full if not strong]


def _seeds(peaks, weak_peaks=()) -> list[tuple[np.ndarray, bool]]:
    """(centre, weak) of vote peaks, strongest first, one per tower (peaks inside a kept one's
    circle are dropped); the weak peaks come after every peak over the seed bar."""
    kept: list[tuple[float, float, float, bool]] = []
    # Plain loops over Python floats: a generator under `all` cost more than the tests (some 600
    # a frame, every peak against the ones kept before it).
    for weak, group in ((False, peaks), (True, weak_peaks)):
        for x, y, r in group:
            for kx, ky, kr, _ in kept:
                reach = kr if kr > r else r
                if not (x - kx) ** 2 + (y - ky) ** 2 > reach ** 2:
                    break
            else:
                kept.append((x, y, r, weak))
    return [(np.array([x, y]), weak) for x, y, _, weak in kept]


def coloured_middle(work_lab, frame: ParsedProfile, seed) -> bool:
    """Whether nearly all of the frame within half the smallest disc's radius of `seed` (full
    pixels) is labelled a disc colour, as a tower's middle is (see WEAK_SEED_SHARE)."""
    half = max(1, round(to_work(min(frame.pieces.radii_mm) * float(frame.scale.at(*seed)) / 2)))
    x, y = (int(round(to_work(v))) for v in seed)
    window = work_lab[max(0, y - half): y + half + 1, max(0, x - half): x + half + 1]
    labels = pixel_labels(window, frame)
    return np.count_nonzero(labels < len(frame.colours.names)) >= COLOURED_MIDDLE_SHARE * labels.size


def read_tower(
    image_bgr, work_lab, frame: ParsedProfile, seed_full, threshold: float, outlines=(), peaks=(),
) -> TowerReading | None:
    """Read one tower at full resolution around its vote peak.

    First the discs that colour shows (`colour_chain`), then every other size is tried on edges
    alone, away from the rims already found: that catches a disc on one of its own colour and a
    disc the colour of the board (a white disc on a cream board). `outlines` are the bottom
    circles (x, y, radius) of the towers read before, whose rims are not this tower's; `peaks`
    the frame's centre-vote peaks (x, y, radius; full pixels).
    """
    pieces = frame.pieces
    px_per_mm = float(frame.scale.at(*seed_full))
    reach = SEED_REACH_MM * px_per_mm
    step = MAX_STEP_OFFSET_MM * px_per_mm
    half = max(pieces.radii_mm) * px_per_mm * 1.15 + reach + 4
    height, width = image_bgr.shape[:2]
    # Even bounds so that the crop maps exactly onto the reduced frame used for labels.
    x0, y0 = (int(max(0, seed_full[0] - half)) // 2) * 2, (int(max(0, seed_full[1] - half)) // 2) * 2
    x1, y1 = (int(min(width, seed_full[0] + half + 1)) // 2) * 2, (int(min(height, seed_full[1] + half + 1)) // 2) * 2
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    origin = np.array([x0, y0], dtype=float)
    seed = np.asarray(seed_full, dtype=float) - origin
    edges = edge_field(image_bgr[y0:y1, x0:x1], threshold)
    work = work_lab[round(to_work(y0)): round(to_work(y1)), round(to_work(x0)): round(to_work(x1))]
    work_labels = pixel_labels(work, frame)
    labels = cv2.resize(work_labels, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
    radii = {size: r * px_per_mm for size, r in zip(pieces.sizes, pieces.radii_mm)}
    # (size, centre in the crop) of the vote peaks in the crop, by the size whose radius voted.
    sized_peaks = tuple((min(pieces.sizes, key=lambda s: abs(radii[s] - r)), np.array([x, y]) - origin)
                        for x, y, r in peaks if x0 <= x < x1 and y0 <= y < y1)
    chain, handed_over = colour_chain(work_labels, labels, edges, frame, seed, radii, reach, sized_peaks)
    # Edge tests, strongest rim first: a rim once accepted is excluded from the tests of the
    # other sizes, so a size between two real discs is not made up of pieces of their rims
    # and shadows (which a test in size order, before the smaller disc is known, would do).
    neighbours = tuple((x - x0, y - y0, r) for x, y, r in outlines)
    context = EdgeContext(edges, labels, frame, seed, radii, reach, step, EDGE_GAP_MM * px_per_mm, neighbours,
                           sized_peaks)
    # size -> (centre, presence, colour label just inside its rim). A size the colour chain fitted
    # but found doubtful (a leaning stack leaves its footprint a crescent, whose inscribed circle
    # lies beside the disc) is not taken as found: the edge tests try it like any other size. Nor
    # is one that shows no colour label inside its rim: colour did not find it (a patch of glare
    # or shade on the disc below makes such a footprint).
    accepted = {size: disc for size, disc in chain.items() if disc[1] >= 0.5 and disc[2] is not None}
    while True:
        candidates, dark, farther = edge_candidates([size for size in pieces.sizes if size not in accepted],
                                                     accepted, context)
        # A rim with a colour step goes before a dark line (a disc on one of its own colour):
        # the side and shadow of a disc not yet found can draw such a line at another size. So
        # does a dark line within the overhang of the fitted centre below before one found only
        # by allowing for that centre's error: the line of a smaller disc not yet found runs
        # inside the circle of a bigger one beside it, tangent to it.
        stepped = [size for size in candidates if size not in dark and candidates[size][1] >= 0.5]
        near = [size for size in candidates if size not in farther and candidates[size][1] >= 0.5]
        strongest = max(stepped or near or candidates, key=lambda size: candidates[size][1], default=None)
        if strongest is None or candidates[strongest][1] < 0.5:
            break
        accepted[strongest] = candidates[strongest]
    slots = []  # (size, centre, radius, presence), biggest first
    kept_doubt = doubt_of_handed_over(handed_over, accepted, frame)
    for size in sorted(pieces.sizes, reverse=True):
        centre, presence, _ = accepted[size] if size in accepted else candidates[size]
        if size in kept_doubt and kept_doubt[size][1] > presence:
            centre, presence = kept_doubt[size]
        if size in chain or presence >= DOUBTFUL or any(p >= 0.5 for *_, p in slots):
            slots.append((size, centre, radii[size] * level_growth(tower_level(size, accepted), pieces), presence))
    if not any(p >= 0.5 for *_, p in slots):
        return None
    return TowerReading(tuple(colour_slots(edges.lab_bytes, labels, origin, frame, slots)))


def _scene_confidence(lab_small, frame: ParsedProfile, towers) -> tuple[float, str | None]:
    """Low when the calibrated board is not in view or something covers part of it."""
    if frame.board_area is None:
        return 1.0, None
    rows, cols = frame.board_area.shape
    grid = board_like_grid(lab_small, frame.board, (cols, rows))
    circles = [(d.centre[0], d.centre[1], d.radius) for t in towers for d in t.discs[:1]]
    shape = tuple(float(v) for v in to_full(lab_small.shape[:2]))
    grid |= cells_near_circles(shape, (cols, rows), circles)
    expected = frame.board_area.sum()
    if expected == 0:
        return 1.0, None
    visible = float((grid & frame.board_area).sum() / expected)
    if visible >= BOARD_VISIBLE:
        return 1.0, None
    note = "board not in view" if visible < BOARD_GONE else "something covers part of the board"
    # Whatever was read is doubtful: a hand may hide towers, a board out of view shows none.
    return float(max(PROBABILITY_FLOOR, visible * HIDDEN_BOARD_CONFIDENCE)), note
