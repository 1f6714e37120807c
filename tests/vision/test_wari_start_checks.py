"""Calibration's reading of a start photo's pits: the pit clusters, the counts the spotters show."""
from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

import calibration.wari as wari_calibration
from calibration.wari import calibrate
import calibration.wari_grid as wari_grid
from calibration.wari_grid import best_grid as _best_grid, blob_groupings as _groupings, heavy_cluster_centres as _heavy_cluster_centres
from calibration.wari_spotters import other_count_most_shown as _other_count_most_shown
from calibration.wari_start_checks import check_pits_in_view as _check_pits_in_view
from vision.wari_params import ALIKE_PITS as _ALIKE_PITS, ARC_OPENINGS, RIM_PAST_EDGE as _RIM_PAST_EDGE
from device.synthetic_wari import render_board
from engines.errors import ArbiterError
from vision.wari_board import PIT_COUNT, BoardGeometry


def test_pits_whose_seeds_touch_in_one_blob_are_found_beside_specks_of_the_board_edge():
    mask = np.zeros((240, 640), np.uint8)
    pits = [(170 + 60 * column, 90 + 70 * row) for row in (0, 1) for column in range(6)]
    for x, y in pits:
        cv2.circle(mask, (x, y), 14, 1, -1)
    for x, y in ((10, 10), (630, 12), (15, 225)):  # far from the pits and from each other
        mask[y : y + 3, x : x + 3] = 1
    centres = _best_grid(*_groupings(mask), _ALIKE_PITS)
    assert centres is not None
    found = sorted(map(tuple, np.round(centres).astype(int)))
    assert found == sorted(pits)


def test_a_glare_heavier_than_a_pit_is_spared_when_the_true_pits_fit_the_grid_far_better():
    mask = np.zeros((240, 640), np.uint8)
    pits = [(170 + 60 * column, 90 + 70 * row) for row in (0, 1) for column in range(6)]
    for pit, (x, y) in enumerate(pits):
        cv2.circle(mask, (x, y), 9 if pit == 0 else 14, 1, -1)  # South a's seeds show least
    cv2.circle(mask, (135, 160), 11, 1, -1)  # glare on the board beyond South a, heavier than it
    groupings, areas, points = _groupings(mask)
    # Taken for South a, the glare still makes a grid of the 12 heaviest clusters.
    assert _heavy_cluster_centres(groupings[-1], areas, points, 0, _ALIKE_PITS) is not None
    centres = _best_grid(groupings, areas, points, _ALIKE_PITS)
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
    as_merged = _best_grid(*_groupings(mask), _ALIKE_PITS)
    assert np.abs(np.array(sorted(map(tuple, as_merged))) - expected).max() > 5  # South a's centre
    regrouped = _best_grid(*_groupings(mask), _ALIKE_PITS, regroup=True)
    np.testing.assert_allclose(sorted(map(tuple, regrouped)), expected, atol=0.5)


def test_another_count_counts_only_where_the_cue_keeps_most_of_its_spots():
    glints = np.array([
        [4, 3, 3, 4, 4, 4, 4, 3, 4, 3, 1, 4],  # a start of heaped beads, one pit's glints merged
        [3, 3, 2, 4, 2, 2, 4, 3, 3, 1, 1, 4],
        [1, 3, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1],  # higher: each heap's brightest glint is left
    ])
    assert _other_count_most_shown([glints]) == (3, 4)
    one_each = np.array([[2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1] * 12])  # a glint of wood, then none
    assert _other_count_most_shown([one_each]) == (1, 12)


def _pits(profile: dict) -> tuple[np.ndarray, np.ndarray]:
    """The pits' centres and mean radii in the photo."""
    geometry = BoardGeometry.from_json(profile["board"])
    outlines = np.array([geometry.outline_in_image(pit) for pit in range(PIT_COUNT)])
    centres = outlines.mean(axis=1)
    return centres, np.linalg.norm(outlines - centres[:, None], axis=2).mean(axis=1)


def test_a_dim_start_whose_lit_rims_outweigh_the_far_pits_seeds_is_calibrated():
    # A lamp on the right: the left pits' seeds hardly stand out, the right pits' rims do, with
    # their seeds, and no 12 alike clusters form the grid (nicker 1205 through the tilted camera).
    start = render_board([4] * PIT_COUNT, [0, 0], seed=0, session=0)
    centres, radii = _pits(calibrate(start))
    photo = start.astype(np.float32)
    for pit in range(2, 10):  # the middle and right columns of both rows
        (x, y), radius = centres[pit], radii[pit]
        wood = photo[int(y - 1.15 * radius), int(x)]
        cv2.circle(photo, (int(x), int(y)), int(0.93 * radius), (wood * 1.6).tolist(), int(0.25 * radius))
    photo *= np.linspace(0.6, 1.0, photo.shape[1])[None, :, None]
    profile = calibrate(np.clip(photo, 0, 255).astype(np.uint8))
    assert np.abs(_pits(profile)[0] - centres).max() < 3


def test_another_count_counts_only_where_every_pit_shows_a_seed():
    heaped = np.array([
        [2, 2, 2, 2, 4, 3, 4, 2, 3, 2, 1, 1],  # a shape threshold at which heaps of nuts show 1-2 peaks
        [2, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1],  # higher: a lone nut vanishes, every heap shows 1
    ])
    assert _other_count_most_shown([heaped]) == (2, 6)
    five_each = np.array([[5] * 11 + [4], [5] * 10 + [3, 4]])
    assert _other_count_most_shown([heaped, five_each]) == (5, 11)


@pytest.mark.parametrize(
    "shares, kept",
    [
        ({"first": [], "lower": ["glint"]}, "lower"),  # area alone, then spotted: the seeds were left out
        ({"first": [], "lower": []}, "first"),  # area alone at every share: matte seeds
        ({"first": ["shape"], "lower": ["glint"]}, "first"),
    ],
)
def test_a_first_profile_counting_by_area_alone_gives_way_to_a_lower_share_that_spots_the_seeds(monkeypatch, shares, kept):
    tried = []

    def profile(image, frame, seed_mask, centres):
        tried.append(seed_mask)
        return {"share": seed_mask, "spotters": shares[seed_mask]}

    monkeypatch.setattr(wari_calibration, "pit_clusters_by_share", lambda contrast: ((share, None, True) for share in shares))
    monkeypatch.setattr(wari_calibration, "_profile", profile)
    monkeypatch.setattr(wari_calibration, "recognize", lambda image, profile: SimpleNamespace(pits=[4] * PIT_COUNT))
    assert calibrate(np.zeros((96, 128, 3), np.uint8))["share"] == kept
    assert tried == (["first"] if shares["first"] else ["first", "lower"])


@pytest.mark.parametrize("past, refused", [(0.8 * _RIM_PAST_EDGE, False), (1.2 * _RIM_PAST_EDGE, True)])
def test_a_pit_reaching_past_the_photos_edge_by_more_than_the_rims_error_is_refused(past, refused):
    # South's row 100 pixels a pitch, at y = 250, pits 40 pixels across the radius: their rims
    # reach y = 290, and the photo's bottom edge lies `past` radii above that.
    geometry = BoardGeometry(
        homography=(100.0, 0.0, 150.0, 0.0, -100.0, 250.0, 0.0, 0.0, 1.0),
        image_size=(800, round(290 - 40 * past)),
        row_spacing=1.0,
        pit_radius=0.4,
        store_offset=1.2,
        store_half_length=0.5,
        store_half_width=0.5,
    )
    if not refused:
        _check_pits_in_view(geometry)
        return
    with pytest.raises(ArbiterError, match="^South's pit [a-f] is cut by the photo's bottom edge"):
        _check_pits_in_view(geometry)


@pytest.mark.parametrize("accepted_at", [None, 1, 2])
def test_a_refused_photo_is_read_again_by_each_second_reading_in_turn_keeping_the_first_refusal(monkeypatch, accepted_at):
    readings = []

    def calibrated(image, frame, clusters):
        readings.append(clusters)
        if len(readings) - 1 == accepted_at:
            return {"read by": clusters}
        raise ArbiterError("refused at the first reading" if len(readings) == 1 else "refused again")

    monkeypatch.setattr(wari_calibration, "_calibrated", calibrated)
    monkeypatch.setattr(wari_calibration, "second_readings", lambda contrast: iter(["second", "third"]))
    if accepted_at is None:
        with pytest.raises(ArbiterError, match="^refused at the first reading$"):
            calibrate(np.zeros((96, 128, 3), np.uint8))
        assert readings[1:] == ["second", "third"]
    else:
        assert calibrate(np.zeros((96, 128, 3), np.uint8)) == {"read by": readings[-1]}
        assert readings[1:] == ["second", "third"][:accepted_at]


def test_a_start_whose_pits_form_the_grid_and_regroup_as_merged_has_no_second_reading():
    start = render_board([4] * PIT_COUNT, session=1)
    frame = wari_calibration.working_frame(start)
    contrast = wari_calibration.local_contrast(frame, frame.shape[1] // 16)
    assert list(wari_grid.second_readings(contrast)) == []


def test_thin_arcs_joining_the_pits_hide_the_grid_until_the_mask_is_opened_wider():
    # A lamp's glints on bevelled rims: rings round every pit, touching the next pit's, join all
    # the pits into one blob at the seed mask's own opening.
    contrast = np.full((240, 640), 2.0, np.float32)
    pits = [(170 + 60 * column, 90 + 70 * row) for row in (0, 1) for column in range(6)]
    for x, y in pits:
        cv2.circle(contrast, (x, y), 30, 40.0, 5)
        for dx, dy in ((-8, -8), (8, -8), (-8, 8), (8, 8)):
            cv2.circle(contrast, (x + dx, y + dy), 6, 40.0, -1)
    with pytest.raises(ArbiterError, match="does not show a Wari board"):
        list(wari_grid.pit_clusters_by_share(contrast))
    grids = []
    for reading in wari_grid.second_readings(contrast):
        try:
            grids.append(list(reading))
        except ArbiterError:
            continue
    assert grids, "no wider opening formed the grid"
    seed_mask, centres, alike = grids[0][0]
    assert alike
    assert sorted(map(tuple, np.round(centres).astype(int))) == sorted(pits)


def test_a_photo_without_a_board_is_read_again_only_by_the_wider_openings_each_refused():
    blank = np.full((96, 128, 3), 120, np.uint8)
    contrast = wari_calibration.local_contrast(blank, blank.shape[1] // 16)
    readings = list(wari_grid.second_readings(contrast))
    assert len(readings) == len(ARC_OPENINGS)
    for reading in readings:
        with pytest.raises(ArbiterError, match="does not show a Wari board"):
            list(reading)
    with pytest.raises(ArbiterError, match="does not show a Wari board"):
        calibrate(blank)
