"""Wari calibration on start photos and on photos that are not quite the start: what it accepts.

Usage: python3 benchmarks/bench_wari_calibration.py [SESSION_DIR ...]

Calibrates, and prints per group how many photos were accepted, refused (one-line error) or
raised anything else (a traceback, which must never happen), with the range of seeds' worth of
area the pits show and of the profile's start spread over the accepted ones:
- start photos: each SESSION_DIR's start.jpg (default: every ../shared/bench/wari/S*) through
  every camera of reshoot.py, and the synthetic tables 0-10 (render_board's session=) of both seed styles; each refused
  start photo is named with its message;
- the near starts of each SESSION_DIR that has them (`python -m training.wari_render --near-starts`: the
  start with one pit of 1, 2, 3, 5 or 6 seeds): not a start;
- a start with one pit of 1, 2, 3, 5 or 6 seeds (South's a or North's c), every synthetic session;
- random positions (4 per synthetic session; 1-8 seeds a pit): not a start;
- variants of each synthetic start photo (a hand, turned, shifted off the frame, small, grey,
  noisy, dark, bright, blurred, zoomed): refused or accepted, but never a traceback, and each is
  recognised with the plain photo's profile, again never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

import cv2
import numpy as np

from calibration.wari import calibrate
from device.synthetic_wari import render_board
from engines.errors import ArbiterError
from vision.io import read_image
from vision.wari import WariProfile, recognize
from vision.wari_board import PIT_COUNT
from vision.wari_measure import measure_regions
from vision.wari_seeds import working_frame

from bench_wari_vision import DEFAULT_BENCH  # beside this script
from reshoot import CAMERAS, reshoot

STYLES = ("nicker", "glass")
SESSIONS = range(11)
START = [4] * PIT_COUNT


def seeds_shown(image: np.ndarray, profile: dict) -> np.ndarray:
    """Seeds' worth of area in each pit of the photo the profile was calibrated on."""
    calibrated = WariProfile.from_json(profile)
    measures = measure_regions(working_frame(image), calibrated.geometry, calibrated.colours)
    return measures.seed_pixels[:PIT_COUNT] / np.array(calibrated.counts.seed_area[:PIT_COUNT])


def outcome(image: np.ndarray):
    """('accepted', profile) | ('refused', message) | ('traceback', last line)."""
    try:
        return "accepted", calibrate(image)
    except ArbiterError as error:
        return "refused", str(error)
    except Exception:  # noqa: BLE001 - counting what must never happen
        return "traceback", traceback.format_exc().splitlines()[-1]


def report(title: str, images, name_refusals: bool = False) -> None:
    tally = {"accepted": 0, "refused": 0, "traceback": 0}
    shown, spreads, problems = [], [], []
    for name, image in images:
        kind, result = outcome(image)
        tally[kind] += 1
        if kind == "accepted":
            seeds = seeds_shown(image, result)
            shown += [seeds.min(), seeds.max()]
            spreads.append(result["summary"]["start_count_spread"])
        elif kind == "traceback" or name_refusals:
            problems.append(f"{name}: {result}")
    ranges = ""
    if shown:
        ranges = (f"; accepted pits show {min(shown):.2f}-{max(shown):.2f} seeds, "
                  f"start spread {min(spreads):.2f}-{max(spreads):.2f}")
    print(f"{title}: {sum(tally.values())} photos, accepted {tally['accepted']}, refused {tally['refused']}, "
          f"tracebacks {tally['traceback']}{ranges}")
    for problem in problems:
        print(f"    {problem}")


def bench_starts(folders: list[Path]):
    for folder in folders:
        for camera in (None, *sorted(CAMERAS)):
            image = reshoot(read_image(folder / "start.jpg"), camera, np.random.default_rng(0))
            yield f"{folder.name} {camera or 'plain'}", image


def near_starts(folders: list[Path]) -> list[tuple[Path, dict]]:
    """(session folder, truth item) of every near start the folders' truth.json files list."""
    return [
        (folder, item)
        for folder in folders
        for item in json.loads((folder / "truth.json").read_text()).get("near_starts", [])
    ]


def near_start_photos(near: list[tuple[Path, dict]]):
    for folder, item in near:
        odd = next(count for count in item["pits"] if count != START[0])
        yield f"{folder.name} {item['image']} (a pit of {odd})", read_image(folder / item["image"])


def synthetic(pits_of, label: str):
    for style in STYLES:
        for session in SESSIONS:
            for index, pits in enumerate(pits_of(session)):
                yield f"{style} {session} {label} {index}", render_board(pits, [0, 0], seed=index, style=style, session=session)


def one_pit(count: int):
    def pits_of(session):
        for pit in (0, 8):
            pits = list(START)
            pits[pit] = count
            yield pits
    return pits_of


def random_positions(session: int):
    rng = np.random.default_rng([session, 22])
    return [[int(n) for n in rng.multinomial(48, np.ones(PIT_COUNT) / PIT_COUNT)] for _ in range(4)]


def variants(start: np.ndarray):
    height, width = start.shape[:2]

    def shift(dx: int, dy: int) -> np.ndarray:
        return cv2.warpAffine(start, np.float32([[1, 0, dx], [0, 1, dy]]), (width, height))

    noise = np.random.default_rng(3).normal(0, 30, start.shape)
    yield "turned 90", cv2.rotate(start, cv2.ROTATE_90_CLOCKWISE)
    yield "turned 180", cv2.rotate(start, cv2.ROTATE_180)
    yield "shifted right", shift(350, 0)
    yield "shifted left", shift(-350, 0)
    yield "shifted up", shift(0, -330)
    yield "small", cv2.resize(start, (width // 4, height // 4), interpolation=cv2.INTER_AREA)
    yield "grey", cv2.cvtColor(cv2.cvtColor(start, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    yield "noisy", np.clip(start + noise, 0, 255).astype(np.uint8)
    yield "dark", (start * 0.15).astype(np.uint8)
    yield "bright", np.clip(start * 2.5, 0, 255).astype(np.uint8)
    yield "blurred", cv2.GaussianBlur(start, (0, 0), 4)
    yield "zoomed", cv2.resize(start[height // 4 : 3 * height // 4, width // 4 : 3 * width // 4], (width, height))


def variant_photos():
    """Each synthetic start's variants, and a hand over it; recognised with the plain profile too."""
    for style in STYLES:
        for session in SESSIONS:
            start = render_board(START, [0, 0], seed=0, style=style, session=session)
            photos = [("hand", render_board(START, [0, 0], seed=0, style=style, session=session, hand=True))]
            photos += list(variants(start))
            kind, profile = outcome(start)
            for name, image in photos:
                if kind == "accepted":
                    try:
                        recognize(image, profile)
                    except ArbiterError:
                        pass
                    except Exception:  # noqa: BLE001
                        print(f"    recognize {style} {session} {name}: {traceback.format_exc().splitlines()[-1]}")
                yield f"{style} {session} {name}", image


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sessions", nargs="*", type=Path, help="session folders (default: the bench's)")
    folders = parser.parse_args(argv).sessions or sorted(DEFAULT_BENCH.glob("S*"))
    for folder in folders:
        if not (folder / "start.jpg").is_file() or not (folder / "truth.json").is_file():
            parser.error(f"{folder} is not a session folder (start.jpg and truth.json)")
    cv2.setNumThreads(1)
    report("bench start photos, every camera", bench_starts(folders), name_refusals=True)
    near = near_starts(folders)
    if near:
        report("near starts (one pit of 1-6 seeds)", near_start_photos(near))
    report("synthetic start photos", synthetic(lambda session: [START], "start"), name_refusals=True)
    for count in (1, 2, 3, 5, 6):
        report(f"one pit of {count} seeds", synthetic(one_pit(count), f"pit of {count}"))
    report("random positions (not a start)", synthetic(random_positions, "random"))
    report("variants of the synthetic starts", variant_photos())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
