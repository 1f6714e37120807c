"""Wari recognition on the rendered bench sessions: exactness by true count, distribution coverage, speed.

Usage: python3 benchmarks/bench_wari_vision.py [--camera NAME] [SESSION_DIR ...]
(default: every ../shared/bench/wari/S* next to the repository). Each session is calibrated on
its start.jpg, then every position and sequence photo is recognised on one core; times exclude
JPEG decoding. Besides exactness and the distributions, it reports how often the true position
scores within the tracker's margin of the reading (`arbiter.tracker.FIT_MARGIN`): below that,
the tracker could not accept the true move from that photo.

`--camera` re-shoots every photo of a session through another camera before anything is
measured, as a stand-in for unseen sessions: `turned` (rotated 8 degrees, 10 % smaller, shifted,
a warmer lamp), `tilted` (a keystoned view, dimmer, noisier) or `soft` (rotated the other way,
5 % larger, a cooler lamp, slightly out of focus).
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

BUCKETS = ((0, 3), (4, 7), (8, 12), (13, 48))
DEFAULT_BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench" / "wari"
FRAME = (1280, 960)


def _corners_moved(shifts) -> np.ndarray:
    width, height = FRAME
    corners = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    return cv2.getPerspectiveTransform(corners, corners + np.float32(shifts))


def _turn(angle: float, scale: float, shift: tuple[float, float]) -> np.ndarray:
    matrix = cv2.getRotationMatrix2D((FRAME[0] / 2, FRAME[1] / 2), angle, scale)
    matrix[:, 2] += shift
    return np.vstack([matrix, [0, 0, 1]])


CAMERAS = {
    # homography, BGR gains, blur sigma, noise sigma
    "turned": (_turn(8, 0.9, (30, -20)), (0.8, 1.0, 1.15), 0.0, 0.0),
    "tilted": (_corners_moved([[77, 38], [-77, -23], [15, 23], [-15, -38]]), (0.7, 0.7, 0.7), 0.0, 4.0),
    "soft": (_turn(-10, 1.05, (-20, 10)), (1.2, 1.0, 0.85), 1.0, 0.0),
}


def reshoot(image: np.ndarray, camera: str | None, rng: np.random.Generator) -> np.ndarray:
    """The photo as another camera would take it (unchanged without a camera), re-encoded as JPEG."""
    if camera is None:
        return image
    homography, gains, blur, noise = CAMERAS[camera]
    shot = cv2.warpPerspective(image.astype(np.float32), homography, FRAME, borderMode=cv2.BORDER_REFLECT)
    shot *= np.float32(gains)
    if blur:
        shot = cv2.GaussianBlur(shot, (0, 0), blur)
    if noise:
        shot += rng.normal(0, noise, shot.shape).astype(np.float32)
    _, encoded = cv2.imencode(".jpg", np.clip(shot, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 85])
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR)


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
