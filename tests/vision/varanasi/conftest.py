"""Shared fixtures of the Varanasi vision tests: the standard piece set and calibrated profiles.

Calibrating a synthetic photo costs most of a render-based test, so each calibration (named by
the `render_calibration` arguments that make it) is made once per test run and shared.
"""
from __future__ import annotations

import json

import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration
from tests.vision.varanasi.frames import STANDARD


@pytest.fixture(scope="session")
def standard() -> dict:
    """The standard piece set (calibration/pieces/nestor-standard.json); do not change it."""
    return STANDARD


@pytest.fixture(scope="session")
def calibrated():
    """calibrated(pieceset=STANDARD, **render_calibration arguments) -> the profile calibrated on
    that render, made once per run. Tests must not change the profile they get."""
    made: dict[str, dict] = {}

    def profile_of(pieceset: dict = STANDARD, **render_arguments) -> dict:
        render_arguments = {"session": 0, "tilt_deg": 0.0, "lamp": None, **render_arguments}
        render_arguments["tilt_deg"] = float(render_arguments["tilt_deg"])
        key = json.dumps([pieceset, sorted(render_arguments.items())], sort_keys=True)
        if key not in made:
            made[key] = calibrate(render_calibration(pieceset, **render_arguments), pieceset)
        return made[key]

    return profile_of


@pytest.fixture(scope="session")
def profile(calibrated) -> dict:
    """The standard set calibrated on `render_calibration(seed=11)`: plain lamp, straight camera."""
    return calibrated(seed=11)

