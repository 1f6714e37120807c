"""Wari recognition on the rendered bench sessions: exactness by true count, distribution coverage, speed.

Usage: python3 benchmarks/bench_wari_vision.py [--camera NAME] [SESSION_DIR ...]
(default: every ../shared/bench/wari/S* next to the repository). Each session is calibrated on
its start.jpg, then every position and sequence photo is recognised on one core; times exclude
JPEG decoding. Besides exactness and the distributions, it reports how often the true position
scores within the tracker's margin of the reading (`arbiter.tracker.FIT_MARGIN`): below that,
the tracker could not accept the true move from that photo.

`--camera` re-shoots every photo of a session through another camera before anything is
measured, as a stand-in for unseen sessions (`turned`, `tilted` or `soft`: see reshoot.py).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from arbiter.tracker import FIT_MARGIN
from calibration.wari import calibrate
from vision.io import read_image
from vision.wari import recognize

from reshoot import CAMERAS, reshoot  # beside this script

BUCKETS = ((0, 3), (4, 7), (8, 12), (13, 48))
DEFAULT_BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench" / "wari"


def bench_session(folder: Path, camera: str | None) -> None:
    truth = json.loads((folder / "truth.json").read_text())
    rng = np.random.default_rng(0)
    profile = calibrate(reshoot(read_image(folder / truth["start"]["image"]), camera, rng))
    frames = truth["positions"] + truth["sequence"]
    exact = {bucket: [] for bucket in BUCKETS}
    covered = {bucket: [] for bucket in BUCKETS}
    sizes = {bucket: [] for bucket in BUCKETS}
    store_exact, store_covered, all_right, confidences, milliseconds, fitting = [], [], [], [], [], []
    for item in frames:
        image = reshoot(read_image(folder / item["image"]), camera, rng)
        started = time.perf_counter()
        observation = recognize(image, profile)
        milliseconds.append(1000 * (time.perf_counter() - started))
        reading = observation.to_json()
        confidences.append(reading["confidence"])
        all_right.append(reading["state"]["pits"] == item["pits"])
        # The tracker only accepts a position scoring within FIT_MARGIN of the reading itself.
        true_state = {"pits": item["pits"], "stores": item["stores"]}
        fitting.append(observation.log_likelihood(true_state) >= observation.log_likelihood(reading["state"]) - FIT_MARGIN)
        for true, read, distribution in zip(item["pits"], reading["state"]["pits"], reading["evidence"]["pits"]):
            bucket = next(b for b in BUCKETS if b[0] <= true <= b[1])
            exact[bucket].append(true == read)
            covered[bucket].append(str(true) in distribution)
            sizes[bucket].append(len(distribution))
        for true, read, distribution in zip(item["stores"], reading["state"]["stores"], reading["evidence"]["stores"]):
            store_exact.append(true == read)
            store_covered.append(str(true) in distribution)
    shot_by = f", camera {camera}" if camera else ""
    print(f"session {folder.name} ({truth['style']}{shot_by}): {len(frames)} frames, calibration {profile['summary']}")
    for bucket in BUCKETS:
        if exact[bucket]:
            print(
                f"  pits with {bucket[0]}-{bucket[1]} seeds: {len(exact[bucket])} pits, exact {100 * np.mean(exact[bucket]):.1f}%,"
                f" truth in distribution {100 * np.mean(covered[bucket]):.1f}%, mean distribution size {np.mean(sizes[bucket]):.2f}"
            )
    print(f"  all 12 pits right: {100 * np.mean(all_right):.1f}% of frames")
    print(f"  true position within the tracker's margin of the reading: {100 * np.mean(fitting):.1f}% of frames")
    print(f"  stores: exact {100 * np.mean(store_exact):.1f}%, truth in distribution {100 * np.mean(store_covered):.1f}%")
    print(f"  confidence: min {min(confidences):.3f}, median {np.median(confidences):.3f}")
    print(f"  ms per frame: median {np.median(milliseconds):.1f}, 95th percentile {np.percentile(milliseconds, 95):.1f}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--camera", choices=sorted(CAMERAS), help="re-shoot every photo through another camera")
    parser.add_argument("sessions", nargs="*", type=Path)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    folders = args.sessions or sorted(DEFAULT_BENCH.glob("S*"))
    if not folders:
        print(f"no bench sessions found under {DEFAULT_BENCH}", file=sys.stderr)
        return 1
    for folder in folders:
        bench_session(folder, args.camera)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
