"""Varanasi recognition: a colour-chain disc whose rim shows is also looked for where the rims
point (branch vunseen2).

The colour chain fits the biggest circle into a disc's footprint (what is neither board nor the
colour below) and takes the nearest size, searched half a size step around that circle. A glare
spot beside a 4blue (4blue, 3yellow, 2green) washes the blue out of its label on that side and
joins the footprint, whose circle then lies 12 px towards the glare. The 4's rim still shows
there in part (0.56 of it, enough to stand), but the ring read just inside that circle lies on
the 3yellow on the far side: the tower read "4yellow, 3yellow, 2green" with confidence 0.90, or
"4yellow, 3green, 2green". The size is now also looked for around the chain's reference (the
tower's centre-vote peak), where the 4's whole rim shows, and the better fit is kept. Frames come
from the project's own renderer (device/synthetic_varanasi.py) as the synthetic bench draws its
layouts 4-11 (never looked at while the code before was written): session 2, tilt 10, layout 5.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import recognize

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
TOWERS = [["2orange"], ["3orange", "1orange"], ["1purple"], ["4blue", "3yellow", "2green"], ["1blue"], ["3blue"],
          ["4red"]]


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


@pytest.mark.parametrize("lamp", [(1.15, 0.95, 0.75), (0.7, 0.95, 1.15)], ids=["blue lamp", "orange lamp"])
def test_glare_beside_the_bottom_disc_does_not_move_its_ring_onto_the_disc_above(lamp):
    profile = calibrate(render_calibration(STANDARD, seed=102, session=2, tilt_deg=10, lamp=lamp), STANDARD)
    image = render_table(TOWERS, STANDARD, seed=1005, session=2, tilt_deg=10, lamp=lamp, glare=True)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert ["4blue", "3yellow", "2green"] in stacks
    assert same(stacks, TOWERS)
