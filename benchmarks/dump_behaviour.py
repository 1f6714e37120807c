"""Every bench reading and every tracker verdict, one JSON line each, to compare two versions.

For each session in ../shared/bench/{varanasi,wari,wari-referee}/S*: the profile calibrated from
the session's calibration (or start) photo, the recogniser's reading of every photo (state and
confidence), the tracker's verdict on every transition of the photographed game and on every
illegal pair. Run it before and after a change that must not alter behaviour and `diff` the files:

    python3 benchmarks/dump_behaviour.py OUT.jsonl [--bench DIR] [--game G ...]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from arbiter.replay import replay
from engines import load_rules
from engines.errors import ArbiterError
from vision import recognize
from vision.io import read_image

from bench_tracker import DEFAULT_BENCH, GROUPS, calibrate_session  # beside this script

DIGITS = 6  # confidences and likelihoods are compared to this many decimals


def rounded(value):
    if isinstance(value, float):
        return round(value, DIGITS)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [rounded(item) for item in value]
    return value


def session_lines(group: str, folder: Path):
    game = GROUPS[group]
    truth = json.loads((folder / "truth.json").read_text())
    name = f"{group}/{folder.name}"
    try:
        profile = calibrate_session(game, folder, truth)
    except ArbiterError as exc:
        yield {"session": name, "calibration_error": str(exc)}
        return
    yield {"session": name, "profile": rounded(profile)}
    for photo in sorted(folder.glob("*.jpg")):
        reading = recognize(read_image(photo), profile).to_json()
        yield {"session": name, "image": photo.name, "state": reading["state"],
               "confidence": rounded(reading["confidence"])}
    rules = load_rules({"game": "wari", "variant": truth["variant"]} if game == "wari" else {"game": "varanasi"})
    paths = [str(folder / item["image"]) for item in truth["sequence"]]
    for index, transition in enumerate(replay(profile, rules, paths)):
        yield {"session": name, "transition": index, "verdict": rounded(transition)}
    for index, pair in enumerate(truth.get("illegal_pairs", [])):
        (transition,) = replay(profile, rules, [str(folder / pair["before"]["image"]),
                                                str(folder / pair["after"]["image"])])
        yield {"session": name, "pair": index, "verdict": rounded(transition)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--game", action="append", choices=sorted(GROUPS), help="default: every group")
    args = parser.parse_args(argv[1:])
    with args.out.open("w") as out:
        for group in args.game or sorted(GROUPS):
            for folder in sorted((args.bench / group).glob("S*")):
                for line in session_lines(group, folder):
                    out.write(json.dumps(line, sort_keys=True) + "\n")
                    out.flush()
                print(f"{group}/{folder.name} done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
