"""Time Varanasi `explain`, `legal_moves` and `apply` on random 24-disc set-ups.

Prints median and p95 `explain` times (fresh state objects every call, so no cached lookups help)
for a random legal move and for illegal changes of the kinds the bench sessions contain, then
legal_moves / apply throughput. Usage: python3 benchmarks/bench_explain.py [--samples N] [--seed S]
"""
from __future__ import annotations

import argparse
import statistics
import time
from random import Random

from engines import load_rules
from engines.varanasi import VaranasiState, random_setup

COLOURS = ("red", "blue", "green", "yellow", "black", "white")


def fresh(state: VaranasiState) -> VaranasiState:
    return VaranasiState(state.stacks, state.to_move, state.last_take)


def percentiles(times_ns: list[int]) -> str:
    ordered = sorted(times_ns)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered) / 1000:7.1f} us   p95 {p95 / 1000:7.1f} us"


def illegal_reading(engine, state: VaranasiState, rng: Random) -> dict | None:
    """Camera JSON for a change no single legal move makes (None when this kind cannot happen here)."""
    stacks = [[str(d) for d in tower] for tower in state.stacks]
    kind = rng.choice(("bigger_on_smaller", "partial_take", "two_moves"))
    if kind == "bigger_on_smaller":
        pairs = [(a, b) for a in range(len(stacks)) for b in range(len(stacks))
                 if a != b and state.stacks[a][-1].size > state.stacks[b][-1].size]
        if not pairs:
            return None
        source, dest = rng.choice(pairs)
        stacks[dest].append(stacks[source].pop())
    elif kind == "partial_take":
        by_colour: dict[str, list[int]] = {}
        for index, tower in enumerate(state.stacks):
            by_colour.setdefault(tower[-1].colour, []).append(index)
        shared = [towers for towers in by_colour.values() if len(towers) > 1]
        if not shared:
            return None
        stacks[rng.choice(rng.choice(shared))].pop()
    else:
        middle = engine.apply(state, rng.choice(engine.legal_moves(state)))
        if engine.is_over(middle):
            return None
        after = engine.apply(middle, rng.choice(engine.legal_moves(middle)))
        if any(engine.apply(state, m).towers == after.towers for m in engine.legal_moves(state)):
            return None
        return after.to_json()
    return {"game": "varanasi", "stacks": [t for t in stacks if t]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = Random(args.seed)
    engine = load_rules({"game": "varanasi"})
    setups = [random_setup(rng, COLOURS) for _ in range(args.samples)]

    legal_state, legal_json, illegal = [], [], []
    for before in setups:
        after = engine.apply(before, rng.choice(engine.legal_moves(before)))
        for times, seen in ((legal_state, fresh(after)), (legal_json, after.to_json())):
            probe = fresh(before)
            start = time.perf_counter_ns()
            verdict = engine.explain(probe, seen)
            times.append(time.perf_counter_ns() - start)
            assert verdict.legal
        reading = illegal_reading(engine, before, rng)
        if reading is not None:
            probe = fresh(before)
            start = time.perf_counter_ns()
            verdict = engine.explain(probe, reading)
            illegal.append(time.perf_counter_ns() - start)
            assert not verdict.legal

    print(f"explain, 24 discs, {args.samples} random set-ups (seed {args.seed}):")
    print(f"  legal move, states      {percentiles(legal_state)}")
    print(f"  legal move, camera JSON {percentiles(legal_json)}")
    print(f"  illegal pair, JSON      {percentiles(illegal)}   ({len(illegal)} pairs)")

    start = time.perf_counter()
    listed = sum(len(engine.legal_moves(fresh(state))) for state in setups)
    elapsed = time.perf_counter() - start
    print(f"legal_moves: {len(setups) / elapsed:,.0f} positions/s ({listed / len(setups):.1f} moves each)")

    pairs = [(state, move) for state in setups[:500] for move in engine.legal_moves(state)]
    start = time.perf_counter()
    for state, move in pairs:
        engine.apply(fresh(state), move)
    elapsed = time.perf_counter() - start
    print(f"apply: {len(pairs) / elapsed:,.0f} moves/s")


if __name__ == "__main__":
    main()
