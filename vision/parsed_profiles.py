"""Calibration profiles parsed once for all the frames that come with them.

A camera's frames all come with one profile, whose parsing (colour models, board geometry)
costs a few tenths of a millisecond a frame. A recogniser keeps the last few profiles it
parsed, by identity, each with a copy of the profile as it was parsed, so that a profile
changed in place is parsed again; the profile itself is kept too, so that its id cannot be
taken by another object. A web page and a table's tracker may read frames from two threads.
"""
from __future__ import annotations

import copy
import threading
from typing import Callable, Generic, TypeVar

Parsed = TypeVar("Parsed")


class ParsedProfiles(Generic[Parsed]):
    """`parse(profile)`, kept for the last `kept` profiles parsed."""

    def __init__(self, parse: Callable[[dict], Parsed], kept: int):
        self._parse = parse
        self._kept = kept
        self._parsed: dict[int, tuple[dict, dict, Parsed]] = {}
        self._lock = threading.Lock()

    def __call__(self, profile: dict) -> Parsed:
        with self._lock:
            kept = self._parsed.get(id(profile))
            try:
                if kept is not None and kept[0] is profile and kept[1] == profile:
                    return kept[2]
            except (TypeError, ValueError):  # values that do not compare (arrays): parsed again
                pass
            parsed = self._parse(profile)
            while len(self._parsed) >= self._kept:
                self._parsed.pop(next(iter(self._parsed)))
            self._parsed[id(profile)] = (profile, copy.deepcopy(profile), parsed)
            return parsed
