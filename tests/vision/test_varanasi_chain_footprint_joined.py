"""Varanasi recognition: a lone disc whose footprint takes in what lies beside it (branch vunseen4).

The colour chain sizes a tower's bottom disc by the biggest circle inscribed in its footprint (what
is not board near its vote peak), and a bottom disc whose rim does not show is still carried by
its footprint's size (a white disc on a cream board). Beside a lone 1 on a glare layout the
footprint also takes in glare on the board, the drawn line the disc lies on or its shadow: its
inscribed circle then fits a 2, whose rim shows in part (0.35-0.60), and the 2 was taken, up to
10 px off the 1 (read 2blue, or a 2 with the real 1 found on it). What joins a bottom disc's
footprint on the board only ever makes it bigger, so where the rim of the size fitted shows in
part, the next size down is looked for too, and taken where its rim shows more and makes a disc
present. Frames come from the project's own renderer (device/synthetic_varanasi.py), drawn as the
synthetic bench draws layouts 31 and 35.
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
ORANGE_LAMP = (0.7, 0.95, 1.15)
# Session 2, tilt 10, layout 31 (glare): the lone 1blue lies on a drawn line, glare beyond it.
LAYOUT_31 = [["1orange"], ["1blue"], ["3green"], ["3blue"], ["1yellow"], ["3yellow", "1purple"], ["4green"]]
# Session 0, tilt 0, layout 35 (glare): glare on the board beside the lone 1orange.
LAYOUT_35 = [["1orange"], ["2blue"], ["3blue", "2red", "1blue"], ["2orange", "1yellow"], ["3red"],
             ["3purple", "2purple"], ["4yellow"]]


@pytest.mark.parametrize("session, lamp, tilt, seed, towers, lone", [
    (2, None, 10, 1031, LAYOUT_31, ["1blue"]),
    (2, ORANGE_LAMP, 10, 1031, LAYOUT_31, ["1blue"]),
    (0, None, 0, 1035, LAYOUT_35, ["1orange"]),
    # The lone 1yellow against a drawn line at the board's edge, its shadow beside it: a 2 circle
    # there showed 0.60 of a rim, enough to be taken without looking at the 1.
    (2, BLUE_LAMP, 10, 1031, LAYOUT_31, ["1yellow"]),
], ids=["session 2, plain lamp, tilt 10, layout 31", "session 2, orange lamp, tilt 10, layout 31",
        "session 0, plain lamp, tilt 0, layout 35", "session 2, blue lamp, tilt 10, layout 31"])
def test_a_lone_disc_is_not_sized_by_what_joins_its_footprint(session, lamp, tilt, seed, towers, lone):
    profile = calibrate(render_calibration(STANDARD, seed=100 + session, session=session, tilt_deg=tilt, lamp=lamp),
                        STANDARD)
    image = render_table(towers, STANDARD, seed=seed, session=session, tilt_deg=tilt, lamp=lamp, glare=True)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert lone in stacks
    assert sorted(map(tuple, stacks)) == sorted(map(tuple, towers))
