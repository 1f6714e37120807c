"""Move inference over the rendered bench sessions: what `arbiter replay` gets right.

For every session in ../shared/bench/{varanasi,wari,wari-referee}/S*: calibrate from the
session's calibration (or start) photo, replay the photographed game seq*.jpg and compare each
judged transition with the true move; then judge every illegal pair as a referee that followed
the game would: from the true position before it (the truth's), the photo after it. Prints, per
session and in total: moves inferred correctly / total, false illegal alarms, illegal pairs
flagged / total, Wari pairs whose reason names a pit, store or turn, seconds; and each pair's
reason with `--reasons`.
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

from arbiter.judge import Judge, replay
from engines import load_rules
from engines.errors import ArbiterError
from vision import recognize
from vision.io import read_image

from reshoot import CAMERAS, reshoot  # beside this script

DEFAULT_BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
GROUPS = {"varanasi": "varanasi", "wari": "wari", "wari-referee": "wari"}  # bench folder -> game


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
    correct, false_alarms, wrong, judged = 0, 0, [], []
    played = [item["next_move"] for item in sequence[:-1]]
    for index, transition in enumerate(replay(profile, rules, paths)):
        expected, moves = played[index], transition["moves"]
        right = False
        if not transition["legal"]:
            false_alarms += 1
            wrong.append(f"{sequence[index + 1]['image']}: false alarm: {transition['reason']}")
        elif moves and moves == played[:index + 1][-len(moves):]:
            # Several legal moves follow false alarms (counted as such) and end with this photo's move.
            correct += 1
            right = True
        else:
            wrong.append(f"{sequence[index + 1]['image']}: inferred {transition['moves']} for {expected}")
        judged.append((transition["confidence"], right))
    pairs = truth.get("illegal_pairs", [])
    flagged, named, reasons = 0, 0, []
    for pair in pairs:
        judge = Judge(rules, [rules.state_from_json(true_state(game, pair))])
        verdict = judge.judge(recognize(read_image(folder / pair["after"]["image"]), profile))
        reasons.append(f"{pair['after']['image']} {pair['kind']}: {verdict.reason}")
        judged.append((verdict.confidence, not verdict.legal))
        if verdict.legal:
            wrong.append(f"{pair['after']['image']}: {pair['kind']} not flagged ({verdict.kind})")
            continue
        flagged += 1
        named += any(word in (verdict.reason or "") for word in NAMING_WORDS)
    return {"session": f"{game}/{folder.name}", "moves": len(sequence) - 1, "correct": correct,
            "false_alarms": false_alarms, "pairs": len(pairs), "flagged": flagged, "named": named,
            "seconds": time.perf_counter() - started, "wrong": wrong, "reasons": reasons, "judged": judged}


# A reason names where the mistake lies when it names a pit, a store, a turn, discs or a colour.
NAMING_WORDS = ("pit ", "store ", "turn", "vanished", "appeared", "declared", "onto", "level", "tower", "two moves")


def true_state(game: str, pair: dict) -> dict:
    """The position before an illegal pair as the truth gives it, with the mover whose turn it was."""
    before = pair["before"]
    if game == "wari":
        return {"game": "wari", "pits": before["pits"], "stores": before["stores"], "to_move": pair["player"]}
    return {"game": "varanasi", "stacks": [[f"{d['size']}{d['colour']}" for d in tower] for tower in before["stacks"]],
            "to_move": pair.get("to_move", 0)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--camera", choices=sorted(CAMERAS), help="re-shoot every photo through another camera")
    parser.add_argument("--reasons", action="store_true", help="print every illegal pair's reason")
    parser.add_argument("bench", nargs="?", type=Path, default=DEFAULT_BENCH)
    args = parser.parse_args(argv[1:])
    if not any(next((args.bench / group).glob("S*"), None) for group in GROUPS):
        parser.error(f"no session folders of {', '.join(GROUPS)} in {args.bench}")
    totals = {"moves": 0, "correct": 0, "false_alarms": 0, "pairs": 0, "flagged": 0, "named": 0, "seconds": 0.0}
    judged = []
    for group, game in GROUPS.items():
        for folder in sorted((args.bench / group).glob("S*")):
            try:
                with tempfile.TemporaryDirectory() as scratch:
                    shot = reshot_session(folder, args.camera, Path(scratch) / folder.name) if args.camera else folder
                    result = bench_session(game, shot)
                    result["session"] = f"{group}/{folder.name}"
            except ArbiterError as exc:
                print(f"{group}/{folder.name}: failed: {exc}")
                continue
            for key in totals:
                totals[key] += result[key]
            judged += result["judged"]
            print(f"{result['session']}: moves {result['correct']}/{result['moves']}, "
                  f"false alarms {result['false_alarms']}, illegal pairs flagged "
                  f"{result['flagged']}/{result['pairs']} (reason names where: {result['named']}), "
                  f"{result['seconds']:.1f} s")
            for line in result["wrong"] + (result["reasons"] if args.reasons else []):
                print(f"    {line}")
    print(f"total: moves inferred {totals['correct']}/{totals['moves']}, false illegal alarms "
          f"{totals['false_alarms']}, illegal pairs flagged {totals['flagged']}/{totals['pairs']} "
          f"(reason names where: {totals['named']}), {totals['seconds']:.1f} s")
    print("reliability: verdict confidence -> verdicts right (moves inferred, illegal pairs flagged)")
    for low, high in RELIABILITY_BUCKETS:
        inside = [right for confidence, right in judged if low <= confidence < high]
        share = f"{100 * sum(inside) / len(inside):.1f} %" if inside else "-"
        print(f"    [{low:.2f}, {min(high, 1.0):.2f}{']' if high > 1 else ')'}: {sum(inside)}/{len(inside)} right ({share})")
    return 0


RELIABILITY_BUCKETS = ((0.0, 0.5), (0.5, 0.9), (0.9, 0.99), (0.99, 1.01))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
