"""Nanku by camera on the synthetic table (device.synthetic_nanku): calibration and judged placements.

Recognition figures on the bench and on fresh sessions come from benchmarks/bench_nanku_vision.py;
these tests pin what must hold on any table: the first piece found, refusals in players' words, and
a placement beside the first piece judged as the move it is.
"""
from __future__ import annotations

import numpy as np
import pytest

from arbiter.judge import Judge
from calibration.nanku import calibrate
from device.simulated_nanku import SimulatedNankuTable
from device.synthetic_nanku import render
from engines.errors import ArbiterError
from engines.nanku import NankuRules, canonical_cubes
from vision.nanku import recognize
from vision.nanku_overlay import draw_overlay
from vision.nanku_camera import Pose

FIRST = {"game": "nanku", "pieces": [[[0, 0, 0, "white"], [1, 0, 0, "black"]]]}


@pytest.fixture(scope="module")
def table() -> tuple[SimulatedNankuTable, dict]:
    table = SimulatedNankuTable(3)
    return table, calibrate(table.calibration_picture(FIRST))


def test_calibration_finds_the_first_piece_and_the_cube_size(table):
    simulated, profile = table
    camera = simulated.look.camera
    assert profile["game"] == "nanku"
    assert profile["first_piece"] == FIRST["pieces"][0]
    assert profile["summary"]["first_piece"] == "lying"
    assert profile["summary"]["cube_px"] == pytest.approx(camera.focal / camera.height, rel=0.1)


def test_calibration_refuses_a_table_without_a_piece(table):
    simulated, _ = table
    with pytest.raises(ArbiterError, match="no piece"):
        calibrate(render([], simulated.look, Pose()))


def test_calibration_refuses_two_pieces_apart(table):
    simulated, _ = table
    cubes = [[0, 0, 0, "white"], [1, 0, 0, "black"], [5, 3, 0, "white"], [6, 3, 0, "black"]]
    with pytest.raises(ArbiterError, match="more than one piece"):
        calibrate(render(cubes, simulated.look, Pose(-3.0, -1.5, 0.3)))


@pytest.mark.parametrize("index", [0, 5, 11])
def test_a_placement_beside_the_first_piece_is_judged_as_played(table, index):
    """In a row, beside or standing: the position judged is the one played, up to the turn and
    shift of the whole structure (which the structure's own symmetry may leave open)."""
    simulated, profile = table
    rules = NankuRules()
    first = rules.state_from_json(FIRST)
    after = rules.apply(first, rules.legal_moves(first)[index])
    verdict = Judge(rules, [first]).judge(recognize(simulated.picture(after.to_json(), 1), profile))
    assert verdict.legal and len(verdict.moves) == 1
    assert canonical_cubes(verdict.state) == canonical_cubes(after)


def test_odd_frames_give_an_observation_not_an_error(table):
    _, profile = table
    width, height = profile["image_size"]
    for frame in (np.zeros((height, width, 3), np.uint8),
                  np.random.default_rng(0).integers(0, 256, (height, width, 3), dtype=np.uint8)):
        observation = recognize(frame, profile)
        assert 0.0 <= observation.to_json()["confidence"] <= 1.0


def test_a_profile_of_another_game_is_refused():
    with pytest.raises(ArbiterError, match="not a Nanku profile"):
        recognize(np.zeros((64, 64, 3), np.uint8), {"game": "wari"})


@pytest.mark.parametrize("bottom, top", [("black", "white"), ("white", "black")])
def test_calibration_reads_a_standing_first_piece_from_the_colour_on_top(table, bottom, top):
    """From above a standing piece shows one colour: the calibration says which stands on which."""
    simulated, _ = table
    profile = calibrate(render([[0, 0, 0, bottom], [0, 0, 1, top]], simulated.look, Pose(0.3, -0.2, 0.4)))
    assert profile["summary"]["first_piece"] == "standing"
    assert profile["first_piece"] == [[0, 0, 0, bottom], [0, 0, 1, top]]


def test_a_structure_read_without_its_history_says_how_little_it_explains(table):
    """`arbiter recognize` on one photo: without the position before, only a first piece is read,
    and the confidence says what share of the structure that leaves unexplained."""
    simulated, profile = table
    three = {"game": "nanku", "pieces": [[[0, 0, 0, "white"], [1, 0, 0, "black"]], [[0, 1, 0, "black"], [0, 2, 0, "white"]],
                                          [[2, 0, 0, "black"], [2, 1, 0, "white"]]]}
    reading = recognize(simulated.picture(three, 1), profile).to_json()
    assert len(reading["state"]["pieces"]) == 1
    assert reading["evidence"]["read_from"] == "the table alone: first piece only"
    assert reading["confidence"] < 0.5


def test_the_overlay_outlines_the_reading_and_the_new_piece_apart(table):
    simulated, profile = table
    rules = NankuRules()
    first = rules.state_from_json(FIRST)
    after = rules.apply(first, rules.legal_moves(first)[5])
    frame = simulated.picture(after.to_json(), 1)
    observation = recognize(frame, profile)
    Judge(rules, [first]).judge(observation)
    drawn = draw_overlay(frame, observation)
    assert drawn.shape == frame.shape and not np.array_equal(drawn, frame)
    changed = np.any(drawn != frame, axis=2)
    orange = changed & (drawn[..., 2] > 200) & (drawn[..., 1] > 120) & (drawn[..., 1] < 220) & (drawn[..., 0] < 60)
    green = changed & (drawn[..., 1] > 180) & (drawn[..., 0] < 120) & (drawn[..., 2] < 120)
    assert orange.sum() > 100 and green.sum() > 100  # the new piece and the first one, told apart


def test_the_likeliest_slip_is_found_as_scoring_every_slip_finds_it(table):
    """The judge's bar asks for the likeliest of about a thousand slip tables: the bound that
    spares drawing most of them never rules out the best, and never exceeds a table's cost."""
    simulated, profile = table
    rules = NankuRules()
    first = rules.state_from_json(FIRST)
    before = rules.apply(first, rules.legal_moves(first)[0])
    after = rules.apply(before, rules.legal_moves(before)[7])
    observation = recognize(simulated.picture(after.to_json(), 2), profile)
    observation.best_log_likelihood(before.to_json())
    tables = [slip.after.to_json() for slip in rules.slips(before)]
    scores = [observation.log_likelihood(table) for table in tables]
    assert observation.best_log_likelihood_of(tables) == max(scores)
    _, frame = observation._current()
    from vision.nanku_camera import cubes_of
    assert all(frame.cost_bound(tuple(cubes_of(table))) <= -score + 1e-9 for table, score in zip(tables, scores))


def test_a_candidate_is_doubtful_only_where_every_column_shows_the_same_colour_on_top(table):
    simulated, profile = table
    rules = NankuRules()
    first = rules.state_from_json(FIRST)
    standing = {"game": "nanku", "pieces": FIRST["pieces"] + [[[-1, 0, 0, "white"], [-1, 0, 1, "black"]]]}
    observation = recognize(simulated.picture(standing, 3), profile)
    read = observation.best_reading(first.to_json())
    taller = {"game": "nanku", "pieces": [[[x, y, z + 1, c] for x, y, z, c in piece] if piece != read["pieces"][0]
                                          else piece for piece in read["pieces"]]}
    assert observation.doubtful(read, first.to_json()) == ""
    assert observation.doubtful(taller, first.to_json()) == "heights"
    recoloured = {"game": "nanku", "pieces": [read["pieces"][0], [[x, y, z, "black" if c == "white" else "white"]
                                                                  for x, y, z, c in read["pieces"][1]]]}
    assert observation.doubtful(recoloured, first.to_json()) == ""
