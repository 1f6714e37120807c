"""Varanasi recognition: a colour-chain disc of a board-like colour keeps its footprint's size
when its rim hardly shows (the exemption of branch vunseen2's rule, branch vchain).

Above the bottom disc the colour chain lets a disc stand on its footprint's size only when its rim
shows (edge presence at least 0.5): a disc on another of another colour draws a colour step all
round, while glare or shade on the face below does not. Not a disc whose colour the board's model
takes for board (white on a cream board): where it overhangs the disc below, its rim fades into
the board (on the turned bench a 2white on a 4blue showed 0.29 of its rim, edge presence 0.52).
No rendered frame puts such a disc under the bar (the renderer draws every disc with a dark side
band), so the frame's edges along most of the 2white's rim are taken away here: its rim then shows
on 0.38 of its directions (edge presence 0.11), while its footprint still fits a 2. Without the
exemption the 2 is left to the edge tests, which read the tower as "4blue, 3white".
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import vision.varanasi as varanasi
from calibration.varanasi import calibrate
from device.synthetic_varanasi import layout_table, render_calibration, render_table
from vision.varanasi_geometry import edge_field, full_resolution_threshold, reduce

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
# The standard set with the bench's white; session 3's board is cream, and its model takes that
# white for board.
WITH_WHITE = {**STANDARD, "colours": {**STANDARD["colours"], "white": {"srgb": [235, 235, 228]}}}
TOWER = ["4blue", "2white"]
CENTRE = (640.0, 480.0)
OFFSETS = [[(1.0, 0.5)]]
# The share of the 2white's directions (counted from the +x axis) whose edges are left.
RIM_LEFT = 0.35


def _without_most_of_the_rim(edges, centre, radius: float) -> None:
    """Takes away (in place) every edge within 6 px of the circle except on its first RIM_LEFT
    of directions: wider than the half size step the chain searches around a fit."""
    yy, xx = np.mgrid[0:edges.shape[0], 0:edges.shape[1]]
    angle = np.mod(np.arctan2(yy - centre[1], xx - centre[0]), 2 * np.pi)
    band = (np.abs(np.hypot(xx - centre[0], yy - centre[1]) - radius) <= 6.0) & (angle >= RIM_LEFT * 2 * np.pi)
    for plane in (edges.gx, edges.gy, edges.magnitude):
        plane[band] = 0.0


@pytest.mark.parametrize("seed", [11, 12])
def test_a_white_chain_disc_on_another_stands_on_its_footprint_where_its_rim_hardly_shows(monkeypatch, seed):
    profile = calibrate(render_calibration(WITH_WHITE, seed=3, session=3), WITH_WHITE)
    frame = varanasi.ParsedProfile.from_profile(profile)
    white = list(WITH_WHITE["colours"]).index("white")
    assert frame.board_like_colours == (white,)
    image = render_table([TOWER], WITH_WHITE, seed=seed, session=3, centres_px=[CENTRE], offsets_mm=OFFSETS)
    top = layout_table([TOWER], WITH_WHITE, seed, [CENTRE], offsets_mm=OFFSETS)[0][1]
    seed_full = np.array(CENTRE)
    chains = []
    colour_chain = varanasi.colour_chain

    def chain_with_a_faint_rim(work_labels, labels, edges, frame, seed, radii, reach, *peaks):
        # The tower's crop starts at seed_full - seed; its edges serve the chain and the edge tests.
        _without_most_of_the_rim(edges, np.asarray(top.centre) - (seed_full - seed), top.radius)
        chains.append(colour_chain(work_labels, labels, edges, frame, seed, radii, reach, *peaks))
        return chains[-1]

    monkeypatch.setattr(varanasi, "colour_chain", chain_with_a_faint_rim)
    tower = varanasi._read_tower(image, edge_field(reduce(image)).lab, frame, seed_full, full_resolution_threshold(image))
    _, presence, colour = chains[0][0][2]
    assert colour == white and presence >= 0.5
    assert [f"{disc.size}{disc.colour}" for disc in tower.discs] == TOWER
