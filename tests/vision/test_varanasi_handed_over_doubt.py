"""Varanasi recognition: a bottom disc the colour chain handed over and the edge tests refused
keeps its doubt in the tower's confidence (branch vconf).

The colour chain fits a tower's bottom disc by its footprint and, where that fit's rim shows in
part, gives way to the next size down whose rim shows more (`_fuller_rim`); the edge tests then
look for the bigger size under the disc above. On synthetic session 0 under the blue lamp, tilt 0,
layout 62, they fitted the tower's 4red on its shadow and refused it as shade, although the
chain's own 4 had shown its rim (0.979 of it) at the disc's place: the tower lost its bottom disc
and the frame was read with confidence 0.996. The reading stays the refusal's, but the size keeps
a presence below one half, so the frame's confidence says it is unsure. Frames come from the
project's own renderer (device/synthetic_varanasi.py), drawn as `--synthetic --layouts 60-67` does.
"""
from __future__ import annotations

import json
from pathlib import Path

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import recognize
from vision.varanasi_colour_chain import doubt_of_handed_over

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
BLUE_LAMP = (1.15, 0.95, 0.75)
# Session 0, tilt 0, layout 62, in the synthetic bench's order.
LAYOUT_62 = [["1purple"], ["1blue"], ["4orange", "2orange"], ["4red", "3yellow", "2purple", "1orange"], ["3blue", "1red"],
             ["4blue"], ["4purple", "3purple"], ["4green", "3orange"]]


def test_a_refused_bottom_disc_whose_chain_rim_showed_lowers_the_confidence():
    profile = calibrate(render_calibration(STANDARD, seed=100, session=0, tilt_deg=0, lamp=BLUE_LAMP), STANDARD)
    image = render_table(LAYOUT_62, STANDARD, seed=1062, session=0, tilt_deg=0, lamp=BLUE_LAMP, glare=False)
    observation = recognize(image, profile)
    tower = next(t for t in observation.towers if [f"{d.size}{d.colour}" for d in t.discs][:1] == ["3yellow"])
    # The reading is unchanged (the 4red is still lost) but the 4 keeps its doubt.
    assert [f"{d.size}{d.colour}" for d in tower.discs] == ["3yellow", "2purple", "1orange"]
    # Before, the refused 4 left no slot (presence 0): the tower paid nothing for it.
    four = next((slot.presence for slot in tower.slots if slot.size == 4), 0.0)
    assert 0.25 < four < 0.5
    assert observation.confidence < 0.8


def test_no_doubt_is_kept_where_the_edge_tests_found_the_bottom_disc():
    # The edge tests found the bigger disc (most such towers): its own presence stands.
    accepted = {4: ((80.0, 80.0), 0.99, 0), 3: ((78.0, 79.0), 0.99, 2)}
    assert doubt_of_handed_over((4, ((81.0, 80.0), 0.95)), accepted, frame=None) == {}
    assert doubt_of_handed_over(None, accepted, frame=None) == {}
    # Nor where a bigger disc was found under it: the chain's bottom fit stood for that disc, a
    # size small (tilted bench S0 seq001: a 3 handed over, the 4yellow then found by its edges).
    assert doubt_of_handed_over((3, ((81.0, 80.0), 0.58)), {4: accepted[4], 2: accepted[3]}, frame=None) == {}
