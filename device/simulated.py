"""Simulated tables: what a camera over a game would show, drawn by the game's synthetic renderer.

Each game read by camera registers one table class here, once. A table is made for one session
(camera, lamp, board, where towers stand) and offers:
- `opening(rules, rng)`: the position a simulated game starts from (the standard start, or a
  random set-up where players set up freely);
- `calibration_picture(opening_json)`: the photo a newcomer calibrates on;
- `picture(state_json, shot)`: one position, `shot` drawing the sensor noise;
- `game_pictures(states_json, shot=None)`: every position of one game, pieces that stay put drawn in
  place (`shot` the noise of every picture; None: one shot per picture).
`sim:GAME[:SEED]` cameras, `arbiter demo` and the tests draw their tables through this.
"""
from __future__ import annotations

import random

from engines.registry import Parts

TABLES = Parts("simulated table")
TABLES.register("varanasi", "device.simulated_varanasi:SimulatedVaranasiTable")
TABLES.register("wari", "device.simulated_wari:SimulatedWariTable")
TABLES.register("nanku", "device.simulated_nanku:SimulatedNankuTable")


def simulated_table(game: str, session: int, **options):
    """The registered simulated table of `game` for one session; `options` are the game's own."""
    return TABLES.get(game)(session, **options)


def scripted_positions(rules, opening, plies: int, seed: int) -> list:
    """A game a simulated camera plays: random legal moves from `opening`, stopping at game end."""
    rng = random.Random(seed)
    states = [opening]
    for _ in range(plies):
        moves = rules.legal_moves(states[-1])
        if not moves:
            break
        states.append(rules.apply(states[-1], rng.choice(moves)))
    return states
