"""Synthetic Wari boards the tests share (device.synthetic_wari; tests never read ../shared)."""
from __future__ import annotations

import json
from functools import lru_cache

from calibration.wari import calibrate
from device.synthetic_wari import render_board

START = [4] * 12
# Distinct small counts in every pit: a reading in the wrong pit order cannot match.
ORDER_PROBE = [0, 1, 2, 3, 0, 1, 2, 3, 1, 0, 3, 2]


def saved(profile: dict) -> dict:
    """The profile as the CLI saves and loads it."""
    return json.loads(json.dumps(profile))


@lru_cache(maxsize=None)
def _start_profile_text(style: str, session: int) -> str:
    return json.dumps(calibrate(render_board(START, [0, 0], seed=0, style=style, session=session)))


def start_profile(style: str = "nicker", session: int = 0) -> dict:
    """The profile calibrated from the start photo (seed 0) of a synthetic table, as saved and
    loaded: each table is calibrated once a run, and every caller gets its own copy."""
    return json.loads(_start_profile_text(style, session))
