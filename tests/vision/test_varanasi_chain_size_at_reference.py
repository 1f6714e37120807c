"""Varanasi recognition: the colour chain's size is also looked for where the rims point
(branch vghost3).

The colour chain fits the biggest circle into a disc's footprint (what is neither board nor the
colour below) and takes the nearest size. A glare spot beside a lone 3orange washes the board
out of its label and joins the footprint, whose circle then fits a 4 about 13 px beside the
3orange. Neither the 4's rim nor the 3's (searched half a size step around that circle) shows
there, and the chain took a 4 on the footprint alone: the tower read "4orange, 1green", or a
ghost "4yellow" under the 3orange. Each size is now looked for around the chain's reference too
(the tower's centre-vote peak for the bottom disc), where the 3orange's whole rim shows. Frames
come from the project's own renderer (device/synthetic_varanasi.py), as the synthetic bench
draws them: one of its layouts and one of the layouts it does not read (an unseen one).
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


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


@pytest.mark.parametrize("session, tilt, layout, glared, towers", [
    # The synthetic bench's session 1, tilt -10, layout 3: read "4orange, 1green" before.
    (1, -10, 3, ["3orange", "1green"], [["2green", "1orange"], ["3red", "2yellow"], ["2orange", "1purple"], ["3yellow", "2red"],
                 ["3orange", "1green"], ["3blue"], ["4green", "2purple", "1red"], ["3green"]]),
    # Session 0, tilt 10, layout 11 (unseen by the bench): read "4orange, 2orange, 1blue" before.
    (0, 10, 11, ["3orange", "1blue"], [["3orange", "1blue"], ["1green"], ["3green"], ["4red", "2red"], ["4blue", "2yellow", "1orange"],
                 ["4green"]]),
], ids=["bench layout", "unseen layout"])
def test_a_footprint_widened_by_glare_does_not_make_the_bottom_disc_bigger(session, tilt, layout, glared, towers):
    profile = calibrate(render_calibration(STANDARD, seed=100 + session, session=session, tilt_deg=tilt,
                                           lamp=BLUE_LAMP), STANDARD)
    image = render_table(towers, STANDARD, seed=1000 + layout, session=session, tilt_deg=tilt, lamp=BLUE_LAMP,
                         glare=True)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert glared in stacks
    assert same(stacks, towers)
