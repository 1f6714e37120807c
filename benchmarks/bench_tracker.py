"""Move inference over the rendered bench sessions: what `arbiter replay` gets right.

For every session in ../shared/bench/{varanasi,wari}/S*: calibrate from the session's calibration
(or start) photo, replay the photographed game seq*.jpg and compare each judged transition with the
true move; then judge every illegal pair (before -> after). Prints, per session and in total:
moves inferred correctly / total, false illegal alarms, illegal pairs flagged / total, seconds.
`--camera turned|tilted|soft` first re-shoots every photo through another camera (reshoot.py), as
a stand-in for unseen sessions.

    python3 benchmarks/bench_tracker.py [--camera NAME] [BENCH_DIR]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from arbiter.judge import replay
from engines import load_rules
from engines.errors import ArbiterError
from vision.io import read_image

from reshoot import CAMERAS, reshoot  # beside this script

DEFAULT_BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"


def calibrate_session(game: str, folder: Path, truth: dict) -> dict:
    """The profile a player would make: from the session's calibration photo (Varanasi: the set
    laid out) or its start photo (Wari)."""
    from calibration import calibrate

    photo = truth.get("calibration") or truth["start"]
    return calibrate(game, read_image(folder / (photo["image"] if isinstance(photo, dict) else photo)),
                     truth.get("pieceset"))


def reshot_session(folder: Path, camera: str, into: Path) -> Path:
    """A copy of the session's photos as `camera` would take them (truth.json as it is).

    Each re-shot photo is stored losslessly (PNG bytes under the photo's own name): `reshoot`
    has already given it its JPEG compression.
    """
    into.mkdir()
    rng = np.random.default_rng(0)
    for photo in sorted(folder.glob("*.jpg")):
        cv2.imencode(".png", reshoot(read_image(photo), camera, rng))[1].tofile(into / photo.name)
    (into / "truth.json").write_text((folder / "truth.json").read_text())
    return into


def session_rules(game: str, truth: dict):
    return load_rules({"game": "wari", "variant": truth["variant"]} if game == "wari" else {"game": "varanasi"})


def bench_session(game: str, folder: Path) -> dict:
    truth = json.loads((folder / "truth.json").read_text())
    started = time.perf_counter()
    profile = calibrate_session(game, folder, truth)
    rules = session_rules(game, truth)
    sequence = truth["sequence"]
    paths = [str(folder / item["image"]) for item in sequence]
    correct, false_alarms, wrong = 0, 0, []
    played = [item["next_move"] for item in sequence[:-1]]
    for index, transition in enumerate(replay(profile, rules, paths)):
        expected, moves = played[index], transition["moves"]
        if not transition["legal"]:
            false_alarms += 1
            wrong.append(f"{sequence[index + 1]['image']}: false alarm: {transition['reason']}")
        elif moves and moves == played[:index + 1][-len(moves):]:
            # Several legal moves follow false alarms (counted as such) and end with this photo's move.
            correct += 1
        else:
            wrong.append(f"{sequence[index + 1]['image']}: inferred {transition['moves']} for {expected}")
    pairs = truth.get("illegal_pairs", [])
    flagged = 0
    for pair in pairs:
        (transition,) = replay(profile, rules, [str(folder / pair["before"]["image"]),
                                                str(folder / pair["after"]["image"])])
        if transition["legal"]:
            wrong.append(f"{pair['after']['image']}: {pair['kind']} not flagged ({transition['verdict']})")
        else:
            flagged += 1
    return {"session": f"{game}/{folder.name}", "moves": len(sequence) - 1, "correct": correct,
            "false_alarms": false_alarms, "pairs": len(pairs), "flagged": flagged,
            "seconds": time.perf_counter() - started, "wrong": wrong}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--camera", choices=sorted(CAMERAS), help="re-shoot every photo through another camera")
    parser.add_argument("bench", nargs="?", type=Path, default=DEFAULT_BENCH)
    args = parser.parse_args(argv[1:])
    if not any(next((args.bench / game).glob("S*"), None) for game in ("varanasi", "wari")):
        parser.error(f"no varanasi/S* or wari/S* session folders in {args.bench}")
    totals = {"moves": 0, "correct": 0, "false_alarms": 0, "pairs": 0, "flagged": 0, "seconds": 0.0}
    for game in ("varanasi", "wari"):
        for folder in sorted((args.bench / game).glob("S*")):
            try:
                with tempfile.TemporaryDirectory() as scratch:
                    shot = reshot_session(folder, args.camera, Path(scratch) / folder.name) if args.camera else folder
                    result = bench_session(game, shot)
            except ArbiterError as exc:
                print(f"{game}/{folder.name}: failed: {exc}")
                continue
            for key in totals:
                totals[key] += result[key]
            print(f"{result['session']}: moves {result['correct']}/{result['moves']}, "
                  f"false alarms {result['false_alarms']}, illegal pairs flagged "
                  f"{result['flagged']}/{result['pairs']}, {result['seconds']:.1f} s")
            for line in result["wrong"]:
                print(f"    {line}")
    print(f"total: moves inferred {totals['correct']}/{totals['moves']}, false illegal alarms "
          f"{totals['false_alarms']}, illegal pairs flagged {totals['flagged']}/{totals['pairs']}, "
          f"{totals['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
