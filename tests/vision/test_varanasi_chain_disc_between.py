"""Varanasi recognition: the colour chain does not skip a disc whose face shows as a crescent
between the disc below and the one on it (branch vbottom).

Above the bottom disc the chain's footprint is what is neither board nor the colour of the disc
below, and the size nearest its inscribed circle is the next disc. A 3blue far off-centre on a
4purple, under a 2yellow, leaves a blue crescent round the yellow face; the footprint's circle then
comes out nearer a 2's size than a 3's, the chain takes the 2yellow, and the edge tests find too
faint a rim where blue meets purple to read the 3blue: the tower was read 4purple, 2yellow or
4blue, 2yellow. A colour just inside the footprint's circle other than the one just inside the
disc fitted in it now makes the chain take the bigger size where its rim shows and its ring holds
that colour. Frames come from the project's own renderer (device/synthetic_varanasi.py), drawn as
the synthetic bench draws session 1 under the plain lamp (`--layouts 60-67` and `76-83`).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import render_calibration, render_table
from vision.varanasi import recognize

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())

# (tilt, layout, the towers in the bench's order, the tower whose middle disc was skipped)
FRAMES = [
    (-10, 64, [["3orange", "2purple", "1orange"], ["4purple", "2blue", "1red"], ["1blue"], ["4red", "3yellow"],
               ["4blue", "1yellow"], ["3blue", "2yellow"], ["4green", "3green"], ["3red"]],
     ["4purple", "2blue", "1red"]),
    (-10, 67, [["1yellow"], ["4purple", "3blue", "2yellow"], ["2red"], ["3yellow", "1purple"], ["1orange"],
               ["4blue", "2green"], ["4yellow", "3green"], ["4green", "1red"], ["4orange", "3orange"]],
     ["4purple", "3blue", "2yellow"]),
    (0, 83, [["3green", "2green", "1red"], ["3yellow", "1purple"], ["1yellow"], ["2purple", "1green"], ["1blue"],
             ["4purple", "3blue", "2yellow"], ["3red"]],
     ["4purple", "3blue", "2yellow"]),
]


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


@pytest.mark.parametrize("tilt, layout, towers, crescent", FRAMES, ids=[f"tilt{t}-layout{l}" for t, l, *_ in FRAMES])
def test_a_disc_showing_as_a_crescent_between_two_others_is_read(tilt, layout, towers, crescent):
    profile = calibrate(render_calibration(STANDARD, seed=101, session=1, tilt_deg=tilt), STANDARD)
    image = render_table(towers, STANDARD, seed=1000 + layout, session=1, tilt_deg=tilt, glare=bool(layout % 2))
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert crescent in stacks
    assert same(stacks, towers)
