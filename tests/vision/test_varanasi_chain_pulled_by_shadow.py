"""Varanasi recognition: a colour-chain disc whose footprint its own shadow widens is fitted where
the rims point (branch vunseen1).

The colour chain fits the biggest circle into a disc's footprint (what is not board) and looks for
the nearest size's rim within half a size step of it. A tower's shadow on the board, labelled a
disc colour or "other", joins that footprint and pulls the circle towards it. Pulled about a size
step, the circle of the bottom disc's size shows its whole rim there too: its near arc on the
shadow's edge, its far arc on the rim of the disc above. The ring just inside it is then mostly
the colour above (and shadow), and the bottom disc took that colour: on three synthetic frames of
layouts the bench never showed, a 4yellow under a 3green read green (the 3green then lost, or read
yellow; a real 4green elsewhere argued away), and a 3green under a 2blue read blue. When the
footprint's circle lies more than that half step from the chain's reference (the tower's vote
peak), the size is looked for around the reference too and the better rim kept: the sharper one,
the disc's own, where both show whole. Frames come from the project's own renderer
(device/synthetic_varanasi.py), drawn as the synthetic bench draws its session 1, layout 6.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import recognize

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
BLUE_LAMP = (1.15, 0.95, 0.75)
TILTED_AWAY = [["4orange", "1purple"], ["2blue"], ["4yellow", "3green", "1orange"], ["1yellow"], ["4green", "2yellow", "1green"],
               ["4purple", "3purple"], ["4blue", "1blue"]]
TILTED_TOWARDS = [["3orange"], ["2orange", "1green"], ["1orange"], ["3green", "2blue", "1red"], ["1blue"], ["4purple", "3blue", "1purple"],
                  ["3red", "2red"], ["3purple", "2purple"], ["4red"]]


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


@pytest.mark.parametrize("lamp, tilt, towers, pulled", [
    (None, -10, TILTED_AWAY, ["4yellow", "3green", "1orange"]),
    (BLUE_LAMP, -10, TILTED_AWAY, ["4yellow", "3green", "1orange"]),
    (BLUE_LAMP, 10, TILTED_TOWARDS, ["3green", "2blue", "1red"]),
], ids=["plain lamp, tilt -10", "blue lamp, tilt -10", "blue lamp, tilt 10"])
def test_a_bottom_disc_is_not_fitted_towards_its_shadow(lamp, tilt, towers, pulled):
    profile = calibrate(render_calibration(STANDARD, seed=101, session=1, tilt_deg=tilt, lamp=lamp), STANDARD)
    image = render_table(towers, STANDARD, seed=1006, session=1, tilt_deg=tilt, lamp=lamp)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert pulled in stacks
    assert same(stacks, towers)
