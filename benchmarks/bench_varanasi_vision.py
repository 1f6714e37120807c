"""Varanasi vision on the rendered bench sessions: calibrate on each, recognise every photo.

Prints, per session and overall: exact-position accuracy (every tower exactly right), per-disc
accuracy and the median / 95th-percentile milliseconds per frame of `recognize`.

    taskset -c 0 python3 benchmarks/bench_varanasi_vision.py [BENCH_DIR] [--verbose]

BENCH_DIR defaults to ../shared/bench/varanasi next to the repository.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from calibration.varanasi import calibrate
from vision.io import read_image
from vision.varanasi import recognize
from vision.varanasi_assignment import assign

DEFAULT_BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench" / "varanasi"


def truth_stacks(position: dict) -> list[list[str]]:
    return [[f"{d['size']}{d['colour']}" for d in stack] for stack in position["stacks"]]


def photographed_positions(truth: dict) -> list[dict]:
    """Every photo of a session with its true stacks (positions, the game, illegal pairs)."""
    items = list(truth["positions"]) + list(truth["sequence"])
    for pair in truth["illegal_pairs"]:
        items += [pair["before"], pair["after"]]
    return items


def discs_right(truth: list[list[str]], seen: list[list[str]]) -> tuple[int, int]:
    """(discs read right, discs counted): towers are paired to share most discs in place;
    a disc is right when its paired tower holds it; extra discs seen count against."""
    if not truth or not seen:
        return 0, max(sum(map(len, truth)), sum(map(len, seen)))
    shared = np.array([[len(set(t) & set(s)) for s in seen] for t in truth], dtype=float)
    right = int(sum(shared[i, j] for i, j in assign(-shared)))
    return right, max(sum(map(len, truth)), sum(map(len, seen)))


def same_position(truth: list[list[str]], seen: list[list[str]]) -> bool:
    return sorted(map(tuple, truth)) == sorted(map(tuple, seen))


def run_session(folder: Path, verbose: bool) -> dict:
    truth = json.loads((folder / "truth.json").read_text())
    profile = calibrate(read_image(folder / truth["calibration"]["image"]), truth["pieceset"])
    exact, right, counted, millis = 0, 0, 0, []
    items = photographed_positions(truth)
    for item in items:
        image = read_image(folder / item["image"])
        start = time.perf_counter()
        observation = recognize(image, profile)
        millis.append(1000 * (time.perf_counter() - start))
        seen = observation.to_json()["state"]["stacks"]
        expected = truth_stacks(item)
        exact += same_position(expected, seen)
        r, c = discs_right(expected, seen)
        right, counted = right + r, counted + c
        if verbose and not same_position(expected, seen):
            wrong_true = sorted(map(tuple, expected))
            wrong_seen = sorted(map(tuple, seen))
            print(f"  {item['image']}: missed {[t for t in wrong_true if t not in wrong_seen]} "
                  f"read {[s for s in wrong_seen if s not in wrong_true]} conf {observation.confidence:.3f}")
    return {"images": len(items), "exact": exact, "right": right, "counted": counted, "millis": millis}


def report(name: str, result: dict) -> None:
    millis = np.array(result["millis"])
    print(
        f"{name}: {result['images']} images, exact positions {100 * result['exact'] / result['images']:.1f}%, "
        f"per-disc {100 * result['right'] / max(1, result['counted']):.2f}% ({result['right']}/{result['counted']}), "
        f"ms/frame median {np.median(millis):.1f} p95 {np.percentile(millis, 95):.1f}"
    )


def main(argv: list[str]) -> int:
    # The target is per frame on one core: keep OpenCV from spreading over the others.
    cv2.setNumThreads(1)
    verbose = "--verbose" in argv
    folders = [a for a in argv if not a.startswith("--")]
    bench = Path(folders[0]) if folders else DEFAULT_BENCH
    sessions = sorted(p for p in bench.iterdir() if (p / "truth.json").is_file())
    total = {"images": 0, "exact": 0, "right": 0, "counted": 0, "millis": []}
    for session in sessions:
        result = run_session(session, verbose)
        report(session.name, result)
        for key in total:
            total[key] += result[key]
    report("all", total)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
