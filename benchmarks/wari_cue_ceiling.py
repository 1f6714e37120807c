"""How far Wari's cues could carry exact counts: an in-sample lookup against the recogniser.

Usage: python3 benchmarks/wari_cue_ceiling.py [--camera NAME] [SESSION_DIR ...]
(default: every ../shared/bench/wari/S*). For every pit of every photo of a session it takes the
cues recognition measures (spots counted as lying apart, spots counted as crowded, seed area in
whole seeds) and the true count. The lookup reads each pit as the true count most frequent among
the pits of the same session with the same cues, fitted on the very pits it is scored on: an
optimistic bound for any count model built on these cues, with the session's truth in hand.
Printed beside it, per bucket of true counts, is what `recognize` reads.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

from vision.wari import WariProfile, recognize
from vision.wari_measure import measure_regions
from vision.wari_seeds import working_frame

from bench_wari_vision import BUCKETS, PIT_COUNT, session_folders, session_photos  # beside this script
from reshoot import CAMERAS


def session_pits(folder: Path, camera: str | None) -> list[tuple[int, tuple[int, int, int], int]]:
    """(true count, cues, recognised count) for every pit of every photo of a session."""
    _, profile, photos = session_photos(folder, camera)
    calibrated = WariProfile.from_json(profile)
    seed_area = calibrated.counts.seed_area
    pits = []
    for image, item, _ in photos:
        measures = measure_regions(working_frame(image), calibrated.geometry, calibrated.colours, calibrated.spotters)
        read = recognize(image, profile).pits
        for pit in range(PIT_COUNT):
            cues = (int(measures.spots[pit]), int(measures.crowded_spots[pit]),
                    int(measures.seed_pixels[pit] / seed_area[pit]))
            pits.append((item["pits"][pit], cues, read[pit]))
    return pits


def report(title: str, pits: list) -> None:
    seen = defaultdict(Counter)
    for true, cues, _ in pits:
        seen[cues][true] += 1
    print(title)
    for low, high in BUCKETS:
        chosen = [(true, cues, read) for true, cues, read in pits if low <= true <= high]
        if chosen:
            lookup = np.mean([seen[cues].most_common(1)[0][0] == true for true, cues, _ in chosen])
            recognised = np.mean([read == true for true, _, read in chosen])
            print(f"  pits with {low}-{high} seeds: {len(chosen)} pits, exact: lookup {100 * lookup:.1f}%,"
                  f" recognize {100 * recognised:.1f}%")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--camera", choices=sorted(CAMERAS), help="re-shoot every photo through another camera")
    parser.add_argument("sessions", nargs="*", type=Path)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    for folder in session_folders(args.sessions):
        shot_by = f", camera {args.camera}" if args.camera else ""
        report(f"session {folder.name}{shot_by}", session_pits(folder, args.camera))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
