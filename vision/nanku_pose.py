"""Finding where a known structure lies in a frame: its shift and turn on the table.

Players may slide or turn the whole structure between pictures, so every frame's pose is found
afresh: the structure's drawing is laid where the frame's non-table pixels gather, at every turn
of a full circle, and the best few are refined by pattern search on the drawing's cost.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from vision.nanku_camera import TABLE, Camera, Cell, FaceSet, Pose, paint_classes, project_cubes
from vision.nanku_params import (CAMERA_STEPS_FIRST, CAMERA_STEPS_LAST, HEIGHT_LIMITS, LEAN_LIMIT, PIXEL_COST_CAP,
                                 POSE_STEP_FIRST, POSE_STEP_LAST, START_SHIFTS, TURN_STEPS)
from vision.nanku_pixels import Appearance, Costs


@dataclass
class Scene:
    """One frame's cost maps and the camera at the working scale."""

    costs: Costs
    camera: Camera
    appearance: Appearance | None = None  # what the costs were computed from, where known

    def faces(self, cubes: Sequence[Cell], pose: Pose, solid=()) -> FaceSet:
        return project_cubes(cubes, self.camera, pose, solid)

    def drawing(self, cubes: Sequence[Cell], pose: Pose) -> np.ndarray:
        return paint_classes(self.faces(cubes, pose), self.costs.shape)

    def cost(self, cubes: Sequence[Cell], pose: Pose) -> float:
        """The frame's cost drawn as `cubes`: painted only around them, the table elsewhere."""
        if not cubes:
            return self.costs.table_total
        # The pattern searches step back to poses they drew (a step tried both ways): the cost of
        # one drawing is kept with the frame's costs, by structure, pose and camera.
        key = (tuple(cubes), pose, self.camera)
        cost = self.costs.drawn.get(key)
        if cost is None:
            cost = self.costs.drawn[key] = self._drawn_cost(cubes, pose)
        return cost

    def _drawn_cost(self, cubes: Sequence[Cell], pose: Pose) -> float:
        faces = self.faces(cubes, pose)
        if not faces.seen.any():
            return self.costs.table_total
        height, width = self.costs.shape
        x0, y0, x1, y1 = faces.bounds()
        left, top = max(0, int(x0) - 1), max(0, int(y0) - 1)
        right, bottom = min(width, int(x1) + 2), min(height, int(y1) + 2)
        if right <= left or bottom <= top:
            return self.costs.table_total
        window = paint_classes(faces, (bottom - top, right - left), (left, top))
        return (self.costs.table_total - self.costs.table_cost(left, top, right, bottom)
                + self.costs.cost(window, (left, top)))

    def foreground(self) -> np.ndarray:
        """Pixels the table colour does not explain."""
        return self.costs.maps[TABLE] > PIXEL_COST_CAP / 2


def _pattern_search(scene: Scene, cubes: Sequence[Cell], pose: Pose, cost: float, pose_first, camera_first,
                    scale_range=(0.0, float("inf")), tolerance: float = 0.0) -> tuple[Scene, Pose, float]:
    """Pattern search on the drawing's cost over the pose (x, y, turn) and the camera (pitch,
    roll, height, scale): each step tried both ways, kept where it lowers the cost by more than
    `tolerance`; steps halve down to their last values; a step of 0 holds that part."""
    start_focal = scene.camera.focal
    steps = list(pose_first) + list(camera_first)
    lasts = list(POSE_STEP_LAST) + list(CAMERA_STEPS_LAST)
    while True:
        improved = False
        for axis, step in enumerate(steps):
            if not step:
                continue  # held where it is
            for sign in (1.0, -1.0):
                trial_camera, trial_pose = scene.camera, pose
                if axis < 3:
                    delta = [0.0, 0.0, 0.0]
                    delta[axis] = sign * step
                    trial_pose = pose.moved(*delta)
                else:
                    trial_camera = _camera_moved(scene.camera, axis - 3, sign * step)
                    if not scale_range[0] <= trial_camera.focal / start_focal <= scale_range[1]:
                        continue
                    trial_pose = _kept_in_place(cubes, pose, scene.camera, trial_camera)
                trial = scene if trial_camera is scene.camera else Scene(scene.costs, trial_camera, scene.appearance)
                trial_cost = trial.cost(cubes, trial_pose)
                if trial_cost < cost - tolerance:
                    scene, pose, cost, improved = trial, trial_pose, trial_cost, True
                    break
        if not improved:
            if all(step <= last for step, last in zip(steps, lasts)):
                return scene, pose, cost
            steps = [max(step / 2, last) if step else 0.0 for step, last in zip(steps, lasts)]


def _kept_in_place(cubes: Sequence[Cell], pose: Pose, camera: Camera, trial: Camera) -> Pose:
    """The pose that keeps the structure's middle on the same pixel under the `trial` camera.

    Leaning the camera shifts the whole drawing as a shift of the pose does, by a cube or so a
    degree: tried alone, a lean is always worse, and the pose's search cannot follow it. Tried
    about the structure's place in the picture, a lean shows what only it changes (which sides
    show, and how much, across the structure)."""
    middle = np.array([[np.mean([c[0] for c in cubes]), np.mean([c[1] for c in cubes]),
                        np.mean([c[2] for c in cubes]) + 0.5]])
    placed = pose.place(middle)
    seen = trial.table_point(camera.project(placed), float(placed[0, 2]))[0]
    return pose.moved(float(seen[0] - placed[0, 0]), float(seen[1] - placed[0, 1]))


def _refine(scene: Scene, cubes: Sequence[Cell], pose: Pose, cost: float, first=POSE_STEP_FIRST) -> tuple[Pose, float]:
    """The pose refined from `pose`, the camera held."""
    _, pose, cost = _pattern_search(scene, cubes, pose, cost, first, (0.0, 0.0, 0.0, 0.0))
    return pose, cost


def fit_pose(scene: Scene, cubes: Sequence[Cell], near: Pose | None = None, first=POSE_STEP_FIRST) -> tuple[Pose, float]:
    """The pose drawing `cubes` at least cost, and that cost; from `near` only, where given, with
    first steps `first`."""
    if not cubes:
        return Pose(), scene.cost(cubes, Pose())
    if near is not None:
        return _refine(scene, cubes, near, scene.cost(cubes, near), first)
    return fit_poses(scene, cubes, 1)[0]


def fit_poses(scene: Scene, cubes: Sequence[Cell], count: int) -> list[tuple[Pose, float]]:
    """The `count` best distinct poses of `cubes`, cheapest first: where the picture holds more
    than the structure (the new piece looks like an old one), the best alone may be the wrong one."""
    starts = []
    mask = scene.foreground()
    ys, xs = np.nonzero(mask)
    if len(xs):
        middle_z = float(np.mean([c[2] for c in cubes])) + 0.5
        target = scene.camera.table_point(np.array([[xs.mean(), ys.mean()]]), middle_z)[0]
        own = np.array([[c[0], c[1]] for c in cubes]).mean(axis=0)
        for step in range(TURN_STEPS):
            turn = 2 * math.pi * step / TURN_STEPS
            cos, sin = math.cos(turn), math.sin(turn)
            turned = np.array([cos * own[0] - sin * own[1], sin * own[0] + cos * own[1]])
            # The picture may hold more than the structure (the new piece), whose gathering
            # point is then off the structure's: shifted starts find it where it lies.
            for dx in START_SHIFTS:
                for dy in START_SHIFTS:
                    starts.append(Pose(float(target[0] - turned[0] + dx), float(target[1] - turned[1] + dy), turn))
    if not starts:
        starts = [Pose()]  # nothing but table: the structure is not in view
    scored = sorted(((scene.cost(cubes, pose), index, pose) for index, pose in enumerate(starts)))
    # The best starts that lie apart, refined: near-copies of one start would crowd out the others.
    chosen = _apart([(pose, cost) for cost, _, pose in scored], max(3, 3 * count))
    refined = sorted((_refine(scene, cubes, pose, cost) for pose, cost in chosen), key=lambda fit: fit[1])
    return _apart(refined, count)


def _apart(fits: list[tuple[Pose, float]], count: int) -> list[tuple[Pose, float]]:
    """The first `count` poses of `fits` that lie half a cube or a tenth of a turn from each other."""
    # A tenth of a turn: coarse turn steps of one placement count as one pose.
    kept: list[tuple[Pose, float]] = []
    for pose, cost in fits:
        if all(math.hypot(pose.x - p.x, pose.y - p.y) > 0.5 or abs(math.remainder(pose.turn - p.turn, 2 * math.pi)) > 0.6
               for p, _ in kept):
            kept.append((pose, cost))
            if len(kept) == count:
                break
    return kept


def _camera_moved(camera: Camera, axis: int, step: float) -> Camera:
    """The camera leaned, raised (at the same scale on the table) or scaled by one step."""
    if axis == 0:
        return replace(camera, pitch=float(np.clip(camera.pitch + step, -LEAN_LIMIT, LEAN_LIMIT)))
    if axis == 1:
        return replace(camera, roll=float(np.clip(camera.roll + step, -LEAN_LIMIT, LEAN_LIMIT)))
    if axis == 2:
        height = float(np.clip(camera.height + step, *HEIGHT_LIMITS))
        return replace(camera, height=height, focal=camera.focal * height / camera.height)
    return replace(camera, focal=camera.focal * (1.0 + step))


def fit_camera(scene: Scene, cubes: Sequence[Cell], pose: Pose, steps=CAMERA_STEPS_FIRST,
               scale_range: tuple[float, float] = (0.0, float("inf"))) -> tuple[Scene, Pose, float]:
    """The camera's lean, height and scale fitted together with the structure's pose: one pattern
    search over all seven, first camera steps `steps` (0 holds that part), the scale within
    `scale_range` times the first."""
    return _pattern_search(scene, cubes, pose, scene.cost(cubes, pose), POSE_STEP_FIRST, steps, scale_range,
                           tolerance=1e-6)
