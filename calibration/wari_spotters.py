"""Learning how to spot a Wari board's seeds one by one from its start photo, 4 in every pit."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from engines.errors import ArbiterError
from vision.wari_board import PIT_COUNT, BoardGeometry
from vision.wari_count import CountModel
from vision.wari_measure import SPOT_CUES, SeedSpotter, measure_regions
from vision.wari_seeds import SeedColourModel
from calibration.wari_start_checks import START_SEEDS_PER_PIT, seeds_phrase
from vision.wari_params import (
    GLINT_THRESHOLDS,
    GLINT_WINDOWS,
    KEPT_SPOTS,
    SHAPE_THRESHOLDS,
    SPOT_AGREEMENT,
)


def learn_spotters(frame: np.ndarray, geometry: BoardGeometry, colours: SeedColourModel, counts: CountModel):
    """The seed spotters under which most pits show their 4 seeds: (spotters, pits agreeing).

    Each cue is tried over a range of thresholds (glints also over a few windows, see
    `GLINT_WINDOWS`); the cue with the most pits showing exactly 4
    spots wins, at the middle of its best range of thresholds, as far as possible from both
    missing seeds and counting wood grain. On a tie both cues count: each misses seeds its own
    way, so recognition takes the larger count. Glints also count one pit short of the best (see
    `agreement_needed`).
    No cue agreeing in 10 pits means counting by area alone (matte, oddly shaped seeds); pits
    agreeing on another number mean the photo is not of the start position.
    """
    seed_diameter = 2 * np.sqrt(float(np.median(counts.seed_area[:PIT_COUNT])) / np.pi)
    trials = {
        "glint": np.arange(*GLINT_THRESHOLDS),  # lightness units above the surroundings
        "shape": seed_diameter / 2 * np.arange(*SHAPE_THRESHOLDS),  # pixels from the blob's edge
    }

    def spot_counts(cue: str, kernel: int) -> np.ndarray:
        return np.array([
            measure_regions(frame, geometry, colours, (SeedSpotter(cue, kernel, t),)).spots[:PIT_COUNT]
            for t in trials[cue]
        ]).astype(int)

    def agreeing_pits(spots: np.ndarray) -> np.ndarray:
        return (spots == START_SEEDS_PER_PIT).sum(axis=1)

    # Touching round beads' glints lie about one seed diameter apart, just where a window of one
    # diameter starts to merge them: the glint window is learned too, the full diameter first.
    windows = list(dict.fromkeys(max(3, int(round(seed_diameter * share))) for share in GLINT_WINDOWS))
    kernels = {"shape": windows[0]}
    found = {"shape": spot_counts("shape", windows[0])}
    tried = []
    for window in windows:
        tried.append((window, spot_counts("glint", window)))
        if agreeing_pits(tried[-1][1]).max() == PIT_COUNT:
            break  # no smaller window can do better than every pit agreeing
    kernels["glint"], found["glint"] = max(tried, key=lambda window_spots: agreeing_pits(window_spots[1]).max())
    agreement = {cue: agreeing_pits(spots) for cue, spots in found.items()}
    best = max(int(agreement[cue].max()) for cue in SPOT_CUES)
    usual, showing = other_count_most_shown(found.values())
    if showing > best and showing >= SPOT_AGREEMENT - 2:
        raise ArbiterError(f"the photo shows {seeds_phrase(usual)} in most pits: calibration needs the start position with 4 in each pit")
    if best < SPOT_AGREEMENT:
        return (), best
    # How often a pit's count is one off, from the pits that missed 4 (plus half a miss, so that
    # 12 agreeing pits do not promise perfection).
    slip = (PIT_COUNT - best + 0.5) / (PIT_COUNT + 1)
    spotters = []
    for cue in SPOT_CUES:
        level = int(agreement[cue].max())
        only_short = bool((found[cue][agreement[cue] == level] <= START_SEEDS_PER_PIT).all())
        if level >= agreement_needed(cue, best, only_short):
            agreeing = trials[cue][agreement[cue] == level]
            spotter = SeedSpotter(cue, kernels[cue], float((agreeing.min() + agreeing.max()) / 2), slip)
            if cue == "glint":
                spotter = replace(spotter, glint_offset=_glint_offset(frame, colours, spotter))
            spotters.append(spotter)
    return tuple(spotters), best


def other_count_most_shown(found: Iterable[np.ndarray]) -> tuple[int, int]:
    """Of the counts other than 4, the one most pits show at one threshold of one cue, and how
    many pits show it there. `found`: per cue, the pits' spot counts, one row per threshold.

    Only thresholds at which every pit shows a seed count: past them lone seeds vanish too, and a
    heap of touching nuts shows one peak (a start's heaped nuts read "1 seed in most pits" at the
    shape cue's highest thresholds)."""
    every_pit_seen = [_with_most_spots(spots[(spots > 0).all(axis=1)]) for spots in found]
    showing = {
        n: max(int((spots == n).sum(axis=1).max(initial=0)) for spots in every_pit_seen)
        for n in range(1, 3 * START_SEEDS_PER_PIT)
        if n != START_SEEDS_PER_PIT
    }
    usual = max(showing, key=showing.get)
    return usual, showing[usual]


def _with_most_spots(spots: np.ndarray) -> np.ndarray:
    """The thresholds' rows of pit spot counts that keep `KEPT_SPOTS` of the most spots any row
    shows: where a cue has lost more, seeds are vanishing, and what the pits show is what is left."""
    if not len(spots):
        return spots
    totals = spots.sum(axis=1)
    return spots[totals >= KEPT_SPOTS * totals.max()]


def agreement_needed(cue: str, best: int, only_short: bool) -> int:
    """Pits that must show their 4 seeds for a cue to count, when the best cue shows them in `best`
    (`only_short`: the pits where the cue misses show fewer seeds, never more).

    Glints count one pit short of the best: touching seeds' glints stay apart, and only glints
    find the half-buried seeds of a pile, which the shape cue merges with the seeds on top. Two
    pits short if they only miss seeds: a white bead's glint hardly stands out from the bead, and
    recognition takes the larger of the cues' counts, so a cue that misses seeds costs nothing
    where the other finds them. The shape cue only counts on a tie: one pit short, long nuts'
    merged shapes over-count.
    """
    if cue != "glint":
        return best
    return max(SPOT_AGREEMENT, best - (2 if only_short else 1))


def _glint_offset(frame: np.ndarray, colours: SeedColourModel, spotter: SeedSpotter) -> tuple[float, float]:
    """Median offset from a glint to the centre of the seed pixels around it (within 0.6 of a seed
    across, so the neighbours' pixels hardly count), over the start photo's seeds lying apart."""
    seed_like = colours.probability(frame) > 0.5
    glints, _ = spotter.spots(frame, seed_like)
    reach = 0.6 * spotter.kernel
    ys, xs = np.nonzero(seed_like)
    offsets = []
    for x, y in spotter.glint_centres(glints):
        near = (xs - x) ** 2 + (ys - y) ** 2 <= reach**2
        if near.any():
            offsets.append((xs[near].mean() - x, ys[near].mean() - y))
    if not offsets:
        return 0.0, 0.0
    dx, dy = np.median(np.array(offsets), axis=0)
    return float(dx), float(dy)
