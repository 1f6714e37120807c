"""Varanasi recognition on synthetic frames: states, hard cases, confidence, likelihood, overlay."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.varanasi import calibrate
from device.synthetic_varanasi import layout_table, render_calibration, render_table
from engines.errors import ArbiterError
from vision import recognize as recognize_any
from vision.varanasi import recognize
from vision.varanasi_overlay import draw_overlay

STANDARD = json.loads((Path(__file__).parents[2] / "calibration" / "pieces" / "nestor-standard.json").read_text())
TOWERS = [["4red", "3blue", "1orange"], ["4yellow", "3purple", "2green", "1yellow"], ["2blue"], ["4orange", "2purple"]]


def same(a, b) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


@pytest.fixture(scope="module")
def profile():
    return calibrate(render_calibration(STANDARD, seed=11), STANDARD)


@pytest.fixture(scope="module")
def observation(profile):
    return recognize(render_table(TOWERS, STANDARD, seed=21), profile)


def test_reads_every_tower_bottom_to_top(observation):
    data = observation.to_json()
    assert data["state"]["game"] == "varanasi"
    assert same(data["state"]["stacks"], TOWERS)
    assert data["confidence"] > 0.5


def test_evidence_gives_geometry_of_each_disc(observation):
    placed = {d.code: d for tower in layout_table(TOWERS, STANDARD, seed=21) for d in tower}
    towers = observation.to_json()["evidence"]["towers"]
    assert len(towers) == len(TOWERS)
    for tower in towers:
        assert 0.0 <= tower["confidence"] <= 1.0
        for disc in tower["discs"]:
            truth = placed[disc["code"]]
            assert np.hypot(disc["centre"][0] - truth.centre[0], disc["centre"][1] - truth.centre[1]) < 0.2 * truth.radius
            # The circle fits what shows of the disc, its side and shadow included, so it sits a
            # little off the top face and is a little larger.
            assert disc["radius"] == pytest.approx(truth.radius, rel=0.12)
            assert 0.0 <= disc["confidence"] <= 1.0
            assert disc["code"] in disc["alternatives"]


@pytest.mark.parametrize("seed", [31, 32, 33])
def test_random_layouts(profile, seed):
    image = render_table(TOWERS, STANDARD, seed=seed)
    assert same(recognize(image, profile).to_json()["state"]["stacks"], TOWERS)


def test_tilted_camera_calibrated_in_the_same_pose():
    tilted = calibrate(render_calibration(STANDARD, seed=12, tilt_deg=8), STANDARD)
    image = render_table(TOWERS, STANDARD, seed=22, tilt_deg=8)
    assert same(recognize(image, tilted).to_json()["state"]["stacks"], TOWERS)


def test_two_colours_close_in_hue():
    pieces = json.loads(json.dumps(STANDARD))
    pieces["colours"] = {
        "red": {"srgb": [200, 35, 40]},
        "vermilion": {"srgb": [225, 85, 35]},
        "blue": {"srgb": [35, 85, 200]},
    }
    close = calibrate(render_calibration(pieces, seed=13), pieces)
    assert close["summary"]["closest_colours"]["colours"] == ["red", "vermilion"]
    towers = [["4red", "3blue", "2vermilion"], ["4vermilion", "2blue", "1red"], ["3vermilion", "1blue"], ["2red"]]
    image = render_table(towers, pieces, seed=23)
    observation = recognize(image, close)
    assert same(observation.to_json()["state"]["stacks"], towers)
    # Each vermilion disc names red, its neighbour in hue, as the runner-up.
    vermilion = [d for t in observation.towers for d in t.discs if d.colour == "vermilion"]
    assert all(d.colours[1][0] == "red" for d in vermilion)


def test_small_disc_nearly_covering_the_rim_below(profile):
    # 3 mm off-centre leaves half a millimetre of the bigger disc showing on one side.
    towers = [["4blue", "3yellow"], ["3green", "2red"]]
    image = render_table(towers, STANDARD, seed=24, offsets_mm=[[(3.0, 0.0)], [(0.0, -3.0)]])
    assert same(recognize(image, profile).to_json()["state"]["stacks"], towers)


@pytest.mark.parametrize("seed", [40, 41, 42, 43])
def test_discs_on_discs_of_their_own_colour(profile, seed):
    # Only a thin dark line (side, crack, shadow) tells these apart; and a size sandwiched between
    # two discs of one colour (a 3 between 4yellow and 2yellow) must not be made up of their rims.
    towers = [["4red", "3red", "1orange"], ["4yellow", "2yellow"], ["3green", "2green", "1green"], ["2blue", "1blue"]]
    image = render_table(towers, STANDARD, seed=seed)
    assert same(recognize(image, profile).to_json()["state"]["stacks"], towers)


@pytest.mark.parametrize("seed", [41, 42])
def test_discs_on_discs_of_their_own_colour_in_a_flat_view(profile, seed):
    # A frame of less than half the contrast the camera was calibrated with (haze, a soft lens)
    # leaves the dark line of a disc on one of its own colour 1-2 grey levels deep: judged
    # direction by direction it was lost (the 1blue on 2blue, the 3red on 4red); averaged over
    # a short arc of the rim it shows, and the plain frames' textures make no ghosts of it.
    towers = [["4red", "3red", "1orange"], ["4yellow", "2yellow"], ["3green", "2green", "1green"], ["2blue", "1blue"]]
    image = render_table(towers, STANDARD, seed=seed)
    flat = np.clip(image.astype(np.float32) * 0.45 + 128 * 0.55, 0, 255).astype(np.uint8)
    assert same(recognize(flat, profile).to_json()["state"]["stacks"], towers)


@pytest.mark.parametrize("offset", [6.0, 8.0])
def test_small_disc_far_off_centre_on_a_big_one(profile, offset):
    # A 1 on a 4 can sit 10 mm off its centre without overhanging; on its own colour only its
    # dark line shows, and the colour chain does not see it.
    towers = [["4red", "1red"], ["4blue", "1orange"], ["3green", "1green"], ["4yellow", "2yellow"]]
    offsets = [[(offset, 0.0)], [(0.0, -offset)], [(-0.8 * offset, 0.0)], [(0.0, 0.7 * offset)]]
    image = render_table(towers, STANDARD, seed=50, offsets_mm=offsets)
    assert same(recognize(image, profile).to_json()["state"]["stacks"], towers)


def test_disc_the_colour_of_the_board_is_not_taken_for_one_on_its_own_colour(profile):
    # Re-shot bench photos (a dimmer, noisier or resampled camera): a white disc on a 4blue on a
    # cream board is labelled board, but resampling smears a fringe of blue just inside its rim.
    # That fringe, the only colour label there, made it "a disc on one of its own colour", judged
    # by a thin dark line it does not have, and it was lost. (The synthetic renderer does not
    # produce that fringe, so the labels are built here.) Board and other count in the ring.
    from types import SimpleNamespace

    from vision.varanasi_edge_tests import _board_like_ring
    from vision.varanasi_pixels import ring_colour
    from vision.varanasi_profile import ParsedProfile

    frame = ParsedProfile.from_profile(profile)
    names = frame.colours.names
    board, blue = len(names), names.index("blue")
    yy, xx = np.mgrid[:160, :160]
    distance = np.hypot(xx - 80, yy - 80)
    labels = np.full((160, 160), board, np.uint8)
    labels[distance <= 45] = blue
    labels[distance <= 37.5] = board  # the white disc (radius 37.5) ...
    labels[(distance <= 37.5) & (distance > 36.5)] = blue  # ... and the fringe inside its rim
    context = SimpleNamespace(labels=labels, frame=frame)
    assert ring_colour(labels, board, (80, 80), 38.0) == blue  # colour labels alone: blue
    assert _board_like_ring(context, (80, 80), 38.0)  # counting the board: board-like
    assert not _board_like_ring(context, (80, 80), 45.0)  # the blue disc below is not


def test_a_colour_the_camera_can_barely_tell_from_the_board_counts_as_board_in_the_ring(profile):
    # Tilted re-shoot (the tracker's false alarm, S1 seq015): just inside the rim of a 3white on
    # a 4blue on the cream board, labels were white 158, board 178 and blue 195 pixels (the lower
    # disc's fringe). White, whose calibrated colour lies within LABEL_SIGMA of the board, is
    # board to that test: the ring is board-like, and the disc is not judged by a dark line.
    # (The standard set has no white: yellow stands in for it here.)
    from types import SimpleNamespace

    from vision.varanasi_edge_tests import _board_like_ring
    from vision.varanasi_profile import ParsedProfile

    colours = ParsedProfile.from_profile(profile).colours
    board, blue, pale = len(colours.names), colours.names.index("blue"), colours.names.index("yellow")
    yy, xx = np.mgrid[:160, :160]
    distance, angle = np.hypot(xx - 80, yy - 80), np.arctan2(yy - 80, xx - 80) + np.pi
    labels = np.full((160, 160), board, np.uint8)
    labels[distance <= 45] = blue
    top = distance <= 37.5
    labels[top] = np.where(angle[top] < 0.3 * 2 * np.pi, pale, np.where(angle[top] < 0.64 * 2 * np.pi, board, blue))
    barely = SimpleNamespace(labels=labels, frame=SimpleNamespace(colours=colours, board_like_colours=(pale,)))
    plainly = SimpleNamespace(labels=labels, frame=SimpleNamespace(colours=colours, board_like_colours=()))
    assert _board_like_ring(barely, (80, 80), 38.0)
    assert not _board_like_ring(plainly, (80, 80), 38.0)


def test_the_edge_test_counts_every_label_of_the_ring_once_for_the_colour_and_the_board_like_test(profile):
    # `edge_candidates` counts a ring's labels once, board and other included, and reads both
    # the colours' counts and the board-like test from them (it counted the ring twice).
    from types import SimpleNamespace

    from vision.varanasi_edge_tests import _board_like, _board_like_ring
    from vision.varanasi_pixels import ring_counts
    from vision.varanasi_profile import ParsedProfile

    frame = ParsedProfile.from_profile(profile)
    board, blue = len(frame.colours.names), frame.colours.names.index("blue")
    yy, xx = np.mgrid[:160, :160]
    distance = np.hypot(xx - 80, yy - 80)
    labels = np.full((160, 160), board + 1, np.uint8)  # other
    labels[distance <= 45] = blue
    labels[distance <= 37.5] = board
    context = SimpleNamespace(labels=labels, frame=frame)
    for radius, board_like in ((38.0, True), (45.0, False)):
        every_label = ring_counts(labels, board + 2, (80, 80), radius)
        assert np.array_equal(every_label[:board], ring_counts(labels, board, (80, 80), radius))
        assert _board_like(every_label, frame) == _board_like_ring(context, (80, 80), radius) == board_like


def test_colour_chain_does_not_give_a_disc_the_colour_of_the_one_below():
    # Synthetic session 2 under the orange lamp (the bench's --synthetic, layout 3): the 3orange's
    # footprint on the 4green was read green just inside its rim (the lower disc shows through
    # the blurred rim under glare), which broke the chain and let a ghost 1yellow in. A disc the
    # chain finds is what is not the colour below, so that colour is not its colour.
    lamp = (0.7, 0.95, 1.15)
    profile = calibrate(render_calibration(STANDARD, seed=102, session=2, lamp=lamp), STANDARD)
    towers = [["4yellow", "3red"], ["4green", "3orange"], ["2green"], ["3blue"], ["4orange", "3green"], ["3yellow"]]
    image = render_table(towers, STANDARD, seed=1003, session=2, lamp=lamp, glare=True)
    stacks = recognize(image, profile).to_json()["state"]["stacks"]
    assert ["4green", "3orange"] in stacks


def test_rings_whose_pixels_match_no_colour_are_read_whole(profile):
    # A veil over the frame after calibration (haze, a lamp shining into the lens) washes the
    # faces out beyond every colour's label: a ring's few pixels still labelled a colour are then
    # its rim's fringe (the 4blue's thin ring under the 3red read orange), and the median of the
    # whole ring names it. (On the bench: a top 1green lit pale under the turned camera.)
    towers = [["4blue", "3red", "1green"], ["4purple", "2yellow", "1blue"], ["3orange", "1red"], ["4green", "3yellow", "2purple"]]
    image = render_table(towers, STANDARD, seed=32)
    veiled = np.clip(image.astype(np.float32) * 0.5 + 100, 0, 255).astype(np.uint8)
    assert same(recognize(veiled, profile).to_json()["state"]["stacks"], towers)


def test_tower_touching_the_image_edge(profile):
    towers = [["4green", "2yellow"], ["3red"]]
    # The board is bigger than the view here, so the tower stands on it while the frame cuts it.
    image = render_table(towers, STANDARD, seed=25, centres_px=[(40, 500), (700, 400)],
                         offsets_mm=[[(1.0, 0.0)], []], board_mm=(600, 450))
    assert same(recognize(image, profile).to_json()["state"]["stacks"], towers)


def test_glare_spot_on_a_tower(profile):
    # The spot brightens the tower by up to 110 grey levels, 35 px from its centre. (Glare that
    # saturates a whole tower defeats the reader: see docs/vision-varanasi.md.)
    towers = [["4purple", "3orange", "1blue"], ["2red"]]
    centres = [(640, 480), (900, 300)]
    image = render_table(towers, STANDARD, seed=26, centres_px=centres, glare=True, glare_at=(670, 460),
                         offsets_mm=[[(0.5, 0.0), (0.0, 0.5)], []])
    assert same(recognize(image, profile).to_json()["state"]["stacks"], towers)


def test_inventory_argues_away_a_disc_whose_colour_is_taken():
    # Three size-4 readings look white (a real one and two made of shadow arcs, less certain);
    # the set has one 4white. A doubtful 4red that nobody competes with stays.
    from vision.varanasi_disc_colours import settle_colours
    from vision.varanasi_observation import DiscReading, TowerReading, VaranasiObservation
    from vision.varanasi_pieces import PieceSet

    pieces = PieceSet.from_json({**STANDARD, "colours": {"white": {"srgb": [235, 235, 228]}, "red": {"srgb": [200, 35, 40]}}})

    def tower(x, presence, colours):
        return TowerReading((DiscReading(4, (x, 100.0), 50.0, presence, colours, colours[0][0]),))

    white = (("white", 0.99), ("red", 0.01))
    towers = (tower(100, 0.999, white), tower(300, 0.96, white), tower(500, 0.9, white),
              tower(700, 0.55, (("red", 0.99), ("white", 0.01))))
    settled = VaranasiObservation(settle_colours(towers, pieces), 1.0)
    assert settled.stacks() == [["4white"], ["4red"]]
    # The argued-away readings stay graded: doubtful, not impossible.
    dropped = [t.slots[0].presence for t in settled.towers[1:3]]
    assert all(0.0 < p < 0.5 for p in dropped)
    assert settled.log_likelihood({"game": "varanasi", "stacks": [["4white"], ["4red"]]}) > settled.log_likelihood(
        {"game": "varanasi", "stacks": [["4white"], ["4red"], ["4blue"]]})


def test_inventory_argues_away_a_disc_however_sure_its_rim_when_no_colour_is_left():
    # The soft re-shoot of the bench: arcs of the board's drawn curve made a lone "4white" whose
    # rim looked certain (presence 0.9993) beside the real 4white, every other size-4 colour
    # taken. Found absent, it kept p·P(c) / (p·P(c) + 1 − p) with P(c) at the floor, 0.59:
    # 1 − p must be floored as in its cost for that to stay below 0.5.
    from vision.varanasi_disc_colours import settle_colours
    from vision.varanasi_observation import DiscReading, TowerReading, VaranasiObservation
    from vision.varanasi_pieces import PieceSet

    pieces = PieceSet.from_json({**STANDARD, "colours": {"white": {"srgb": [235, 235, 228]}, "red": {"srgb": [200, 35, 40]}}})

    def tower(x, presence, colours):
        return TowerReading((DiscReading(4, (x, 100.0), 50.0, presence, colours, colours[0][0]),))

    towers = (tower(100, 1.0, (("white", 1.0), ("red", 0.0))), tower(300, 0.9993, (("white", 0.93), ("red", 0.0))),
              tower(500, 1.0, (("red", 1.0), ("white", 0.0))))
    settled = VaranasiObservation(settle_colours(towers, pieces), 1.0)
    assert settled.stacks() == [["4white"], ["4red"]]
    assert 0.0 < settled.towers[1].slots[0].presence < 0.5


def test_log_likelihood_is_graded_and_order_free(observation):
    truth = {"game": "varanasi", "stacks": TOWERS}
    shuffled = {"game": "varanasi", "stacks": TOWERS[::-1], "to_move": 1}
    one_colour = {"game": "varanasi", "stacks": [["4red", "3blue", "1orange"], ["4yellow", "3purple", "2green", "1yellow"], ["2red"], ["4orange", "2purple"]]}
    one_disc_gone = {"game": "varanasi", "stacks": [["4red", "3blue"], ["4yellow", "3purple", "2green", "1yellow"], ["2blue"], ["4orange", "2purple"]]}
    other = {"game": "varanasi", "stacks": [["4blue", "3red", "2orange", "1green"]]}
    best = observation.log_likelihood(truth)
    assert observation.log_likelihood(shuffled) == pytest.approx(best)
    scores = [observation.log_likelihood(s) for s in (one_colour, one_disc_gone, other)]
    assert all(np.isfinite(scores))
    assert best > scores[0] and best > scores[1]
    assert min(scores[0], scores[1]) > scores[2]


def test_log_likelihood_rejects_malformed_states(observation):
    with pytest.raises(ArbiterError):
        observation.log_likelihood({"game": "wari", "pits": [4] * 12})
    with pytest.raises(ArbiterError):
        observation.log_likelihood({"game": "varanasi", "stacks": [["red"]]})


def test_profile_of_another_game_is_an_error():
    image = np.zeros((960, 1280, 3), np.uint8)
    with pytest.raises(ArbiterError, match="not varanasi"):
        recognize(image, {"game": "wari"})
    with pytest.raises(ArbiterError, match="damaged"):
        recognize_any(image, {"game": "varanasi"})


def test_a_profile_changed_in_place_is_parsed_again(profile):
    # Parsed profiles are kept for the next frames (by identity); a change must not go unseen.
    changed = json.loads(json.dumps(profile))
    image = render_table(TOWERS, STANDARD, seed=21)
    assert same(recognize(image, changed).stacks(), TOWERS)
    changed["image_size"] = [640, 480]
    with pytest.raises(ArbiterError, match="calibrated on 640x480"):
        recognize(image, changed)


def test_frame_of_another_size_than_calibration_is_an_error(profile):
    with pytest.raises(ArbiterError, match="640x480 but the profile was calibrated on 1280x960"):
        recognize(np.zeros((480, 640, 3), np.uint8), profile)


@pytest.mark.parametrize("kind", ["black", "white", "noise"])
def test_frames_without_a_board_give_low_confidence(profile, kind):
    rng = np.random.default_rng(1)
    image = {
        "black": np.zeros((960, 1280, 3), np.uint8),
        "white": np.full((960, 1280, 3), 255, np.uint8),
        "noise": rng.integers(0, 256, (960, 1280, 3), dtype=np.uint8),
    }[kind]
    data = recognize(image, profile).to_json()
    assert data["confidence"] < 0.2
    assert "board" in data["evidence"]["note"]


def test_a_hand_over_the_board_lowers_confidence(profile):
    image = render_table(TOWERS, STANDARD, seed=27)
    clear = recognize(image, profile).confidence
    cv2.ellipse(image, (640, 560), (260, 170), 20, 0, 360, (120, 150, 205), -1)
    covered = recognize(image, profile).to_json()
    assert covered["confidence"] < 0.2 < clear
    assert "covers" in covered["evidence"]["note"]


def test_overlay_draws_on_a_copy(observation):
    image = render_table(TOWERS, STANDARD, seed=21)
    before = image.copy()
    drawn = draw_overlay(image, observation)
    assert drawn.shape == image.shape and drawn.dtype == image.dtype
    assert np.array_equal(image, before)
    assert np.count_nonzero(np.any(drawn != image, axis=2)) > 2000
    assert np.array_equal(draw_overlay(image, observation.to_json()), drawn)
