"""Varanasi recognition time, two versions of the code compared frame by frame on a busy machine.

Two worker processes, one per code tree (each imports its own `vision` through PYTHONPATH), pinned
to the same core, calibrate the bench sessions and then read every bench photo on request; each
photo is read by both back to back, in alternating order, for several passes. Both see the same
load at nearly the same moment, so the ratio of their times per frame shows differences of a few
percent that single bench runs, which vary by 10% from one minute to the next, cannot.

    python3 benchmarks/time_varanasi_ab.py OLD_TREE NEW_TREE [--passes 3] [--core 0] [BENCH_DIR]

e.g. OLD_TREE a worktree of the commit to compare with (`git worktree add /tmp/old COMMIT`).
Prints median and p95 milliseconds per frame (thread CPU and wall) of each, and the median of the
per-frame ratios new/old.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

# One core, as the target says: OpenBLAS would otherwise spread larger matrix products over
# every core, and the reading thread's CPU time would not see that work.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

DEFAULT_BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench" / "varanasi"


def serve(bench: Path) -> None:
    """Worker: calibrate, say how many photos there are, then read photo i for each line i."""
    import cv2

    from calibration.varanasi import calibrate
    from vision.io import read_image
    from vision.varanasi import recognize

    cv2.setNumThreads(1)
    frames = []
    for session in sorted(p for p in bench.iterdir() if (p / "truth.json").is_file()):
        truth = json.loads((session / "truth.json").read_text())
        profile = calibrate(read_image(session / truth["calibration"]["image"]), truth["pieceset"])
        items = list(truth["positions"]) + list(truth["sequence"])
        for pair in truth["illegal_pairs"]:
            items += [pair["before"], pair["after"]]
        frames += [(profile, read_image(session / item["image"])) for item in items]
    recognize(frames[0][1], frames[0][0])  # warm-up: first-call costs are not a frame's
    print(len(frames), flush=True)
    for line in sys.stdin:
        profile, image = frames[int(line)]
        wall, cpu = time.perf_counter(), time.thread_time()
        recognize(image, profile)
        print(f"{1000 * (time.perf_counter() - wall):.3f} {1000 * (time.thread_time() - cpu):.3f}", flush=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("bench", nargs="?", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--core", default="0")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_intermixed_args(argv)
    if args.serve:
        serve(args.bench)
        return 0
    workers = {}
    for name, tree in (("old", args.old), ("new", args.new)):
        env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
        command = ["taskset", "-c", args.core, sys.executable, __file__, "--serve", str(tree), str(tree), str(args.bench)]
        workers[name] = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    count = [int(worker.stdout.readline()) for worker in workers.values()][0]
    times = {name: [] for name in workers}
    for run in range(args.passes):
        for index in range(count):
            for name in ("old", "new") if (index + run) % 2 == 0 else ("new", "old"):
                workers[name].stdin.write(f"{index}\n")
                workers[name].stdin.flush()
                times[name].append([float(v) for v in workers[name].stdout.readline().split()])
    for worker in workers.values():
        worker.stdin.close()
        worker.wait()
    old, new = np.array(times["old"]), np.array(times["new"])
    for label, column in (("thread CPU", 1), ("wall", 0)):
        print(f"{label}: old median {np.median(old[:, column]):.1f} p95 {np.percentile(old[:, column], 95):.1f}, "
              f"new median {np.median(new[:, column]):.1f} p95 {np.percentile(new[:, column], 95):.1f}, "
              f"median ratio new/old {np.median(new[:, column] / old[:, column]):.3f} ({len(old)} frames each)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
