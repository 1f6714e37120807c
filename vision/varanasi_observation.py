"""What Varanasi recognition returns: towers of disc readings, and how well a state explains them."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from engines.errors import ArbiterError
from vision.varanasi_assignment import matched_gain
from vision.varanasi_params import MISSING_DISC_LOG, PROBABILITY_FLOOR, SHIFTED_TOWER_LOG


@dataclass(frozen=True)
class DiscReading:
    """One size slot of a tower: is a disc of this size there, where, and which colour."""

    size: int
    centre: tuple[float, float]
    radius: float
    presence: float
    colours: tuple[tuple[str, float], ...]  # (name, probability), most likely first
    colour: str

    def colour_probability(self, name: str) -> float:
        return max(PROBABILITY_FLOOR, dict(self.colours).get(name, 0.0))


@dataclass(frozen=True)
class TowerReading:
    """Every size slot from the bottom disc's size down, present or not, bottom first."""

    slots: tuple[DiscReading, ...]
    # The judge asks about the same few stacks for every candidate position it weighs.
    _scores: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def discs(self) -> tuple[DiscReading, ...]:
        return tuple(slot for slot in self.slots if slot.presence >= 0.5)

    def log_likelihood(self, codes: dict[int, str]) -> float:
        """log P(this tower reading | the tower is exactly `codes`: size -> colour).

        Plain floats and `math`: this runs hundreds of thousands of times for one verdict, where
        NumPy's calls on single numbers cost more than the arithmetic."""
        return self.keyed_log_likelihood(tuple(sorted(codes.items())), codes)

    def keyed_log_likelihood(self, key: tuple, codes: dict[int, str]) -> float:
        """`log_likelihood(codes)`, `key` being its sorted items (made once per candidate stack)."""
        score = self._scores.get(key)
        if score is None:
            score = self._scores[key] = self._log_likelihood(codes)
        return score

    def _log_likelihood(self, codes: dict[int, str]) -> float:
        logs, sizes = self._slot_logs
        total = 0.0
        for size, present, absent, colour_logs in logs:
            if size in codes:
                total += present + colour_logs[codes[size]]
            else:
                total += absent
        bigger = [size for size in codes if size not in sizes]
        return total + MISSING_DISC_LOG * len(bigger)

    @cached_property
    def _slot_logs(self) -> tuple[list, set]:
        """Per slot: its size, log presence, log absence and the log of a colour's probability
        (each as `_log_likelihood` adds them); and the sizes of the slots."""
        logs = []
        for slot in self.slots:
            presence = min(max(float(slot.presence), PROBABILITY_FLOOR), 1 - PROBABILITY_FLOOR)
            logs.append((slot.size, math.log(presence), math.log(1 - presence), _ColourLogs(slot)))
        return logs, {slot.size for slot in self.slots}


class _ColourLogs(dict):
    """log P(colour) of one slot, worked out on first asking."""

    def __init__(self, slot: DiscReading):
        super().__init__()
        self.slot = slot

    def __missing__(self, name: str) -> float:
        value = self[name] = math.log(self.slot.colour_probability(name))
        return value


@dataclass(frozen=True)
class VaranasiObservation:
    towers: tuple[TowerReading, ...]
    scene_confidence: float
    note: str | None = None
    # Where the picture before this one showed each tower: its bottom disc (size, colour) -> the
    # tower's centre and that disc's radius (`weighed_after`).
    anchors: dict = field(default_factory=dict, compare=False, repr=False)
    # Per observation: what every candidate shares (the towers seen, what each costs left
    # unexplained), and the score of each candidate already weighed.
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def _towers_seen(self) -> list[TowerReading]:
        """The towers with a disc, left to right (as the reading lists its stacks)."""
        return sorted((t for t in self.towers if t.discs), key=lambda t: t.discs[0].centre[0])

    def stacks(self) -> list[list[str]]:
        return [[f"{d.size}{d.colour}" for d in t.discs] for t in self._towers_seen]

    def tower_confidence(self, tower: TowerReading) -> float:
        confidence = 1.0
        for slot in tower.slots:
            if slot.presence >= 0.5:
                confidence *= slot.presence * slot.colour_probability(slot.colour)
            else:
                confidence *= 1.0 - slot.presence
        return confidence

    @property
    def confidence(self) -> float:
        towers = [self.tower_confidence(t) for t in self.towers if t.discs]
        return float(self.scene_confidence * (min(towers) if towers else 1.0))

    def to_json(self) -> dict:
        evidence = {
            "towers": [
                {
                    "confidence": round(self.tower_confidence(t), 4),
                    "discs": [
                        {
                            "code": f"{d.size}{d.colour}",
                            "confidence": round(d.presence * d.colour_probability(d.colour), 4),
                            "presence": round(d.presence, 4),
                            "centre": [round(d.centre[0], 1), round(d.centre[1], 1)],
                            "radius": round(d.radius, 1),
                            "alternatives": {
                                f"{d.size}{name}": round(p, 4) for name, p in d.colours[:3] if p >= 0.01
                            },
                        }
                        for d in t.discs
                    ],
                }
                for t in self._towers_seen
            ],
            "scene_confidence": round(self.scene_confidence, 4),
        }
        if self.note:
            evidence["note"] = self.note
        return {
            "state": {"game": "varanasi", "stacks": self.stacks()},
            "confidence": round(self.confidence, 4),
            "evidence": evidence,
        }

    def weighed_after(self, previous) -> VaranasiObservation:
        """This picture as taken after `previous`, the last picture of a legal position: a
        candidate that puts a tower's bottom disc more than its radius from where `previous`
        showed it costs SHIFTED_TOWER_LOG. Towers stay where they were set up, so a relocation
        that reads almost as well as a partial take (a tower under the moved part barely seen)
        is told from it by where the towers stand."""
        if not isinstance(previous, VaranasiObservation):
            return self
        anchors = {(t.discs[0].size, t.discs[0].colour): (t.discs[0].centre, t.discs[0].radius)
                   for t in previous.towers if t.discs}
        return replace(self, anchors=anchors, _memo={})

    def best_log_likelihood(self, following: dict | None = None) -> float:
        """The log-likelihood of the reading itself. `following` is not used: discs leave the
        table as the game goes on, so no count carries over from one position to the next."""
        return self.log_likelihood(self.best_reading())

    def best_reading(self, following: dict | None = None) -> dict:
        """The reading itself (`to_json()["state"]`, without the evidence): no count carries over
        from one position to the next."""
        return {"game": "varanasi", "stacks": self.stacks()}

    def other_readings(self, margin: float, limit: int) -> list[dict]:
        """Other positions the picture nearly supports (at most `margin` nats below its reading),
        the likeliest first, at most `limit`: a tower with one disc more or fewer, a size slot
        read the other way. From above, a disc resting on one of its own colour shows only as a
        thin edge, so whether it is there is what one picture is least sure of."""
        stacks = self.stacks()
        read = self.log_likelihood({"game": "varanasi", "stacks": stacks})
        found = []
        for index, tower in enumerate(self._towers_seen):
            for flipped in tower.slots:
                kept = [slot for slot in tower.slots if (slot.presence >= 0.5) != (slot is flipped)]
                codes = [f"{slot.size}{slot.colour}" for slot in kept]
                if flipped.presence < 0.5 and any(f"{flipped.size}{flipped.colour}" in s for s in stacks):
                    continue  # that disc is already elsewhere on the table
                other = {"game": "varanasi", "stacks": [*stacks[:index], *([codes] if codes else []), *stacks[index + 1:]]}
                score = self.log_likelihood(other)
                if score >= read - margin:
                    found.append((score, other))
        found.sort(key=lambda pair: -pair[0])
        return [other for _, other in found[:limit]]

    def log_likelihood(self, state_json) -> float:
        """How well a candidate state explains the frame; graded, never -inf.

        Candidate stacks are matched to the towers seen (in any order) by the Hungarian method;
        a tower seen but absent from the candidate, or a candidate stack not seen, costs what its
        discs' presence says.
        """
        stacks, known = _candidate_stacks(state_json, self._memo.setdefault("stacks", {}))
        scores = self._memo.setdefault("scores", {})
        total = scores.get(known)
        if total is None:
            total = scores[known] = self._log_likelihood(stacks, known)
        return total

    def _log_likelihood(self, stacks: list[dict[int, str]], keys: tuple) -> float:
        if "seen" not in self._memo:
            seen = [t for t in self.towers if t.discs]
            empty = np.array([t.log_likelihood({}) for t in seen])
            self._memo["seen"] = (seen, empty.tolist(), empty.sum())
        seen, empty, empty_sum = self._memo["seen"]
        missing = np.array([MISSING_DISC_LOG * len(stack) for stack in stacks])
        total = float(empty_sum + missing.sum())
        if seen and stacks:
            # Each stack's gains over the towers seen depend on that stack alone: worked out once
            # per observation, as Python floats subtracted in the order NumPy would (the same bits,
            # without a NumPy call per number); the assignment on them is one compiled call.
            columns = self._memo.setdefault("columns", {})
            gains = []
            for key, stack in zip(keys, stacks):
                column = columns.get(key)
                if column is None:
                    missing_here = float(MISSING_DISC_LOG * len(stack))
                    column = columns[key] = [
                        t.keyed_log_likelihood(key, stack) - empty[i] - missing_here + shift
                        for i, (t, shift) in enumerate(zip(seen, self._shifts(stack, seen)))]
                gains.append(column)
            total += matched_gain(gains, len(seen))
        return total


    def _shifts(self, stack: dict[int, str], seen: list[TowerReading]) -> list[float]:
        """The cost of the candidate `stack` standing where each tower `seen` is, for where the
        last picture showed its bottom disc (`weighed_after`)."""
        anchor = self.anchors.get((bottom := max(stack), stack[bottom])) if self.anchors and stack else None
        if anchor is None:
            return [0.0] * len(seen)
        (x, y), radius = anchor
        return [SHIFTED_TOWER_LOG if math.hypot(t.discs[0].centre[0] - x, t.discs[0].centre[1] - y) > radius else 0.0
                for t in seen]


def _candidate_stacks(state_json, parsed: dict) -> tuple[list[dict[int, str]], tuple]:
    """The candidate's stacks as size -> colour, and each one's sorted items (its key); `parsed`
    keeps every stack met before (a judge's candidates share most of their stacks)."""
    if not isinstance(state_json, dict) or state_json.get("game") != "varanasi":
        raise ArbiterError('a Varanasi state is an object with "game": "varanasi" and "stacks"')
    stacks = state_json.get("stacks")
    if not isinstance(stacks, list):
        raise ArbiterError('a Varanasi state needs "stacks": a list of towers')
    found = []
    for stack in stacks:
        if not isinstance(stack, list):
            raise ArbiterError("each Varanasi stack is a list of disc codes such as \"4red\"")
        codes = tuple(stack)
        try:
            known = parsed.get(codes)
        except TypeError:  # something unhashable in it, which is no disc code
            known = _parsed_stack(codes)
        if known is None:
            known = parsed[codes] = _parsed_stack(codes)
        found.append(known)
    return [codes for codes, _ in found], tuple(key for _, key in found)


def _parsed_stack(stack: tuple) -> tuple[dict[int, str], tuple]:
    codes = {}
    for code in stack:
        if not isinstance(code, str) or len(code) < 2 or not code[0].isdigit():
            raise ArbiterError(f"not a disc code: {code!r} (size digit then colour, e.g. \"2blue\")")
        codes[int(code[0])] = code[1:]
    return codes, tuple(sorted(codes.items()))
