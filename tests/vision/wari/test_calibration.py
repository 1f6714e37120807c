"""Wari calibration from a start photo: what it accepts, what it refuses and why, in one line."""
from __future__ import annotations

import itertools
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

import calibration.wari as wari_calibration
from calibration.wari import calibrate
from calibration.wari_grid import pit_clusters_by_share, second_readings
from calibration.wari_start_checks import check_pits_in_view, check_pits_show_their_seeds
from device.synthetic_wari import render_board
from engines.errors import ArbiterError
from tests.vision.wari.boards import START
from vision.wari import WariObservation, recognize
from vision.wari_board import PIT_COUNT, BoardGeometry
from vision.wari_params import ARC_OPENINGS, RIM_PAST_EDGE, START_PIT_SEEDS, START_SPREAD
from vision.wari_seeds import local_contrast, working_frame


@pytest.mark.parametrize(
    "image",
    [
        np.zeros((960, 1280, 3), np.uint8),
        np.random.default_rng(1).integers(0, 256, (960, 1280, 3), dtype=np.uint8),
        render_board([0] * 12, [0, 0], seed=0),
        render_board([4] * 6 + [0] * 6, [0, 0], seed=0),
        # Another count in every pit: the spotters find it in most pits ("3 seeds in most pits").
        render_board([3] * 12, [0, 0], seed=0, style="glass"),
        np.zeros((10, 10, 3), np.uint8),
    ],
    ids=["black", "noise", "empty-board", "half-empty-board", "three-each", "tiny"],
)
def test_calibration_refuses_a_photo_that_is_not_the_start(image):
    with pytest.raises(ArbiterError, match="start position|colour photo") as error:
        calibrate(image)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "style, session, pit, message",
    [
        ("nicker", 4, 3, "^South's pit d shows far fewer seeds than the others"),
        # Told apart from a photo of no board: the player can mend the position (or the seeds).
        ("glass", 1, 11, "^one pit in the photo shows far fewer seeds than the others, or is cut by the photo.s edge"),
    ],
)
def test_a_start_photo_with_one_pit_nearly_empty_names_it(style, session, pit, message):
    pits = list(START)
    pits[pit] = 1
    with pytest.raises(ArbiterError, match=message):
        calibrate(render_board(pits, [0, 0], seed=0, style=style, session=session))


@pytest.mark.parametrize("style, session, pit, count, name", [("nicker", 0, 0, 2, "South's pit a")])
def test_a_start_photo_with_one_pit_of_other_than_4_seeds_names_it(style, session, pit, count, name):
    # Its area passes for a start's (a pit of 2 shows 1.7 seeds' worth or more), and the profile
    # reads it right: the reading and the pile counter agree it is not a start.
    pits = list(START)
    pits[pit] = count
    with pytest.raises(ArbiterError, match=f"^{name} seems to hold {count} seeds, not 4: calibration needs the start"):
        calibrate(render_board(pits, [0, 0], seed=0, style=style, session=session))


def test_a_start_photo_with_the_board_cut_by_its_edge_names_the_pit_and_the_edge():
    # Shifted right, the end pits' seeds half out of the photo weigh little, like a pit short of
    # seeds: the cut pit is what to mend.
    start = render_board(START, [0, 0], seed=0, session=0)
    cut = cv2.warpAffine(start, np.float32([[1, 0, 300], [0, 1, 0]]), (start.shape[1], start.shape[0]))
    with pytest.raises(ArbiterError, match="^South's pit f is cut by the photo's right edge: .*the whole board in view$"):
        calibrate(cut)


def _board_at(tx: float, ty: float, size: tuple[int, int]) -> BoardGeometry:
    """A board 100 pixels a pitch, no perspective, South's pit a at (tx, ty), rims 40 pixels across the radius."""
    return BoardGeometry((100.0, 0.0, tx, 0.0, -100.0, ty, 0.0, 0.0, 1.0), size, 1.0, 0.4, 1.2, 0.5, 0.5)


@pytest.mark.parametrize("share, refused", [(0.8, False), (1.2, True)])
@pytest.mark.parametrize(
    "edge, board, pits",
    [
        ("bottom", lambda past: _board_at(150, 250, (800, round(290 - 40 * past))), "South's pit [a-f]"),
        ("top", lambda past: _board_at(100, 140 - 40 * past, (800, 400)), "North's pit [a-f]"),
        ("left", lambda past: _board_at(40 - 40 * past, 200, (800, 400)), "(South's pit a|North's pit f)"),
        ("right", lambda past: _board_at(100, 200, (round(640 - 40 * past), 400)), "(South's pit f|North's pit a)"),
    ],
)
def test_a_pit_reaching_past_the_photos_edge_by_more_than_the_rims_error_is_refused(edge, board, pits, share, refused):
    geometry = board(share * RIM_PAST_EDGE)  # the rims reach past the edge by this share of a radius
    if not refused:
        check_pits_in_view(geometry)
        return
    with pytest.raises(ArbiterError, match=f"^{pits} is cut by the photo's {edge} edge"):
        check_pits_in_view(geometry)


def test_pits_showing_too_little_too_much_or_too_different_an_area_are_refused():
    empty, fewest, most = START_PIT_SEEDS
    check_pits_show_their_seeds(np.full(PIT_COUNT, 4.0), START_SPREAD - 0.1)
    with pytest.raises(ArbiterError, match="does not show a Wari board"):
        check_pits_show_their_seeds(np.array([4.0] * 11 + [most + 0.5]), 0.3)
    with pytest.raises(ArbiterError, match="does not show a Wari board"):
        check_pits_show_their_seeds(np.array([4.0] * 11 + [empty / 2]), 0.3)
    with pytest.raises(ArbiterError, match="^North's pit c shows far fewer seeds than the others"):
        check_pits_show_their_seeds(np.array([4.0] * 8 + [(empty + fewest) / 2] + [4.0] * 3), 0.3)
    # 2-6 seeds a pit: the pits' readings spread too far to be 4 each.
    with pytest.raises(ArbiterError, match="seeds apart on average"):
        check_pits_show_their_seeds(np.array([2.0, 3, 6, 4, 2, 4, 4, 3, 6, 3, 6, 5]), START_SPREAD + 0.4)


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
    monkeypatch.setattr(wari_calibration, "profile_from_clusters", profile)
    monkeypatch.setattr(wari_calibration, "recognize", lambda image, profile: SimpleNamespace(pits=[4] * PIT_COUNT))
    assert calibrate(np.zeros((96, 128, 3), np.uint8))["share"] == kept
    assert tried == (["first"] if shares["first"] else ["first", "lower"])


@pytest.mark.parametrize("first_share_refuses", [False, True], ids=["first-share-profile", "first-share-refused"])
def test_the_first_profile_made_may_misread_one_start_pit_the_counter_sees_as_4(monkeypatch, table, first_share_refuses):
    # A pit misread in the start photo is a glint lost if the pile counter still sees 4 there.
    # The first contrast share that makes a profile at all is held to that rule, also where the
    # highest share was refused ("3 seeds in most pits") and the next one's profile is one pit off.
    style, session, profile = table
    start = render_board(START, [0, 0], seed=0, style=style, session=session)
    shares = itertools.count()

    def profile_at_share(*_):
        if next(shares) == 0 and first_share_refuses:
            raise ArbiterError("the photo shows 3 seeds in most pits: calibration needs the start position with 4 in each pit")
        return profile

    def one_pit_misread(image, made):
        reading = recognize(image, made)
        return WariObservation(reading.geometry, ({3: 1.0},) + reading.regions[1:], reading.confidence)

    monkeypatch.setattr(wari_calibration, "profile_from_clusters", profile_at_share)
    monkeypatch.setattr(wari_calibration, "recognize", one_pit_misread)
    assert calibrate(start) is profile
    assert next(shares) == 1 + first_share_refuses  # no lower share was tried once a profile was kept


@pytest.mark.parametrize("accepted_at", [None, 1, 2])
def test_a_refused_photo_is_read_again_by_each_second_reading_in_turn_keeping_the_first_refusal(monkeypatch, accepted_at):
    readings = []

    def calibrated(image, frame, clusters):
        readings.append(clusters)
        if len(readings) - 1 == accepted_at:
            return {"read by": clusters}
        raise ArbiterError("refused at the first reading" if len(readings) == 1 else "refused again")

    monkeypatch.setattr(wari_calibration, "first_accepted_profile", calibrated)
    monkeypatch.setattr(wari_calibration, "second_readings", lambda contrast: iter(["second", "third"]))
    if accepted_at is None:
        with pytest.raises(ArbiterError, match="^refused at the first reading$"):
            calibrate(np.zeros((96, 128, 3), np.uint8))
        assert readings[1:] == ["second", "third"]
    else:
        assert calibrate(np.zeros((96, 128, 3), np.uint8)) == {"read by": readings[-1]}
        assert readings[1:] == ["second", "third"][:accepted_at]


def test_a_start_whose_pits_form_the_grid_and_regroup_as_merged_has_no_second_reading():
    frame = working_frame(render_board([4] * PIT_COUNT, session=1))
    assert list(second_readings(local_contrast(frame, frame.shape[1] // 16))) == []


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
        list(pit_clusters_by_share(contrast))
    grids = []
    for reading in second_readings(contrast):
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
    readings = list(second_readings(local_contrast(blank, blank.shape[1] // 16)))
    assert len(readings) == len(ARC_OPENINGS)
    for reading in readings:
        with pytest.raises(ArbiterError, match="does not show a Wari board"):
            list(reading)
    with pytest.raises(ArbiterError, match="does not show a Wari board"):
        calibrate(blank)
