"""Camera sources: one small interface, several sources of BGR frames.

Every source has `open()`, `read() -> Frame | None` (None: the source has ended, e.g. the end of a
video file) and `close()`, and raises `CameraLost` when a live camera stops answering; the tracker
then closes and re-opens it. Each frame carries its time in seconds: real cameras use the monotonic
clock, recorded sources (stills, simulations) a virtual clock at their nominal frame rate, so the
motion gate behaves the same however fast the frames are processed. A source with `live` true (a
webcam, a stream, the Pi camera) delivers frames at its own pace: the tracker reads it on a thread
of its own and judges the newest frame, so that the live view keeps its frame rate during a
verdict; recorded sources are judged frame by frame.

`picamera2` is imported only when a Picamera2 source is opened: it is not on PyPI for this use but
comes from Raspberry Pi OS (`apt install python3-picamera2`, venv made with
`--system-site-packages`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.io import read_image

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
PICAMERA_SIZE = (1280, 960)
# Auto exposure and white balance run this long, then are frozen so colours stay put for the game.
PICAMERA_SETTLE_SECONDS = 2.0
RECORDED_FPS = 10.0
# Frames each still is shown for, so the motion gate sees it settle (0.6 s at 10 fps, with margin).
STILL_REPEATS = 10


class CameraError(ArbiterError):
    """A camera source that cannot be opened or named (bad spec, missing device, missing file)."""


class CameraLost(CameraError):
    """A live camera stopped delivering frames (unplugged, network drop); it may come back."""


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    at: float  # seconds
    label: str | None = None  # where the picture comes from, when it has a name (a still's path)


class OpenCVCamera:
    """Any OpenCV VideoCapture source: a USB webcam index, a video file or a stream URL."""

    def __init__(self, source: int | str):
        self.source = source
        self.is_file = isinstance(source, str) and "://" not in source
        self._capture = None
        self._frames = 0
        self._fps = RECORDED_FPS

    @property
    def name(self) -> str:
        return f"usb:{self.source}" if isinstance(self.source, int) else str(self.source)

    @property
    def live(self) -> bool:
        """Frames come at the camera's pace (a webcam, a stream), not on demand (a video file)."""
        return not self.is_file

    def open(self) -> None:
        if self.is_file and not Path(self.source).is_file():
            raise CameraError(f"{self.source}: no such video file")
        capture = cv2.VideoCapture(self.source)
        if not capture.isOpened():
            capture.release()
            if self.is_file:
                raise CameraError(f"{self.source}: not a video OpenCV can read")
            raise CameraLost(f"camera {self.name} cannot be opened (unplugged, busy or wrong index/URL?)")
        self._capture = capture
        if self.is_file:
            fps = capture.get(cv2.CAP_PROP_FPS)
            self._fps = fps if fps and fps > 0 else RECORDED_FPS

    def read(self) -> Frame | None:
        if self._capture is None:
            raise CameraLost(f"camera {self.name} is not open")
        ok, image = self._capture.read()
        if not ok or image is None:
            if self.is_file:
                return None
            raise CameraLost(f"camera {self.name} stopped delivering frames")
        self._frames += 1
        at = self._frames / self._fps if self.is_file else time.monotonic()
        return Frame(image, at)

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class Picamera2Camera:
    """The Raspberry Pi camera through Picamera2: BGR frames, exposure and white balance locked."""

    name = "picamera2"
    live = True  # frames come at the camera's pace

    def __init__(self, size: tuple[int, int] = PICAMERA_SIZE, settle_seconds: float = PICAMERA_SETTLE_SECONDS):
        self.size = size
        self.settle_seconds = settle_seconds
        self._camera = None

    def open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise CameraError("picamera2 is not installed: on Raspberry Pi OS run `sudo apt install "
                              "python3-picamera2` and create the venv with --system-site-packages") from None
        try:
            camera = Picamera2()
            # Picamera2's "RGB888" lays pixels out as B, G, R: OpenCV's order, no conversion needed.
            camera.configure(camera.create_video_configuration(main={"size": self.size, "format": "RGB888"}))
            camera.start()
            time.sleep(self.settle_seconds)
            settled = camera.capture_metadata()
            camera.set_controls({
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": settled["ExposureTime"],
                "AnalogueGain": settled["AnalogueGain"],
                "ColourGains": settled["ColourGains"],
            })
        except (RuntimeError, OSError, KeyError, IndexError) as exc:
            # IndexError: Picamera2() with no camera attached looks past the end of its camera list.
            raise CameraLost(f"the Raspberry Pi camera cannot be opened: {exc}") from None
        self._camera = camera

    def read(self) -> Frame:
        if self._camera is None:
            raise CameraLost("the Raspberry Pi camera is not open")
        try:
            request = self._camera.capture_request()
            try:
                image = request.make_array("main")
            finally:
                request.release()
        except (RuntimeError, OSError) as exc:
            raise CameraLost(f"the Raspberry Pi camera stopped: {exc}") from None
        return Frame(np.ascontiguousarray(image[:, :, :3]), time.monotonic())

    def close(self) -> None:
        if self._camera is not None:
            try:
                self._camera.stop()
                self._camera.close()
            except (RuntimeError, OSError):
                pass  # closing a camera that has already gone: nothing left to release
            self._camera = None


class StillsCamera:
    """A list of still photos, each shown for `repeats` frames of a virtual 10 fps clock."""

    def __init__(self, paths: Sequence[str | Path], repeats: int = STILL_REPEATS, name: str = "stills"):
        if not paths:
            raise CameraError(f"{name}: no images (.jpg, .jpeg, .png) to show")
        self.paths = [Path(p) for p in paths]
        self.repeats = repeats
        self.name = name
        self._index = 0
        self._image: np.ndarray | None = None

    @classmethod
    def from_folder(cls, folder: str | Path, repeats: int = STILL_REPEATS) -> "StillsCamera":
        folder = Path(folder)
        if not folder.is_dir():
            raise CameraError(f"{folder}: no such folder of images")
        paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        return cls(paths, repeats, name=str(folder))

    def open(self) -> None:
        self._index = 0

    def read(self) -> Frame | None:
        still, repeat = divmod(self._index, self.repeats)
        if still >= len(self.paths):
            return None
        if repeat == 0:
            self._image = read_image(self.paths[still])
        self._index += 1
        return Frame(self._image, self._index / RECORDED_FPS, str(self.paths[still]))

    def close(self) -> None:
        self._image = None


SKIN_BGR = (120, 160, 215)


def draw_arm(image: np.ndarray, reach: float, seed: int) -> np.ndarray:
    """A skin-coloured arm entering from the bottom edge and reaching `reach` (0..1) up the picture."""
    rng = np.random.default_rng(seed)
    out = image.copy()
    height, width = out.shape[:2]
    x0 = int(width * rng.uniform(0.3, 0.7))
    tip = (int(x0 + width * rng.uniform(-0.15, 0.15)), int(height * (1 - reach)))
    thickness = max(8, width // 10)
    cv2.line(out, (x0, height + thickness), tip, SKIN_BGR, thickness)
    cv2.circle(out, tip, int(thickness * 0.7), SKIN_BGR, -1)
    return out


class SimulatedCamera:
    """Plays scripted table pictures: each position held still, an arm over the table in between.

    `positions` are rendered pictures of the table after each move (the first: the opening).
    """

    def __init__(self, positions: Iterable[np.ndarray], still_frames: int = STILL_REPEATS,
                 reach_frames: int = 3, hold_frames: int = 4, seed: int = 0, realtime: bool = False,
                 name: str = "sim"):
        self.positions = list(positions)
        self.still_frames = still_frames
        self.reach_frames = reach_frames
        self.hold_frames = hold_frames
        self.seed = seed
        self.realtime = realtime
        self.name = name
        self._frames: Iterator[np.ndarray] | None = None
        self._count = 0

    def _script(self) -> Iterator[np.ndarray]:
        for index, picture in enumerate(self.positions):
            if index:
                # The arm reaches in over the old position, rests still while the piece is let go
                # (the gate must call that "hand", not "stable"), and withdraws over the new one.
                reaches = [0.75 * (step + 1) / self.reach_frames for step in range(self.reach_frames)]
                arm_seed = self.seed * 1000 + index
                for reach in reaches:
                    yield draw_arm(self.positions[index - 1], reach, arm_seed)
                for _ in range(self.hold_frames):
                    yield draw_arm(picture, reaches[-1], arm_seed)
                for reach in reversed(reaches[:-1]):
                    yield draw_arm(picture, reach, arm_seed)
            for _ in range(self.still_frames):
                yield picture

    def open(self) -> None:
        self._frames = iter(self._script())
        self._count = 0

    def read(self) -> Frame | None:
        if self._frames is None:
            raise CameraLost(f"{self.name} is not open")
        image = next(self._frames, None)
        if image is None:
            return None
        self._count += 1
        if self.realtime:
            time.sleep(1 / RECORDED_FPS)
        return Frame(image, self._count / RECORDED_FPS)

    def close(self) -> None:
        self._frames = None


def open_camera(spec: str):
    """The camera source a `--camera` spec names: picamera2, usb:N, file:PATH, folder:DIR, URL.

    Simulated cameras (`sim:...`) need a game engine to script them; `arbiter.run` builds those.
    """
    kind, _, rest = spec.partition(":")
    if spec == "picamera2":
        return Picamera2Camera()
    if kind == "usb":
        if not rest.isdigit():
            raise CameraError(f"camera {spec!r}: expected usb:N with N the webcam index, e.g. usb:0")
        return OpenCVCamera(int(rest))
    if kind == "file" and rest:
        return OpenCVCamera(rest)
    if kind == "folder" and rest:
        return StillsCamera.from_folder(rest)
    if kind in ("rtsp", "http", "https") and rest.startswith("//"):
        return OpenCVCamera(spec)
    raise CameraError(f"unknown camera {spec!r}: expected picamera2, usb:N, file:PATH, folder:DIR, "
                      "rtsp://... or sim:GAME")
