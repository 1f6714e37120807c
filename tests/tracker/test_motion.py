"""The motion gate reads a position once per still period and never with an arm over the table."""
from __future__ import annotations

import cv2
import numpy as np

from device.cameras import draw_arm
from tests.tracker.fakes import position_frame
from vision.motion import HAND, MOVING, STABLE, MotionGate

FPS = 10


def feed(gate: MotionGate, frames, start: float = 0.0) -> list:
    return [gate.update(frame, start + i / FPS) for i, frame in enumerate(frames)]


def test_a_still_table_settles_once_after_the_still_time():
    readings = feed(MotionGate(still_seconds=0.6), [position_frame(0)] * 20)
    settled = [i for i, r in enumerate(readings) if r.settled]
    assert settled == [7]  # the first frame has no predecessor; then 0.6 s of stillness
    assert readings[-1].status == STABLE


def test_sensor_noise_is_not_motion():
    rng = np.random.default_rng(0)
    frames = [np.clip(position_frame(0).astype(int) + rng.integers(-4, 5, position_frame(0).shape), 0, 255)
              .astype(np.uint8) for _ in range(20)]
    assert any(r.settled for r in feed(MotionGate(), frames))


def test_a_moving_arm_is_motion_and_a_still_arm_is_a_hand():
    gate = MotionGate()
    feed(gate, [position_frame(0)] * 10)
    arm = [draw_arm(position_frame(0), reach, seed=1) for reach in (0.2, 0.4, 0.6)]
    assert [r.status for r in feed(gate, arm, start=1.0)] == [MOVING] * 3
    held = feed(gate, [arm[-1]] * 30, start=1.3)
    assert {r.status for r in held[1:]} == {HAND}
    assert not any(r.settled for r in held)


def test_a_move_made_and_hand_withdrawn_settles_on_the_new_position():
    gate = MotionGate()
    feed(gate, [position_frame(0)] * 10)
    frames = [draw_arm(position_frame(0), 0.5, seed=2), draw_arm(position_frame(1), 0.5, seed=3)]
    frames += [position_frame(1)] * 10
    readings = feed(gate, frames, start=1.0)
    assert sum(r.settled for r in readings) == 1 and readings[-1].status == STABLE


def test_a_small_change_seen_without_motion_is_read_again():
    """At a low frame rate a quick hand can fall between frames; the board change still shows."""
    gate = MotionGate()
    feed(gate, [position_frame(0)] * 10)
    nudged = position_frame(0)
    nudged[60:66, 20:26] = 200  # one small piece moved: too small a change to count as motion
    readings = feed(gate, [nudged] * 10, start=1.0)
    assert readings[0].status == MOVING and [r.settled for r in readings].count(True) == 1


def test_a_change_of_light_is_not_a_hand():
    gate = MotionGate()
    feed(gate, [position_frame(0)] * 10)
    brighter = np.clip(position_frame(0).astype(int) + 60, 0, 255).astype(np.uint8)
    assert any(r.settled for r in feed(gate, [brighter] * 10, start=1.0))


def test_something_left_at_the_edge_is_read_after_the_patience_time():
    gate = MotionGate(hand_patience=3.0)
    feed(gate, [position_frame(0)] * 10)
    arm = draw_arm(position_frame(0), 0.3, seed=4)
    readings = feed(gate, [arm] * 50, start=1.0)  # still from 1.1 s, read at 4.1 s + one frame
    assert readings[10].status == HAND and [i for i, r in enumerate(readings) if r.settled] == [32]


def test_a_move_that_changes_colour_but_not_grey_is_seen():
    """A disc moved onto one of another hue and the same brightness: no grey level changes."""
    before = np.full((480, 640, 3), 128, np.uint8)
    cv2.circle(before, (320, 240), 40, (40, 200, 90), -1)  # a green disc
    after = before.copy()
    cv2.circle(after, (320, 240), 40, (230, 112, 192), -1)  # a purple one, as bright in grey
    grey = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in (before, after)]
    assert np.abs(grey[0].astype(int) - grey[1].astype(int)).max() <= 2
    gate = MotionGate()
    settled = feed(gate, [before] * 10)
    assert sum(r.settled for r in settled) == 1
    # The disc is swapped between two frames (a hand too quick for the camera): read again.
    assert sum(r.settled for r in feed(gate, [after] * 10, start=1.0)) == 1
