"""The recipe that rebuilds the shipped pile counter (`python -m training.rebuild`): its record, its pieces on small inputs."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

import calibration.wari_start_checks as wari_calibration  # where the counter gives its second opinion
from calibration.wari import calibrate
from device.synthetic_wari import render_board
from training import recipe
from training.crops import photo_crops, quarter_turned_inputs, start_known_to_hold_4
from training.wari_render.scene import STYLES
from training.wari_render.seeds import drop_seeds
from training.wari_render.session import argument_parser, even_piles
from training.wari_render.setup import (
    TRAINING_LAMP_REACH, TRAINING_MOST_SEEDS, TRAINING_RIM_CLEARANCE, make_session, session_rng,
)
from vision.wari import WariProfile
from vision.wari_board import PIT_COUNT
from vision.wari_pile_counter import CROP, network_session

REPOSITORY = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def shipped_record() -> dict:
    return json.loads((REPOSITORY / recipe.SHIPPED_RECORD).read_text())


@pytest.fixture(scope="module")
def rebuilt_record() -> dict:
    return json.loads((REPOSITORY / recipe.REBUILT_RECORD).read_text())


@pytest.mark.parametrize("shipped", [recipe.FLOAT_NETWORK, recipe.INT8_NETWORK])
def test_the_shipped_networks_are_the_files_their_record_names(shipped, shipped_record):
    digest = hashlib.sha256((REPOSITORY / shipped).read_bytes()).hexdigest()
    assert digest == shipped_record["files"][shipped]


def test_the_shipped_record_says_whether_they_are_the_recipes_output(shipped_record, rebuilt_record):
    ours = shipped_record["files"] == rebuilt_record["files"]
    assert ours or (shipped_record["recipe_output"]["files"] == rebuilt_record["files"] and shipped_record["origin"])


def test_the_record_holds_the_recipe_as_it_is(rebuilt_record):
    shipped_record = rebuilt_record
    made_by = shipped_record["recipe"]
    assert [session["arguments"] for session in made_by["renders"]] == [s.arguments() for s in recipe.TRAINING_RENDERS]
    assert [{key: session[key] for key in ("style", "number", "positions")} for session in made_by["renders"]] == [
        asdict(session) for session in recipe.TRAINING_RENDERS
    ]
    assert (made_by["epochs"], made_by["seed"], made_by["threads"]) == (recipe.EPOCHS, recipe.SEED, recipe.THREADS)
    assert set(shipped_record["sessions_used"]) | set(shipped_record["sessions_refused"]) == {s.name for s in recipe.TRAINING_RENDERS}


def test_the_training_renders_are_distinct_training_sessions_the_renderer_accepts():
    names = [session.name for session in recipe.TRAINING_RENDERS]
    assert len(set(names)) == len(names)
    for session in recipe.TRAINING_RENDERS:
        args = argument_parser().parse_args(["out", *session.arguments()])
        assert (args.style, args.session, args.positions, args.training) == (session.style, session.number, session.positions, True)
        assert args.style in STYLES


def test_training_sessions_draw_their_variations_within_the_recipes_ranges():
    for style in STYLES:
        for number in (3, 4):
            plain, varied = make_session(style, number), make_session(style, number, training=True)
            assert np.array_equal(plain.camera.axes, varied.camera.axes)  # only the training draws differ
            assert TRAINING_RIM_CLEARANCE[0] <= varied.rim_clearance <= TRAINING_RIM_CLEARANCE[1]
            reach = np.linalg.norm(varied.lamp.centre[:2])
            assert TRAINING_LAMP_REACH[0] <= reach <= TRAINING_LAMP_REACH[1]
            position = even_piles(session_rng(style, number, 2))
            assert max(position["pits"]) <= TRAINING_MOST_SEEDS[1] and len(position["pits"]) == PIT_COUNT


def test_dropped_seeds_come_to_rest_in_their_own_bowls():
    session = make_session("nicker", 5, training=True)
    counts = [3, 0, 5, 1, 0, 2, 0, 0, 4, 0, 1, 0, 2, 1]
    seeds = drop_seeds(session, counts, np.random.default_rng(1))
    assert np.bincount(seeds.regions, minlength=len(counts)).tolist() == counts
    for centre, region in zip(seeds.centres, seeds.regions):
        hollow = session.board.hollows[region]
        assert hollow.holds(centre[None, :2], 0.0)[0]
        assert centre[2] < session.style.semi_axes[0]  # in the bowl, not piled up on the board top


@pytest.fixture(scope="module")
def start_photo_and_profile():
    image = render_board([4] * PIT_COUNT, [0, 0], seed=0, style="nicker", session=0)
    with start_known_to_hold_4():
        profile = WariProfile.from_json(calibrate(image))
    return image, profile


def test_calibration_asks_the_counter_again_after_a_known_start(start_photo_and_profile):
    asked = wari_calibration.count_probabilities
    with start_known_to_hold_4():
        assert wari_calibration.count_probabilities is not asked
    assert wari_calibration.count_probabilities is asked


def test_the_crop_cutter_gives_the_networks_input(start_photo_and_profile):
    image, profile = start_photo_and_profile
    crops = photo_crops(image, profile)
    assert crops.shape == (PIT_COUNT, CROP, CROP, 3) and crops.dtype == np.uint8
    inputs = quarter_turned_inputs(crops)
    assert inputs.shape == (4 * PIT_COUNT, 3, CROP, CROP)
    (expected,) = network_session(REPOSITORY / recipe.INT8_NETWORK).get_inputs()
    assert expected.shape[1:] == [3, CROP, CROP]
    assert np.array_equal(inputs[PIT_COUNT], np.rot90(inputs[0], 1, axes=(1, 2)))  # a quarter turn of the same crop


def test_training_is_repeatable_and_exports_what_recognition_runs(start_photo_and_profile, tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from training.counter import MAX_COUNT, export, train
    from training.quantise import quantise

    torch.set_num_threads(1)
    image, profile = start_photo_and_profile
    crops = photo_crops(image, profile)
    counts = np.full(len(crops), 4)
    first, again = (train(torch, crops, counts, 1, seed=0, log=lambda line: None) for _ in range(2))
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), again.state_dict().values()))
    float_file, int8_file = tmp_path / "float.onnx", tmp_path / "int8.onnx"
    export(torch, first, float_file)
    quantise(float_file, int8_file, quarter_turned_inputs(crops))
    (logits,) = network_session(int8_file).run(None, {"crops": quarter_turned_inputs(crops)[:3]})
    assert logits.shape == (3, MAX_COUNT + 1)
