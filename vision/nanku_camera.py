"""Where Nanku's cubes fall in a picture: a pinhole camera over the table, and the structure's pose.

Lengths are in cubes (a cube's edge is 1), so one camera serves any cube size. The table is the
plane Z = 0; the camera's centre stands `height` cubes above the table point under the picture's
centre, looking down, turned by `pitch` (about the picture's horizontal axis) and `roll` (about its
vertical axis). A structure lies on the table at `Pose` (a shift and a turn about the vertical):
cell (x, y, z) of the state is the cube [x-1/2, x+1/2] x [y-1/2, y+1/2] x [z, z+1] of the
structure's own frame.

`paint_classes` draws what the camera sees of a structure as one class per pixel (table, top or
side of a white or a black cube), nearer cubes over farther ones: the recogniser compares that
drawing with the picture, and the synthetic renderer colours it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

import cv2
import numpy as np

TABLE, WHITE_TOP, WHITE_SIDE, BLACK_TOP, BLACK_SIDE = range(5)
CLASSES = 5
TOP_CLASS = {"white": WHITE_TOP, "black": BLACK_TOP}
SIDE_CLASS = {"white": WHITE_SIDE, "black": BLACK_SIDE}

# A cube's corners in its own frame (centre of the bottom face at the origin) and its faces as
# corner indices with their outward normals; the bottom face lies on what carries it.
CUBE_CORNERS = np.array([[x, y, z] for z in (0.0, 1.0) for y in (-0.5, 0.5) for x in (-0.5, 0.5)])
_FACES = (
    ((4, 5, 7, 6), (0, 0, 1)),  # top
    ((0, 1, 5, 4), (0, -1, 0)),
    ((2, 6, 7, 3), (0, 1, 0)),
    ((0, 4, 6, 2), (-1, 0, 0)),
    ((1, 3, 7, 5), (1, 0, 0)),
)
# Polygons are filled with this many bits of sub-pixel precision.
_SHIFT = 3


@dataclass(frozen=True)
class Camera:
    """Focal length and principal point in pixels of the picture it is used at; height in cubes;
    pitch and roll in radians."""

    focal: float
    centre_x: float
    centre_y: float
    height: float
    pitch: float = 0.0
    roll: float = 0.0

    @property
    def rotation(self) -> np.ndarray:
        """Table axes to camera axes: x right and y down in the picture, z along the view."""
        down = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]])
        cp, sp, cr, sr = math.cos(self.pitch), math.sin(self.pitch), math.cos(self.roll), math.sin(self.roll)
        pitch = np.array([[1.0, 0.0, 0.0], [0.0, cp, -sp], [0.0, sp, cp]])
        roll = np.array([[cr, 0.0, sr], [0.0, 1.0, 0.0], [-sr, 0.0, cr]])
        return pitch @ roll @ down

    @property
    def cube_px(self) -> float:
        """A cube's edge on the table under the picture's centre, in pixels."""
        return self.focal / self.height

    @property
    def position(self) -> np.ndarray:
        return np.array([0.0, 0.0, self.height])

    def scaled(self, factor: float) -> Camera:
        """The same camera for the picture resized by `factor`."""
        return replace(self, focal=self.focal * factor, centre_x=self.centre_x * factor,
                       centre_y=self.centre_y * factor)

    def project(self, points: np.ndarray) -> np.ndarray:
        """Table points (N, 3) to pixels (N, 2)."""
        seen = (points - self.position) @ self.rotation.T
        depth = np.maximum(seen[:, 2], 1e-6)
        return np.stack([self.focal * seen[:, 0] / depth + self.centre_x,
                         self.focal * seen[:, 1] / depth + self.centre_y], axis=1)

    def table_point(self, pixels: np.ndarray, z: float = 0.0) -> np.ndarray:
        """Where the rays through pixels (N, 2) meet the plane Z = z: (N, 2) table X, Y."""
        rays = np.stack([(pixels[:, 0] - self.centre_x) / self.focal,
                         (pixels[:, 1] - self.centre_y) / self.focal, np.ones(len(pixels))], axis=1)
        rays = rays @ self.rotation  # back to table axes
        reach = (z - self.height) / rays[:, 2]
        return rays[:, :2] * reach[:, None]

    def to_json(self) -> dict:
        return {"focal_px": round(self.focal, 2), "centre_px": [round(self.centre_x, 2), round(self.centre_y, 2)],
                "height_cubes": round(self.height, 3), "pitch_degrees": round(math.degrees(self.pitch), 3),
                "roll_degrees": round(math.degrees(self.roll), 3)}

    @classmethod
    def from_json(cls, obj: dict) -> Camera:
        return cls(float(obj["focal_px"]), float(obj["centre_px"][0]), float(obj["centre_px"][1]),
                   float(obj["height_cubes"]), math.radians(float(obj.get("pitch_degrees", 0.0))),
                   math.radians(float(obj.get("roll_degrees", 0.0))))


@dataclass(frozen=True)
class Pose:
    """The structure's frame on the table: its origin at (x, y) cubes, turned by `turn` radians."""

    x: float = 0.0
    y: float = 0.0
    turn: float = 0.0

    def place(self, points: np.ndarray) -> np.ndarray:
        c, s = math.cos(self.turn), math.sin(self.turn)
        placed = points.copy()
        placed[:, 0] = self.x + c * points[:, 0] - s * points[:, 1]
        placed[:, 1] = self.y + s * points[:, 0] + c * points[:, 1]
        return placed

    def moved(self, dx: float = 0.0, dy: float = 0.0, dturn: float = 0.0) -> Pose:
        return Pose(self.x + dx, self.y + dy, self.turn + dturn)


Cell = tuple  # (x, y, z, colour): a cube of a state, coordinates possibly half-integers (off the grid)


@dataclass(frozen=True)
class FaceSet:
    """The visible faces of a set of cubes, projected: per cube its distance to the camera and its
    polygons (pixel corners, class, outward normal on the table). Built once per pose and reused
    for every candidate."""

    distance: dict
    polygons: dict

    def bounds(self, cubes: Iterable[Cell]) -> tuple[float, float, float, float]:
        corners = np.concatenate([face[0] for cube in cubes for face in self.polygons[cube]])
        return corners[:, 0].min(), corners[:, 1].min(), corners[:, 0].max(), corners[:, 1].max()


def project_cubes(cubes: Sequence[Cell], camera: Camera, pose: Pose, solid: Iterable[tuple] = ()) -> FaceSet:
    """Every cube's camera-facing faces that no other cube covers face to face.

    `solid` holds the (x, y, z) cells of every cube that can cover a face (the whole structure,
    candidates included); by default `cubes` themselves.
    """
    occupied = {tuple(c[:3]) for c in cubes} | {tuple(c) for c in solid}
    eye = camera.position
    distance, polygons = {}, {}
    if not cubes:
        return FaceSet(distance, polygons)
    origins = np.array([c[:3] for c in cubes], dtype=float)
    corners = pose.place((origins[:, None, :] + CUBE_CORNERS[None]).reshape(-1, 3)).reshape(len(cubes), 8, 3)
    pixels = camera.project(corners.reshape(-1, 3)).reshape(len(cubes), 8, 2)
    centres = np.linalg.norm(corners.mean(axis=1) - eye, axis=1)
    c, s = math.cos(pose.turn), math.sin(pose.turn)
    faces_seen = []
    for corner_ids, (nx, ny, nz) in _FACES:
        normal = np.array([c * nx - s * ny, s * nx + c * ny, nz])
        face_centres = corners[:, list(corner_ids)].mean(axis=1)
        facing = (eye - face_centres) @ normal > 0
        faces_seen.append((list(corner_ids), (nx, ny, nz), normal, facing))
    for index, cube in enumerate(cubes):
        x, y, z, colour = cube
        distance[cube] = float(centres[index])
        faces = []
        for corner_ids, step, normal, facing in faces_seen:
            if not facing[index] or (x + step[0], y + step[1], z + step[2]) in occupied:
                continue
            cls = TOP_CLASS[colour] if step[2] == 1 else SIDE_CLASS[colour]
            faces.append((pixels[index, corner_ids], cls, normal))
        polygons[cube] = faces
    return FaceSet(distance, polygons)


def paint_classes(faces: FaceSet, cubes: Iterable[Cell], shape: tuple[int, int],
                  offset: tuple[int, int] = (0, 0), canvas: np.ndarray | None = None) -> np.ndarray:
    """The class of every pixel of a (height, width) window whose top-left pixel is `offset`,
    farther cubes painted first; `canvas` (the window's background classes) is painted over."""
    image = np.zeros(shape, np.uint8) if canvas is None else canvas
    scale = float(1 << _SHIFT)
    shift = np.array(offset, dtype=float)
    for cube in sorted(cubes, key=lambda cube: -faces.distance[cube]):
        for polygon, cls, _ in faces.polygons[cube]:
            points = np.round((polygon - shift) * scale).astype(np.int32)
            cv2.fillConvexPoly(image, points, int(cls), lineType=cv2.LINE_8, shift=_SHIFT)
    return image


def cubes_of(state_json: dict) -> list[Cell]:
    """The cubes of a contract Nanku state, as (x, y, z, colour) tuples."""
    return [(float(x), float(y), float(z), colour) for piece in state_json.get("pieces", ()) for x, y, z, colour in piece]
