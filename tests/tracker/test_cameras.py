"""Camera sources deliver BGR frames with times, end cleanly, and name bad specs clearly."""
from __future__ import annotations

import sys
import types

import cv2
import numpy as np
import pytest

from device.cameras import CameraError, CameraLost, OpenCVCamera, Picamera2Camera, SimulatedCamera, open_camera
from tests.tracker.fakes import frame_index, position_frame


def drain(camera) -> list:
    camera.open()
    frames = []
    while (frame := camera.read()) is not None:
        frames.append(frame)
    camera.close()
    return frames


def test_stills_from_a_folder_are_each_held_for_some_frames(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"seq{i:03d}.png"), position_frame(i))
    (tmp_path / "notes.txt").write_text("not an image")
    frames = drain(open_camera(f"folder:{tmp_path}"))
    assert len(frames) == 30
    assert [frame_index(f.image) for f in frames[::10]] == [0, 1, 2]
    assert frames[10].label == str(tmp_path / "seq001.png")
    assert all(b.at > a.at for a, b in zip(frames, frames[1:]))


def test_a_video_file_plays_to_its_end(tmp_path):
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (160, 120))
    for i in range(8):
        writer.write(position_frame(i))
    writer.release()
    frames = drain(open_camera(f"file:{path}"))
    assert len(frames) == 8 and frames[0].image.shape == (120, 160, 3)
    assert frames[1].at == pytest.approx(0.4)


def test_the_simulated_camera_puts_an_arm_between_positions():
    camera = SimulatedCamera([position_frame(0), position_frame(1)], still_frames=5, reach_frames=3, hold_frames=2)
    frames = drain(camera)
    assert len(frames) == 5 + 3 + 2 + 2 + 5
    arms = frames[5:12]
    assert all(not np.array_equal(f.image, position_frame(0)) and not np.array_equal(f.image, position_frame(1))
               for f in arms)
    assert np.array_equal(frames[-1].image, position_frame(1))


@pytest.mark.parametrize("spec, message", [
    ("usb:zero", "expected usb:N"),
    ("webcam", "unknown camera 'webcam'"),
    ("folder:/no/such/folder", "no such folder"),
])
def test_bad_camera_specs_are_named(spec, message):
    with pytest.raises(CameraError, match=message):
        open_camera(spec)


def test_a_missing_video_file_is_named(tmp_path):
    with pytest.raises(CameraError, match="no such video file"):
        open_camera(f"file:{tmp_path / 'nope.mp4'}").open()


def test_an_absent_webcam_is_a_lost_camera():
    with pytest.raises(CameraLost, match="cannot be opened"):
        OpenCVCamera(97).open()


def test_picamera2_missing_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import now fails as on a PC
    with pytest.raises(CameraError, match="apt install python3-picamera2"):
        Picamera2Camera().open()


class FakePicamera2:
    """The calls Arbiter makes on picamera2.Picamera2, recorded."""

    def __init__(self):
        self.controls = {}
        self.requests = 0

    def create_video_configuration(self, main):
        return {"main": main}

    def configure(self, config):
        self.config = config

    def start(self):
        pass

    def capture_metadata(self):
        return {"ExposureTime": 8000, "AnalogueGain": 1.5, "ColourGains": (1.9, 1.6)}

    def set_controls(self, controls):
        self.controls.update(controls)

    def capture_request(self):
        camera = self

        class Request:
            def make_array(self, name):
                camera.requests += 1
                return np.zeros((960, 1280, 3), np.uint8)

            def release(self):
                camera.requests -= 1

        return Request()


def test_picamera2_locks_exposure_and_white_balance_and_releases_each_request(monkeypatch):
    fake = FakePicamera2()
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=lambda: fake))
    camera = Picamera2Camera(settle_seconds=0)
    camera.open()
    frame = camera.read()
    assert frame.image.shape == (960, 1280, 3)
    assert fake.config["main"]["format"] == "RGB888"
    assert fake.controls == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 8000,
                             "AnalogueGain": 1.5, "ColourGains": (1.9, 1.6)}
    assert fake.requests == 0
