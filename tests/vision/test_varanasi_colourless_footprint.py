"""Varanasi recognition: a footprint that shows no colour is not a disc found by colour (branch vghost2).

The colour chain takes, inside each disc, what is neither the board nor that disc's colour as the
footprint of the discs above it. A patch of glare or shade on a lone disc is such a footprint; its
ring holds no colour label at all, so colour did not find a disc there, and the edge tests judge
that size by its rim like any other. Frames come from the project's own renderer
(device/synthetic_varanasi.py), with a layout and session of the synthetic bench.
"""
from __future__ import annotations

import json
from pathlib import Path

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import recognize

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


def test_no_ghost_disc_on_a_lone_disc_from_a_colourless_patch_on_its_face():
    # Orange lamp, straight camera, glare: before, a "1yellow" was read on the lone 4yellow
    # (the chain's footprint inside it held no colour label; its colour came from the 4's face).
    lamp = (0.7, 0.95, 1.15)
    towers = [["3orange", "2blue"], ["2green"], ["4blue", "3green", "1purple"], ["3yellow", "2yellow", "1red"],
              ["4purple", "2orange"], ["4orange", "3blue"], ["4yellow"]]
    profile = calibrate(render_calibration(STANDARD, seed=100, session=0, tilt_deg=0, lamp=lamp), STANDARD)
    image = render_table(towers, STANDARD, seed=1001, session=0, tilt_deg=0, lamp=lamp, glare=True)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert ["4yellow"] in stacks
    assert same(stacks, towers)
