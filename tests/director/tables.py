"""Simulated tables for the director's tests and benchmark: Wari games as folders of pictures
that `arbiter run --camera folder:DIR` judges, drawn by the synthetic renderer (no ../shared).

Every table sits in the same simulated room (camera, lamp, board), so one calibration profile
serves them all; each plays its own game, moves chosen to capture the most so that it ends in
a few dozen moves.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import cv2

from calibration import calibrate
from device.simulated import simulated_table
from engines import load_rules

ROOM = 4  # the simulated room (device.simulated seed) the tracker's own end-to-end test judges cleanly


def greedy_wari_game(seed: int, max_plies: int = 60) -> list:
    """Positions of a Wari game whose every move captures the most (ties broken at random)."""
    rules = load_rules({"game": "wari"})
    rng = random.Random(seed)
    states = [rules.start()]
    while not rules.is_over(states[-1]) and len(states) <= max_plies:
        moves = rules.legal_moves(states[-1])
        if not moves:
            break
        after = [(sum(rules.apply(states[-1], m).to_json()["stores"]), m) for m in moves]
        best = max(score for score, _ in after)
        states.append(rules.apply(states[-1], rng.choice([m for score, m in after if score == best])))
    return states


def write_profile(folder: Path) -> Path:
    """The room's calibration profile, as `arbiter calibrate wari` would write it."""
    rules = load_rules({"game": "wari"})
    table = simulated_table("wari", ROOM)
    profile = calibrate("wari", table.calibration_picture(rules.start().to_json(), shot=99))
    path = folder / "wari-profile.json"
    path.write_text(json.dumps(profile))
    return path


def write_pictures(folder: Path, states: list, first: int = 0) -> Path:
    """Pictures of `states[first:]` in `folder`, named so that they sort in play order."""
    table = simulated_table("wari", ROOM)
    folder.mkdir(parents=True, exist_ok=True)
    for number, state in enumerate(states[first:], start=first):
        cv2.imwrite(str(folder / f"{number:03d}.jpg"), table.picture(state.to_json(), shot=number),
                    [cv2.IMWRITE_JPEG_QUALITY, 92])
    return folder
