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
from functools import cached_property, lru_cache
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

    @cached_property
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


# Which of a cube's 8 corners each face uses, and the class a face takes by its cube's colour.
_FACE_CORNERS = np.array([ids for ids, _ in _FACES])
_FACE_USES = np.zeros((len(_FACES), 8), bool)
_FACE_USES[np.arange(len(_FACES))[:, None], _FACE_CORNERS] = True
_FACE_STEPS = np.array([step for _, step in _FACES])
_FACE_CLASS = {colour: np.array([TOP_CLASS[colour]] + [SIDE_CLASS[colour]] * (len(_FACES) - 1), np.uint8)
               for colour in TOP_CLASS}


@dataclass(frozen=True)
class FaceSet:
    """The visible faces of a set of cubes, projected, as arrays (one row per cube, in the order
    given): each cube's distance to the camera, its 8 corners' pixels, which of its 5 faces show
    and their classes. Arrays rather than per-face objects: a drawing's faces are picked and
    rounded in one step each, and only the fill is one call a face."""

    cubes: tuple
    distances: np.ndarray  # (N,)
    pixels: np.ndarray  # (N, 8, 2)
    shown: np.ndarray  # (N, 5) bool: the face turns to the camera and no cube covers it
    classes: np.ndarray  # (N, 5) uint8
    normals: np.ndarray  # (5, 3) the faces' outward normals on the table

    @property
    def distance(self) -> dict:
        return {cube: float(d) for cube, d in zip(self.cubes, self.distances)}

    @property
    def polygons(self) -> dict:
        """Per cube its shown faces as (pixel corners (4, 2), class, outward normal)."""
        return {cube: [(self.pixels[i, _FACE_CORNERS[k]], int(self.classes[i, k]), self.normals[k])
                       for k in np.nonzero(self.shown[i])[0]] for i, cube in enumerate(self.cubes)}

    @property
    def boxes(self) -> np.ndarray:
        """(N, 4) each cube's drawn bounds x0, y0, x1, y1 over its shown faces' corners (inf
        where none shows)."""
        used = (self.shown[:, :, None] & _FACE_USES[None]).any(axis=1)  # (N, 8)
        low = np.where(used[..., None], self.pixels, np.inf).min(axis=1)
        high = np.where(used[..., None], self.pixels, -np.inf).max(axis=1)
        return np.concatenate([low, high], axis=1)

    @property
    def seen(self) -> np.ndarray:
        """(N,) whether any face of each cube shows."""
        return self.shown.any(axis=1)

    def bounds(self) -> tuple[float, float, float, float]:
        """The drawn bounds of every shown face."""
        corners = self.pixels[(self.shown[:, :, None] & _FACE_USES[None]).any(axis=1)]  # (K, 2)
        low, high = corners.min(axis=0), corners.max(axis=0)
        return low[0], low[1], high[0], high[1]


def _keys(cells: np.ndarray) -> list | None:
    """Cells (..., 3) as one integer each (coordinates doubled, so half cubes count), or None
    where a coordinate is no multiple of a half."""
    doubled = np.rint(cells * 2.0)
    if not np.array_equal(doubled, cells * 2.0):
        return None
    d = doubled.astype(np.int64) + (1 << 20)
    return ((d[..., 0] << 42) | (d[..., 1] << 21) | d[..., 2]).ravel().tolist()


def _covered(origins: np.ndarray, solid: np.ndarray) -> np.ndarray:
    """(N, 5) whether the cell across each face of each cube is one of `solid`'s cells."""
    across = origins[:, None, :] + _FACE_STEPS[None]
    keys, taken = _keys(across), _keys(solid)
    if keys is None or taken is None:
        keys, taken = [tuple(c) for c in across.reshape(-1, 3).tolist()], [tuple(c) for c in solid.tolist()]
    taken = set(taken)
    return np.array([key in taken for key in keys], bool).reshape(-1, len(_FACES))


@lru_cache(maxsize=4096)
def _structure(cubes: tuple, solid: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cubes' cells (N, 3), which of their faces another cube covers (N, 5) and the faces'
    classes (N, 5): the same at every pose and camera, so kept for the pattern searches and the
    candidates that draw one structure many times."""
    origins = np.array([cube[:3] for cube in cubes], dtype=float)
    cells = np.concatenate([origins, np.array(solid, dtype=float).reshape(-1, 3)]) if solid else origins
    classes = np.stack([_FACE_CLASS[cube[3]] for cube in cubes])
    for array in (origins, classes):
        array.flags.writeable = False
    covered = _covered(origins, cells)
    covered.flags.writeable = False
    return origins, covered, classes


def _normals(pose: Pose) -> np.ndarray:
    """(5, 3) the faces' outward normals on the table, for a structure at `pose`."""
    c, s = math.cos(pose.turn), math.sin(pose.turn)
    return np.array([[c * nx - s * ny, s * nx + c * ny, nz] for _, (nx, ny, nz) in _FACES], dtype=float)


def _geometry(origins: np.ndarray, camera: Camera, pose: Pose, normals: np.ndarray) -> tuple:
    """Cells' (N, 3) corners in pixels (N, 8, 2), distances to the camera (N,) and which faces
    turn to it (N, 5)."""
    eye = camera.position
    corners = pose.place((origins[:, None, :] + CUBE_CORNERS[None]).reshape(-1, 3)).reshape(len(origins), 8, 3)
    pixels = camera.project(corners.reshape(-1, 3)).reshape(len(origins), 8, 2)
    away = np.add.reduce(corners, axis=1) / 8 - eye
    distances = np.sqrt(np.add.reduce(away * away, axis=1))  # np.linalg.norm's steps, without its checks
    face_centres = np.add.reduce(corners[:, _FACE_CORNERS], axis=2) / 4  # (N, 5, 3)
    facing = np.stack([(eye - face_centres[:, k]) @ normals[k] > 0 for k in range(len(_FACES))], axis=1)
    return pixels, distances, facing


def _no_faces(normals: np.ndarray) -> FaceSet:
    empty = np.zeros((0, len(_FACES)), bool)
    return FaceSet((), np.zeros(0), np.zeros((0, 8, 2)), empty, empty.astype(np.uint8), normals)


def project_cubes(cubes: Sequence[Cell], camera: Camera, pose: Pose, solid: Iterable[tuple] = ()) -> FaceSet:
    """Every cube's camera-facing faces that no other cube covers face to face.

    `solid` holds the (x, y, z) cells of every cube that can cover a face (the whole structure,
    candidates included); by default `cubes` themselves.
    """
    cubes = tuple(cubes)
    normals = _normals(pose)
    if not cubes:
        return _no_faces(normals)
    origins, covered, classes = _structure(cubes, tuple(tuple(cell) for cell in solid))
    pixels, distances, facing = _geometry(origins, camera, pose, normals)
    return FaceSet(cubes, distances, pixels, facing & ~covered, classes, normals)


class Projection:
    """The cells of one structure's candidates at one camera and pose, projected once each.

    The candidates of a frame (hundreds of placements and tables) share the structure's cubes and
    a few hundred cells around it: each cell's corners, distance and facing faces are kept, and a
    candidate's faces are those rows with the faces its own cubes cover taken away."""

    def __init__(self, camera: Camera, pose: Pose):
        self.camera, self.pose, self.normals = camera, pose, _normals(pose)
        self._rows: dict = {}
        self._pixels, self._distances = np.zeros((0, 8, 2)), np.zeros(0)
        self._facing = np.zeros((0, len(_FACES)), bool)

    def add(self, cells: Iterable[tuple]) -> None:
        """Project the (x, y, z) cells not yet projected, all in one step."""
        new = [cell for cell in dict.fromkeys(cells) if cell not in self._rows]
        if not new:
            return
        pixels, distances, facing = _geometry(np.array(new, dtype=float), self.camera, self.pose, self.normals)
        for cell in new:
            self._rows[cell] = len(self._rows)
        self._pixels = np.concatenate([self._pixels, pixels])
        self._distances = np.concatenate([self._distances, distances])
        self._facing = np.concatenate([self._facing, facing])

    def rows(self, cubes: Sequence[Cell]) -> np.ndarray:
        self.add(cube[:3] for cube in cubes)
        return np.array([self._rows[cube[:3]] for cube in cubes], dtype=np.intp)

    def corners(self, cubes: Sequence[Cell]) -> np.ndarray:
        """(N, 8, 2) the cubes' corners in pixels."""
        return self._pixels[self.rows(cubes)]

    def faces(self, cubes: Sequence[Cell], solid: Iterable[tuple] = ()) -> FaceSet:
        """`project_cubes(cubes, camera, pose, solid)`, from the cells already projected."""
        cubes = tuple(cubes)
        if not cubes:
            return _no_faces(self.normals)
        rows = self.rows(cubes)
        origins, covered, classes = _structure(cubes, tuple(tuple(cell) for cell in solid))
        return FaceSet(cubes, self._distances[rows], self._pixels[rows], self._facing[rows] & ~covered, classes,
                       self.normals)


def paint_classes(faces: FaceSet, shape: tuple[int, int], offset: tuple[int, int] = (0, 0),
                  canvas: np.ndarray | None = None) -> np.ndarray:
    """The class of every pixel of a (height, width) window whose top-left pixel is `offset`,
    the face set's cubes painted farther first; `canvas` (the window's background classes) is
    painted over."""
    image = np.zeros(shape, np.uint8) if canvas is None else canvas
    # Farthest first; a stable sort keeps the given order between cubes as far.
    rows = np.argsort(-faces.distances, kind="stable")
    which, face = np.nonzero(faces.shown[rows])
    if not len(which):
        return image
    cube_rows = rows[which]
    polygons = faces.pixels[cube_rows[:, None], _FACE_CORNERS[face]]  # (M, 4, 2)
    points = np.round((polygons - np.array(offset, dtype=float)) * float(1 << _SHIFT)).astype(np.int32)
    for polygon, cls in zip(points, faces.classes[cube_rows, face].tolist()):
        cv2.fillConvexPoly(image, polygon, cls, lineType=cv2.LINE_8, shift=_SHIFT)
    return image


def cubes_of(state_json: dict) -> list[Cell]:
    """The cubes of a contract Nanku state, as (x, y, z, colour) tuples."""
    return [(float(x), float(y), float(z), colour) for piece in state_json.get("pieces", ()) for x, y, z, colour in piece]
