"""Varanasi recognition: a colour-chain disc resting on another must show its rim (branch vunseen2).

The colour chain takes the footprint on a disc's face (what is neither board nor that disc's
colour) and fits the nearest size to its inscribed circle. A glare spot on a lone 3orange is
labelled yellow, and its round footprint fitted a 1 (radius 22 px against 22.0 expected). The
1's rim shows on a third of its directions there (edge presence 0.04), but the footprint's size
alone gave it presence 0.99: the tower read "3orange, 1yellow" with confidence 0.985. On the board
a disc's rim can hardly show (a white disc on a cream board), so there the footprint's size still
carries a disc; on another disc's face a real disc draws a colour step all round, and one whose
rim does not show is left to the edge tests. The frame comes from the project's own renderer
(device/synthetic_varanasi.py) as the synthetic bench draws its layouts 4-11 (never looked at
while the code before was written): session 2, plain lamp, tilt -10, layout 7.
"""
from __future__ import annotations

import json
from pathlib import Path

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import recognize

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
TOWERS = [["2yellow"], ["3red", "1blue"], ["1orange"], ["3yellow"], ["1purple"], ["4orange", "2blue", "1green"],
          ["3orange"], ["4blue", "3purple"]]


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


def test_glare_on_a_face_is_not_a_disc_on_it():
    profile = calibrate(render_calibration(STANDARD, seed=102, session=2, tilt_deg=-10), STANDARD)
    image = render_table(TOWERS, STANDARD, seed=1007, session=2, tilt_deg=-10, glare=True)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert ["3orange"] in stacks
    assert same(stacks, TOWERS)
