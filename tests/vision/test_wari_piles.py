"""Counting seeds in piles: crowded spot counts, several spotting cues (synthetic boards only)."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from arbiter.tracker import FIT_MARGIN
from calibration.wari import calibrate
from calibration.wari_spotters import agreement_needed as _agreement_needed
from device.synthetic_wari import render_board
from engines.errors import ArbiterError
from vision.wari import WariProfile, recognize
from vision.wari_count import MAX_SEEDS, CountModel, _area_law, _miscount_probability, _spot_match, plausible_counts
from vision.wari_measure import SeedSpotter, count_crowded, measure_regions
from vision.wari_seeds import working_frame


@pytest.fixture(scope="module")
def nicker():
    """A nicker-nut table's profile, as saved and loaded."""
    return json.loads(json.dumps(calibrate(render_board([4] * 12, [0, 0], seed=0, style="nicker", session=0))))


def measured(profile: dict, pits: list[int], seed: int, spotters=None):
    calibrated = WariProfile.from_json(profile)
    frame = working_frame(render_board(pits, [0, 0], seed=seed, style="nicker", session=0))
    chosen = calibrated.spotters if spotters is None else spotters
    return measure_regions(frame, calibrated.geometry, calibrated.colours, chosen)


def test_a_crowded_count_finds_more_of_a_piles_seeds(nicker):
    apart, crowded = [], []
    for seed in (20, 21):
        measures = measured(nicker, [12] * 12, seed)
        apart.append(measures.spots[:12])
        crowded.append(measures.crowded_spots[:12])
    # Piled nuts' glints lie closer than one nut apart: a nut-sized window merges some of them.
    assert np.mean(crowded) > np.mean(apart) + 0.3
    assert np.mean(np.abs(np.array(crowded) - 12)) < np.mean(np.abs(np.array(apart) - 12))


def test_seeds_lying_apart_are_counted_alike_either_way(nicker):
    measures = measured(nicker, [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1], seed=22)
    assert list(measures.spots[:12]) == [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1]
    assert list(measures.crowded_spots[:12]) == list(measures.spots[:12])


def test_shapes_keep_apart_by_themselves():
    frame = working_frame(render_board([9] * 12, [0, 0], seed=3, style="glass", session=1))
    seed_like = np.zeros(frame.shape[:2], np.uint8)
    for x in (100, 112, 150):  # two touching round seeds and one apart
        cv2.circle(seed_like, (x, 100), 6, 1, -1)
    apart, crowded = SeedSpotter("shape", 13, 3.0).spots(frame, seed_like.astype(bool))
    assert apart.max() == 3
    assert np.array_equal(apart, crowded)


@pytest.mark.parametrize("highlight", [(-3, 0), (-2, 0), (0, 2)])
def test_a_beads_highlight_hole_does_not_make_it_two_shapes(highlight):
    # The highlight is not seed-coloured: the hole it leaves raises a ring of equal peaks.
    seed_like = np.zeros((60, 60), np.uint8)
    cv2.circle(seed_like, (30, 30), 9, 1, -1)
    cv2.circle(seed_like, (30 + highlight[0], 30 + highlight[1]), 3, 0, -1)
    apart, crowded = SeedSpotter("shape", 18, 2.0).spots(np.full((60, 60, 3), 100, np.uint8), seed_like.astype(bool))
    assert apart.max() == 1 and crowded.max() == 1


def _disc_seeds(centres, radius=6, glinted=None):
    """A flat frame with seed-coloured discs (seed_like mask) and a bright glint on some of them."""
    frame = np.full((120, 200, 3), 90, np.uint8)
    seed_like = np.zeros((120, 200), np.uint8)
    for i, (x, y) in enumerate(centres):
        cv2.circle(seed_like, (x, y), radius, 1, -1)
        if glinted is None or i in glinted:
            cv2.circle(frame, (x, y), 1, (250, 250, 250), -1)
    return frame, seed_like.astype(bool)


def test_a_seed_without_a_glint_beside_glinted_ones_counts_in_a_pile():
    # Three touching seeds, the middle one's glint hidden (buried under the pile's top).
    frame, seed_like = _disc_seeds([(60, 60), (72, 60), (84, 60)], glinted=(0, 2))
    apart, crowded = SeedSpotter("glint", 13, 20.0).spots(frame, seed_like)
    assert len(np.unique(apart)) - 1 == 2
    assert len(np.unique(crowded)) - 1 == 3


def test_a_seed_coloured_patch_off_on_its_own_is_not_a_buried_seed():
    # The lamp's glare on the wood: seed-coloured, no glint, touching no seed.
    frame, seed_like = _disc_seeds([(60, 60), (150, 60)], glinted=(0,))
    apart, crowded = SeedSpotter("glint", 13, 20.0).spots(frame, seed_like)
    assert len(np.unique(crowded)) - 1 == len(np.unique(apart)) - 1 == 1


def test_the_lit_floor_between_seeds_is_not_a_glint():
    # Three seeds around a gap: the pit floor seen through it, lit, is a lightness peak amid seed
    # colours, but its own colour is the board's.
    frame, seed_like = _disc_seeds([(60, 60), (72, 60), (66, 70)])
    gap = (66, 63)
    cv2.circle(frame, gap, 1, (200, 200, 200), -1)
    seed_like[gap[1] - 1 : gap[1] + 2, gap[0] - 1 : gap[0] + 2] = False
    board_like = np.zeros_like(seed_like)
    board_like[gap[1] - 1 : gap[1] + 2, gap[0] - 1 : gap[0] + 2] = True
    spotter = SeedSpotter("glint", 13, 20.0)
    assert [len(np.unique(labels)) - 1 for labels in spotter.spots(frame, seed_like)] == [3, 4]
    assert [len(np.unique(labels)) - 1 for labels in spotter.spots(frame, seed_like, board_like)] == [3, 3]


def test_a_dark_patch_beside_seeds_lying_apart_is_a_crevice_not_a_buried_seed():
    # A small glintless patch between two glinted seeds: lit like them it is a half-buried seed; in
    # deep shadow it is "shaded", counted only where other spots already show a pile.
    found = []
    for shade in (90, 30):
        frame, seed_like = _disc_seeds([(60, 60), (80, 60)])
        cv2.circle(seed_like.view(np.uint8), (70, 60), 4, 1, -1)
        cv2.circle(frame, (70, 60), 4, (shade, shade, shade), -1)
        apart, crowded = SeedSpotter("glint", 13, 20.0).spots(frame, seed_like)
        assert len(np.unique(apart)) - 1 == 2
        found.append(list(np.unique(crowded)))
    assert found == [[0, 1, 2, 3], [-1, 0, 1, 2]]


def test_shaded_patches_count_only_where_the_other_spots_show_a_pile():
    assert count_crowded(np.array([0, 1, 2, -1]), apart_count=2) == 2
    assert count_crowded(np.array([0, 1, 2, 3, -1]), apart_count=2) == 4
    assert count_crowded(np.array([0, 1, 2, 3]), apart_count=2) == 3


def test_the_glint_offset_moves_the_seed_a_glint_explains():
    # A glint near the seed's edge: its seed-sized disc leaves a crescent of the seed unexplained
    # (a buried seed, seemingly) unless moved to the seed's centre.
    frame = np.full((120, 200, 3), 90, np.uint8)
    seed_like = np.zeros((120, 200), np.uint8)
    cv2.circle(seed_like, (60, 60), 8, 1, -1)
    cv2.circle(frame, (54, 60), 1, (250, 250, 250), -1)
    spotted = [
        len(np.unique(SeedSpotter("glint", 16, 20.0, glint_offset=offset).spots(frame, seed_like.astype(bool))[1])) - 1
        for offset in ((0.0, 0.0), (6.0, 0.0))
    ]
    assert spotted == [2, 1]


def test_several_spotters_count_the_most_seeds_any_of_them_finds(nicker):
    kernel = WariProfile.from_json(nicker).spotters[0].kernel
    # Glints, and blob centres so far from the blobs' edges that touching nuts merge.
    glints, shapes = SeedSpotter("glint", kernel, 30.0), SeedSpotter("shape", kernel, 5.0)
    pits = [5, 3, 0, 2, 6, 1, 4, 0, 3, 5, 2, 1]
    alone = [measured(nicker, pits, 23, (spotter,)) for spotter in (glints, shapes)]
    both = measured(nicker, pits, 23, (shapes, glints))
    assert np.any(alone[0].spots != alone[1].spots)
    assert np.array_equal(both.spots, np.maximum(alone[0].spots, alone[1].spots))
    assert np.array_equal(both.crowded_spots, np.maximum(alone[0].crowded_spots, alone[1].crowded_spots))


def test_the_crowded_count_is_used_once_the_spots_cover_most_of_the_floor():
    model = CountModel(seed_area=(100.0,) * 14, capacity=(10.0,) * 14, spread=0.3)
    assert not model.is_crowded(0, spots_apart=4, spots_crowded=5)
    assert model.is_crowded(0, spots_apart=5, spots_crowded=5)
    # Two seeds more in the crowded count show a pile however big the floor.
    assert model.is_crowded(0, spots_apart=3, spots_crowded=5)
    # Seeds lying apart: the count as lying apart leads; one seed more in the crowded count (a
    # touching seed's glint merged, or a nut's far end) keeps real weight, so the area decides.
    apart, either = model.posterior(0, 400.0, (4, 5), 0.04), model.posterior(0, 400.0, (4, 4), 0.04)
    assert np.argmax(apart) == np.argmax(either) == 4 and apart[5] > 1.5 * either[5]
    assert np.argmax(model.posterior(0, 480.0, (4, 5), 0.04)) == 5
    assert np.argmax(model.posterior(0, 480.0, (4, 4), 0.04)) == 4
    assert not np.allclose(model.posterior(0, 700.0, (7, 9), 0.04), model.posterior(0, 700.0, (7, 7), 0.04), atol=0.01)


def test_a_count_judged_not_to_fit_still_keeps_the_true_position_within_the_trackers_margin():
    """A pile of 9 whose crowded count finds two seeds too many (noise splits two glints): the
    apart count, passed over, was right. It must not cost more than the tracker's margin."""
    model = CountModel(seed_area=(100.0,) * 14, capacity=(14.7,) * 14, spread=0.2)
    posterior = model.posterior(0, 973.0, (9, 11), 0.0385, finds_buried=True)
    assert np.argmax(posterior) == 11
    assert np.log(posterior[9] / posterior.max()) > -FIT_MARGIN


def test_a_deep_bowl_that_piles_early_keeps_the_true_counts_in_the_distributions():
    """Session 3's nicker nuts pile from about 8 seeds, about half the capacity the model derives
    from the floor's area: a sure reading of the seeds that show would leave the truth out."""
    profile = calibrate(render_board([4] * 12, [0, 0], seed=0, style="nicker", session=3))
    pits = [9, 10, 11, 9, 8, 1, 0, 0, 0, 0, 0, 0]
    for seed in (1, 2, 3):
        observation = recognize(render_board(pits, [0, 0], seed=seed, style="nicker", session=3), profile)
        assert all(true in distribution for true, distribution in zip(pits, observation.regions))


@pytest.mark.parametrize("pits", [[15, 0, 13, 0, 18, 2, 0, 0, 0, 0, 0, 0], [0, 14, 0, 0, 0, 3, 0, 16, 0, 0, 1, 0]])
def test_piles_of_13_or_more_in_a_bowl_that_piles_early_stay_in_their_distributions(pits):
    """Session 3's bowls hold about 0.6 of the capacity the model derives (12 nuts show 9.3 seeds
    of area where F is 17): piles of 13-18 show 10-12 seeds, both by area and by spots. Before the
    renderer let piled seeds pass through each other (towers over bare floor), the truth fell
    outside 4 of these 6 readings. Each of these boards still costs its true position 6-10 below
    the reading: more than the tracker's margin, the limit of one photo (see docs/vision-wari.md)."""
    profile = calibrate(render_board([4] * 12, [0, 0], seed=0, style="nicker", session=3))
    for seed in (1, 2, 3):
        observation = recognize(render_board(pits, [0, 0], seed=seed, style="nicker", session=3), profile)
        assert all(true in distribution for true, distribution in zip(pits, observation.regions))


def test_a_pile_on_a_floor_of_half_the_capacity_stays_in_its_distribution():
    """Synthetic session 3: 12 nuts show 9 seeds of area, 6 spots apart and 9 crowded, where the
    floor's area says 17 fit side by side; the bowl piles at about half that."""
    model = CountModel(seed_area=(150.0,) * 14, capacity=(17.0,) * 14, spread=0.12)
    assert 12 in plausible_counts(model.posterior(0, 9.0 * 150.0, (6, 9), 0.03, finds_buried=True))


def test_buried_seeds_found_leave_fewer_to_guess():
    model = CountModel(seed_area=(100.0,) * 14, capacity=(10.0,) * 14, spread=0.3)
    counts = np.arange(len(model.posterior(0, 850.0, (9, 11), 0.04)))
    guessed = model.posterior(0, 850.0, (9, 11), 0.04, finds_buried=False)
    found = model.posterior(0, 850.0, (9, 11), 0.04, finds_buried=True)
    assert counts @ found < counts @ guessed
    assert np.argmax(found) >= 11


def test_a_crowded_count_may_be_off_by_more_the_more_seeds_show():
    errors = np.arange(-MAX_SEEDS, MAX_SEEDS + 1)[:, None]
    few, many = _miscount_probability(errors, np.full((1, 1), 3)), _miscount_probability(errors, np.full((1, 1), 12))
    assert np.isclose(few.sum(), 1) and np.isclose(many.sum(), 1)
    assert many[MAX_SEEDS + 1, 0] > few[MAX_SEEDS + 1, 0]
    assert many[MAX_SEEDS, 0] < few[MAX_SEEDS, 0]


def test_every_frame_reads_its_counts_from_the_same_laws_as_the_first():
    model = CountModel(seed_area=(100.0,) * 14, capacity=(10.0,) * 14, spread=0.3)
    readings = [(0, 850.0, (9, 11)), (3, 420.0, (4, 4)), (12, 300.0, None)]
    _area_law.cache_clear()  # an equal model of another test may have filled them
    _spot_match.cache_clear()
    afresh = [model.posterior(region, pixels, spots, 0.04, True) for region, pixels, spots in readings]
    again = [model.posterior(region, pixels, spots, 0.04, True) for region, pixels, spots in readings]
    assert all(np.array_equal(first, second) for first, second in zip(afresh, again))
    # The laws worked out once are shared by every later frame: no caller may change them.
    with pytest.raises(ValueError):
        _spot_match(4.0, 0.04, True)[0, 0] = 1.0
    with pytest.raises(ValueError):
        _area_law(model, 0)[0][0, 0] = 1.0


def test_calibration_learns_where_a_glint_lies_on_its_seed(nicker):
    glint = [s for s in nicker["spotters"] if s["cue"] == "glint"]
    assert glint, "the nicker table is spotted by glints"
    dx, dy = glint[0]["glint_offset_px"]
    # Off the centre but on the seed: within half a seed.
    assert 0 < np.hypot(dx, dy) < glint[0]["kernel_px"] / 2


def test_calibration_keeps_every_cue_that_agrees_best(nicker):
    spotters = nicker["spotters"]
    assert 1 <= len(spotters) <= 2
    assert len({s["cue"] for s in spotters}) == len(spotters)
    assert nicker["summary"]["seed_spotting"] == " and ".join(s["cue"] for s in spotters)
    assert len({s["slip"] for s in spotters}) == 1


def test_glints_count_one_pit_short_of_the_best_cue_shapes_only_on_a_tie():
    assert _agreement_needed("glint", 12, only_short=False) == 11
    assert _agreement_needed("shape", 12, only_short=False) == 12
    # Two short if the pits where glints miss only lose seeds (a white bead's glint).
    assert _agreement_needed("glint", 12, only_short=True) == 10
    assert _agreement_needed("shape", 12, only_short=True) == 12
    # Never below the agreement any cue needs to count at all.
    assert _agreement_needed("glint", 10, only_short=True) == 10


def test_glints_missing_in_two_pits_still_count_beside_shapes():
    # Two pits' beads dulled (no highlight stands out, as on a white bead): glints show fewer
    # than 4 seeds there and never more, so they still count beside the shapes, which find those.
    start = render_board([4] * 12, [0, 0], seed=0, style="glass", session=4)
    geometry = WariProfile.from_json(calibrate(start)).geometry
    dulled = start.copy()
    for pit in (2, 8):
        inside = np.zeros(start.shape[:2], np.uint8)
        cv2.fillPoly(inside, [np.round(geometry.outline_in_image(pit)).astype(np.int32)], 1)
        hsv = cv2.cvtColor(start, cv2.COLOR_BGR2HSV)
        hsv[..., 2] = np.minimum(hsv[..., 2], np.percentile(hsv[..., 2][inside > 0], 60)).astype(np.uint8)
        dulled = np.where(inside[..., None] > 0, cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), dulled)
    profile = calibrate(dulled)
    assert profile["summary"]["seed_spotting"] == "glint and shape"


def test_glass_piles_are_read_by_both_cues():
    profile = calibrate(render_board([4] * 12, [0, 0], seed=0, style="glass", session=1))
    assert profile["summary"]["seed_spotting"] == "glint and shape"
    pits = [8, 9, 10, 11, 12, 13, 12, 11, 10, 9, 8, 14]
    observation = recognize(render_board(pits, [0, 0], seed=24, style="glass", session=1), profile)
    # Piles of 8-12 are promised 90 % exact, 13+ nothing exact: retraining the pile counter has
    # moved one or two of these twelve by a seed (sessions 31 and 32). The network reads this
    # board's pile of 14 as 16 or 17 at every quarter turn (its deep bowls are unlike the renders
    # it learned from); read at all four since session 34, the pile is read 16 at 0.37, 15 at
    # 0.36, 14 at 0.10.
    misread = [(n, read) for n, read in zip(pits, observation.pits) if read != n]
    assert all(abs(read - n) == 1 for n, read in misread if n <= 12), misread
    assert sum(n <= 12 for n, _ in misread) <= 1, misread
    assert all(abs(read - n) <= 2 for n, read in misread), misread
    assert all(n in distribution for n, distribution in zip(pits, observation.regions))


def test_counting_by_area_alone_still_reads_small_counts(nicker):
    pits = [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1]
    observation = recognize(render_board(pits, [0, 0], seed=25, style="nicker", session=0), {**nicker, "spotters": []})
    assert observation.pits == pits


@pytest.mark.parametrize(
    "spotters",
    [
        None,
        {"cue": "glint"},
        [{"cue": "sparkle", "kernel_px": 15, "threshold": 20, "slip": 0.04, "glint_offset_px": [0, 0]}],
        [{"cue": "glint", "kernel_px": 15, "threshold": 20, "slip": 0.04}],
        [{"cue": "glint", "kernel_px": 15, "threshold": 20, "slip": 0.04, "glint_offset_px": [9, 0]}],
    ],
)
def test_malformed_spotters_are_one_line_errors(nicker, spotters):
    with pytest.raises(ArbiterError, match="spotter") as error:
        recognize(np.zeros((960, 1280, 3), np.uint8), {**nicker, "spotters": spotters})
    assert "\n" not in str(error.value)


def test_six_nuts_spotted_alike_both_ways_are_not_read_as_seven_however_much_area_they_show():
    """S0 seq007 pit 8: 6 nuts, 6 spots either way, 6.75 seeds of area (shadows, long sides), F 10.
    Nothing shows a pile, so a 7th nut wholly hidden is unlikely; one more crowded spot keeps it."""
    model = CountModel(seed_area=(100.0,) * 14, capacity=(10.0,) * 14, spread=0.34)
    agreed = model.posterior(0, 675.0, (6, 6), 0.04, finds_buried=True)
    assert np.argmax(agreed) == 6 and 7 in plausible_counts(agreed)
    piling = model.posterior(0, 675.0, (6, 7), 0.04, finds_buried=True)
    assert piling[7] > agreed[7]


def test_a_pile_near_the_floors_capacity_still_hides_seeds_when_both_counts_agree():
    model = CountModel(seed_area=(100.0,) * 14, capacity=(10.0,) * 14, spread=0.3)
    posterior = model.posterior(0, 760.0, (8, 8), 0.04, finds_buried=True)
    assert posterior[9] > 0.1
