"""Wari recognition on synthetic boards: what a reading holds and how it scores positions."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from device.synthetic_wari import render_board
from engines.errors import ArbiterError
from tests.vision.wari.boards import ORDER_PROBE, START
from vision import recognize as recognize_any
from vision.wari import WariObservation, recognize
from vision.wari_overlay import draw_overlay


def test_profile_names_the_game_and_summarises_the_board(table):
    _, _, profile = table
    assert profile["game"] == "wari"
    summary = profile["summary"]
    # Synthetic pits are 120 canvas pixels apart, warped at 0.85-1.0x of a 1280-pixel frame.
    assert 100 < summary["pit_pitch_px"] < 180
    assert 0.3 < summary["pit_radius_px"] / summary["pit_pitch_px"] < 0.5
    assert summary["pits_with_4_spots"] >= 10


def test_pits_are_read_in_contract_order(table):
    style, session, profile = table
    observation = recognize(render_board(ORDER_PROBE, [0, 0], seed=5, style=style, session=session), profile)
    assert observation.pits == ORDER_PROBE


@pytest.mark.parametrize("photo", range(3))
def test_small_counts_are_exact_and_a_pile_inside_the_distribution(table, photo):
    style, session, profile = table
    rng = np.random.default_rng([photo, session])
    pits = [int(n) for n in rng.integers(0, 4, 12)]
    pits[int(rng.integers(12))] = int(rng.integers(6, 9))
    observation = recognize(render_board(pits, [0, 0], seed=10 + photo, style=style, session=session), profile)
    reading = observation.to_json()
    small = [i for i, n in enumerate(pits) if n <= 3]
    assert [observation.pits[i] for i in small] == [pits[i] for i in small]
    assert all(str(n) in distribution for n, distribution in zip(pits, reading["evidence"]["pits"]))


@pytest.mark.parametrize("stores", [[5, 0], [0, 3]])
def test_stores_are_read_south_first(table, stores):
    """South's store is the one at the image's right end (each player's store on his right)."""
    style, session, profile = table
    observation = recognize(render_board([1] * 12, stores, seed=9, style=style, session=session), profile)
    assert observation.stores == stores


def test_observation_json_follows_the_contract(table):
    style, session, profile = table
    reading = recognize(render_board(ORDER_PROBE, [3, 1], seed=7, style=style, session=session), profile).to_json()
    assert set(reading) == {"state", "confidence", "evidence"}
    assert reading["state"]["game"] == "wari"
    assert len(reading["state"]["pits"]) == 12 and len(reading["state"]["stores"]) == 2
    assert 0.0 <= reading["confidence"] <= 1.0
    for distribution in reading["evidence"]["pits"] + reading["evidence"]["stores"]:
        assert all(key.isdigit() for key in distribution)
        assert sum(distribution.values()) == pytest.approx(1.0, abs=0.01)
    assert json.loads(json.dumps(reading)) == reading


def test_log_likelihood_prefers_the_truth_and_is_graded(table):
    style, session, profile = table
    observation = recognize(render_board(ORDER_PROBE, [0, 0], seed=8, style=style, session=session), profile)
    truth = {"game": "wari", "pits": ORDER_PROBE, "stores": [0, 0], "to_move": "south"}
    one_off = dict(truth, pits=[ORDER_PROBE[0] + 1] + ORDER_PROBE[1:])
    two_off = dict(one_off, pits=[ORDER_PROBE[0] + 1, ORDER_PROBE[1] + 1] + ORDER_PROBE[2:])
    store_off = dict(truth, stores=[1, 0])
    best, worse, worst = (observation.log_likelihood(s) for s in (truth, one_off, two_off))
    assert best > worse > worst > -np.inf
    assert observation.log_likelihood(store_off) > worse  # stores weigh less than pits
    with pytest.raises(ArbiterError):
        observation.log_likelihood({"game": "wari", "pits": [4] * 11, "stores": [0, 0]})


def test_a_second_look_reads_only_the_pits_in_question(table):
    style, session, profile = table
    observation = recognize(render_board(ORDER_PROBE, [0, 0], seed=6, style=style, session=session), profile)
    reading = observation.to_json()["state"]
    assert observation.looked_again([reading]) is observation  # nothing in question: no network time
    other = dict(reading, pits=[reading["pits"][0] + 2] + reading["pits"][1:3] + [reading["pits"][3] + 1] + reading["pits"][4:])
    second = observation.looked_again([other])
    assert second.looked_at == {0, 3} and second.regions[1:3] == observation.regions[1:3]
    # The network read them too, and agrees with the cues on a clear board.
    assert second.pits == observation.pits == ORDER_PROBE
    assert second.looked_again([other]) is second  # read once


def test_dispatch_through_vision_recognize(nicker):
    image = render_board(START, [0, 0], seed=3, style="nicker", session=0)
    observation = recognize_any(image, nicker)
    assert isinstance(observation, WariObservation)
    assert observation.to_json() == recognize(image, nicker).to_json()


def test_a_hand_over_the_board_lowers_confidence(table):
    style, session, profile = table
    clear = recognize(render_board(ORDER_PROBE, [0, 0], seed=4, style=style, session=session), profile)
    covered = recognize(render_board(ORDER_PROBE, [0, 0], seed=4, style=style, session=session, hand=True), profile)
    assert clear.confidence > 0.7
    assert covered.confidence < 0.3


@pytest.mark.parametrize(
    "image",
    [
        np.zeros((960, 1280, 3), np.uint8),
        np.full((480, 640, 3), 255, np.uint8),
        np.random.default_rng(0).integers(0, 256, (960, 1280, 3), dtype=np.uint8),
        np.zeros((960, 1280), np.uint8),
    ],
    ids=["black", "white-half-size", "noise", "grey"],
)
def test_frames_without_the_board_give_low_confidence(table, image):
    _, _, profile = table
    assert recognize(image, profile).confidence < 0.2


def test_a_frame_of_another_shape_is_an_error(nicker):
    with pytest.raises(ArbiterError, match="calibrated on 1280x960"):
        recognize(np.zeros((960, 960, 3), np.uint8), nicker)


@pytest.mark.parametrize(
    "profile",
    [{"game": "varanasi"}, {"game": "wari"}, {"game": "wari", "board": {"homography": [1, 2]}}, None],
    ids=["other-game", "empty", "malformed", "not-a-dict"],
)
def test_bad_profiles_are_one_line_errors(profile):
    with pytest.raises(ArbiterError) as error:
        recognize(np.zeros((960, 1280, 3), np.uint8), profile)
    assert "\n" not in str(error.value)


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


def test_counting_by_area_alone_still_reads_small_counts(nicker):
    pits = [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1]
    observation = recognize(render_board(pits, [0, 0], seed=25, style="nicker", session=0), {**nicker, "spotters": []})
    assert observation.pits == pits


def test_overlay_draws_on_a_copy(table):
    style, session, profile = table
    image = render_board(ORDER_PROBE, [0, 0], seed=6, style=style, session=session)
    before = image.copy()
    overlay = draw_overlay(image, recognize(image, profile))
    assert overlay.shape == image.shape and overlay.dtype == image.dtype
    assert np.array_equal(image, before)
    assert np.count_nonzero(np.any(overlay != image, axis=2)) > 5000


def test_overlay_marks_the_pits_read_otherwise_than_expected(table):
    style, session, profile = table
    image = render_board(ORDER_PROBE, [0, 0], seed=6, style=style, session=session)
    observation = recognize(image, profile)
    expected = {"game": "wari", "pits": list(observation.pits), "stores": list(observation.stores)}
    plain = draw_overlay(image, observation, expected)
    expected["pits"][3] += 1
    marked = draw_overlay(image, observation, expected)
    assert np.array_equal(plain, draw_overlay(image, observation))  # all as expected: nothing marked
    # What marking changed is drawn in red, on the pit that differs.
    changed = np.any(marked != plain, axis=2)
    red = changed & (marked[:, :, 2] > 200) & (marked[:, :, 1] < 80) & (marked[:, :, 0] < 80)
    assert np.count_nonzero(red) > 200
    ys, xs = np.nonzero(red)
    centre = observation.geometry.to_image(np.array([observation.geometry.centre_in_board(3)]),
                                           image.shape[1] / observation.geometry.image_size[0])[0]
    assert abs(np.median(xs) - centre[0]) < 60 and abs(np.median(ys) - centre[1]) < 80


def certain(count: int) -> dict[int, float]:
    return {count: 1.0}


def test_best_reading_holding_the_seeds_is_the_best_such_position():
    # Two piles and a store in doubt, everything else certain: every way of holding 48 seeds is
    # few enough to try one by one.
    piles = ({9: 0.5, 10: 0.3, 11: 0.15, 12: 0.05}, {12: 0.6, 13: 0.3, 15: 0.1})
    store = {0: 0.7, 2: 0.3}
    regions = (piles[0], piles[1]) + tuple(certain(2) for _ in range(10)) + (store, certain(0))
    observation = WariObservation(None, regions, 1.0)
    best_any = observation.best_log_likelihood()
    assert best_any == pytest.approx(observation.log_likelihood({"pits": [9, 12] + [2] * 10, "stores": [0, 0]}))
    searched = max(
        observation.log_likelihood({"pits": [a, b] + [2] * 10, "stores": [48 - 20 - a - b, 0]})
        for a in range(29) for b in range(29 - a)
    )
    holding = {"pits": [4] * 12, "stores": [0, 0]}  # any position of 48 seeds
    assert observation.best_log_likelihood(holding) == pytest.approx(searched)
    # Read as is, the board holds 41 seeds: the best of 48 must put 7 more where doubt allows.
    assert observation.best_log_likelihood(holding) < best_any - 1.0


def test_best_reading_without_stores_counts_the_pits_alone():
    regions = tuple(certain(4) for _ in range(12)) + (certain(3), certain(5))
    observation = WariObservation(None, regions, 1.0)
    assert observation.best_log_likelihood({"pits": [4] * 12}) == pytest.approx(0.0)


def test_a_big_pile_read_sharply_may_hide_more_seeds_but_not_fewer():
    from vision.wari_params import PROBABILITY_FLOOR

    def cost(read: int, count: int) -> float:
        regions = (certain(read),) + tuple(certain(0) for _ in range(13))
        observation = WariObservation(None, regions, 1.0)
        return -observation.log_likelihood({"pits": [count] + [0] * 11, "stores": [0, 0]})

    floor = -math.log(PROBABILITY_FLOOR)
    # Read as 17 for sure: 20 seeds ("at least 17") is a range the reading allows, 15 is not.
    assert cost(17, 20) < 4.6 < floor == pytest.approx(cost(17, 15))
    assert cost(17, 20) == pytest.approx(cost(17, 18))
    # A small pit read for sure keeps its sharp count either way.
    assert cost(5, 6) == pytest.approx(floor) == pytest.approx(cost(5, 4))


def test_a_reading_is_doubtful_only_where_piles_or_stores_differ():
    regions = (certain(14),) + tuple(certain(3) for _ in range(11)) + (certain(1), certain(0))
    observation = WariObservation(None, regions, 1.0)
    following = {"pits": [14] + [3] * 11, "stores": [1, 0]}
    assert observation.doubtful({"pits": [15] + [3] * 11, "stores": [0, 0]}, following)
    assert not observation.doubtful({"pits": [15, 2] + [3] * 10, "stores": [1, 0]}, following)
    # A pit read as 3 is counted well, even where the candidate wants a pile there.
    assert not observation.doubtful({"pits": [3, 14] + [3] * 10, "stores": [1, 0]}, following)
