"""Stand-ins for a recogniser (observations whose likelihood counts misread discs or seeds) and
random games to show them."""
from __future__ import annotations

import random
from collections import Counter

import cv2
import numpy as np

# A misread disc or seed costs this much log-likelihood: far beyond the tracker's fit margin.
MISREAD_COST = 12.0


def board_features(state_json: dict) -> Counter:
    """What a camera can see of a position: each disc and what it rests on, or each pit's count."""
    if state_json["game"] == "varanasi":
        features = Counter()
        for tower in state_json["stacks"]:
            for level, disc in enumerate(tower):
                features[(disc, tower[level - 1] if level else None)] += 1
        return features
    return Counter({("pit", i, n): 1 for i, n in enumerate(state_json["pits"])}
                   | {("store", i, n): 1 for i, n in enumerate(state_json["stores"])})


class FakeObservation:
    """Reads `state_json`; a candidate scores -MISREAD_COST per feature it differs in.

    `confusable` maps a read disc code to the one the camera cannot tell it from (an uncertain
    disc): a candidate with that disc in its place costs only `doubt_cost`, so it still fits.
    """

    def __init__(self, state_json: dict, confidence: float = 0.95, confusable=None, doubt_cost: float = 1.0):
        self.state = {k: v for k, v in state_json.items() if k != "to_move"}
        self.confidence = confidence
        self.confusable = confusable or {}
        self.doubt_cost = doubt_cost

    def to_json(self) -> dict:
        return {"state": self.state, "confidence": self.confidence, "evidence": {}}

    def best_log_likelihood(self, following: dict | None = None) -> float:
        return self.log_likelihood(self.state)

    def best_reading(self, following: dict | None = None) -> dict:
        return self.state

    def log_likelihood(self, state_json: dict) -> float:
        read, candidate = board_features(self.state), board_features(state_json)
        missing, extra = read - candidate, candidate - read
        doubts = 0
        for feature, count in list(missing.items()):
            stand_in = (self.confusable.get(feature[0]),) + feature[1:]
            swapped = min(count, extra[stand_in])
            if swapped:
                doubts += swapped
                missing[feature] -= swapped
                extra[stand_in] -= swapped
        misreads = sum((+missing).values()) + sum((+extra).values())
        return -MISREAD_COST * misreads - self.doubt_cost * doubts


def random_varanasi_game(rules, seed: int, plies: int, colours=("blue", "green", "red", "yellow"),
                         discs: int | None = None) -> list:
    """Random towers of `discs` discs (12-24 drawn from the seed when None), then up to `plies`
    random legal moves: the states, the set-up first."""
    from engines.varanasi import random_setup

    rng = random.Random(seed)
    states = [random_setup(rng, list(colours), discs=rng.randint(12, 24) if discs is None else discs)]
    while len(states) <= plies and rules.legal_moves(states[-1]):
        states.append(rules.apply(states[-1], rng.choice(rules.legal_moves(states[-1]))))
    return states


def random_wari_game(rules, seed: int, plies: int) -> list:
    """The standard start, then up to `plies` random legal moves: the states, the start first."""
    rng = random.Random(seed)
    states = [rules.start()]
    while len(states) <= plies and rules.legal_moves(states[-1]):
        states.append(rules.apply(states[-1], rng.choice(rules.legal_moves(states[-1]))))
    return states


FRAME_SHAPE = (120, 160, 3)


def position_frame(index: int) -> np.ndarray:
    """A table picture for scripted position `index`: a grey table with a patch coding the index."""
    frame = np.full(FRAME_SHAPE, 90, np.uint8)
    cv2.rectangle(frame, (50, 40), (110, 80), (40 + 25 * index,) * 3, -1)
    return frame


def frame_index(frame: np.ndarray) -> int:
    return round((int(frame[60, 80, 0]) - 40) / 25)


class ScriptedRecogniser:
    """Recognises `position_frame(i)` as `states[i]`; anything else is "no board"."""

    def __init__(self, states_json: list):
        self.states_json = states_json
        self.calls = 0

    def __call__(self, frame, profile):
        self.calls += 1
        index = frame_index(frame)
        if 0 <= index < len(self.states_json) and (frame[5, 5] == 90).all():
            return FakeObservation(self.states_json[index])
        return FakeObservation(self.states_json[0], confidence=0.0)
