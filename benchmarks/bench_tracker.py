"""Move inference over the rendered bench sessions: what `arbiter replay` gets right.

For every session in ../shared/bench/{varanasi,wari,wari-referee}/S*: calibrate from the
session's calibration (or start) photo, replay the photographed game seq*.jpg and compare each
judged transition with the true move; then judge every illegal pair as a referee that followed
the game would: from the true position before it (the truth's) and its photo, the photo after
it. Prints, per
session and in total: moves inferred correctly / total (and how many of them were taken with a
question, "not sure: ... please check the table"), false illegal alarms, illegal pairs flagged /
total (and how many were asked about instead), Wari pairs whose reason names a pit, store or
turn, seconds; and each pair's reason with `--reasons`.
`--camera turned|tilted|soft` first re-shoots every photo through another camera (reshoot.py), as
a stand-in for unseen sessions. `--fresh N` also renders N sessions per game that nobody has
looked at (seeds from `--fresh-seed`, new ones each run: Wari through `python -m
training.wari_render`, a game photographed after every move, 30 random moves or, for every other
pair of seeds, 60 moves of a player building a big pile, with one slip of each kind; Varanasi
through the synthetic renderer's simulated table, a random set-up and game with one partial take
as its illegal pair) and reports them apart; `--fresh-dir DIR` keeps them (and reuses those
already there), `--fresh-only` skips the bench.

    python3 benchmarks/bench_tracker.py [--camera NAME] [--fresh N --fresh-seed S [--fresh-dir DIR]
                                        [--fresh-only]] [--reasons] [BENCH_DIR]
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

from arbiter.judge import UNSURE, Judge
from arbiter.replay import replay
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
    correct, false_alarms, asked, wrong, judged = 0, 0, 0, [], []
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
            if (transition.get("note") or "").startswith(UNSURE):
                asked += 1
                wrong.append(f"{sequence[index + 1]['image']}: asked: {transition['note']}")
        elif transition["verdict"] == "same" and (transition.get("note") or "").startswith(UNSURE):
            wrong.append(f"{sequence[index + 1]['image']}: waited (the move comes with the next photo): "
                         f"{transition['note']}")
        else:
            wrong.append(f"{sequence[index + 1]['image']}: inferred {transition['moves']} for {expected}")
        judged.append((transition["confidence"], right))
    pairs = truth.get("illegal_pairs", [])
    flagged, named, pairs_asked, reasons = 0, 0, 0, []
    for pair in pairs:
        # As a referee that followed the game: the true position before, and its picture.
        before = recognize(read_image(folder / pair["before"]["image"]), profile)
        judge = Judge(rules, [rules.state_from_json(true_state(game, pair))], seen=before)
        verdict = judge.judge(recognize(read_image(folder / pair["after"]["image"]), profile))
        reasons.append(f"{pair['after']['image']} {pair['kind']}: {verdict.reason or verdict.note}")
        judged.append((verdict.confidence, not verdict.legal))
        if verdict.legal and (verdict.note or "").startswith(UNSURE):
            pairs_asked += 1
            wrong.append(f"{pair['after']['image']}: {pair['kind']} asked, not flagged: {verdict.note}")
            continue
        if verdict.legal:
            wrong.append(f"{pair['after']['image']}: {pair['kind']} not flagged ({verdict.kind})")
            continue
        flagged += 1
        named += any(word in (verdict.reason or "") for word in NAMING_WORDS)
    return {"session": f"{game}/{folder.name}", "moves": len(sequence) - 1, "correct": correct,
            "false_alarms": false_alarms, "asked": asked, "pairs": len(pairs), "flagged": flagged,
            "pairs_asked": pairs_asked, "named": named,
            "seconds": time.perf_counter() - started, "wrong": wrong, "reasons": reasons, "judged": judged}


# A reason names where the mistake lies when it names a pit, a store, a turn, discs or a colour.
NAMING_WORDS = ("pit ", "store ", "turn", "vanished", "appeared", "declared", "onto", "level", "tower", "two moves")


def fresh_wari_session(folder: Path, seed: int, plies: int) -> Path:
    """A photographic Wari session nobody has looked at: the start, then every move of a game, and
    FRESH_SLIPS slips at positions of it. Every other pair of seeds plays a long game that builds
    big piles (hoarding, twice the plies); the style alternates with the seed."""
    import subprocess

    style = ("nicker", "glass")[seed % 2]
    play = ("random", "hoarding")[seed // 2 % 2]
    subprocess.run([sys.executable, "-m", "training.wari_render", str(folder), "--style", style, "--session", str(seed),
                    "--positions", "0", "--sequence", str(plies * (2 if play == "hoarding" else 1)), "--play", play,
                    "--illegal", str(FRESH_SLIPS)], check=True, capture_output=True,
                   cwd=Path(__file__).resolve().parents[1])
    return folder


# Slips photographed per fresh Wari session: each kind (training.wari_render.mistakes) once.
FRESH_SLIPS = 6


def fresh_varanasi_session(folder: Path, seed: int, plies: int) -> Path:
    """A synthetic Varanasi session nobody has looked at: the set laid out, a random set-up and game,
    and one illegal pair (a colour declared, one of its top discs left on the table)."""
    import random

    from arbiter.demo import bundled_pieceset
    from device.simulated import scripted_positions, simulated_table

    folder.mkdir(parents=True, exist_ok=True)
    rules = load_rules({"game": "varanasi"})
    pieceset = bundled_pieceset("nestor-standard.json")
    table = simulated_table("varanasi", seed, pieceset=pieceset)
    states = scripted_positions(rules, table.opening(rules, random.Random(seed)), plies, seed)
    pictures = table.game_pictures([state.to_json() for state in states])
    cv2.imwrite(str(folder / "calibration.jpg"), table.calibration_picture())

    def discs(state) -> list:
        return [[{"size": d.size, "colour": d.colour} for d in tower] for tower in state.stacks]

    sequence = []
    for index, (state, picture) in enumerate(zip(states, pictures)):
        cv2.imwrite(str(folder / f"seq{index:03d}.jpg"), picture)
        sequence.append({"image": f"seq{index:03d}.jpg", "stacks": discs(state)})
        if index + 1 < len(states):
            sequence[-1]["next_move"] = next(m.to_json() for m in rules.legal_moves(state)
                                             if rules.apply(state, m) == states[index + 1])
    pairs = []
    for index, state in enumerate(states[:-1]):
        tops = [tower[-1] for tower in state.stacks]
        colour = next((t.colour for t in tops if sum(o.colour == t.colour for o in tops) > 1), None)
        if colour is None:
            continue
        kept = next(t for t in tops if t.colour == colour)  # left on its tower: a partial take
        stacks = [tower[:-1] if tower[-1].colour == colour and tower[-1] != kept else tower for tower in state.stacks]
        partial = {"game": "varanasi", "stacks": [[str(d) for d in tower] for tower in stacks if tower]}
        # Drawn as the game's pictures are: every tower where its bottom disc stood at the start.
        cv2.imwrite(str(folder / "ill00b.jpg"), table.game_pictures([states[0].to_json(), partial])[1])
        pairs.append({"before": sequence[index], "after": {"image": "ill00b.jpg"}, "kind": "partial_take",
                      "to_move": state.to_move})
        break
    (folder / "truth.json").write_text(json.dumps({"pieceset": pieceset, "calibration": "calibration.jpg",
                                                   "sequence": sequence, "illegal_pairs": pairs}))
    return folder


FRESH = {"wari": fresh_wari_session, "varanasi": fresh_varanasi_session}
FRESH_PLIES = {"wari": 30, "varanasi": 20}


def true_state(game: str, pair: dict) -> dict:
    """The position before an illegal pair as the truth gives it, with the mover whose turn it was."""
    before = pair["before"]
    if game == "wari":
        return {"game": "wari", "pits": before["pits"], "stores": before["stores"],
                "to_move": pair.get("player", before.get("next_move", {}).get("player", "south"))}
    return {"game": "varanasi", "stacks": [[f"{d['size']}{d['colour']}" for d in tower] for tower in before["stacks"]],
            "to_move": pair.get("to_move", 0)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--camera", choices=sorted(CAMERAS), help="re-shoot every photo through another camera")
    parser.add_argument("--reasons", action="store_true", help="print every illegal pair's reason")
    parser.add_argument("--fresh", type=int, default=0, metavar="N", help="also render N unseen sessions per game")
    parser.add_argument("--fresh-seed", type=int, default=9100, help="the first fresh session's seed")
    parser.add_argument("--fresh-dir", type=Path, metavar="DIR",
                        help="keep the fresh sessions in DIR (GAME-SEED folders), reusing those already there")
    parser.add_argument("--fresh-only", action="store_true", help="judge only the fresh sessions, not the bench")
    parser.add_argument("bench", nargs="?", type=Path, default=DEFAULT_BENCH)
    args = parser.parse_args(argv[1:])
    if not any(next((args.bench / group).glob("S*"), None) for group in GROUPS):
        parser.error(f"no session folders of {', '.join(GROUPS)} in {args.bench}")
    totals, fresh_totals, judged = dict.fromkeys(COUNTED, 0), dict.fromkeys(COUNTED, 0), []
    for group, game in ({} if args.fresh_only else GROUPS).items():
        for folder in sorted((args.bench / group).glob("S*")):
            try:
                with tempfile.TemporaryDirectory() as scratch:
                    shot = reshot_session(folder, args.camera, Path(scratch) / folder.name) if args.camera else folder
                    result = bench_session(game, shot)
            except ArbiterError as exc:
                print(f"{group}/{folder.name}: failed: {exc}")
                continue
            report(f"{group}/{folder.name}", result, totals, judged, args.reasons)
    if not args.fresh_only:
        print(f"total: {summary(totals)}")
    if args.fresh:
        with tempfile.TemporaryDirectory() as scratch:
            for game, make in FRESH.items():
                for seed in range(args.fresh_seed, args.fresh_seed + args.fresh):
                    folder = (args.fresh_dir or Path(scratch)) / f"{game}-{seed}"
                    if not folder.joinpath("truth.json").exists():  # else rendered before into --fresh-dir
                        make(folder, seed, FRESH_PLIES[game])
                    try:
                        result = bench_session(game, folder)
                    except ArbiterError as exc:
                        print(f"fresh {game} {seed}: failed: {exc}")
                        continue
                    report(f"fresh {game} {seed}", result, fresh_totals, judged, args.reasons)
        print(f"fresh total: {summary(fresh_totals)}")
    print("reliability: verdict confidence -> verdicts right (moves inferred, illegal pairs flagged)")
    for low, high in RELIABILITY_BUCKETS:
        inside = [right for confidence, right in judged if low <= confidence < high]
        share = f"{100 * sum(inside) / len(inside):.1f} %" if inside else "-"
        print(f"    [{low:.2f}, {min(high, 1.0):.2f}{']' if high > 1 else ')'}: {sum(inside)}/{len(inside)} right ({share})")
    return 0


RELIABILITY_BUCKETS = ((0.0, 0.5), (0.5, 0.9), (0.9, 0.99), (0.99, 1.01))
COUNTED = ("moves", "correct", "asked", "false_alarms", "pairs", "flagged", "pairs_asked", "named", "seconds")


def summary(counts: dict) -> str:
    """One line of figures: moves inferred (of which asked about), false alarms, illegal pairs."""
    return (f"moves inferred {counts['correct']}/{counts['moves']} (asked about {counts['asked']}), false illegal "
            f"alarms {counts['false_alarms']}, illegal pairs flagged {counts['flagged']}/{counts['pairs']} (asked about "
            f"{counts['pairs_asked']}; reason names where: {counts['named']}), {counts['seconds']:.1f} s")


def report(name: str, result: dict, totals: dict, judged: list, reasons: bool) -> None:
    """Print one session's figures and what it got wrong; add them to `totals` and `judged`."""
    for key in totals:
        totals[key] += result[key]
    judged += result["judged"]
    print(f"{name}: {summary(result)}")
    for line in result["wrong"] + (result["reasons"] if reasons else []):
        print(f"    {line}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
