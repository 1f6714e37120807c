"""The learned pile counter as recognition uses it (synthetic boards, never ../shared)."""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

import vision.wari as wari
from device.synthetic_wari import render_board
from engines.errors import ArbiterError
from tests.vision.wari.boards import start_profile
from vision import wari_pile_counter
from vision.wari import WariProfile, recognize
from vision.wari_count import plausible_counts
from vision.wari_params import (
    CROP,
    CROP_RADII,
    CROP_SCALE_RANGE,
    HIDDEN_SEED_CHANCE,
    HIDDEN_SEED_UP_TO,
    NETWORK_POWER,
    QUARTER_TURNS,
    TRAINED_SEED_SIZE,
)
from vision.wari_pile_counter import (
    TRAINED_NETWORK_FILE,
    count_probabilities,
    crop_scale,
    looks_again,
    needs_network,
    network_probabilities,
    network_session,
    pit_crops,
    standardised,
    with_hidden_seed,
    with_network,
)

SMALL = [0, 1, 2, 2, 0, 1, 2, 1, 1, 0, 2, 2]
# No pit of 3: the network is asked about those too (ASKED_FROM), and the stand-in networks below
# read every crop as the pile.
PILES = [9, 0, 2, 11, 1, 0, 2, 0, 10, 1, 0, 2]


def _geometry_and_seed(profile: dict):
    calibrated = WariProfile.from_json(profile)
    return calibrated.geometry, calibrated.seed_diameter


def test_the_shipped_network_gives_each_crop_a_distribution_over_counts(nicker):
    image = render_board(PILES, [0, 0], seed=1, style="nicker", session=0)
    crops = pit_crops(image, *_geometry_and_seed(nicker), list(range(12)))
    assert crops.shape == (12, CROP, CROP, 3)
    probabilities = count_probabilities(crops, QUARTER_TURNS)
    assert probabilities.shape == (12, 25)
    assert np.allclose(probabilities.sum(axis=1), 1.0)
    # The pits of the board differ, and so do its crops' readings.
    assert len({int(n) for n in probabilities.argmax(axis=1)}) > 1


def test_the_network_recognition_runs_is_the_trained_network_in_8_bits(nicker):
    # Recognition runs NETWORK_FILE, made from TRAINED_NETWORK_FILE by training/quantise.py: a
    # network trained again and not quantized again would leave the two apart.
    geometry, seed_diameter = _geometry_and_seed(nicker)
    crops = np.concatenate([
        pit_crops(render_board(pits, [0, 0], seed=seed, style="nicker", session=0), geometry, seed_diameter, list(range(12)))
        for seed, pits in enumerate([PILES, [6, 7, 5, 3, 8, 12, 1, 0, 2, 4, 0, 0]], 1)
    ])
    as_trained = network_probabilities(network_session(TRAINED_NETWORK_FILE), standardised(crops))
    as_run = count_probabilities(crops, (0,))
    assert np.array_equal(as_run.argmax(axis=1), as_trained.argmax(axis=1))
    assert np.abs(as_run - as_trained).max() < 0.1
    assert not np.array_equal(as_run, as_trained)  # two networks, not one file read twice


@pytest.mark.parametrize("style, session, drawn", [("nicker", 0, 0.19), ("glass", 1, 0.14)])
def test_calibration_measures_the_seeds_size_in_pitches(style, session, drawn):
    # The synthetic renderer draws nuts 0.17 x 0.2125 pitches and beads 0.14 across: one seed's
    # area as a circle 0.19 / 0.14 pitches across.
    _, seed_diameter = _geometry_and_seed(start_profile(style, session))
    assert seed_diameter == pytest.approx(drawn, rel=0.08)


def test_crops_are_scaled_to_the_seeds_within_the_range_the_network_learned(nicker, monkeypatch):
    geometry, _ = _geometry_and_seed(nicker)
    typical = TRAINED_SEED_SIZE * geometry.pit_radius
    assert crop_scale(geometry, typical) == pytest.approx(1.0)
    assert crop_scale(geometry, 1.05 * typical) == pytest.approx(1.05)
    assert crop_scale(geometry, 2 * typical) == pytest.approx(1 + CROP_SCALE_RANGE)
    assert crop_scale(geometry, 0.5 * typical) == pytest.approx(1 - CROP_SCALE_RANGE)
    # Scaled up, a crop stops where the next bowl begins (at 1 - radius pitches along the row).
    wide_bowls = replace(geometry, pit_radius=0.465)
    assert crop_scale(wide_bowls, 2 * TRAINED_SEED_SIZE * 0.465) == pytest.approx(1.0)
    assert crop_scale(wide_bowls, 0.5 * TRAINED_SEED_SIZE * 0.465) == pytest.approx(1 - CROP_SCALE_RANGE)
    middling = replace(geometry, pit_radius=0.44)
    assert crop_scale(middling, 2 * TRAINED_SEED_SIZE * 0.44) == pytest.approx(0.56 / (CROP_RADII * 0.44))
    # Crops cut to seeds twice the size show twice the span: the middle half of the wider crop,
    # scaled up, is the narrower crop.
    monkeypatch.setattr(wari_pile_counter, "CROP_SCALE_RANGE", 2.0)
    image = render_board(PILES, [0, 0], seed=1, style="nicker", session=0)
    narrow, wide = (pit_crops(image, geometry, size, [3])[0].astype(float) for size in (typical / 2, typical))
    middle = cv2.resize(wide[16:48, 16:48], (CROP, CROP), interpolation=cv2.INTER_LINEAR)
    assert np.corrcoef(middle.ravel(), narrow.ravel())[0, 1] > 0.9
    assert np.corrcoef(wide.ravel(), narrow.ravel())[0, 1] < 0.7


def test_read_at_every_quarter_turn_a_crop_reads_the_same_turned(nicker):
    image = render_board(PILES, [0, 0], seed=1, style="nicker", session=0)
    crops = pit_crops(image, *_geometry_and_seed(nicker), [0, 3, 8])
    turned_crops = np.ascontiguousarray(np.rot90(crops, 1, axes=(1, 2)))
    assert np.allclose(count_probabilities(turned_crops, (0, 1, 2, 3)), count_probabilities(crops, (0, 1, 2, 3)), atol=1e-5)
    assert not np.allclose(count_probabilities(turned_crops, (0,)), count_probabilities(crops, (0,)), atol=1e-5)


def test_a_crop_read_at_several_quarter_turns_gets_the_mean_of_their_readings(nicker):
    image = render_board(PILES, [0, 0], seed=1, style="nicker", session=0)
    crops = pit_crops(image, *_geometry_and_seed(nicker), [0, 3, 8])
    first, rest = count_probabilities(crops, (0,)), count_probabilities(crops, (1, 2, 3))
    assert not np.allclose(first, rest)
    assert np.allclose((first + 3 * rest) / 4, count_probabilities(crops, (0, 1, 2, 3)))
    assert np.allclose(rest.sum(axis=1), 1.0)


def test_the_network_reorders_the_plausible_counts_but_adds_none():
    counts = np.arange(49)
    posterior = np.exp(-0.5 * ((counts - 12) / 1.2) ** 2)  # a pile past HIDDEN_SEED_UP_TO
    posterior /= posterior.sum()
    network = np.full(25, 1e-4)
    network[14] = 1.0
    network /= network.sum()
    combined = with_network(plausible_counts(posterior), network)
    assert set(combined) == set(plausible_counts(posterior))
    assert next(iter(combined)) == 14  # the network's count, among the plausible ones, now leads
    assert sum(combined.values()) == pytest.approx(1.0)
    network[:] = 1e-4
    network[24] = 1.0  # its last class, 24 or more: far past the plausible counts
    assert set(with_network(plausible_counts(posterior), network / network.sum())) == set(plausible_counts(posterior))


def test_small_counts_never_consult_the_network(nicker, monkeypatch):
    def refuse(crops, quarter_turns):
        raise AssertionError("the network was consulted")

    monkeypatch.setattr(wari, "count_probabilities", refuse)
    assert recognize(render_board(SMALL, [0, 0], seed=2, style="nicker", session=0), nicker).pits == SMALL


def test_a_pile_takes_the_networks_reading_among_its_plausible_counts(nicker, monkeypatch):
    image = render_board(PILES, [0, 0], seed=3, style="nicker", session=0)
    plain = recognize(image, nicker)
    pile = int(np.argmax(PILES))
    shifted = max(plain.regions[pile], key=lambda n: (n != plain.pits[pile], plain.regions[pile][n]))
    assert shifted != plain.pits[pile]

    def sure_of_the_shifted_count(crops, quarter_turns):
        probabilities = np.full((len(crops), 25), 1e-6)
        probabilities[:, shifted] = 1.0
        return probabilities / probabilities.sum(axis=1, keepdims=True)

    monkeypatch.setattr(wari, "count_probabilities", sure_of_the_shifted_count)
    read = recognize(image, nicker)
    assert read.pits[pile] == shifted
    assert set(read.regions[pile]) == set(plain.regions[pile])
    # Small pits, read surely by the hand-made cues, keep their reading.
    assert all(read.pits[p] == plain.pits[p] for p in range(12) if PILES[p] <= 3)


def test_only_a_posterior_sure_of_a_count_under_3_is_left_to_the_hand_made_cues():
    posterior = np.zeros(49)
    posterior[[1, 2, 3]] = [0.005, 0.99, 0.005]
    assert not needs_network(posterior)
    assert needs_network(posterior, cues_miss_seeds=True)  # a board whose cues lose seeds: every pit
    posterior[[1, 2, 3, 4]] = [0.0, 0.005, 0.99, 0.005]  # sure of 3: a fourth seed may hide under them
    assert needs_network(posterior)
    posterior[[2, 3, 4]] = [0.01, 0.96, 0.03]  # a pit of 4 whose fourth seed hides from the cues
    assert needs_network(posterior)
    posterior[[2, 3, 4]] = [0.2, 0.7, 0.1]  # small, but in doubt
    assert needs_network(posterior)
    posterior[[2, 3, 4, 5]] = [0.0, 0.04, 0.92, 0.04]  # sure of 4: the network may still find a fifth seed
    assert needs_network(posterior)
    posterior[[3, 4, 5, 6, 7]] = [0.1, 0.2, 0.2, 0.3, 0.2]  # a pile's chance
    assert needs_network(posterior)


def test_only_a_count_still_in_doubt_after_one_look_is_looked_at_again():
    assert looks_again({9: 0.6, 10: 0.3, 8: 0.1})
    assert not looks_again({9: 0.99, 10: 0.01})


@pytest.mark.parametrize("first_look_sure", [True, False])
def test_recognize_reads_a_pile_at_every_quarter_turn_only_while_one_look_leaves_it_in_doubt(
    nicker, monkeypatch, first_look_sure
):
    image = render_board(PILES, [0, 0], seed=3, style="nicker", session=0)
    plain = recognize(image, nicker)
    pile = int(np.argmax(PILES))
    first_count, later_count = sorted(plain.regions[pile], key=lambda n: -plain.regions[pile][n])[:2]

    def read_with(later_turns_agree: bool):
        asked = []

        def reading(crops, quarter_turns):
            asked.append((len(crops), tuple(quarter_turns)))
            probabilities = np.full((len(crops), 25), 1e-6)
            if tuple(quarter_turns) == QUARTER_TURNS[:1] or not later_turns_agree:
                probabilities[:, first_count] = 1.0
                probabilities[:, later_count] = 1e-6 if first_look_sure else 1.0
            else:
                probabilities[:, later_count] = 1.0
            return probabilities / probabilities.sum(axis=1, keepdims=True)

        monkeypatch.setattr(wari, "count_probabilities", reading)
        return recognize(image, nicker), asked

    read, asked = read_with(later_turns_agree=True)
    first_pits = asked[0][0]
    assert asked[0][1] == QUARTER_TURNS[:1] and first_pits >= sum(n >= 5 for n in PILES)
    if first_look_sure:
        assert asked == [(first_pits, QUARTER_TURNS[:1])]
        assert read.pits[pile] == first_count
    else:
        # The pile is in doubt after the first look, so it is read at the other turns, whose
        # readings then count: more than where they only repeat the first look.
        assert len(asked) == 2 and asked[1][1] == QUARTER_TURNS[1:] and 1 <= asked[1][0] <= first_pits
        echoed, _ = read_with(later_turns_agree=False)
        assert read.regions[pile][later_count] > echoed.regions[pile][later_count] + 0.1


def test_where_the_cues_miss_seeds_the_network_adds_the_counts_it_finds_likely():
    plausible = {2: 0.9, 3: 0.1}
    network = np.full(25, 1e-4)
    network[[3, 4, 5]] = [0.3, 0.2, 0.5]
    network /= network.sum()
    assert set(with_network(plausible, network)) == {2, 3, 4}  # 4: a seed hidden under the others
    added = with_network(plausible, network, adds=True)
    assert set(added) == {2, 3, 4, 5}
    # 5 comes in at the least chance, 4's, so the network alone orders them.
    assert added[5] / added[4] == pytest.approx((0.5 / 0.2) ** NETWORK_POWER, rel=0.01)
    assert sum(added.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("spotted, spread, every_pit", [(11, 0.5, True), (12, 0.5, False), (11, 0.3, False)])
def test_the_network_reads_every_pit_of_a_board_whose_cues_lost_seeds_at_the_start(
    nicker, monkeypatch, spotted, spread, every_pit
):
    profile = {**nicker, "start_pits_spotted": spotted, "counts": {**nicker["counts"], "spread": spread}}
    assert WariProfile.from_json(profile).cues_miss_seeds == every_pit
    asked = []

    def reading(crops, quarter_turns):
        asked.append(len(crops))
        return np.full((len(crops), 25), 1 / 25)

    monkeypatch.setattr(wari, "count_probabilities", reading)
    recognize(render_board(SMALL, [0, 0], seed=2, style="nicker", session=0), profile)
    assert (asked[:1] == [12]) == every_pit


@pytest.mark.parametrize("spotted", ["11", 13, -1, 11.5, True])
def test_a_malformed_count_of_spotted_start_pits_is_a_one_line_error(nicker, spotted):
    with pytest.raises(ArbiterError, match="start_pits_spotted") as error:
        WariProfile.from_json({**nicker, "start_pits_spotted": spotted})
    assert "\n" not in str(error.value)


def test_calibration_records_how_many_start_pits_the_spotters_saw_whole(nicker):
    assert nicker["start_pits_spotted"] == nicker["summary"]["pits_with_4_spots"]
    assert WariProfile.from_json({k: v for k, v in nicker.items() if k != "start_pits_spotted"}).start_pits_spotted == 12


def test_standardised_crops_show_each_channel_at_mean_0_and_spread_1():
    rng = np.random.default_rng(3)
    crops = np.stack([rng.integers(low, low + 60, (CROP, CROP, 3)) for low in (0, 90, 190)]).astype(np.uint8)
    crops[1, ..., 2] = 77  # a flat channel: no spread to divide by
    inputs = standardised(crops)
    assert inputs.shape == (3, 3, CROP, CROP) and inputs.dtype == np.float32
    np.testing.assert_allclose(inputs.mean(axis=(2, 3)), 0, atol=1e-4)
    spreads = inputs.std(axis=(2, 3))
    np.testing.assert_allclose(np.delete(spreads.ravel(), 5), 1, atol=0.03)  # the floor keeps it a little under
    assert spreads[1, 2] == 0
    # Brighter pixels stay brighter, in proportion.
    assert np.corrcoef(inputs[2, 0].ravel(), crops[2, ..., 0].ravel())[0, 1] > 0.9999


def test_each_count_of_the_cues_shares_a_hidden_seeds_chance_with_the_count_one_above():
    chance = HIDDEN_SEED_CHANCE
    shared = with_hidden_seed({3: 0.8, 2: 0.2})
    assert shared == pytest.approx({2: (1 - chance) * 0.2, 3: (1 - chance) * 0.8 + chance * 0.2, 4: chance * 0.8})
    assert sum(shared.values()) == pytest.approx(1.0)


def test_the_network_finds_a_seed_hidden_from_the_cues_only_where_it_is_surer_of_it_than_of_their_count():
    # A bead wholly under others in a tight cluster: both cues see 3.
    plausible = {3: 0.97, 2: 0.03}
    network = np.full(25, 1e-4)
    network[[3, 4]] = [0.3, 0.7]
    read = with_network(plausible, network / network.sum())
    assert set(read) == {2, 3, 4} and next(iter(read)) == 3
    network[[3, 4]] = [0.01, 0.99]
    assert next(iter(with_network(plausible, network / network.sum()))) == 4
    # Past HIDDEN_SEED_UP_TO the cues' counts are left as they are: the network only reorders them.
    pile = {HIDDEN_SEED_UP_TO + 1: 0.97, HIDDEN_SEED_UP_TO: 0.03}
    network[:] = 1e-4
    network[HIDDEN_SEED_UP_TO + 2] = 1.0
    assert set(with_network(pile, network / network.sum())) == set(pile)
