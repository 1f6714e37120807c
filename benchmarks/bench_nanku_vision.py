"""Nanku by camera: calibration, every placement judged, every illegal pair flagged, time a frame.

    python benchmarks/bench_nanku_vision.py [--bench ../shared/bench/nanku] [--fresh N --fresh-seed S]
                                            [--sessions S0,S1] [--verbose]

Each session is calibrated on its first photo (the first piece alone); the judge then follows the
game from that piece, one photo per placement, as `arbiter replay` does. A placement counts as
inferred when the judge takes the move the truth records (up to the structure's turn and shift on
the table); any other verdict on a legal placement is a false alarm, after which the judge is put
on the true position (as players would correct it); one taken with a question ("not sure ...")
is counted as asked too. Each illegal pair is judged from its `before` position: flagged when the
verdict is illegal, named when the reason says what its kind is, asked when it is taken with a
question that names its kind. Fresh sessions are drawn by `device.synthetic_nanku` from seeds
nobody tuned on.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arbiter.judge import Judge  # noqa: E402
from calibration.nanku import calibrate  # noqa: E402
from engines.errors import ArbiterError  # noqa: E402
from engines.nanku import NankuRules, canonical_cubes  # noqa: E402
from vision.io import read_image  # noqa: E402
from vision.nanku import recognize  # noqa: E402

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench" / "nanku"
# How the judge's note begins when it takes a table in doubt and asks the players to check it.
ASKED = ("not sure", "still not sure")
# What each kind of illegal pair's reason must say.
KIND_WORDS = {
    "overhang": ("nothing under it",),
    "not_touching": ("touches no placed piece", "cut off"),
    "off_grid": ("off the grid",),
    "two_pieces": ("pieces appeared",),
    "lost_piece": ("moved or taken away",),
}


def state_of(rules, cubes) -> object:
    return rules.state_from_json({"game": "nanku", "pieces": pairs(list(map(tuple, cubes)))})


def pairs(cubes: list) -> list:
    """The cubes paired into pieces (face-adjacent, one of each colour), every cube used once."""
    if not cubes:
        return []
    first, rest = cubes[0], cubes[1:]
    for partner in rest:
        if partner[3] != first[3] and sum(abs(a - b) for a, b in zip(partner[:3], first[:3])) == 1:
            others = pairs([c for c in rest if c is not partner])
            if others is not None:
                return [[list(first), list(partner)]] + others
    return None


def run_session(folder: Path, verbose: bool) -> dict:
    truth = json.loads((folder / "truth.json").read_text())
    rules = NankuRules()
    result = {"placements": 0, "inferred": 0, "asked": 0, "false_alarms": 0, "pairs": 0, "flagged": 0, "named": 0,
              "pairs_asked": 0, "millis": [], "calibrated": 0, "levels": 0}
    sequence = truth["sequence"]
    try:
        profile = calibrate(read_image(folder / sequence[0]["image"]))
    except ArbiterError as error:
        print(f"  {folder.name}: calibration refused: {error}")
        return result
    result["calibrated"] = 1
    result["levels"] = 1 + max(c[2] for c in sequence[-1]["cubes"])
    judge = Judge(rules, [state_of(rules, sequence[0]["cubes"])])
    for item in sequence[1:]:
        image = read_image(folder / item["image"])
        start = time.perf_counter()
        verdict = judge.judge(recognize(image, profile))
        result["millis"].append(1000 * (time.perf_counter() - start))
        result["placements"] += 1
        right = (verdict.legal and verdict.state is not None
                 and canonical_cubes(verdict.state) == canonical_cubes(state_of(rules, item["cubes"])))
        if right:
            result["inferred"] += 1
            result["asked"] += verdict.note is not None and verdict.note.startswith(ASKED)
            judge.apply(verdict)
        else:
            result["false_alarms"] += 1
            if verbose:
                print(f"  {folder.name} {item['image']}: {verdict.kind} {verdict.reason or ''} "
                      f"moves {[rules.notation(m) for m in verdict.moves]} truth {item['last_move']}")
            judge = Judge(rules, [state_of(rules, item["cubes"])])
    for pair in truth.get("illegal_pairs", []):
        judge = Judge(rules, [state_of(rules, pair["before"]["cubes"])])
        verdict = judge.judge(recognize(read_image(folder / pair["after"]["image"]), profile))
        result["pairs"] += 1
        flagged = not verdict.legal
        named = flagged and any(word in (verdict.reason or "") for word in KIND_WORDS[pair["kind"]])
        # Taken with a question that names the slip: the players are asked to check the table.
        asked = (not flagged and (verdict.note or "").startswith(ASKED)
                 and any(word in verdict.note for word in KIND_WORDS[pair["kind"]]))
        result["flagged"] += flagged
        result["named"] += named
        result["pairs_asked"] += asked
        if verbose and not named:
            print(f"  {folder.name} {pair['after']['image']} ({pair['kind']}): {verdict.kind} {verdict.reason}")
    return result


def ranked(values: list, share: float) -> float:
    """The value of sorted `values` at `share` of the way up, rounded up to a value that exists."""
    return values[math.ceil(share * (len(values) - 1))]


def report(name: str, result: dict, sessions: int = 1) -> None:
    millis = sorted(result["millis"]) or [0.0]
    # A session's own height, or over several how many stood three levels or more.
    levels = f"levels {result['levels']}" if sessions == 1 else f"3+ levels {result['deep']}/{sessions}"
    print(f"{name:>14}: calibrated {result['calibrated']}/{sessions}, {levels}, placements "
          f"{result['inferred']}/{result['placements']} inferred ({result['asked']} asked), {result['false_alarms']} false "
          f"alarms, illegal {result['flagged']}/{result['pairs']} flagged, {result['named']}/{result['pairs']} named, "
          f"{result['pairs_asked']}/{result['pairs']} asked naming it, "
          f"frame median {ranked(millis, 0.5):.0f} ms, p95 {ranked(millis, 0.95):.0f} ms, "
          f"max {millis[-1]:.0f} ms")


def varanasi_frame_seconds(bench: Path) -> list[float]:
    """The Varanasi recogniser's time on each position photo of bench session S0 (the yardstick of a frame's time)."""
    from calibration.varanasi import calibrate as calibrate_varanasi
    from vision.varanasi import recognize as recognize_varanasi

    folder = bench.parent / "varanasi" / "S0"
    truth = json.loads((folder / "truth.json").read_text())
    profile = calibrate_varanasi(read_image(folder / truth["calibration"]["image"]), truth["pieceset"])
    seconds = []
    for photo in sorted(folder.glob("pos*.jpg")):
        image = read_image(photo)
        start = time.perf_counter()
        recognize_varanasi(image, profile).to_json()
        seconds.append(time.perf_counter() - start)
    return seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=BENCH)
    parser.add_argument("--sessions", default="", help="comma-separated bench sessions (default: all)")
    parser.add_argument("--fresh", type=int, default=0, help="fresh synthetic sessions to draw and judge")
    parser.add_argument("--fresh-seed", type=int, default=7000)
    parser.add_argument("--fresh-dir", type=Path, default=None, help="keep fresh sessions here")
    parser.add_argument("--fresh-only", action="store_true", help="judge only the fresh sessions, not the bench")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--compare-varanasi", action="store_true",
                        help="also time the Varanasi recogniser on its bench, in the same run")
    args = parser.parse_args(argv)
    groups = []
    if args.bench.is_dir() and not args.fresh_only:
        wanted = set(filter(None, args.sessions.split(",")))
        groups.append(("bench", [p for p in sorted(args.bench.iterdir())
                                 if (p / "truth.json").is_file() and (not wanted or p.name in wanted)]))
    if args.fresh:
        from device.synthetic_nanku import write_session
        out = args.fresh_dir or Path("build/nanku-fresh")
        groups.append(("fresh", [write_session(out, args.fresh_seed + i) for i in range(args.fresh)]))
    for group, folders in groups:
        total = {}
        for folder in folders:
            result = run_session(folder, args.verbose)
            report(folder.name, result)
            for key, value in result.items():
                total[key] = total.get(key, 0) + value if key != "millis" else total.get(key, []) + value
            total["deep"] = total.get("deep", 0) + (result["levels"] >= 3)
        if folders:
            report(f"{group} total", total, len(folders))
    if args.compare_varanasi:
        seconds = sorted(varanasi_frame_seconds(args.bench))
        print(f"varanasi recogniser, bench S0 positions: median {1000 * ranked(seconds, 0.5):.0f} ms, "
              f"p95 {1000 * ranked(seconds, 0.95):.0f} ms, max {1000 * seconds[-1]:.0f} ms "
              f"({len(seconds)} frames)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
