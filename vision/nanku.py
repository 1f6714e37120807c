"""Reading a Nanku structure from a picture taken from above, by drawing candidates and comparing.

Nanku has no board: the structure stands on a bare table and may be slid or turned between
pictures, and a cube under another cannot be seen. So the recogniser does not read cubes one by
one. It knows, from calibration, the camera and what table, white and black faces look like
(vision/nanku_pixels.py); a candidate structure is drawn as the camera would see it
(vision/nanku_camera.py) at the pose where it fits best (vision/nanku_pose.py) and costs what its
pixels' colours say. The judge asks for the cost of positions the game can reach; the frame's own
best reading is the last structure changed by one placement, legal or not, or by the slips players
make (vision/nanku_readings.py).

Profile (calibration/nanku.py): {"game": "nanku", "image_size": [w, h], "camera": Camera JSON at
the photo's size, "appearance": Appearance JSON, "first_piece": [[x, y, z, colour], ...]}.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from engines.errors import ArbiterError
from vision.nanku_camera import TABLE, Camera, Cell, cubes_of
from vision.nanku_params import FOREIGN_CUBES, CAMERA_FIT_PIECES, PIXEL_COST_CAP, POSES_TRIED, SETTLE_WITHIN, WORKING_CUBE_PX
from vision.nanku_pixels import Appearance, Costs, class_costs, lit_pixels, measured, reduce_frame
from vision.nanku_pose import Scene, fit_camera, fit_pose, fit_poses
from vision.nanku_readings import Frame, Reading, read_changes, state_json, top_view

# The first piece's shapes, in the frame the contract gives the first piece (white at the origin).
# Lying, it is white at the origin and black along x (the other order is the same piece turned);
# standing, either colour may be at the bottom.
FIRST_SHAPES = (((0, 0, 0, "white"), (1, 0, 0, "black")),
                ((0, 0, 0, "white"), (0, 0, 1, "black")),
                ((0, 0, 0, "black"), (0, 0, 1, "white")))


def parse_profile(profile: dict) -> tuple[Camera, Appearance, tuple[int, int] | None]:
    if not isinstance(profile, dict) or profile.get("game") != "nanku":
        raise ArbiterError("not a Nanku profile (\"game\" must be \"nanku\"); calibrate with `arbiter calibrate nanku`")
    try:
        camera = Camera.from_json(profile["camera"])
        appearance = Appearance.from_json(profile["appearance"])
        size = profile.get("image_size")
        size = (int(size[0]), int(size[1])) if size is not None else None
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ArbiterError(f"the Nanku profile is damaged ({exc}); calibrate again") from None
    if not (camera.focal > 0 and camera.height > 1):
        raise ArbiterError("the Nanku profile's camera is impossible; calibrate again")
    return camera, appearance, size


def make_scene(image_bgr: np.ndarray, camera: Camera, appearance: Appearance, factor: float | None = None) -> Scene:
    """The frame reduced to the working scale (or by `factor`) and its cost maps."""
    cube_px = camera.cube_px
    factor = min(1.0, WORKING_CUBE_PX / cube_px) if factor is None else factor
    small = reduce_frame(image_bgr, factor)
    actual = small.shape[1] / image_bgr.shape[1]
    working = camera.scaled(actual)
    pixels = lit_pixels(small, appearance, cube_px * actual)
    return Scene(Costs(class_costs(pixels, appearance), cube_px * actual, pixels), working, appearance)


def measured_scene(frame: Frame) -> Scene:
    """The frame's scene with each face class as the frame's structure shows it in this picture
    (`vision.nanku_pixels.measured`): the faces a reading adds are compared with the faces of the
    same picture, not with the calibration photo's."""
    scene = frame.scene
    costs = scene.costs
    if costs.pixels is None or scene.appearance is None:
        return scene
    appearance = measured(scene.appearance, costs.pixels, frame.drawing, scene.camera.cube_px)
    maps = class_costs(costs.pixels, appearance, (costs.maps, scene.appearance))
    return Scene(Costs(maps, costs.per_cube_px, costs.pixels), scene.camera, appearance)


class NankuObservation:
    """A frame's reading; the costs of candidate structures are computed when the judge asks."""

    def __init__(self, scene: Scene):
        self.scene = scene
        self._frames: dict[frozenset, Frame] = {}
        self._readings: dict[frozenset, Reading] = {}
        self._following: tuple[Cell, ...] = ()
        self._seen: NankuObservation | None = None  # the last picture of the position reached
        self._cameras: dict[frozenset, Camera] = {}

    def weighed_after(self, seen) -> NankuObservation:
        """This picture, read with the camera fitted on `seen` (the judge's last picture of the
        position reached, `arbiter.judge.Judge.seen`): that picture shows the whole structure the
        game reached, so no new piece pulls the fit, as one fitted to the structure before it on
        this picture would be (a lower camera draws the old tops larger and nearer, over a piece
        stacked on them)."""
        if isinstance(seen, NankuObservation) and seen is not self:
            seen._seen = None  # judged: only its own picture is needed now
            self._seen = seen
        return self

    def _camera_showing(self, base: tuple[Cell, ...]) -> Camera | None:
        """The camera fitted on this picture to `base`, where this picture was read from a
        structure that `base` grows from by a piece or two; None otherwise."""
        grown = len(base) - len(self._following)
        if not self._following or not 0 <= grown <= 4 or not set(self._following) <= set(base):
            return None
        key = frozenset(base)
        if key not in self._cameras:
            _, frame = self._current()
            self._cameras[key] = fit_camera(frame.scene, base, frame.pose)[0].camera
        return self._cameras[key]

    def _frames_for(self, base: tuple[Cell, ...], scene: Scene | None = None) -> list[Frame]:
        """The base laid at its few best poses (on `scene`, by default the picture's own)."""
        scene = scene or self.scene
        if not base:
            # The empty table: the first piece's frame is wherever it lies.
            fits = [(fit_pose(scene, shape), shape) for shape in FIRST_SHAPES]
            (pose, _), _ = min(fits, key=lambda f: f[0][1])
            return [Frame(scene, base, pose)]
        fits = fit_poses(scene, base, POSES_TRIED)
        # A reading adds at most two pieces, which can lower a pose's cost by no more than every
        # pixel under four cubes costing nothing instead of the most: a pose further behind the
        # best cannot win and is not read.
        reach = 4 * scene.camera.cube_px ** 2 * PIXEL_COST_CAP / scene.costs.per_observation
        best = min(cost for _, cost in fits)
        # The faces measured where the structure lies at its best pose, for every pose read: the
        # readings of one picture are compared on one appearance.
        lit = measured_scene(Frame(scene, base, fits[0][0]))
        return [Frame(lit, base, pose) for pose, cost in fits if cost <= best + reach]

    def _reading(self, following: dict | None) -> Reading:
        return self._read(tuple(cubes_of(following)) if isinstance(following, dict) else ())

    def _current(self) -> tuple[Reading, Frame]:
        """The reading of the structure last followed, and the frame it was read on."""
        reading = self._read(self._following)
        return reading, self._frames[frozenset(self._following)]

    def _read(self, base: tuple[Cell, ...]) -> Reading:
        key = frozenset(base)
        if key not in self._readings:
            if base:
                # The pose whose best reading explains the picture best: the base alone may
                # fit best where the new piece stands.
                carried = (self._seen._camera_showing(base)
                           if self._seen is not None and len(base) >= 2 * CAMERA_FIT_PIECES else None)
                scene = Scene(self.scene.costs, carried, self.scene.appearance) if carried is not None else None
                readings = [(read_changes(frame), frame) for frame in self._frames_for(base, scene)]
                reading, frame = min(readings, key=lambda pair: pair[0].cost)
                if carried is None and len(base) >= 2 * CAMERA_FIT_PIECES:
                    # The camera fitted to the structure at the pose read best, and read again.
                    scene, pose, _ = fit_camera(frame.scene, base, frame.pose)
                    frame = Frame(scene, base, pose)
                    reading = read_changes(frame)
            else:
                frame = self._frames_for(base)[0]
                costs = [Reading(shape, frame.cost_of(shape)) for shape in FIRST_SHAPES]
                reading = min(costs + [Reading((), frame.cost_of(()))], key=lambda r: r.cost)
            self._frames[key] = frame
            # The pose was found for the structure before; the reading's own pose may sit better.
            if reading.cubes and reading.cubes != base:
                pose, _ = fit_pose(frame.scene, reading.cubes, near=frame.pose)
                refit = Frame(frame.scene, reading.cubes, pose)
                if refit.cost < reading.cost:
                    frame = refit
                    self._frames[key] = Frame(frame.scene, base, pose)
                    reading = Reading(reading.cubes, refit.cost)
            self._readings[key] = reading
        self._following = base
        return self._readings[key]

    def best_log_likelihood(self, following: dict | None = None) -> float:
        return -self._reading(following).cost

    def best_reading(self, following: dict | None = None) -> dict:
        return state_json(self._reading(following).cubes)

    def doubtful(self, candidate: dict, following: dict) -> str:
        """"heights" where the candidate differs from the best reading grown from `following` only
        in what a camera above barely sees: every column shows the same colour on top in both
        (they differ in a column's height or in cubes under its top); "" otherwise. A table that
        differs there is no slip the camera can stand by (the judge asks instead of flagging)."""
        read = tuple(cubes_of(self.best_reading(following)))
        wanted = tuple(cubes_of(candidate))
        return "heights" if set(read) != set(wanted) and top_view(read) == top_view(wanted) else ""

    def best_log_likelihood_of(self, states: Iterable[dict]) -> float:
        """The largest `log_likelihood` among the states (minus infinity for none), the same as
        scoring each, but drawing only those a bound does not rule out: a candidate whose least
        possible cost (`Frame.cost_bound`) is past the best found so far, and too far from the
        best reading to be refitted at its own pose, cannot be the best."""
        reading, frame = self._current()
        tables = [tuple(cubes_of(state)) for state in states]
        frame.projection.add(cube[:3] for cubes in tables for cube in cubes)  # every table's cells in one step
        bounded = sorted((frame.cost_bound(cubes), index, cubes) for index, cubes in enumerate(tables))
        best = math.inf
        for bound, _, cubes in bounded:
            if bound >= best and bound >= reading.cost + SETTLE_WITHIN:
                break
            best = min(best, self._cost(cubes))
        return -best

    def log_likelihood(self, state_json_: dict) -> float:
        """Minus the cost of the candidate drawn at the pose of the structure it grows from."""
        return -self._cost(tuple(cubes_of(state_json_)))

    def _cost(self, cubes: tuple[Cell, ...]) -> float:
        reading, frame = self._current()
        cost = frame.cost_of(cubes)
        # A candidate near the best reading is scored at its own best pose, as the best readings
        # were: contenders are compared on equal terms.
        if cost < reading.cost + SETTLE_WITHIN:
            cost = frame.settle(cubes)
        return cost

    @property
    def following(self) -> tuple[Cell, ...]:
        """The structure the last reading grew from (empty before the first)."""
        return self._following

    def drawn_reading(self) -> tuple[tuple[Cell, ...], object, Scene]:
        """The best reading's cubes, the pose they are drawn at and the frame's fitted camera."""
        reading, frame = self._current()
        return reading.cubes, frame.pose, frame.scene

    @property
    def confidence(self) -> float:
        """Low where much of the picture looks like no face and no table (a hand, an arm, another
        scene): asked before any structure is laid on the frame, so it needs none."""
        costs = self.scene.costs
        foreign = costs.least > PIXEL_COST_CAP / 2
        return float(math.exp(-foreign.sum() / (FOREIGN_CUBES * self.scene.camera.cube_px ** 2)))

    def explained_share(self) -> float:
        """The share of the frame's non-table pixels the best reading explains: read alone (no
        structure before it), a frame is read as its first piece, and shows how much that leaves."""
        reading, frame = self._current()
        drawing = Frame(frame.scene, reading.cubes, frame.pose).drawing
        costs = frame.scene.costs
        foreground = costs.maps[TABLE] > PIXEL_COST_CAP / 2
        unexplained = foreground & (costs.unexplained(drawing) > PIXEL_COST_CAP / 2)
        return 1.0 - float(unexplained.sum()) / max(1.0, float(foreground.sum()))

    def to_json(self) -> dict:
        """The reading with its confidence, which counts what the reading leaves unexplained: a
        frame read without the structure before it is read as its first piece only."""
        reading, frame = self._current()
        share = self.explained_share()
        return {"state": state_json(reading.cubes), "confidence": round(min(self.confidence, share), 4),
                "evidence": {"pose": {"x_cubes": round(frame.pose.x, 3), "y_cubes": round(frame.pose.y, 3),
                                      "turn_degrees": round(math.degrees(frame.pose.turn) % 360, 2)},
                             "cost": round(reading.cost, 2), "explained_share": round(share, 3),
                             "read_from": "the position before" if self._following else "the table alone: first piece only"}}


def recognize(image_bgr: np.ndarray, profile: dict) -> NankuObservation:
    camera, appearance, size = parse_profile(profile)
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or min(image_bgr.shape[:2]) < 16:
        raise ArbiterError("the frame is not a colour image")
    height, width = image_bgr.shape[:2]
    if size is not None and (width, height) != size:
        raise ArbiterError(f"the frame is {width}x{height} but the profile was calibrated on {size[0]}x{size[1]} "
                           "frames; calibrate this camera mode")
    return NankuObservation(make_scene(image_bgr, camera, appearance))
