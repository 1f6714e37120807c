"""A disc's colour read through glare that washes its whole face (issue #3, branch vglare).

A bright highlight over a whole orange face clips its red channel while green and blue still
grow: the face looks a pale yellow, and an orange top disc was read yellow, then argued away by
the inventory because a real yellow disc of its size claimed yellow.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import recognize
from vision.varanasi_colour import ColourModel, glare_path

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
LAMPS = {"session's own": None, "orange": (0.7, 0.95, 1.15), "blue": (1.15, 0.95, 0.75)}
GLARED, ELSEWHERE = (640.0, 480.0), (300.0, 620.0)


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


def read(towers, lamp, glare_strength=110.0):
    """The towers, the first with a glare spot centred on it and the second far from it."""
    profile = calibrate(render_calibration(STANDARD, seed=100, session=0, lamp=lamp), STANDARD)
    image = render_table(towers, STANDARD, seed=3, session=0, lamp=lamp, centres_px=[GLARED, ELSEWHERE],
                         max_offset_mm=0, glare=True, glare_at=GLARED, glare_strength=glare_strength)
    return recognize(image, profile)


@pytest.mark.parametrize("lamp", ["session's own", "orange"])
def test_an_orange_top_disc_washed_by_glare_is_read_orange_beside_a_real_yellow(lamp):
    towers = [["3green", "2blue", "1orange"], ["4purple", "1yellow"]]
    assert same(read(towers, LAMPS[lamp]).stacks(), towers)


@pytest.mark.parametrize("lamp", list(LAMPS))
def test_a_yellow_top_disc_under_the_same_glare_stays_yellow_beside_a_real_orange(lamp):
    towers = [["3green", "2blue", "1yellow"], ["4purple", "1orange"]]
    assert same(read(towers, LAMPS[lamp]).stacks(), towers)


def test_greys_have_no_glare_path_and_glare_never_makes_a_colour_less_likely():
    # Grey faces (black, white) wash out to grey and white under glare: nothing tells their
    # glare from their lighting, which the lamp's grey axis already allows for.
    assert len(glare_path(np.array([235.0, 128.0, 128.0]))) == 0
    assert len(glare_path(np.array([30.0, 128.0, 128.0]))) == 0
    profile = calibrate(render_calibration(STANDARD, seed=100, session=0), STANDARD)
    colours = {c: profile["colours"][c] for c in STANDARD["colours"]}
    lit = ColourModel.from_profile(colours, tinted_greys=True)
    glare = ColourModel.from_profile(colours, tinted_greys=True, glare=True)
    samples = np.random.default_rng(0).uniform(0, 255, (200, 3))
    assert np.all(glare.log_likelihoods(samples) >= lit.log_likelihoods(samples))
