"""Varanasi recognition: one rule for a colour-chain disc looked for around the chain's reference
too (branch vchain, unifying branches vunseen1's and vunseen2's).

The colour chain fits a size around the footprint's inscribed circle, within half a size step
(the reach). What joins a bottom disc's footprint without being a disc pulls that circle off the
vote peak; the rim shows whole on a plateau of centres a few pixels wide, and the search around the
pulled circle can stop on a point of it away from the disc's centre. Before, a bottom disc whose
rim showed whole was looked for around the vote peak only when the fit itself lay beyond the reach
of the peak; now also when the footprint's circle does, and the sharper rim wins the tie, as
`best_circle` ranks the centres it tries. Here the fits lay 1-2 px from the peak, the footprints'
circles 4.2-5.0 px (reach 4.1-4.4 px), and around the peak the same whole rim shows sharper nearer
the true centre. Frames come from the project's own renderer (device/synthetic_varanasi.py) as the
synthetic bench draws them (`--synthetic --layouts 0-11`), untilted so that the renderer's centres
are the true ones.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import layout_table, render_calibration, render_table
from vision.varanasi import recognize

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
BLUE_LAMP, ORANGE_LAMP = (1.15, 0.95, 0.75), (0.7, 0.95, 1.15)
LAYOUT_1 = [["2orange", "1red"], ["4yellow", "3yellow"], ["2purple", "1purple"], ["1yellow"], ["4green", "3red", "2red"],
            ["4red", "3purple", "1blue"], ["3green", "2green"], ["4blue"]]
LAYOUT_8 = [["1blue"], ["2orange"], ["2red", "1orange"], ["4red", "3yellow", "1red"], ["4yellow"]]


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


@pytest.mark.parametrize("session, lamp, layout, towers, disc", [
    (1, ORANGE_LAMP, 1, LAYOUT_1, "4yellow"),  # 4.2 px off before: fit 1.0 px from the peak, footprint 5.0
    (2, BLUE_LAMP, 8, LAYOUT_8, "2red"),  # 1.9 px off before: fit 2.2 px, footprint 4.2
    (2, ORANGE_LAMP, 8, LAYOUT_8, "2red"),  # 1.7 px off before: fit 2.0 px, footprint 4.2
], ids=["1 orange layout 1", "2 blue layout 8", "2 orange layout 8"])
def test_a_bottom_disc_whose_footprint_lies_off_the_vote_peak_is_centred_on_its_sharper_rim(session, lamp, layout, towers, disc):
    profile = calibrate(render_calibration(STANDARD, seed=100 + session, session=session, lamp=lamp), STANDARD)
    image = render_table(towers, STANDARD, seed=1000 + layout, session=session, lamp=lamp, glare=bool(layout % 2))
    observation = recognize(image, profile).to_json()
    assert same(observation["state"]["stacks"], towers)
    truth = {d.code: d.centre for tower in layout_table(towers, STANDARD, 1000 + layout) for d in tower}
    read = {d["code"]: d["centre"] for tower in observation["evidence"]["towers"] for d in tower["discs"]}
    # Read centres are whole pixels: within a pixel of the rounded true centre.
    assert np.hypot(*np.subtract(read[disc], truth[disc])) < 1.5
