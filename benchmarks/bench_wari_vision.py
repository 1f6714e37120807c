"""Wari recognition on the rendered bench sessions: exactness by true count, distribution coverage, speed.

Usage: python3 benchmarks/bench_wari_vision.py [--camera NAME | --synthetic] [SESSION_DIR ...]
(default: every ../shared/bench/wari/S* next to the repository). Each session is calibrated on
its start.jpg, then every position and sequence photo is recognised on one core; times exclude
JPEG decoding. Before and after, it times the pile counter network on one crop: most of a frame's
time goes to it, and a shared host's speed moves from run to run, so the frame times come with
it. Besides exactness and the distributions, it reports how often the true position scores
within the tracker's margin of the reading (`arbiter.tracker.FIT_MARGIN`): below that,
the tracker could not accept the true move from that photo. And how often a slipped seed is
caught: for each sequence photo, every position that moves one seed of the true position into a
neighbouring pit (sowing order), and the share of those scoring more than the margin below the
reading, which the tracker would flag; split by whether both pits hold at most 7 seeds
(before and after the slip) or not.

With several sessions of one seed style (unseen renders from `python -m training.wari_render`, say), it
also reports their frames pooled by style, and with more than two sessions all of them pooled.

`--camera` re-shoots every photo of a session through another camera before anything is
measured, as a stand-in for unseen sessions (`turned`, `tilted` or `soft`: see reshoot.py).
`--synthetic` reads boards rendered by `device/synthetic_wari.py` instead of the bench: three
sessions (tables, lamps, camera poses) for each seed style, random positions (every photo also
counts as a sequence photo). Not the bench: a check that what works there is not tuned to it.
"""
from __future__ import annotations

import argparse
import hashlib
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

from arbiter.judge import FIT_MARGIN
from calibration.wari import calibrate
from engines.errors import ArbiterError
from vision.io import read_image
from vision.wari import recognize
from vision.wari_params import CROP
from vision.wari_pile_counter import (
    NETWORK_FILE, TRAINED_NETWORK_FILE, count_probabilities, network_probabilities, network_session, standardised,
)

from reshoot import CAMERAS, reshoot  # beside this script

BUCKETS = ((0, 3), (4, 7), (8, 12), (13, 48))
SMALL_PILE = 7  # slipped seeds between pits holding at most this many are reported apart
PIT_COUNT = 12
DEFAULT_BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench" / "wari"
SYNTHETIC_SESSIONS = (2, 3, 4)
SYNTHETIC_POSITIONS = 25


def slipped_seed_positions(pits: list[int]):
    """(pits, holds at most SMALL_PILE) for each move of one seed into a neighbouring pit."""
    for source in range(PIT_COUNT):
        if pits[source] == 0:
            continue
        for target in ((source + 1) % PIT_COUNT, (source - 1) % PIT_COUNT):
            slipped = list(pits)
            slipped[source] -= 1
            slipped[target] += 1
            small = max(pits[source], pits[target], slipped[target]) <= SMALL_PILE
            yield slipped, small


def read_frames(profile: dict, frames) -> dict:
    """Recognise each (image, true item, is a sequence photo) and tally what the report prints."""
    tally = {
        "exact": {b: [] for b in BUCKETS}, "covered": {b: [] for b in BUCKETS}, "sizes": {b: [] for b in BUCKETS},
        "store_exact": [], "store_covered": [], "all_right": [], "confidences": [], "milliseconds": [],
        "cpu_milliseconds": [], "fitting": [], "caught": {True: [], False: []},
    }
    for image, item, in_sequence in frames:
        started, cpu_started = time.perf_counter(), time.thread_time()
        observation = recognize(image, profile)
        tally["milliseconds"].append(1000 * (time.perf_counter() - started))
        tally["cpu_milliseconds"].append(1000 * (time.thread_time() - cpu_started))
        reading = observation.to_json()
        tally["confidences"].append(reading["confidence"])
        tally["all_right"].append(reading["state"]["pits"] == item["pits"])
        # The tracker only accepts a position scoring within FIT_MARGIN of the most likely reading
        # holding the game's seeds (it follows the game, so it knows how many).
        truth = {"pits": item["pits"], "stores": item["stores"]}
        threshold = observation.best_log_likelihood(truth) - FIT_MARGIN
        tally["fitting"].append(observation.log_likelihood(truth) >= threshold)
        if in_sequence:
            for slipped, small in slipped_seed_positions(item["pits"]):
                tally["caught"][small].append(observation.log_likelihood({"pits": slipped, "stores": item["stores"]}) < threshold)
        for true, read, distribution in zip(item["pits"], reading["state"]["pits"], reading["evidence"]["pits"]):
            bucket = next(b for b in BUCKETS if b[0] <= true <= b[1])
            tally["exact"][bucket].append(true == read)
            tally["covered"][bucket].append(str(true) in distribution)
            tally["sizes"][bucket].append(len(distribution))
        for true, read, distribution in zip(item["stores"], reading["state"]["stores"], reading["evidence"]["stores"]):
            tally["store_exact"].append(true == read)
            tally["store_covered"].append(str(true) in distribution)
    return tally


def report(title: str, tally: dict) -> None:
    print(title)
    for bucket in BUCKETS:
        exact = tally["exact"][bucket]
        if exact:
            print(
                f"  pits with {bucket[0]}-{bucket[1]} seeds: {len(exact)} pits, exact {100 * np.mean(exact):.1f}%,"
                f" truth in distribution {100 * np.mean(tally['covered'][bucket]):.1f}%,"
                f" mean distribution size {np.mean(tally['sizes'][bucket]):.2f}"
            )
    print(f"  all 12 pits right: {100 * np.mean(tally['all_right']):.1f}% of frames")
    print(f"  true position within the tracker's margin of the best reading holding its seeds: {100 * np.mean(tally['fitting']):.1f}% of frames")
    for small, label in ((True, f"pits of at most {SMALL_PILE}"), (False, "a pit of more")):
        caught = tally["caught"][small]
        if caught:
            print(f"  slipped seed caught, {label}: {100 * np.mean(caught):.1f}% of {len(caught)}")
    print(f"  stores: exact {100 * np.mean(tally['store_exact']):.1f}%, truth in distribution {100 * np.mean(tally['store_covered']):.1f}%")
    print(f"  confidence: min {min(tally['confidences']):.3f}, median {np.median(tally['confidences']):.3f}")
    milliseconds = tally["milliseconds"]
    cpu = tally["cpu_milliseconds"]
    print(f"  ms per frame: median {np.median(milliseconds):.1f}, 95th percentile {np.percentile(milliseconds, 95):.1f}"
          f" (CPU time of the reading thread: {np.median(cpu):.1f}, {np.percentile(cpu, 95):.1f})")


def session_folders(given: list[Path]) -> list[Path]:
    """The bench sessions to read: those given, or every S* of the default bench. Exits with a
    one-line error if there are none, or if one lacks its truth.json."""
    folders = given or sorted(DEFAULT_BENCH.glob("S*"))
    if not folders:
        print(f"no bench sessions found under {DEFAULT_BENCH}", file=sys.stderr)
        raise SystemExit(1)
    missing = [str(folder) for folder in folders if not (folder / "truth.json").is_file()]
    if missing:
        print(f"{Path(sys.argv[0]).stem}: error: no truth.json in {', '.join(missing)}", file=sys.stderr)
        raise SystemExit(2)
    return folders


def session_photos(folder: Path, camera: str | None):
    """A bench session's truth, a profile calibrated on its start photo, and its photos as
    (image, true item, is a sequence photo), each re-shot through `camera`. The re-shoots draw
    their noise from one generator in this order, so every script reads the same pictures."""
    truth = json.loads((folder / "truth.json").read_text())
    rng = np.random.default_rng(0)
    profile = calibrate(reshoot(read_image(folder / truth["start"]["image"]), camera, rng))
    frames = [(item, False) for item in truth["positions"]] + [(item, True) for item in truth["sequence"]]
    photos = ((reshoot(read_image(folder / item["image"]), camera, rng), item, in_sequence) for item, in_sequence in frames)
    return truth, profile, photos


def bench_session(folder: Path, camera: str | None, quiet: bool = False) -> tuple[str, dict] | None:
    """Read a session and report it (unless `quiet`); its seed style and tally (None if
    calibration refused it)."""
    shot_by = _shot_by(camera)
    try:
        truth, profile, photos = session_photos(folder, camera)
    except ArbiterError as error:  # a session the calibration cannot read is a result too
        print(f"session {folder.name}{shot_by}: calibration failed: {error}")
        return None
    tally = read_frames(profile, photos)
    frames = len(truth["positions"]) + len(truth["sequence"])
    if not quiet:
        report(f"session {folder.name} ({truth['style']}{shot_by}): {frames} frames, calibration {profile['summary']}", tally)
    return truth["style"], tally


def _shot_by(camera: str | None) -> str:
    """The report titles' note of a re-shooting camera."""
    return f", camera {camera}" if camera else ""


def pooled(tallies: list[dict]) -> dict:
    """One tally of the frames of several."""
    def joined(parts: list):
        if isinstance(parts[0], dict):
            return {key: joined([part[key] for part in parts]) for key in parts[0]}
        return [value for part in parts for value in part]

    return joined(tallies)


def report_pooled(read: list[tuple[str, dict]], camera: str | None) -> None:
    """With several sessions of a seed style (unseen renders, say), their frames pooled by style,
    and with more than two sessions all of them pooled: per-session figures of 20 frames move by
    whole pits."""
    shot_by = _shot_by(camera)
    for style in sorted({style for style, _ in read}):
        tallies = [tally for each, tally in read if each == style]
        if len(tallies) > 1:
            report(f"all {len(tallies)} {style} sessions pooled{shot_by}", pooled(tallies))
    if len(read) > 2:
        report(f"all {len(read)} sessions pooled{shot_by}", pooled([tally for _, tally in read]))


def random_position(rng: np.random.Generator) -> dict:
    """48 seeds: up to a third in the stores, the rest spread unevenly over the pits (piles as in play)."""
    stores = rng.multinomial(int(rng.integers(0, 17)), [0.5, 0.5])
    pits = rng.multinomial(48 - int(stores.sum()), rng.dirichlet(np.ones(PIT_COUNT)))
    return {"pits": [int(n) for n in pits], "stores": [int(n) for n in stores]}


def synthetic_session(style: str, session: int) -> dict | None:
    from device.synthetic_wari import render_board

    title = f"synthetic {style} session {session}: {SYNTHETIC_POSITIONS} frames"
    try:
        profile = calibrate(render_board([4] * PIT_COUNT, [0, 0], seed=0, style=style, session=session))
    except ArbiterError as error:
        print(f"{title}: calibration failed: {error}")
        return None
    rng = np.random.default_rng([session, len(style)])
    items = [random_position(rng) for _ in range(SYNTHETIC_POSITIONS)]
    frames = ((render_board(item["pits"], item["stores"], seed=1 + index, style=style, session=session), item, True)
              for index, item in enumerate(items))
    tally = read_frames(profile, frames)
    report(f"{title}, calibration {profile['summary']}", tally)
    return tally


def percent(values: list) -> str:
    return f"{100 * np.mean(values):.1f}" if values else "-"


def markdown_table(rows: list[tuple[str, str, str, dict]]) -> str:
    """The figures docs/vision-wari.md quotes: one row per (session, style, camera, tally)."""
    head = [
        "session", "seeds", "camera", "frames", "0-3 exact %", "4-7 exact %", "8-12 exact %", "13+ exact %",
        "truth in distribution %", "all 12 right %", "stores exact %", "within tracker margin %",
        "slip caught (<= 7) %", "CPU ms/frame (median)",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for session, style, camera, tally in rows:
        covered = [hit for bucket in BUCKETS for hit in tally["covered"][bucket]]
        cells = [
            session, style, camera, str(len(tally["all_right"])),
            *(percent(tally["exact"][bucket]) for bucket in BUCKETS),
            percent(covered), percent(tally["all_right"]), percent(tally["store_exact"]), percent(tally["fitting"]),
            percent(tally["caught"][True]), f"{np.median(tally['cpu_milliseconds']):.0f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def network_note() -> str:
    """Which pile counter network the figures are for: its file and the start of its sha256."""
    digest = hashlib.sha256(NETWORK_FILE.read_bytes()).hexdigest()
    return f"pile counter network: {NETWORK_FILE.name}, sha256 {digest[:16]}"


def counter_ms_per_crop(reads: int = 60) -> tuple[float, float]:
    """Median CPU ms of one read of one crop by the pile counter network (its time does not
    depend on what the crop shows): as recognition runs it (8 bits), and the trained network in
    32-bit floats, for reference; both on ONNX Runtime, one thread."""
    crops = np.random.default_rng(0).integers(0, 256, (reads, 1, CROP, CROP, 3), dtype=np.uint8)
    trained = network_session(TRAINED_NETWORK_FILE)

    def trained_read(crop: np.ndarray) -> None:
        network_probabilities(trained, standardised(crop))

    def median_ms(read) -> float:
        read(crops[0])  # the first read loads the network
        times = []
        for crop in crops:
            started = time.thread_time()
            read(crop)
            times.append(1000 * (time.thread_time() - started))
        return float(np.median(times))

    return median_ms(lambda crop: count_probabilities(crop, (0,))), median_ms(trained_read)


def print_host_speed(when: str) -> None:
    ours, trained = counter_ms_per_crop()
    print(f"host speed at the {when}: the pile counter network reads a crop in {ours:.2f} ms (in 32-bit floats: {trained:.2f} ms)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--camera", choices=sorted(CAMERAS), help="re-shoot every photo through another camera")
    parser.add_argument("--synthetic", action="store_true", help="rendered boards instead of the bench")
    parser.add_argument(
        "--markdown", action="store_true",
        help="print only one Markdown table of the bench's figures, one row per session and camera"
        " (the plain photos and every re-shooting camera, or the one --camera names)",
    )
    parser.add_argument("sessions", nargs="*", type=Path)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    folders = [] if args.synthetic else session_folders(args.sessions)
    if args.markdown and not args.synthetic:
        cameras = [args.camera] if args.camera else [None, *sorted(CAMERAS)]
        rows = []
        for camera in cameras:
            for folder in folders:
                result = bench_session(folder, camera, quiet=True)
                if result:
                    rows.append((folder.name, result[0], camera or "plain", result[1]))
        print(network_note())
        print()
        print(markdown_table(rows))
        return 0
    print_host_speed("start")
    if args.synthetic:
        for style in ("nicker", "glass"):
            for session in SYNTHETIC_SESSIONS:
                synthetic_session(style, session)
    else:
        read = [result for folder in folders if (result := bench_session(folder, args.camera))]
        report_pooled(read, args.camera)
    print_host_speed("end")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
