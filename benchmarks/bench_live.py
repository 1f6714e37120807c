"""The live view during verdicts: a live camera read on its own thread against one read in turn.

A stand-in live camera plays a bench Varanasi session at 30 frames a second (each photo held for
HOLD_S seconds, as players hold a position, then a grey band for a hand), through the real
recogniser, judge and store. For a camera read on its own thread (`live`, as a webcam or the Pi
camera) and for one read in turn between verdicts, it prints the gaps between frames reaching the
live view (median, p99, worst) and the time from the frame a verdict was made on to the verdict's
event (median, worst).

    python3 benchmarks/bench_live.py [--session DIR] [--photos N]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

import cv2
import numpy as np

from arbiter.matches import open_game
from arbiter.store import Store
from arbiter.tracker import Tracker
from calibration import calibrate
from device.cameras import Frame
from engines import load_rules
from vision import overlay_drawer, recognize
from vision.io import read_image

FPS = 30.0
HOLD_S = 1.2  # each photo is shown this long, then a hand (a grey band) for MOVE_S
MOVE_S = 0.3
DEFAULT_SESSION = Path(__file__).resolve().parents[2] / "shared" / "bench" / "varanasi" / "S1"


class PacedCamera:
    """Photos at FPS frames a second, whether or not anyone takes them; each frame's label is the
    time it was delivered."""

    name = "paced"

    def __init__(self, photos: list[np.ndarray], live: bool):
        self.photos, self.live = photos, live
        # Players' hands over the table between positions: a grey band across the middle.
        self.hands = [photo.copy() for photo in photos]
        for hand in self.hands:
            hand[hand.shape[0] // 3: 2 * hand.shape[0] // 3] = 128
        self.delivered: list[float] = []
        self._start = None

    def open(self) -> None:
        self._start = time.monotonic()

    def close(self) -> None:
        pass

    def read(self):
        # A webcam's frames queue up while nobody reads them: one read in turn gets them late.
        time.sleep(max(0.0, self._start + len(self.delivered) / FPS - time.monotonic()))
        at = time.monotonic()
        self.delivered.append(at)
        elapsed = len(self.delivered) / FPS
        index, into = divmod(elapsed, HOLD_S + MOVE_S)
        if index >= len(self.photos):
            return None
        photo = self.photos[int(index)] if into <= HOLD_S else self.hands[int(index)]
        return Frame(photo, at, label=repr(time.monotonic()))


def run(session: Path, photos: int, live: bool) -> dict:
    truth = json.loads((session / "truth.json").read_text())
    profile = calibrate("varanasi", read_image(session / truth["calibration"]["image"]), truth.get("pieceset"))
    rules = load_rules({"game": "varanasi"})
    images = [read_image(session / item["image"]) for item in truth["sequence"][:photos]]
    recognize(images[0], profile)  # compiled and loaded before the clock starts
    camera = PacedCamera(images, live)
    with tempfile.TemporaryDirectory() as scratch:
        store = Store(Path(scratch) / "live.sqlite3")
        tracker = Tracker(rules, profile, store, open_game(store, rules), mark=overlay_drawer("varanasi"))
        latencies = []
        tracker.subscribe(lambda e: latencies.append(time.monotonic() - float(e["to"]))
                          if e["type"] in ("transition", "illegal") else None)
        thread = threading.Thread(target=tracker.run, args=(camera,))
        thread.start()
        thread.join()
        store.close()
    gaps = np.diff(camera.delivered) * 1000
    return {"gaps": gaps, "latency": np.array(latencies) * 1000, "verdicts": len(latencies)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--session", type=Path, default=DEFAULT_SESSION)
    parser.add_argument("--photos", type=int, default=8)
    args = parser.parse_args(argv[1:])
    cv2.setNumThreads(1)
    print(f"{args.session}, {args.photos} photos at {FPS:.0f} frames a second")
    print("camera read               | frame gaps ms: median  p99  worst | verdicts | frame->event ms: median  worst")
    for live in (True, False):
        result = run(args.session, args.photos, live)
        gaps, latency = result["gaps"], result["latency"]
        print(f"{'on its own thread (live)' if live else 'in turn (recording)':25} | {np.median(gaps):20.0f} "
              f"{np.percentile(gaps, 99):5.0f} {gaps.max():6.0f} | {result['verdicts']:8} | "
              f"{np.median(latency):22.0f} {latency.max():6.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
