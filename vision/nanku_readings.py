"""Which structure a Nanku frame shows, given the structure before it: the candidates and their costs.

The camera cannot see under a structure, so a frame is never read from scratch: the last
structure (known from the game's history, hidden cubes included) is laid on the frame at its
pose, and the frame is explained as that structure changed by what players do at a table: one
piece set down anywhere it could rest (legal or not: over an empty cell, touching nothing), half a
cube off the grid, two pieces at once, a piece taken away. Each is drawn only in the window it
changes, so hundreds of candidates cost a few drawings of the whole frame.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from vision.nanku_camera import CUBE_CORNERS, Cell, FaceSet, Pose, Projection, paint_classes
from vision.nanku_params import CANDIDATES_DRAWN, SETTLE_STEP_FIRST, SETTLED, OFF_GRID_TRIED, PIXEL_COST_CAP, SEARCH_MARGIN, SECOND_CHANGE_NATS, UNEXPLAINED_SHARE
from vision.nanku_pose import Scene, fit_pose

FACE_STEPS = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
OFF_GRID_SHIFTS = ((0.5, 0.0), (-0.5, 0.0), (0.0, 0.5), (0.0, -0.5))


def pixel_window(bounds, shape) -> tuple[int, int, int, int] | None:
    """The pixels (left, top, right, bottom; right and bottom excluded) of a frame of `shape`
    holding drawn bounds (x0, y0, x1, y1) with a pixel to spare, or None off the frame."""
    x0, y0, x1, y1 = bounds
    height, width = shape
    left, top = max(0, int(np.floor(x0)) - 1), max(0, int(np.floor(y0)) - 1)
    right, bottom = min(width, int(np.ceil(x1)) + 2), min(height, int(np.ceil(y1)) + 2)
    if right <= left or bottom <= top:
        return None
    return left, top, right, bottom


@dataclass
class Frame:
    """A base structure laid on a frame: its pose, drawing and cost, and the costs of changes to it."""

    scene: Scene
    base: tuple[Cell, ...]
    pose: Pose
    faces: FaceSet = field(init=False)
    drawing: np.ndarray = field(init=False)
    cost: float = field(init=False)

    def __post_init__(self):
        # Every candidate is drawn at this pose: each cell is projected once (`Projection`).
        self.projection = Projection(self.scene.camera, self.pose)
        self.faces = self.projection.faces(self.base)
        self.drawing = paint_classes(self.faces, self.scene.costs.shape)
        # What each pixel pays for the base's drawing: a candidate's window is priced before its
        # change from this, not gathered again.
        self._paid = self.scene.costs.paid(self.drawing)
        self.cost = self.scene.costs.total(self._paid)
        self._bounds = {cube: tuple(box) for cube, box, seen in zip(self.faces.cubes, self.faces.boxes, self.faces.seen)
                        if seen}
        self._base = frozenset(self.base)
        self._memo: dict[frozenset, float] = {self._base: self.cost}
        self._settled: set[frozenset] = set()  # candidates refitted at their own pose
        self._slack: np.ndarray | None = None  # integral of what each pixel pays above its best class

    def _difference(self, cubes: tuple, key: frozenset) -> tuple[list, list]:
        """The cubes a candidate (`cubes`, as the frozenset `key`) adds to the base, and those it takes away."""
        return [c for c in cubes if c not in self._base], [c for c in self.base if c not in key]

    def _window(self, boxes: list) -> tuple | None:
        """The pixel window (left, top, right, bottom) holding every box, within the frame; None
        for no box, or one that leaves the frame."""
        if not boxes:
            return None
        return pixel_window((min(b[0] for b in boxes), min(b[1] for b in boxes),
                             max(b[2] for b in boxes), max(b[3] for b in boxes)), self.scene.costs.shape)

    def cost_of(self, cubes: Iterable[Cell]) -> float:
        """The cost of the frame drawn as `cubes` at this pose, redrawn only where they differ from the base."""
        cubes = tuple(cubes)
        key = frozenset(cubes)
        if key in self._memo:
            return self._memo[key]
        added, removed = self._difference(cubes, key)
        solid = [c[:3] for c in cubes]
        new_faces = self.projection.faces(added, solid)
        boxes = [tuple(box) for box, seen in zip(new_faces.boxes, new_faces.seen) if seen]
        boxes += [self._bounds[c] for c in removed if c in self._bounds]
        window = self._window(boxes)
        if window is None:  # nothing the camera sees changes
            self._memo[key] = self.cost
            return self.cost
        left, top, right, bottom = window
        near = [c for c in cubes if c not in added and c in self._bounds
                and not (self._bounds[c][2] < left or self._bounds[c][0] > right
                         or self._bounds[c][3] < top or self._bounds[c][1] > bottom)]
        drawn = near + added
        faces = self.projection.faces(drawn, solid)
        classes = paint_classes(faces, (bottom - top, right - left), (left, top))
        before = self.scene.costs.total(self._paid, window)
        after = self.scene.costs.cost(classes, (left, top))
        cost = self.cost + after - before
        self._memo[key] = cost
        return cost

    def cost_bound(self, cubes: Iterable[Cell]) -> float:
        """A cost `cost_of(cubes)` cannot go below, without drawing: it redraws only the window
        holding the cubes added and taken away, and no pixel there can cost less than its
        cheapest class (the slack is what the base's drawing pays above that, summed)."""
        cubes = tuple(cubes)
        key = frozenset(cubes)
        if key in self._memo:
            return self._memo[key]
        added, removed = self._difference(cubes, key)
        boxes = [self._bounds[c] for c in removed if c in self._bounds]
        if added:
            pixels = self.projection.corners(added).reshape(-1, 2)
            boxes.append((pixels[:, 0].min(), pixels[:, 1].min(), pixels[:, 0].max(), pixels[:, 1].max()))
        window = self._window(boxes)
        if window is None:
            return self.cost
        if self._slack is None:
            slack = (self._paid - self.scene.costs.least).astype(np.float64)
            self._slack = np.pad(slack.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
        left, top, right, bottom = window
        s = self._slack
        return self.cost - float(s[bottom, right] - s[top, right] - s[bottom, left] + s[top, left]) / self.scene.costs.per_observation

    def settle(self, cubes: tuple[Cell, ...]) -> float:
        """The cost of `cubes` at their own best pose near the base's (the camera stays: it is the
        same for every candidate, and a free camera makes a layer on the table look like one a cube
        up); kept for the judge, and fitted once per candidate."""
        key = frozenset(cubes)
        cost = self.cost_of(cubes)
        if key not in self._settled:
            self._settled.add(key)
            _, settled = fit_pose(self.scene, cubes, near=self.pose, first=SETTLE_STEP_FIRST)
            if settled < cost:
                self._memo[key] = cost = settled
        return cost


def _places(base: Sequence[Cell]) -> list[tuple[Cell, Cell]]:
    """Every piece resting where it could stand near the base: both cubes in free cells, at least
    one of them on the table or on a cube (the other may overhang), both colour orders."""
    taken = {c[:3] for c in base}
    xs = [c[0] for c in base]
    ys = [c[1] for c in base]
    top = max(c[2] for c in base)
    pieces = []
    for x in range(int(min(xs)) - SEARCH_MARGIN, int(max(xs)) + SEARCH_MARGIN + 1):
        for y in range(int(min(ys)) - SEARCH_MARGIN, int(max(ys)) + SEARCH_MARGIN + 1):
            for z in range(0, int(top) + 2):
                first = (x, y, z)
                if first in taken:
                    continue
                for step in FACE_STEPS:
                    second = (x + step[0], y + step[1], z + step[2])
                    if second in taken:
                        continue
                    rests = [c[2] == 0 or (c[0], c[1], c[2] - 1) in taken for c in (first, second)]
                    if step[2] == 1:
                        rests[1] = True  # the upper cube rests on the lower
                    if not any(rests) or (step[2] == 1 and not rests[0]):
                        continue
                    pieces.append(((*first, "white"), (*second, "black")))
                    pieces.append(((*first, "black"), (*second, "white")))
    return pieces


def _cells_json(cubes: Sequence[Cell]) -> list:
    return [int(v) if float(v).is_integer() else float(v) for v in cubes[:3]] + [cubes[3]]


def state_json(cubes: Sequence[Cell]) -> dict:
    """Cubes as a contract Nanku state. Readings hold whole pieces, each piece's two cubes one
    after the other (the last structure's as the game paired them, then the pieces read); the turn
    follows from the number of pieces."""
    pieces = [[_cells_json(cubes[i]), _cells_json(cubes[i + 1])] for i in range(0, len(cubes) - 1, 2)]
    return {"game": "nanku", "pieces": pieces, "to_move": "white" if len(pieces) % 2 == 0 else "black"}


def top_view(cubes) -> dict:
    """Each column's (x, y) colour on top: what a camera straight above sees of the cubes."""
    tops: dict = {}
    for x, y, z, colour in sorted(cubes, key=lambda cube: cube[2]):
        tops[(x, y)] = colour
    return tops


@dataclass(frozen=True)
class Reading:
    cubes: tuple[Cell, ...]
    cost: float


def _best_placements(frame: Frame, base: tuple[Cell, ...], drawing: np.ndarray, count: int) -> list[Reading]:
    """The `count` cheapest single placements on `base`, among those covering unexplained pixels."""
    scene = frame.scene
    unexplained = scene.costs.unexplained(drawing) > PIXEL_COST_CAP / 2
    integral = np.pad(unexplained.astype(np.int32).cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    needed = UNEXPLAINED_SHARE * scene.camera.cube_px ** 2
    places = _places(base)
    if not places:
        return []
    origins = np.array([[c[:3] for c in piece] for piece in places], dtype=float)  # (N, 2, 3)
    corners = (origins[:, :, None, :] + CUBE_CORNERS[None, None]).reshape(len(places), 16, 3)
    points = frame.pose.place(corners.reshape(-1, 3))
    pixels = scene.camera.project(points).reshape(len(places), 16, 2)
    height, width = scene.costs.shape
    x0 = np.clip(np.floor(pixels[..., 0].min(axis=1)).astype(int), 0, width)
    x1 = np.clip(np.ceil(pixels[..., 0].max(axis=1)).astype(int), 0, width)
    y0 = np.clip(np.floor(pixels[..., 1].min(axis=1)).astype(int), 0, height)
    y1 = np.clip(np.ceil(pixels[..., 1].max(axis=1)).astype(int), 0, height)
    covered = integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]
    readings = []
    off_grid = [c for c in base if not (float(c[0]).is_integer() and float(c[1]).is_integer())]
    # The placements covering most of what is unexplained, at most CANDIDATES_DRAWN of them.
    promising = np.nonzero(covered >= needed)[0]
    promising = promising[np.argsort(-covered[promising], kind="stable")][:CANDIDATES_DRAWN]
    frame.projection.add(cube[:3] for index in promising for cube in places[index])  # in one step
    for index in promising:
        if off_grid and _overlap(places[index], off_grid):
            continue
        cubes = base + places[index]
        readings.append(Reading(cubes, frame.cost_of(cubes)))
    readings.sort(key=lambda r: r.cost)
    return readings[:count]


def _overlap(cubes: Sequence[Cell], others: Sequence[Cell]) -> bool:
    """Whether a cube of `cubes` shares space with one of `others` (off-grid cubes included)."""
    return any(abs(a[0] - b[0]) < 1 and abs(a[1] - b[1]) < 1 and abs(a[2] - b[2]) < 1 for a in cubes for b in others)


def _shifted(reading: Reading, base: tuple[Cell, ...]) -> list[tuple[Cell, ...]]:
    new = [c for c in reading.cubes if c not in base]
    shifted = [tuple((c[0] + dx, c[1] + dy, c[2], c[3]) for c in new) for dx, dy in OFF_GRID_SHIFTS]
    return [base + cubes for cubes in shifted if not _overlap(cubes, base)]


def read_changes(frame: Frame) -> Reading:
    """The frame's best reading as the base changed by what players do (see the module's text)."""
    base = frame.base
    readings = [Reading(base, frame.cost)]
    placed = _best_placements(frame, base, frame.drawing, OFF_GRID_TRIED)
    readings += placed
    for reading in placed:
        readings += [Reading(cubes, frame.cost_of(cubes)) for cubes in _shifted(reading, base)]
    pieces = [frame.base[i:i + 2] for i in range(0, len(frame.base), 2)]
    readings += [Reading(kept, frame.cost_of(kept)) for piece in pieces
                 if (kept := tuple(c for c in base if c not in piece))]
    readings.sort(key=lambda r: r.cost)
    readings[:SETTLED] = sorted((Reading(r.cubes, frame.settle(r.cubes)) for r in readings[:SETTLED]),
                                key=lambda r: r.cost)
    removal = next((r for r in readings if len(r.cubes) < len(base)), None)
    best_single = min((r for r in readings if len(r.cubes) >= len(base)), key=lambda r: r.cost)
    if best_single.cubes != base:
        drawing = paint_classes(frame.scene.faces(best_single.cubes, frame.pose), frame.scene.costs.shape)
        second = _best_placements(frame, best_single.cubes, drawing, 1)
        # A second piece is read only where it shows a new colour on top of some column: one that
        # only makes columns taller is a height the camera cannot stand by (a camera height a
        # little off draws the structure a level taller just as well).
        if second and top_view(second[0].cubes) != top_view(best_single.cubes):
            second = Reading(second[0].cubes, frame.settle(second[0].cubes))
            if second.cost < best_single.cost - SECOND_CHANGE_NATS:
                best_single = second
    if removal is not None and removal.cost < min(best_single.cost, frame.cost) - SECOND_CHANGE_NATS:
        return removal
    return best_single
