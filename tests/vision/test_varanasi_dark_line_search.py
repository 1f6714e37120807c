"""The dark-line search (a disc on one of its own colour): a line a pixel wide that the 3 px grid
steps over is found by trying every pixel off the grid, and an arc of noise found that way is not
taken for one; a disc is looked for as far off the disc below as that disc's own centre is
uncertain."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from calibration.varanasi import calibrate
from device.synthetic_varanasi import layout_table, render_calibration, render_table
from vision.varanasi import recognize
from vision.varanasi_circles import best_circles, rim_scores
from vision.varanasi_geometry import DarkLine, PixelSearch, edge_field
from vision.varanasi_params import GRID_PX

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())

SIZE = 120
REFERENCE = np.array([60.0, 60.0])  # the centre of the disc below, where the search starts
RADIUS = 30.0
REACH = 9.0
NOISE = 3.0  # grey levels, about a tilted re-shoot's face noise


def _face(seed: int, line_centre=None, dip: float = 6.0) -> np.ndarray:
    """A flat grey face with pixel noise and, around `line_centre`, a thin dark arc (150 degrees
    of a circle of RADIUS, 8-connected, one pixel wide): where a disc's side and shadow show."""
    rng = np.random.default_rng(seed)
    grey = np.full((SIZE, SIZE), 150.0)
    if line_centre is not None:
        mask = np.zeros((SIZE, SIZE), np.uint8)
        scale = 16  # cv2's 4 fractional bits: the arc at sub-pixel precision
        centre = tuple(int(round(v * scale)) for v in line_centre)
        cv2.ellipse(mask, centre, (int(RADIUS * scale),) * 2, 0, 0, 150, 255, 1, cv2.LINE_8, 4)
        grey -= dip * (mask > 0)
    grey += rng.normal(0.0, NOISE, grey.shape)
    return cv2.cvtColor(np.clip(np.rint(grey), 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


def _line(edges) -> DarkLine:
    """A line 1.5 times the face's noise deep, its outer side on any label."""
    return DarkLine(1.5 * NOISE, np.zeros(edges.shape, np.uint8), np.ones(256, dtype=bool))


def _grid_coverage(edges, line: DarkLine) -> float:
    """The best coverage on the search's own grid of GRID_PX around REFERENCE."""
    steps = np.arange(-3, 4) * GRID_PX
    grid = np.array([(x, y) for x in steps for y in steps if x * x + y * y <= REACH * REACH]) + REFERENCE
    return float(rim_scores(edges, grid, RADIUS, valley=line)[0].max())


def test_a_line_the_grid_steps_over_is_found_at_its_centre():
    true_centre = REFERENCE + (1.0, -1.0)  # off the grid: a pixel from its nearest point each way
    edges = edge_field(_face(21, true_centre), 20.0)
    line = _line(edges)
    # Noise breaks the line into runs that line up from its own centre only: no grid point shows it.
    assert _grid_coverage(edges, line) == 0.0
    # A grid point sees a sixth of the rim dark before the run rule: over half a presence
    # midpoint of 0.3.
    pixels = PixelSearch(REACH, 0.15)
    ((centre, coverage),) = best_circles(edges, [(REFERENCE, RADIUS, REACH)], valley=line, pixels=pixels)
    assert tuple(centre) == tuple(true_centre)
    assert coverage > 0.3


def test_an_arc_of_noise_found_by_trying_every_pixel_is_not_a_line():
    # Without a line, trying every pixel finds one run of noise along some circle (seed 36: a
    # sixth of the rim), but from the centres a pixel around it the run falls apart.
    edges = edge_field(_face(36), 20.0)
    line = _line(edges)
    assert _grid_coverage(edges, line) == 0.0
    # Every pixel tried, whatever the grid sees.
    pixels = PixelSearch(REACH, 0.0)
    ((_, coverage),) = best_circles(edges, [(REFERENCE, RADIUS, REACH)], valley=line, pixels=pixels)
    assert coverage == 0.0


def _out_of_focus(image: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(image, (0, 0), 1.0)


def test_a_disc_on_its_own_colour_beyond_the_step_from_a_centre_fitted_off():
    # The 2green's outline is widened on one side by a darker halo 5 px wide, as a soft lens or a
    # resampled view widens its side band: its rim then shows fully from several centres, and
    # the one fitted lies 4 px toward the halo. The 1green rests on it 3.45 mm the other way (it
    # could go 3.5 mm without overhanging), 12 px from that centre: beyond the 4 mm step searched
    # around it, so it was lost (as soft S1 ill02a's 1green on its 2green on the bench).
    profile = calibrate(_out_of_focus(render_calibration(STANDARD, seed=11)), STANDARD)
    towers = [["4yellow", "3blue", "2green", "1green"], ["4red", "1red"], ["4purple"], ["2orange"]]
    centres = [(640, 480), (640, 250), (400, 650), (900, 650)]
    offsets = [[(0.0, 0.0), (0.0, 0.0), (0.0, 3.45)], [(0.0, 0.0)], [], []]
    image = render_table(towers, STANDARD, seed=71, offsets_mm=offsets, centres_px=centres)
    lower = layout_table(towers, STANDARD, 71, centres, offsets_mm=offsets)[0][2]
    yy, xx = np.mgrid[0:image.shape[0], 0:image.shape[1]]
    dx, dy = xx - lower.centre[0], yy - lower.centre[1]
    distance = np.hypot(dx, dy)
    halo = (distance > lower.radius) & (distance <= lower.radius + 5.0) & (-dy > 0.3 * distance)
    image[halo] = (np.array([70, 150, 40]) * 0.55).astype(np.uint8)  # green (BGR) in the shade of a side band
    seen = recognize(_out_of_focus(image), profile).to_json()["state"]["stacks"]
    assert sorted(map(tuple, seen)) == sorted(map(tuple, towers))
