"""Calibrating a Wari table from one photo of the standard start (4 seeds in every pit).

The 48 seeds are what stands out in that photo: they are found as small patches that differ from
their surroundings, grouped into 12 clusters that must form two rows of six, and a homography from
the board's own frame is fitted to the cluster centres. Each pit's circle is then moved onto its
rim, where the edges stand out all round it, and the homography fitted again; the stores are
found where the image has the strongest edges along ellipses of that layout. Knowing
that each pit holds exactly 4 seeds, the photo also teaches the seeds' colours (from the
contrasted pixels whose colour the wood does not take in light or shade) and the area one seed
covers in each pit, and how much that area varies between pits.
"""
from __future__ import annotations
from collections.abc import Iterable

import numpy as np

from engines.errors import ArbiterError
from vision.wari import recognize
from vision.wari_board import PIT_COUNT, local_scale
from vision.wari_count import CountModel
from vision.wari_measure import board_top_colours, measure_regions
from vision.wari_seeds import local_contrast, working_frame
from calibration.wari_colours import learn_colours
from calibration.wari_grid import pit_clusters_by_share, second_readings
from calibration.wari_rims import fit_geometry
from calibration.wari_spotters import learn_spotters
from calibration.wari_start_checks import (
    FAINT_PIT_MESSAGE,
    START_SEEDS_PER_PIT,
    PitOutOfView,
    check_misread_pits_hold_4,
    check_pits_in_view,
    check_pits_show_their_seeds,
)
from vision.wari_params import (
    START_MISREADS,
)


def calibrate(image: np.ndarray) -> dict:
    """Find the board in a photo of the standard start and learn its seeds: a profile dict."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.shape[1] < 64:
        raise ArbiterError("calibration needs a colour photo of the board")
    frame = working_frame(image)
    # Merging nearest seed blobs first can give a seed on one side of a bowl to the next pit's
    # cluster, and that pit's circle then misses its rim (nicker 1510 through the tilted camera:
    # South's a centred 0.3 pitches off its bowl, the start refused). Only a refused photo is read
    # again with each blob given to the pit its place on the grid lies nearest: regrouping every
    # photo moves circles no nearer the true rims, and the pile counter learned its crops from the
    # circles as merging places them. Where regrouping moves no pit, the refusal stands at once.
    # A photo whose pits formed no grid at all is read again with wider openings (`ARC_OPENINGS`).
    contrast = local_contrast(frame, frame.shape[1] // 16)
    try:
        return first_accepted_profile(image, frame, pit_clusters_by_share(contrast))
    except ArbiterError as refusal:
        for clusters in second_readings(contrast):
            try:
                return first_accepted_profile(image, frame, clusters)
            except ArbiterError:
                continue
        raise refusal from None


def first_accepted_profile(image: np.ndarray, frame: np.ndarray, clusters: Iterable[tuple[np.ndarray, np.ndarray, bool]]) -> dict:
    # A share at which the pits form the grid may still leave out the seeds coloured most like the
    # wood (a red bead of four on red wood): the pits then seem to hold 3, or the profile misreads
    # its own start photo. The lower shares get their turn then, and a profile after the first one
    # made is kept only if it reads the start exactly: where the first refused a pit of 2 or 3
    # seeds, a lower share adds the bowl's shade to its area. Failing that, the first profile
    # made is kept, or the first refusal explains the photo. Either way, the first profile is
    # kept only if the pits it misreads are misread, not pits holding another number of seeds.
    # A first profile that counts by area alone, its spot cues agreeing in too few pits, may have
    # left seeds out (glass 1200 through the soft camera: its dark blue beads at the first share):
    # a lower share's profile is kept instead if it spots the seeds and reads the start exactly.
    first_refusal = first_profile = first_reading = None
    for seed_mask, centres, pits_alike in clusters:
        try:
            profile = profile_from_clusters(image, frame, seed_mask, centres)
        except ArbiterError as refusal:
            # Where one pit's cluster is faint, that pit is what to mend, whatever the check that
            # failed; a refusal naming the pit the photo's edge cuts says so already.
            if not pits_alike and not isinstance(refusal, PitOutOfView):
                refusal = ArbiterError(FAINT_PIT_MESSAGE)
            first_refusal = first_refusal or refusal
            continue
        reading = recognize(image, profile)
        misread = sum(count != START_SEEDS_PER_PIT for count in reading.pits)
        if first_profile is None:
            if misread <= START_MISREADS and profile["spotters"]:
                check_misread_pits_hold_4(image, profile, reading)
                return profile
            first_profile, first_reading, first_misread = profile, reading, misread
        elif misread == 0 and (profile["spotters"] or first_misread > START_MISREADS):
            return profile
    if first_profile is None:
        raise first_refusal
    check_misread_pits_hold_4(image, first_profile, first_reading)
    return first_profile


def profile_from_clusters(image: np.ndarray, frame: np.ndarray, seed_mask: np.ndarray, centres: np.ndarray) -> dict:
    """The profile from the start photo's seed mask and pit clusters, or a refusal if its pits do
    not show 4 seeds each."""
    scale = frame.shape[1] / image.shape[1]
    geometry = fit_geometry(centres / scale, (image.shape[1], image.shape[0]), frame, seed_mask)
    check_pits_in_view(geometry)
    colours = learn_colours(frame, geometry, seed_mask)
    measures = measure_regions(frame, geometry, colours)
    counts = CountModel.learn(geometry, measures.seed_pixels, frame.shape[1], START_SEEDS_PER_PIT)
    check_pits_show_their_seeds(measures.seed_pixels[:PIT_COUNT] / np.array(counts.seed_area[:PIT_COUNT]), counts.spread)
    spotters, spot_agreement = learn_spotters(frame, geometry, colours, counts)
    return {
        "game": "wari",
        "board": geometry.to_json(),
        "seed_colours": colours.to_json(),
        "counts": counts.to_json(),
        "spotters": [spotter.to_json() for spotter in spotters],
        "start_pits_spotted": spot_agreement,
        "board_top_lab": [
            [round(float(v), 1) for v in colour] if np.isfinite(colour).all() else None
            for colour in board_top_colours(frame, geometry)
        ],
        "summary": {
            "pit_pitch_px": round(local_scale(geometry, 2), 1),
            "pit_radius_px": round(local_scale(geometry, 2) * geometry.pit_radius, 1),
            "seed_area_px": round(float(np.median(counts.seed_area)) / scale**2, 1),
            "start_count_spread": round(counts.spread, 3),
            "seed_spotting": " and ".join(spotter.cue for spotter in spotters) or "area only",
            "pits_with_4_spots": spot_agreement,
        },
    }
