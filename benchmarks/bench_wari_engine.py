"""Random Wari playouts per second: this engine (every variant) beside OpenSpiel's `oware`.

OpenSpiel (the open-spiel test extra) is only a yardstick: without it its row is left out. Also
times `explain` on a legal and on a miscounted board, since the tracker calls it on every
recognised frame. Run: python3 benchmarks/bench_wari_engine.py [--seconds S]
"""
from __future__ import annotations

import argparse
import random
import time

from engines import load_rules
from engines.wari import VARIANTS, WariState


def arbiter_playouts(rules, rng: random.Random, seconds: float) -> tuple[float, float]:
    """Games and plies per second of uniformly random play."""
    games = plies = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        state = rules.start()
        moves = rules.legal_moves(state)
        while moves:
            state = rules.apply(state, rng.choice(moves))
            moves = rules.legal_moves(state)
            plies += 1
        games += 1
    elapsed = time.perf_counter() - began
    return games / elapsed, plies / elapsed


def openspiel_playouts(pyspiel, rng: random.Random, seconds: float) -> tuple[float, float]:
    game = pyspiel.load_game("oware")
    games = plies = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        games += 1
    elapsed = time.perf_counter() - began
    return games / elapsed, plies / elapsed


def explain_microseconds(rules, rng: random.Random, calls: int, clock=time.perf_counter) -> tuple[float, float]:
    """Mean time of explain on a legal successor and on the same board with one seed moved, by
    `clock` (wall time, or a thread's CPU time where other work shares the machine)."""
    pairs = []
    state = rules.start()
    while len(pairs) < calls:
        moves = rules.legal_moves(state)
        if not moves:
            state = rules.start()
            continue
        after = rules.apply(state, rng.choice(moves))
        pits = list(after.pits)
        source = next(i for i in range(12) if pits[i])
        pits[source] -= 1
        pits[(source + 5) % 12] += 1
        pairs.append((state, after, WariState(tuple(pits), after.stores, after.mover)))
        state = after
    timings = []
    for column in (1, 2):
        began = clock()
        for pair in pairs:
            rules.explain(pair[0], pair[column])
        timings.append((clock() - began) / calls * 1e6)
    return timings[0], timings[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per engine")
    parser.add_argument("--rounds", type=int, default=4,
                        help="the engines take turns in this many slices, so that load from other "
                             "processes falls on all of them alike")
    args = parser.parse_args()
    rng = random.Random(1)
    engines = {}
    try:
        import pyspiel
    except ImportError:
        print("open-spiel is not installed: its row is left out")
    else:
        engines["open-spiel oware (C++)"] = lambda seconds: openspiel_playouts(pyspiel, rng, seconds)
    for name in VARIANTS:
        rules = load_rules({"game": "wari", "variant": name})
        engines[f"arbiter {name}"] = lambda seconds, rules=rules: arbiter_playouts(rules, rng, seconds)
    totals = dict.fromkeys(engines, (0.0, 0.0))
    for _ in range(args.rounds):
        for label, measure in engines.items():
            games, plies = measure(args.seconds / args.rounds)
            totals[label] = (totals[label][0] + games / args.rounds, totals[label][1] + plies / args.rounds)
    print(f"{'engine':<28}{'games/s':>10}{'plies/s':>12}")
    for label, (games, plies) in totals.items():
        print(f"{label:<28}{games:>10.0f}{plies:>12.0f}")
    legal, wrong = explain_microseconds(load_rules({"game": "wari"}), rng, 2000)
    print(f"explain (pbmserv): {legal:.0f} us on a legal board, {wrong:.0f} us on a miscounted one")


if __name__ == "__main__":
    main()
