"""Speed targets for a Raspberry Pi 5 core, each printed beside its reference, in one run on one core.

A Pi 5 core is 2-3 times slower than one core of the development host, so each target is a ratio
to something measured in the same run on the same core (a JPEG's decoding, a plain Oware
engine), or a fixed limit where the target is one. Times of frames, decoding and verdicts are the
reading thread's CPU time (other work on a shared machine stretches wall time, not CPU time);
start-up is the CPU time of a whole `arbiter recognize` process, user and system.

- start-up: `arbiter recognize --help`, and one photo read by each game's recogniser, less that
  frame's own time (read in this process, `to_json` included): under 0.5 s.
- Varanasi frame: per bench photo, `recognize` over the time OpenCV takes to decode the same
  JPEG: median at most 5, 95th percentile at most 8, the calibration photos among them (24 discs
  lying apart, 24 towers: the fullest table, also shown apart against the 95th percentile's 8).
- Wari frame: median at most 3 decodes.
- Judge: per verdict (the photographed games replayed as `arbiter replay` does, and every illegal
  pair judged from the true position before it), at most half the game's median frame.
- Engines: random Oware playouts (pbmserv) at least as many plies a second as the plain engine
  below (its games checked identical to Arbiter's on many seeds), OpenSpiel printed beside them;
  `explain` beside the figures this benchmark printed before the engines were made faster; Nanku
  `legal_moves` mid-game under 1 ms, on a state's first call and again.

    python3 benchmarks/bench_speed.py [--cpu N] [--bench DIR]
"""
from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from arbiter.judge import Judge  # noqa: E402
from arbiter.replay import played_on  # noqa: E402
from engines import load_rules  # noqa: E402
from engines.varanasi import random_setup  # noqa: E402
from vision import recognize  # noqa: E402
from vision.io import read_image  # noqa: E402

from bench_wari_engine import explain_microseconds  # noqa: E402  (beside this script)

from bench_explain import COLOURS, fresh, illegal_reading  # noqa: E402  (beside this script)
from bench_tracker import DEFAULT_BENCH, GROUPS, calibrate_session, session_rules, true_state  # noqa: E402

ARBITER = Path(sys.executable).with_name("arbiter")
# `explain` as this benchmark measured it on commit 00aa2fd, before the engines were made faster
# (thread CPU microseconds, the least of six runs on core 1; Varanasi: medians of 1000
# random 24-disc set-ups, seed 1; Wari: means of 2000 boards).
EXPLAIN_BEFORE_US = {"varanasi legal (states)": 20.1, "varanasi legal (JSON)": 35.8,
                     "varanasi illegal (JSON)": 35.0, "wari legal": 11.1, "wari miscounted": 78.6}
ROWS: list[tuple[str, str, str, bool | None]] = []


def row(what: str, measured: str, reference: str, passed: bool | None) -> None:
    ROWS.append((what, measured, reference, passed))
    verdict = "-" if passed is None else ("pass" if passed else "FAIL")
    print(f"{what:<46} {measured:<30} {reference:<34} {verdict}", flush=True)


def cpu_ms(action, repeats: int = 1) -> tuple[float, object]:
    """The least thread CPU time of `repeats` runs of `action()` (ms), and its last result."""
    best = float("inf")
    for _ in range(repeats):
        began = time.thread_time()
        result = action()
        best = min(best, time.thread_time() - began)
    return best * 1000, result


def p95(values) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


# ---- start-up -----------------------------------------------------------------------------
def process_seconds(args: list[str]) -> float:
    """CPU seconds (user + system) of one process, the least of three runs."""
    best = float("inf")
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best


def start_up(profiles: dict[str, tuple[dict, Path]]) -> None:
    bare = process_seconds([sys.executable, "-c", "pass"])
    helped = process_seconds([str(ARBITER), "recognize", "--help"])
    row("start-up: arbiter recognize --help", f"{helped:.2f} s", f"< 0.5 s (python alone {bare:.2f} s)", helped < 0.5)
    with tempfile.TemporaryDirectory() as scratch:
        for game, (profile, photo) in profiles.items():
            path = Path(scratch) / f"{game}.json"
            path.write_text(json.dumps(profile))
            whole = process_seconds([str(ARBITER), "recognize", "--profile", str(path), str(photo)])
            image = read_image(photo)
            frame = cpu_ms(lambda: read(image, profile), 3)[0] / 1000
            row(f"start-up: recognize one {game} photo", f"{whole - frame:.2f} s (whole {whole:.2f} s)",
                f"< 0.5 s (frame {frame * 1000:.0f} ms)", whole - frame < 0.5)


# ---- frames and verdicts ------------------------------------------------------------------
def decode_ms(data: np.ndarray) -> float:
    return cpu_ms(lambda: cv2.imdecode(data, cv2.IMREAD_COLOR), 3)[0]


def read(image: np.ndarray, profile: dict):
    """A frame's observation, read through (a recogniser may leave work until it is asked)."""
    observation = recognize(image, profile)
    observation.to_json()
    return observation


def read_photos(profile: dict, photos: list[Path]) -> dict[str, tuple[float, float, object]]:
    """Per photo name: (decode ms, frame ms, observation)."""
    readings = {}
    for photo in photos:
        data = np.fromfile(photo, dtype=np.uint8)
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
        recognize(image, profile).to_json()  # caches warm, as in a running tracker
        frame, observation = cpu_ms(lambda: read(image, profile))
        readings[photo.name] = (decode_ms(data), frame, observation)
    return readings


def frame_rows(game: str, readings: list, median_limit: float, p95_limit: float | None, label: str = "") -> float:
    ratios = [frame / decode for decode, frame, _ in readings]
    frames = [frame for _, frame, _ in readings]
    decode = statistics.median(decode for decode, _, _ in readings)
    median = statistics.median(ratios)
    row(f"{game} frame{label}, median ({len(readings)} photos)",
        f"{median:.1f} decodes ({statistics.median(frames):.1f} ms)",
        f"<= {median_limit:g} decodes ({decode:.1f} ms each)", median <= median_limit)
    if p95_limit is not None:
        row(f"{game} frame{label}, 95th percentile", f"{p95(ratios):.1f} decodes ({p95(frames):.1f} ms)",
            f"<= {p95_limit:g} decodes", p95(ratios) <= p95_limit)
    return statistics.median(frames)


def verdict_ms(game: str, rules, truth: dict, readings: dict) -> list[float]:
    """Thread CPU ms of each verdict: the photographed game replayed as `arbiter replay` does it,
    then every illegal pair judged from the true position before it."""
    times = []
    judge, flagged = Judge(rules), None
    for item in truth["sequence"]:
        observation = readings[item["image"]][2]
        began = time.thread_time()
        verdict = judge.judge(observation)
        if not verdict.legal and flagged is not None:
            judge, verdict = played_on(judge, flagged, observation) or (judge, verdict)
        judge.apply(verdict)
        times.append((time.thread_time() - began) * 1000)
        flagged = None if verdict.legal else verdict
    for pair in truth.get("illegal_pairs", []):
        before = rules.state_from_json(true_state(game, pair))
        observation = readings[pair["after"]["image"]][2]
        began = time.thread_time()
        Judge(rules, [before]).judge(observation)
        times.append((time.thread_time() - began) * 1000)
    return times


def vision_and_judge(bench: Path) -> dict[str, tuple[dict, Path]]:
    """Frame and verdict rows of every bench session; a profile and photo per game for start-up."""
    samples = {}
    for game, median_limit, p95_limit in (("varanasi", 5, 8), ("wari", 3, None)):
        readings, fullest, verdicts = [], [], []
        groups = [group for group, of in GROUPS.items() if of == game]
        for group in groups:
            for folder in sorted((bench / group).glob("S*")):
                truth = json.loads((folder / "truth.json").read_text())
                profile = calibrate_session(game, folder, truth)
                photos = sorted(folder.glob("*.jpg"))
                session = read_photos(profile, photos)
                if group == game:  # the reshot referee sessions repeat the same photos' kind
                    calibration = truth.get("calibration", {}).get("image") if game == "varanasi" else None
                    readings += list(session.values())
                    fullest += [reading for name, reading in session.items() if name == calibration]
                    middle = truth["sequence"][len(truth["sequence"]) // 2]["image"]
                    samples.setdefault(game, (profile, folder / middle))
                verdicts += verdict_ms(game, session_rules(game, truth), truth, session)
        frame = frame_rows(game, readings, median_limit, p95_limit)
        if fullest:  # also among the photos above: the table at its fullest, the slow tail
            frame_rows(game, fullest, p95_limit, None, ", 24 towers")
        row(f"judge, {game}: per verdict, 95th pct ({len(verdicts)})",
            f"{p95(verdicts):.2f} ms (max {max(verdicts):.2f})", f"<= half a frame, {frame / 2:.1f} ms",
            p95(verdicts) <= frame / 2)
    return samples


# ---- engines ------------------------------------------------------------------------------
def plain_oware_game(rng: random.Random, trace: list | None = None) -> tuple[int, list, list]:
    """A random game of Oware (pbmserv rules) written plainly on a mutable board: the floor the
    engine's playouts must reach. Returns the plies played, the pits and the stores at the end."""
    pits, stores, mover, seen, plies = [4] * 12, [0, 0], 0, set(), 0
    while stores[0] <= 24 and stores[1] <= 24 and stores != [24, 24]:
        position = (tuple(pits), mover)
        if position in seen:
            break  # a position repeated since the last capture ends the game
        moves = [i for i in range(6 * mover, 6 * mover + 6) if pits[i]]
        if not any(pits[6 - 6 * mover:12 - 6 * mover]):  # the opponent must be fed
            moves = [i for i in moves if any(plain_sowing(pits, stores, i)[0][6 - 6 * mover:12 - 6 * mover])]
        if not moves:
            break
        origin = rng.choice(moves)
        if trace is not None:
            trace.append(origin)
        pits, sown = plain_sowing(pits, stores, origin)
        if sown == stores:
            seen.add(position)
        else:
            seen.clear()
        stores, mover, plies = sown, 1 - mover, plies + 1
    return plies, pits, stores


def plain_sowing(pits: list, stores: list, origin: int) -> tuple[list, list]:
    """Sow `origin` (skipping it on laps) and capture 2s and 3s backwards on the opponent's row."""
    pits, stores, mover = pits[:], stores[:], origin // 6
    hand, pits[origin], pos = pits[origin], 0, origin
    while hand:
        pos = pos + 1 if pos < 11 else 0
        if pos != origin:
            pits[pos] += 1
            hand -= 1
    while pos // 6 == 1 - mover and pits[pos] in (2, 3):
        stores[mover] += pits[pos]
        pits[pos] = 0
        pos -= 1
    return pits, stores


def arbiter_game(rules, rng: random.Random, trace: list | None = None):
    state = rules.start()
    moves = rules.legal_moves(state)
    plies = 0
    while moves:
        move = rng.choice(moves)
        if trace is not None:
            trace.append(move.index)
        state = rules.apply(state, move)
        moves = rules.legal_moves(state)
        plies += 1
    return plies, list(state.pits), list(state.stores)


def openspiel_game(game, rng: random.Random, trace=None):
    state, plies = game.new_initial_state(), 0
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        plies += 1
    return plies, None, None


def plies_per_second(play, seconds: float, rounds: int = 4) -> float:
    """Plies a second of `play(rng)` games, over `rounds` slices taken in turn with the others'."""
    rng, plies, spent = random.Random(1), 0, 0.0
    for _ in range(rounds):
        began = time.thread_time()
        while time.thread_time() - began < seconds / rounds:
            plies += play(rng)[0]
        spent += time.thread_time() - began
    return plies / spent


def engines(seconds: float) -> None:
    pbmserv = load_rules({"game": "wari", "variant": "pbmserv"})
    for seed in range(500):  # the floor plays the same games: same moves, same ends
        ours, plain = [], []
        if (arbiter_game(pbmserv, random.Random(seed), ours), ours) != (plain_oware_game(random.Random(seed), plain), plain):
            raise SystemExit(f"the plain Oware engine and Arbiter's differ on seed {seed}")
    players = {"plain pure-Python Oware (floor)": plain_oware_game}
    try:
        import pyspiel
        oware = pyspiel.load_game("oware")
        players["OpenSpiel oware (C++)"] = lambda rng: openspiel_game(oware, rng)
    except ImportError:
        print("open-spiel is not installed: its row is left out")
    variants = ("pbmserv", "oware-ver1", "abapa", "four-capture", "aware")
    for name in variants:
        rules = load_rules({"game": "wari", "variant": name})
        players[f"arbiter {name}"] = lambda rng, rules=rules: arbiter_game(rules, rng)
    rates = {label: 0.0 for label in players}
    for _ in range(2):  # each in turn, twice, so that load from other processes falls on all alike
        for label, play in players.items():
            rates[label] += plies_per_second(play, seconds / 2) / 2
    floor = rates["plain pure-Python Oware (floor)"]
    spiel = rates.get("OpenSpiel oware (C++)")
    reference = f">= floor {floor / 1000:.0f}k" + (f" (OpenSpiel {spiel / 1000:.0f}k)" if spiel else "")
    row("Oware playouts, arbiter pbmserv", f"{rates['arbiter pbmserv'] / 1000:.0f}k plies/s", reference,
        rates["arbiter pbmserv"] >= floor)
    for name in variants[1:]:
        rate = rates[f"arbiter {name}"]
        row(f"  arbiter {name} (other rules)", f"{rate / 1000:.0f}k plies/s ({rate / floor:.2f} floor)", "", None)
    explain_rows()
    nanku_rows()


def explain_rows() -> None:
    rng = random.Random(1)
    engine = load_rules({"game": "varanasi"})
    times = {"varanasi legal (states)": [], "varanasi legal (JSON)": [], "varanasi illegal (JSON)": []}
    for _ in range(1000):
        before = random_setup(rng, COLOURS)
        after = engine.apply(before, rng.choice(engine.legal_moves(before)))
        for key, seen in (("varanasi legal (states)", fresh(after)), ("varanasi legal (JSON)", after.to_json())):
            probe = fresh(before)
            began = time.thread_time_ns()
            engine.explain(probe, seen)
            times[key].append((time.thread_time_ns() - began) / 1000)
        reading = illegal_reading(engine, before, rng)
        if reading is not None:
            probe = fresh(before)
            began = time.thread_time_ns()
            engine.explain(probe, reading)
            times["varanasi illegal (JSON)"].append((time.thread_time_ns() - began) / 1000)
    measured = {key: statistics.median(values) for key, values in times.items()}
    measured.update(zip(("wari legal", "wari miscounted"),
                        explain_microseconds(load_rules({"game": "wari"}), rng, 2000, clock=time.thread_time)))
    for key, value in measured.items():
        before = EXPLAIN_BEFORE_US[key]
        row(f"explain, {key}", f"{value:.1f} us", f"<= before, {before:.1f} us (+10 % noise)", value <= before * 1.1)


def nanku_rows(games: int = 40) -> None:
    """`legal_moves` on mid-game states (12-20 pieces) of random games: first call and again."""
    rules, rng, states = load_rules({"game": "nanku"}), random.Random(1), []
    while len(states) < games:
        state = rules.start()
        for placed in range(20):
            moves = rules.legal_moves(state)
            if not moves:
                break
            state = rules.apply(state, rng.choice(moves))
            if placed >= 12 and not rules.is_over(state):
                states.append(state)
    first, again = [], []
    for state in states:
        copy = type(state)(state.pieces, state.to_move, state.collapsed)  # nothing cached yet
        first.append(cpu_ms(lambda: rules.legal_moves(copy))[0])
        again.append(cpu_ms(lambda: rules.legal_moves(copy), 3)[0])
    for label, values in (("first call", first), ("again", again)):
        row(f"nanku legal_moves mid-game, {label}", f"{statistics.median(values):.2f} ms (p95 {p95(values):.2f})",
            "< 1 ms (median)", statistics.median(values) < 1.0)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", type=int, default=0, help="the one core everything runs on (0)")
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--seconds", type=float, default=2.0, help="playout time per Oware engine")
    args = parser.parse_args(argv[1:])
    os.sched_setaffinity(0, {args.cpu})  # inherited by the processes started for start-up
    cv2.setNumThreads(1)
    print(f"{'target':<46} {'measured':<30} {'reference':<34} result")
    began = time.perf_counter()
    samples = vision_and_judge(args.bench)
    nanku = sorted((args.bench / "nanku").glob("S*"))
    if nanku:
        from calibration.nanku import calibrate

        truth = json.loads((nanku[0] / "truth.json").read_text())
        first = nanku[0] / truth["sequence"][0]["image"]
        samples["nanku"] = (calibrate(read_image(first)), nanku[0] / truth["sequence"][1]["image"])
    start_up(samples)
    engines(args.seconds)
    failed = sum(passed is False for *_, passed in ROWS)
    print(f"{failed} of {sum(passed is not None for *_, passed in ROWS)} targets missed, "
          f"{time.perf_counter() - began:.0f} s on core {args.cpu}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
