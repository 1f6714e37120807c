"""Varanasi vision on the rendered bench sessions: calibrate on each, recognise every photo.

Prints, per session and overall: exact-position accuracy (every tower exactly right), per-disc
accuracy and the median / 95th-percentile milliseconds per frame of `recognize`.

    taskset -c 0 python3 benchmarks/bench_varanasi_vision.py [BENCH_DIR] [--verbose] [--camera NAME | --synthetic]
    taskset -c 0 python3 benchmarks/bench_varanasi_vision.py [BENCH_DIR] --markdown

`--markdown` runs every set (the bench as photographed, session by session; the bench through each
other camera; the synthetic sessions, layouts 0-3 and the unseen layouts 4-11) and prints one
Markdown table of them, the table of docs/vision-varanasi.md.

BENCH_DIR defaults to ../shared/bench/varanasi next to the repository. `--camera` re-shoots every
photo of a session, the calibration photo first, through another camera before anything is measured,
as a stand-in for unseen sessions (`turned`, `tilted` or `soft`: see reshoot.py); a session whose
calibration fails is reported and skipped. With --synthetic, sessions rendered by
`device/synthetic_varanasi.py` (boards, lamps, tilts, random layouts) instead.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

# One core, as the target says: OpenBLAS would otherwise spread larger matrix products over
# every core, and the reading thread's CPU time would not see that work.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2
import numpy as np

from calibration.varanasi import calibrate
from engines.errors import ArbiterError
from vision.io import read_image
from vision.varanasi import recognize
from vision.varanasi_assignment import assign
from reshoot import CAMERAS, reshoot  # beside this script

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


def run_session(folder: Path, camera: str | None, verbose: bool) -> dict:
    truth = json.loads((folder / "truth.json").read_text())
    # The calibration photo is re-shot first, as bench_tracker does, so both see the same one.
    rng = np.random.default_rng(0)
    profile = calibrate(reshoot(read_image(folder / truth["calibration"]["image"]), camera, rng), truth["pieceset"])
    photos = ((item["image"], reshoot(read_image(folder / item["image"]), camera, rng), truth_stacks(item))
              for item in photographed_positions(truth))
    return read_photos(profile, photos, verbose)


def bench_sessions(bench: Path, camera: str | None, verbose: bool):
    """(name, result) of each bench session; a failed calibration is printed, not counted."""
    for session in sorted(p for p in bench.iterdir() if (p / "truth.json").is_file()):
        name = f"{session.name} camera {camera}" if camera else session.name
        try:
            yield name, run_session(session, camera, verbose)
        except ArbiterError as error:
            print(f"{name}: calibration failed: {error}")


def read_photos(profile: dict, photos, verbose: bool) -> dict:
    """Recognise each (name, image, true stacks) and count what was read right."""
    exact, right, counted, millis, cpu_millis, images = 0, 0, 0, [], [], 0
    for name, image, expected in photos:
        start, cpu_start = time.perf_counter(), time.thread_time()
        observation = recognize(image, profile)
        millis.append(1000 * (time.perf_counter() - start))
        cpu_millis.append(1000 * (time.thread_time() - cpu_start))
        seen = observation.to_json()["state"]["stacks"]
        images += 1
        exact += same_position(expected, seen)
        r, c = discs_right(expected, seen)
        right, counted = right + r, counted + c
        if verbose and not same_position(expected, seen):
            wrong_true = sorted(map(tuple, expected))
            wrong_seen = sorted(map(tuple, seen))
            print(f"  {name}: missed {[t for t in wrong_true if t not in wrong_seen]} "
                  f"read {[s for s in wrong_seen if s not in wrong_true]} conf {observation.confidence:.3f}")
    return {"images": images, "exact": exact, "right": right, "counted": counted, "millis": millis,
            "cpu_millis": cpu_millis}


def random_stacks(pieceset: dict, rng) -> list[list[str]]:
    """8-16 discs of the set in legal towers: each goes on a tower whose top disc is bigger (half
    the time while there are fewer than five towers, always after) or on the table."""
    discs = [(int(size), colour) for size in pieceset["sizes"] for colour in pieceset["colours"]]
    towers: list[list[tuple[int, str]]] = []
    for index in rng.permutation(len(discs))[: rng.integers(8, 17)]:
        size, colour = discs[index]
        bases = [t for t in towers if t[-1][0] > size]
        if bases and (len(towers) >= 5 or rng.random() < 0.5):
            bases[rng.integers(len(bases))].append((size, colour))
        else:
            towers.append([(size, colour)])
    return [[f"{size}{colour}" for size, colour in tower] for tower in towers]


def synthetic_sessions(verbose: bool, layouts: range = range(4)):
    """(name, result) of rendered sessions: three boards and tables, a plain lamp and strong blue
    and orange casts, the camera tilted -10, 0 and 10 degrees, four random layouts each (glare
    on every other one). Not the bench: a check that what works there is not tuned to it. Other
    `layouts` give positions never looked at while the code was written."""
    from device.synthetic_varanasi import render_calibration, render_table

    pieceset = json.loads((Path(__file__).resolve().parents[1] / "calibration" / "pieces" / "nestor-standard.json").read_text())
    lamps = {"plain": None, "blue": (1.15, 0.95, 0.75), "orange": (0.7, 0.95, 1.15)}
    for session in range(3):
        for lamp_name, lamp in lamps.items():
            for tilt in (-10, 0, 10):
                name = f"synthetic {session} {lamp_name} tilt {tilt}"
                try:
                    profile = calibrate(render_calibration(pieceset, seed=100 + session, session=session,
                                                           tilt_deg=tilt, lamp=lamp), pieceset)
                except ArbiterError as error:
                    print(f"{name}: calibration failed: {error}")
                    continue
                photos = []
                for layout in layouts:
                    stacks = random_stacks(pieceset, np.random.default_rng([session, layout, tilt + 90]))
                    image = render_table(stacks, pieceset, seed=1000 + layout, session=session, tilt_deg=tilt,
                                         lamp=lamp, glare=bool(layout % 2))
                    photos.append((f"layout {layout}", image, stacks))
                yield name, read_photos(profile, photos, verbose)


def report(name: str, result: dict) -> None:
    millis = np.array(result["millis"])
    print(
        f"{name}: {result['images']} images, exact positions {100 * result['exact'] / result['images']:.1f}%, "
        f"per-disc {100 * result['right'] / max(1, result['counted']):.2f}% ({result['right']}/{result['counted']}), "
        f"ms/frame median {np.median(millis):.1f} p95 {np.percentile(millis, 95):.1f} "
        f"(CPU time of the reading thread: median {np.median(result['cpu_millis']):.1f} p95 {np.percentile(result['cpu_millis'], 95):.1f})"
    )


def total_of(results) -> dict:
    """The sum of several (name, result) pairs' results; each name's line is printed as it comes."""
    total = {"images": 0, "exact": 0, "right": 0, "counted": 0, "millis": [], "cpu_millis": []}
    for name, result in results:
        report(name, result)
        for key in total:
            total[key] += result[key]
    return total


def markdown_row(name: str, result: dict) -> str:
    millis, cpu = np.array(result["millis"]), np.array(result["cpu_millis"])
    return (f"| {name} | {result['images']} | {100 * result['exact'] / max(1, result['images']):.1f} % "
            f"| {100 * result['right'] / max(1, result['counted']):.2f} % ({result['right']}/{result['counted']}) "
            f"| {np.median(cpu):.1f} | {np.percentile(cpu, 95):.1f} | {np.median(millis):.1f} |")


def markdown_table(bench: Path) -> str:
    """Every set's figures as one Markdown table (the lines of each set are printed as they come)."""
    rows = []
    for name, result in bench_sessions(bench, None, False):
        rows.append(markdown_row(f"bench {name}", result))
    for camera in sorted(CAMERAS):
        rows.append(markdown_row(f"bench through the {camera} camera", total_of(bench_sessions(bench, camera, False))))
    rows.append(markdown_row("synthetic, layouts 0-3", total_of(synthetic_sessions(False))))
    rows.append(markdown_row("synthetic, unseen layouts 4-11", total_of(synthetic_sessions(False, range(4, 12)))))
    header = ("| set | frames | exact positions | discs right | CPU ms/frame median | CPU ms p95 | wall ms median |\n"
              "|---|---:|---:|---:|---:|---:|---:|")
    return "\n".join([header, *rows])


def _layout_range(text: str) -> range:
    first, _, last = text.partition("-")
    try:
        layouts = range(int(first), int(last or first) + 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a layout range like 4-11: {text!r}") from None
    if not layouts or layouts.start < 0:
        raise argparse.ArgumentTypeError(f"not a layout range like 4-11: {text!r}")
    return layouts


def main(argv: list[str]) -> int:
    # The target is per frame on one core: keep OpenCV from spreading over the others.
    cv2.setNumThreads(1)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", nargs="?", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--verbose", action="store_true", help="list every photo read wrong")
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--camera", choices=sorted(CAMERAS), help="re-shoot every photo through another camera")
    choice.add_argument("--synthetic", action="store_true", help="rendered sessions instead of the bench")
    parser.add_argument("--layouts", type=_layout_range, default=range(4), metavar="FIRST-LAST",
                        help="with --synthetic, the random layouts rendered (default 0-3; e.g. 4-11 for unseen ones)")
    parser.add_argument("--markdown", action="store_true",
                        help="run every set and print one Markdown table of them (the docs' table)")
    args = parser.parse_args(argv)
    if (args.markdown or not args.synthetic) and (
            not args.bench.is_dir() or not any((p / "truth.json").is_file() for p in args.bench.iterdir())):
        print(f"bench_varanasi_vision: error: no session folder with a truth.json in {args.bench}", file=sys.stderr)
        return 2
    if args.markdown:
        table = markdown_table(args.bench)
        print()
        print(table)
        return 0
    if args.synthetic:
        results = synthetic_sessions(args.verbose, args.layouts)
    else:
        results = bench_sessions(args.bench, args.camera, args.verbose)
    report("all", total_of(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
