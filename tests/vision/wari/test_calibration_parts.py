"""Calibration's parts on drawn inputs: the pits' grid, the spotters' agreement, the seed and
wood colours, the pits' circles moved onto their rims."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.wari_colours import unlike_wood
from calibration.wari_grid import best_grid, blob_groupings, heavy_cluster_centres
from calibration.wari_rims import lightness_edges, pits_on_their_rims
from calibration.wari_spotters import other_count_most_shown
from vision.wari_board import PIT_COUNT, BoardGeometry
from vision.wari_params import ALIKE_PITS
from vision.wari_seeds import SeedColourModel

LIT_WOOD = (40, 95, 160)  # BGR; Lab lightness 119
GRAIN = (30, 56, 84)  # the top's dark grain: lightness 67
SHADED_WOOD = (10, 50, 100)  # the bowls' walls, lightness 68, lit by light off the wood: more saturated
RED_BEAD = (60, 60, 190)  # lightness 115, redder than the wood


def test_pits_whose_seeds_touch_in_one_blob_are_found_beside_specks_of_the_board_edge():
    mask = np.zeros((240, 640), np.uint8)
    pits = [(170 + 60 * column, 90 + 70 * row) for row in (0, 1) for column in range(6)]
    for x, y in pits:
        cv2.circle(mask, (x, y), 14, 1, -1)
    for x, y in ((10, 10), (630, 12), (15, 225)):  # far from the pits and from each other
        mask[y : y + 3, x : x + 3] = 1
    centres = best_grid(*blob_groupings(mask), ALIKE_PITS)
    assert centres is not None
    found = sorted(map(tuple, np.round(centres).astype(int)))
    assert found == sorted(pits)


def test_a_glare_heavier_than_a_pit_is_spared_when_the_true_pits_fit_the_grid_far_better():
    mask = np.zeros((240, 640), np.uint8)
    pits = [(170 + 60 * column, 90 + 70 * row) for row in (0, 1) for column in range(6)]
    for pit, (x, y) in enumerate(pits):
        cv2.circle(mask, (x, y), 9 if pit == 0 else 14, 1, -1)  # South a's seeds show least
    cv2.circle(mask, (135, 160), 11, 1, -1)  # glare on the board beyond South a, heavier than it
    groupings, areas, points = blob_groupings(mask)
    # Taken for South a, the glare still makes a grid of the 12 heaviest clusters.
    assert heavy_cluster_centres(groupings[-1], areas, points, 0, ALIKE_PITS) is not None
    centres = best_grid(groupings, areas, points, ALIKE_PITS)
    assert centres is not None
    assert sorted(map(tuple, np.round(centres).astype(int))) == sorted(pits)


def test_regrouped_a_seed_nearer_the_next_pits_seeds_than_its_own_goes_to_the_pit_the_grid_puts_nearest():
    mask = np.zeros((240, 640), np.uint8)
    pits = [(170 + 60 * column, 90 + 70 * row) for row in (0, 1) for column in range(6)]
    seeds = {pit: [(x + dx, y + dy) for dx in (-9, 9) for dy in (-9, 9)] for pit, (x, y) in enumerate(pits)}
    # South a's seeds lie apart, one towards South b, 25 pixels from the nearest of its own and 25
    # from a seed resting on South b's near side: merging nearest first leaves it out of South a.
    seeds[pits.index((170, 160))] = [(158, 151), (158, 169), (150, 160), (182, 160)]
    seeds[pits.index((230, 160))] = [(207, 160), (225, 151), (225, 169), (243, 160)]
    for blobs in seeds.values():
        for centre in blobs:
            cv2.circle(mask, centre, 5, 1, -1)
    expected = sorted(tuple(np.mean(blobs, axis=0)) for blobs in seeds.values())
    as_merged = best_grid(*blob_groupings(mask), ALIKE_PITS)
    assert np.abs(np.array(sorted(map(tuple, as_merged))) - expected).max() > 5  # South a's centre
    regrouped = best_grid(*blob_groupings(mask), ALIKE_PITS, regroup=True)
    np.testing.assert_allclose(sorted(map(tuple, regrouped)), expected, atol=0.5)


def test_another_count_counts_only_where_the_cue_keeps_most_of_its_spots():
    glints = np.array([
        [4, 3, 3, 4, 4, 4, 4, 3, 4, 3, 1, 4],  # a start of heaped beads, one pit's glints merged
        [3, 3, 2, 4, 2, 2, 4, 3, 3, 1, 1, 4],
        [1, 3, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1],  # higher: each heap's brightest glint is left
    ])
    assert other_count_most_shown([glints]) == (3, 4)
    one_each = np.array([[2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1] * 12])  # a glint of wood, then none
    assert other_count_most_shown([one_each]) == (1, 12)


def test_another_count_counts_only_where_every_pit_shows_a_seed():
    heaped = np.array([
        [2, 2, 2, 2, 4, 3, 4, 2, 3, 2, 1, 1],  # a shape threshold at which heaps of nuts show 1-2 peaks
        [2, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1],  # higher: a lone nut vanishes, every heap shows 1
    ])
    assert other_count_most_shown([heaped]) == (2, 6)
    five_each = np.array([[5] * 11 + [4], [5] * 10 + [3, 4]])
    assert other_count_most_shown([heaped, five_each]) == (5, 11)


def pixels(*bgr) -> np.ndarray:
    return np.array(bgr, np.uint8)


def test_unseen_vivid_colours_are_seeds_unseen_dark_ones_are_not():
    wood = np.repeat(pixels([30, 75, 140], [25, 62, 120], [35, 85, 160]), 500, axis=0)
    beads = np.repeat(pixels([200, 90, 30], [40, 190, 60]), 50, axis=0)  # blue and green only
    model = SeedColourModel.learn(beads, wood)
    probability = model.probability(pixels([40, 45, 170], [20, 20, 30], [30, 75, 140], [200, 90, 30]))
    assert probability[0] > 0.5  # a red bead: vivid, never seen
    assert probability[1] <= 0.5  # a dark crevice or shadow: never seen, not vivid
    assert probability[2] < 0.5 and probability[3] > 0.5  # the wood and a blue bead, as learned
    # Unseen colours still count as unknown for the confidence (a hand over the board).
    probability, known = model.read(pixels([40, 45, 170], [30, 75, 140]))
    assert not known[0] and known[1]
    assert np.array_equal(probability, model.probability(pixels([40, 45, 170], [30, 75, 140])))


def test_a_colour_is_as_much_board_as_in_the_board_sample_showing_it_most():
    # As in unseen nicker 1228 through the soft camera: the shaded walls of dark pits are a small
    # share of the board's pixels, the pale nuts' blurred outlines take some of their colour, and
    # pooled with the top the walls would be learned as seed.
    top = np.repeat(pixels([60, 90, 150], [50, 80, 135]), 25_000, axis=0)
    wall = pixels([20, 25, 70])
    bowls = np.repeat(wall, 3_000, axis=0)
    nuts = np.concatenate([np.repeat(pixels([170, 180, 165]), 2_000, axis=0), np.repeat(wall, 150, axis=0)])
    assert SeedColourModel.learn(nuts, np.concatenate([top, bowls])).probability(wall)[0] > 0.5
    model = SeedColourModel.learn(nuts, top, bowls)
    assert model.probability(wall)[0] < 0.2
    # A colour of the top's keeps its weight however many bowl pixels join.
    assert model.probability(pixels([60, 90, 150]))[0] == SeedColourModel.learn(nuts, top).probability(pixels([60, 90, 150]))[0]
    assert model.probability(pixels([170, 180, 165]))[0] > 0.9 and model.probability(pixels([60, 90, 150]))[0] < 0.1


def test_seeds_are_off_the_wood_and_the_bowls_shade_is_on_it_where_the_top_shows_more_grain_as_dark():
    frame = np.empty((100, 100, 3), np.float32)
    frame[:30] = LIT_WOOD  # the board top...
    frame[30:70] = GRAIN  # ...and its dark grain, more of it than the bowls show of their shade
    frame[70:] = SHADED_WOOD  # the bowls' outer bands...
    frame[70:76] = RED_BEAD  # ...into which beads reach
    frame = np.clip(frame + np.random.default_rng(3).normal(0, 2, frame.shape), 0, 255).astype(np.uint8)
    top = np.zeros(frame.shape[:2], bool)
    top[:70] = True
    seed_mask = np.zeros(frame.shape[:2], np.uint8)
    seed_mask[70:76] = 1  # the beads stand out...
    seed_mask[90:] = 1  # ...and so does the darkest shade
    unlike = unlike_wood(frame, top, ~top, seed_mask)
    assert unlike[70:76].mean() > 0.9
    assert unlike[:70].mean() < 0.05
    assert unlike[76:].mean() < 0.05


def test_bowls_whose_bands_the_seeds_hide_leave_the_wood_to_the_top():
    # The top shows more of the beads' lightness than the bands do, so it traces the first path.
    frame = np.empty((30, 100, 3), np.uint8)
    frame[:20] = LIT_WOOD
    frame[20:] = RED_BEAD
    top = np.zeros(frame.shape[:2], bool)
    top[:20] = True
    seed_mask = (~top).astype(np.uint8)  # every pixel of the bowls' bands is seed
    unlike = unlike_wood(frame, top, ~top, seed_mask)
    assert not unlike[:20].any() and unlike[20:].all()


FRAME = (640, 480)
PITCH_PX = 80.0


def board_geometry(shift=(0.0, 0.0), pit_radius=0.4) -> BoardGeometry:
    """A board 80 px a pitch, seen a little from one end, its frame moved by `shift` pitches."""
    to_image = np.array([[PITCH_PX, 6.0, 110.0], [-4.0, PITCH_PX, 180.0], [0.00012, 0.0, 1.0]])
    moved = to_image @ np.array([[1.0, 0.0, shift[0]], [0.0, 1.0, shift[1]], [0.0, 0.0, 1.0]])
    return BoardGeometry(tuple((moved / moved[2, 2]).reshape(-1)), FRAME, 1.15, pit_radius, 1.05, 0.45, 0.95)


def photo(truth: BoardGeometry, seed_reach: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Wood with grain, each pit a bowl lit from one side, its 4 dark-rimmed seeds pushed to one
    side, reaching `seed_reach` pitches from the pit's middle; and the seeds' mask."""
    image = np.empty((FRAME[1], FRAME[0], 3), np.float32)
    image[:] = (40, 95, 160)
    for row in range(0, FRAME[1], 9):
        cv2.line(image, (0, row), (FRAME[0], row + 5), (32, 82, 140), 1)
    bowls = np.zeros(image.shape[:2], np.uint8)
    lit = np.zeros(image.shape[:2], np.float32)
    for pit in range(PIT_COUNT):
        cv2.fillPoly(bowls, [np.round(truth.outline_in_image(pit)).astype(np.int32)], 1)
        middle = truth.to_image(np.array([truth.centre_in_board(pit)]) + (0.1, 0.1))[0]
        cv2.circle(lit, tuple(int(v) for v in middle), int(0.3 * PITCH_PX), 1.0, -1)
    lit = cv2.GaussianBlur(lit, (0, 0), 8)
    image[bowls > 0] = (np.array([20, 50, 95]) + lit[bowls > 0, None] * np.array([15, 30, 45]))
    image += rng.normal(0, 4, image.shape).astype(np.float32)
    seeds = np.zeros(image.shape[:2], np.uint8)
    for pit in range(PIT_COUNT):
        centre = np.array(truth.centre_in_board(pit))
        side = rng.uniform(0, 2 * np.pi)
        for seed in range(4):
            angle = side + rng.uniform(-0.9, 0.9)
            middle = centre + (seed_reach - 0.15) * rng.uniform(0.5, 1.0) * np.array([np.cos(angle), np.sin(angle)])
            outline = truth.to_image(middle + 0.15 * np.column_stack([np.cos(a := np.linspace(0, 2 * np.pi, 24)), 0.7 * np.sin(a)]))
            cv2.fillPoly(image, [np.round(outline).astype(np.int32)], (150, 160, 150), cv2.LINE_AA)
            cv2.polylines(image, [np.round(outline).astype(np.int32)], True, (40, 50, 40), 2, cv2.LINE_AA)
            cv2.fillPoly(seeds, [np.round(outline).astype(np.int32)], 1)
    return np.clip(image, 0, 255).astype(np.uint8), seeds


def pit_centres(geometry: BoardGeometry) -> np.ndarray:
    return geometry.to_image(np.array([geometry.centre_in_board(pit) for pit in range(PIT_COUNT)]))


@pytest.mark.parametrize("shift, seed_reach", [((0.1, -0.07), 0.38), ((-0.06, 0.09), 0.3)])
def test_pits_land_on_their_rims_from_off_centre_seeds(shift, seed_reach):
    truth = board_geometry()
    image, seeds = photo(truth, seed_reach, np.random.default_rng(int(100 * seed_reach)))
    found = pits_on_their_rims(board_geometry(shift, pit_radius=0.48), lightness_edges(image), 1.0, seeds)
    misses = np.linalg.norm(pit_centres(found) - pit_centres(truth), axis=1) / (truth.pit_radius * PITCH_PX)
    assert misses.max() < 0.1, misses.round(2)
    assert found.pit_radius == pytest.approx(truth.pit_radius, abs=0.015)
