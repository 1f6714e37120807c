"""Every Nanku verdict and every likelihood the judge asked for, one JSON line each, to compare versions.

The judge follows each session as `bench_nanku_vision.py` does (put on the true position after a
false alarm; each illegal pair judged from its `before`), over the bench sessions and fresh ones
drawn by `device.synthetic_nanku`. Each line holds a verdict (kind, moves, reason, note,
confidence) and the log-likelihoods the observation gave the judge, in the order asked. Run it
before and after a change that must not alter behaviour and `diff` the files:

    python benchmarks/dump_nanku.py OUT.jsonl [--bench DIR] [--fresh N --fresh-seed S --fresh-dir DIR]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arbiter.judge import Judge  # noqa: E402
from bench_nanku_vision import BENCH, state_of  # noqa: E402  (beside this script)
from calibration.nanku import calibrate  # noqa: E402
from engines.nanku import NankuRules, canonical_cubes  # noqa: E402
from vision import nanku  # noqa: E402
from vision.io import read_image  # noqa: E402

DIGITS = 6  # confidences and likelihoods are compared to this many decimals
ASKED_FOR: list = []  # what the observation told the judge since the last verdict


def _recorded(name: str):
    """The observation's method `name`, with each answer noted in ASKED_FOR."""
    method = getattr(nanku.NankuObservation, name)

    def recording(self, *args, **kwargs):
        value = method(self, *args, **kwargs)
        ASKED_FOR.append([name, round(value, DIGITS)])
        return value
    return recording


for _name in ("log_likelihood", "best_log_likelihood", "best_log_likelihood_of"):
    setattr(nanku.NankuObservation, _name, _recorded(_name))


def verdict_line(name: str, image: str, verdict, seconds: float) -> dict:
    line = {"session": name, "image": image, "kind": verdict.kind, "legal": verdict.legal,
            "moves": [m.to_json() for m in verdict.moves], "reason": verdict.reason, "note": verdict.note,
            "confidence": round(verdict.confidence, DIGITS), "asked": list(ASKED_FOR)}
    ASKED_FOR.clear()
    return line, seconds


def session_lines(name: str, folder: Path):
    truth = json.loads((folder / "truth.json").read_text())
    rules = NankuRules()
    sequence = truth["sequence"]
    profile = calibrate(read_image(folder / sequence[0]["image"]))
    judge = Judge(rules, [state_of(rules, sequence[0]["cubes"])])
    for item in sequence[1:]:
        image = read_image(folder / item["image"])
        ASKED_FOR.clear()
        start = time.perf_counter()
        verdict = judge.judge(nanku.recognize(image, profile))
        yield verdict_line(name, item["image"], verdict, time.perf_counter() - start)
        if verdict.legal and verdict.state is not None and canonical_cubes(verdict.state) == canonical_cubes(
                state_of(rules, item["cubes"])):
            judge.apply(verdict)
        else:
            judge = Judge(rules, [state_of(rules, item["cubes"])])
    for pair in truth.get("illegal_pairs", []):
        judge = Judge(rules, [state_of(rules, pair["before"]["cubes"])])
        image = read_image(folder / pair["after"]["image"])
        ASKED_FOR.clear()
        start = time.perf_counter()
        verdict = judge.judge(nanku.recognize(image, profile))
        yield verdict_line(name, "pair " + pair["after"]["image"], verdict, time.perf_counter() - start)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--bench", type=Path, default=BENCH)
    parser.add_argument("--sessions", default="", help="comma-separated bench sessions (default: all; 'none': none)")
    parser.add_argument("--fresh", type=int, default=0)
    parser.add_argument("--fresh-seed", type=int, default=8400)
    parser.add_argument("--fresh-dir", type=Path, default=Path("build/nanku-fresh"))
    args = parser.parse_args(argv)
    wanted = set(filter(None, args.sessions.split(",")))
    folders = [(f"bench/{p.name}", p) for p in sorted(args.bench.iterdir())
               if (p / "truth.json").is_file() and (not wanted or p.name in wanted)] if args.bench.is_dir() else []
    if args.fresh:
        from device.synthetic_nanku import write_session
        folders += [(f"fresh/{args.fresh_seed + i}", write_session(args.fresh_dir, args.fresh_seed + i))
                    for i in range(args.fresh)]
    seconds = []
    with args.out.open("w") as out:
        for name, folder in folders:
            for line, took in session_lines(name, folder):
                out.write(json.dumps(line, sort_keys=True) + "\n")
                out.flush()
                seconds.append(took)
            print(f"{name} done", flush=True)
    seconds.sort()
    if seconds:
        print(f"{len(seconds)} judged frames: median {1000 * seconds[len(seconds) // 2]:.0f} ms, "
              f"p95 {1000 * seconds[int(0.95 * (len(seconds) - 1))]:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
