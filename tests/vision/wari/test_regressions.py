"""Renders that once went wrong, each named by the arguments that make it (device.synthetic_wari's
render_board: seed style, session, photo seed), and what they must keep doing."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.wari import calibrate
from calibration.wari_colours import learn_colours
from calibration.wari_grid import standout_mask
from device.synthetic_wari import render_board
from engines.errors import ArbiterError
from tests.vision.wari.boards import ORDER_PROBE, START, start_profile
from vision.wari import WariProfile, recognize
from vision.wari_board import PIT_COUNT, BoardGeometry
from vision.wari_seeds import local_contrast, working_frame

RED = (50, 60, 190)  # BGR: red beads, on the glass tables' red wood
DARK_RED = (40, 70, 170)


@pytest.mark.parametrize("style, session", [("nicker", 7), ("glass", 0), ("glass", 9)])
def test_a_start_photo_with_one_seed_in_a_corner_pit_is_refused_in_one_line(style, session):
    # These photos' clusters once formed a grid with pits off the board (a traceback from the
    # masks of regions outside the frame) or wherever the heaviest clusters lay.
    with pytest.raises(ArbiterError, match="start position") as error:
        calibrate(render_board([1] + [4] * 11, [0, 0], seed=0, style=style, session=session))
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("colour, session", [(RED, 3), (DARK_RED, 1)], ids=["red", "dark-red"])
def test_seeds_coloured_almost_like_the_wood_in_one_pit_still_calibrate(colour, session):
    # The most vivid beads set the contrast seeds must reach; red beads on red wood stand out
    # about half as much, and their pit once never formed the grid. Seeds are painted region by
    # region: the 9th to 12th of the start photo are South's pit c's.
    def photo(pits):
        return render_board(pits, [0, 0], seed=0, style="glass", session=session, recolour=dict.fromkeys(range(8, 12), colour))

    start = photo(START)
    profile = calibrate(start)
    assert recognize(start, profile).pits == START
    assert recognize(photo(ORDER_PROBE), profile).pits == ORDER_PROBE


@pytest.mark.parametrize("every, session", [(4, 0), (5, 6)])
def test_beads_coloured_almost_like_the_wood_in_most_pits_still_calibrate(every, session):
    # Every 4th (5th) bead dark red on red wood: the pits form the grid on the vivid beads and the
    # dark red ones fall out of the seeds ("3 seeds in most pits"); at a lower contrast share the
    # profile reads the start photo right.
    dark = dict.fromkeys(range(0, 48, every), DARK_RED)
    start = render_board(START, [0, 0], seed=0, style="glass", session=session, recolour=dark)
    assert recognize(start, calibrate(start)).pits == START


@pytest.mark.parametrize("session", [2, 9])
def test_touching_beads_glints_are_learned_with_a_window_that_keeps_them_apart(session):
    # In these glass start photos a window of one seed diameter (from the seeds' area) merges the
    # glints of touching beads in two or more pits; with only the shape cue kept, piles read low.
    windows = {spotter["cue"]: spotter["kernel_px"] for spotter in start_profile("glass", session)["spotters"]}
    assert windows["glint"] < windows["shape"]  # the shape cue's window is the seed diameter


def test_a_glare_streak_heavier_than_a_pits_seeds_does_not_hide_the_board():
    session = 0
    # A pale streak along North's store wall of the nicker start photo stands out more than any
    # pit's 4 seeds: the 12 heaviest clusters are then not the 12 pits.
    start = render_board(START, [0, 0], seed=0, session=session)
    plain = BoardGeometry.from_json(start_profile("nicker", session)["board"])
    store = plain.outline_in_image(13)
    centre, half = store.mean(axis=0), (store.max(axis=0) - store.min(axis=0)) / 2
    streaked = start.copy()
    axes = (int(0.3 * half[0]), int(0.8 * half[1]))
    cv2.ellipse(streaked, (int(centre[0] - 0.45 * half[0]), int(centre[1])), axes, 0, 0, 360, (200, 215, 210), -1)
    profile = calibrate(streaked)
    geometry = BoardGeometry.from_json(profile["board"])
    pitch = profile["summary"]["pit_pitch_px"]
    # Pits found within a tenth of a pitch of where the plain photo puts them (the streak's
    # edges pull the store next to it further; stores are not checked).
    for pit in range(12):
        assert np.linalg.norm(geometry.outline_in_image(pit).mean(axis=0) - plain.outline_in_image(pit).mean(axis=0)) < 0.1 * pitch
    assert recognize(render_board(ORDER_PROBE, [0, 0], seed=6, session=session), profile).pits == ORDER_PROBE


def _pit_circles(profile: dict) -> tuple[np.ndarray, np.ndarray]:
    """The pits' centres and mean radii in the photo."""
    geometry = BoardGeometry.from_json(profile["board"])
    outlines = np.array([geometry.outline_in_image(pit) for pit in range(PIT_COUNT)])
    centres = outlines.mean(axis=1)
    return centres, np.linalg.norm(outlines - centres[:, None], axis=2).mean(axis=1)


def test_a_dim_start_whose_lit_rims_outweigh_the_far_pits_seeds_is_calibrated():
    # A lamp on the right of the nicker start photo: the left pits' seeds hardly stand out, the
    # right pits' rims do, with their seeds, and no 12 alike clusters form the grid (as in nicker
    # 1205 through the tilted camera).
    start = render_board(START, [0, 0], seed=0, session=0)
    centres, radii = _pit_circles(start_profile("nicker", 0))
    photo = start.astype(np.float32)
    for pit in range(2, 10):  # the middle and right columns of both rows
        (x, y), radius = centres[pit], radii[pit]
        wood = photo[int(y - 1.15 * radius), int(x)]
        cv2.circle(photo, (int(x), int(y)), int(0.93 * radius), (wood * 1.6).tolist(), int(0.25 * radius))
    photo *= np.linspace(0.6, 1.0, photo.shape[1])[None, :, None]
    profile = calibrate(np.clip(photo, 0, 255).astype(np.uint8))
    assert np.abs(_pit_circles(profile)[0] - centres).max() < 3


def _deepen_bowls(image: np.ndarray, geometry: BoardGeometry) -> np.ndarray:
    """The photo with every pit a deep bowl under a lamp at the top left: the far wall in deep
    shade (down to a fifth of the light), the shade tinted towards the room's bluish light."""
    shaded = image.astype(np.float32)
    tint = np.array([1.15, 1.0, 0.85], np.float32)  # BGR
    for region in range(PIT_COUNT):
        outline = geometry.outline_in_image(region)
        centre = outline.mean(axis=0)
        radius = np.linalg.norm(outline - centre, axis=1).mean()
        # Only the pixels around the pit change: work in its box.
        x0, y0 = np.maximum(np.floor(centre - radius).astype(int) - 1, 0)
        x1, y1 = np.ceil(centre + radius).astype(int) + 2
        ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        u, v = (xs - centre[0]) / radius, (ys - centre[1]) / radius
        distance = np.sqrt(u**2 + v**2)
        wall = np.clip((distance - 0.35) / 0.65, 0, 1) ** 2
        far_side = np.clip(0.5 - 0.7 * (u + v) / np.maximum(distance, 1e-3), 0, 1)
        light = (1 - 0.8 * wall * far_side)[..., None]
        inside = distance < 1
        box = shaded[y0:y1, x0:x1]
        box[inside] *= (light * (tint * (1 - light) + light))[inside]
    return np.clip(shaded, 0, 255).astype(np.uint8)


def test_a_deep_bowls_shaded_wall_is_not_learned_as_seed():
    # Grey nuts differ from wood in shade mostly by lightness, as the wood does from itself: the
    # start photo's contrasted pixels take in the shaded walls, which must still count as wood.
    plain = start_profile("nicker", 0)
    geometry = BoardGeometry.from_json(plain["board"])
    profile = calibrate(_deepen_bowls(render_board(START, [0, 0], seed=0, style="nicker", session=0), geometry))
    pits = [0, 1, 0, 2, 0, 3, 1, 0, 2, 0, 1, 0]
    observation = recognize(_deepen_bowls(render_board(pits, [20, 18], seed=1, style="nicker", session=0), geometry), profile)
    assert observation.pits == pits
    assert all(observation.regions[pit][0] > 0.9 for pit in range(PIT_COUNT) if pits[pit] == 0)
    assert abs(profile["summary"]["seed_area_px"] / plain["summary"]["seed_area_px"] - 1) < 0.2


def test_glints_missing_in_two_pits_still_count_beside_shapes():
    # Two pits' beads of the glass table 4 dulled (no highlight stands out, as on a white bead):
    # glints show fewer than 4 seeds there and never more, so they still count beside the shapes.
    start = render_board(START, [0, 0], seed=0, style="glass", session=4)
    geometry = WariProfile.from_json(start_profile("glass", 4)).geometry
    dulled = start.copy()
    for pit in (2, 8):
        inside = np.zeros(start.shape[:2], np.uint8)
        cv2.fillPoly(inside, [np.round(geometry.outline_in_image(pit)).astype(np.int32)], 1)
        hsv = cv2.cvtColor(start, cv2.COLOR_BGR2HSV)
        hsv[..., 2] = np.minimum(hsv[..., 2], np.percentile(hsv[..., 2][inside > 0], 60)).astype(np.uint8)
        dulled = np.where(inside[..., None] > 0, cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), dulled)
    assert calibrate(dulled)["summary"]["seed_spotting"] == "glint and shape"


def test_beads_the_start_photos_contrast_misses_are_learned_as_seed_not_board():
    # As in unseen glass 1225 under a warm lamp: red beads stand out from the red wood less than
    # half as much as blue ones, fall outside the seed mask, and learned as board, lone red beads
    # read as empty pits. Here the glass table 1's red beads are taken out of its mask.
    geometry = BoardGeometry.from_json(start_profile("glass", 1)["board"])
    frame = working_frame(render_board(START, [0, 0], seed=0, style="glass", session=1))
    b, g, r = (frame[..., channel].astype(int) for channel in range(3))
    red = ((r > 150) & (g < 100) & (b < 120)).astype(np.uint8)
    assert red.sum() > 100  # the start photo holds red beads
    seed_mask = standout_mask(local_contrast(frame, frame.shape[1] // 16), 0.5)
    seed_mask[cv2.dilate(red, np.ones((9, 9), np.uint8)) > 0] = 0  # the contrast misses them
    model = learn_colours(frame, geometry, seed_mask)
    assert np.median(model.probability(frame[red > 0])) > 0.5
    # The wood between the rows, beside which the mask missed nothing, is still board.
    scale = frame.shape[1] / geometry.image_size[0]
    centres = np.array([geometry.outline_in_image(pit, scale).mean(axis=0) for pit in range(PIT_COUNT)])
    between_rows = np.round((centres[:6] + centres[6:][::-1]) / 2).astype(int)
    wood = np.concatenate([frame[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3) for x, y in between_rows])
    assert np.median(model.probability(wood)) < 0.5


def test_a_red_bead_darker_than_any_in_the_start_photo_is_counted():
    # The glass table 7's lone red bead beside South's store shows shades of red its start
    # photo's beads did not, and was once read as an empty pit, surely.
    pits = [3, 4, 7, 3, 2, 1, 3, 0, 4, 6, 2, 4]
    observation = recognize(render_board(pits, [5, 4], seed=1, style="glass", session=7), start_profile("glass", 7))
    assert observation.pits[5] == 1 and observation.regions[5][1] > 0.9


@pytest.mark.parametrize(
    "pits",
    [[9, 10, 11, 9, 8, 1, 0, 0, 0, 0, 0, 0], [15, 0, 13, 0, 18, 2, 0, 0, 0, 0, 0, 0], [0, 14, 0, 0, 0, 3, 0, 16, 0, 0, 1, 0]],
)
def test_piles_in_a_bowl_that_piles_early_stay_in_their_distributions(pits):
    """The nicker table 3's bowls hold about 0.6 of the capacity the model derives from the
    floor's area (12 nuts show 9.3 seeds of area where F is 17): its nuts pile from about 8, and
    piles of 13-18 show 10-12 seeds, by area and by spots. A sure reading of the seeds that show
    would leave the truth out. Such boards can still cost the true position more than the
    tracker's margin: the limit of one photo (docs/vision-wari.md)."""
    profile = start_profile("nicker", 3)
    for seed in (1, 2, 3):
        observation = recognize(render_board(pits, [0, 0], seed=seed, style="nicker", session=3), profile)
        assert all(true in distribution for true, distribution in zip(pits, observation.regions))


def test_glass_piles_are_read_by_both_cues(glass):
    assert glass["summary"]["seed_spotting"] == "glint and shape"
    pits = [8, 9, 10, 11, 12, 13, 12, 11, 10, 9, 8, 14]
    observation = recognize(render_board(pits, [0, 0], seed=24, style="glass", session=1), glass)
    # Piles of 8-12 read within a seed, at most one of them off; 13+ within two. The network
    # reads the pile of 14 two seeds high at every quarter turn (these deep bowls are unlike the
    # renders it learned from), but the truth stays in every distribution.
    misread = [(n, read) for n, read in zip(pits, observation.pits) if read != n]
    assert all(abs(read - n) == 1 for n, read in misread if n <= 12), misread
    assert sum(n <= 12 for n, _ in misread) <= 1, misread
    assert all(abs(read - n) <= 2 for n, read in misread), misread
    assert all(n in distribution for n, distribution in zip(pits, observation.regions))
