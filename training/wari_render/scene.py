"""What a rendered Wari photo shows: seed styles, bowls, the board, camera, lamp, a session's fixed set-up and the seeds of one photo.

The scene is measured in millimetres: the board top is the plane z = 0, x runs along the rows
(South's pits a..f towards +x), y towards North and z up.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from training.wari_render.geometry import cone_span, ellipsoid_roots, normalised

FRAME_SIZE = (1280, 960)
STYLES = ("nicker", "glass")
RIM_CLEARANCE = 0.7  # in seed radii: how far inside the rim a seed's centre stays
SHADOW_MARGIN = 20.0  # mm around a bowl within which its seeds may shade the board
TABLE, BOARD_TOP, BOARD_SIDE, HOLLOW, SEED = range(5)  # what a ray hits


@dataclass(frozen=True)
class SeedStyle:
    semi_axes: tuple[float, float, float]  # mm: long, middle, short (the short one upright when lying flat)
    # Collisions treat a seed as spheres strung along its long axis: close to an ellipsoid, and
    # the rest height of a sphere on spheres and on a height field is exact and cheap.
    proxy_offsets: tuple[float, ...]
    proxy_radius: float
    palette: tuple[tuple[int, int, int], ...]  # display BGR
    brightness_spread: float  # seed-to-seed variation of the colour
    mottle: float  # strength of the surface texture
    specular: float
    shininess: float
    on_side: float  # chance of lying on its side rather than flat


SEED_STYLES = {
    "nicker": SeedStyle((9.0, 7.0, 6.5), (-2.2, 0.0, 2.2), 6.8, ((100, 122, 110),), 0.07, 0.07, 0.5, 70.0, 0.2),
    "glass": SeedStyle(
        (6.6, 6.6, 6.6), (0.0,), 6.6,
        ((40, 35, 215), (215, 85, 20), (55, 165, 30), (25, 205, 235), (165, 45, 135), (235, 235, 235)),
        0.03, 0.0, 1.0, 250.0, 0.0,
    ),
}
BOARD_FINISH = (0.12, 20.0)  # (specular, shininess): oiled wood, a broad sheen
TABLE_FINISH = (0.02, 6.0)


@dataclass(frozen=True)
class Hollow:
    """A bowl cut into the board: the part below its rim's level of an axis-aligned ellipsoid
    whose centre lies above that level (a spherical cap across its narrow way). Its rim lies on the
    board top, or, where a bevel (a cone) cuts the round bowl's edge away, `bevel_drop` below it:
    the bevel slopes up from the rim to the board top at `bevel_rim`."""

    centre: np.ndarray  # (x, y, z) mm
    semi_axes: np.ndarray  # (3,) mm
    rim: np.ndarray  # half axes (x, y) of the bowl's outline at its rim's level
    bevel_rim: float = 0.0  # mm from the middle to the bevel's outline on the board top; 0: no bevel
    bevel_drop: float = 0.0  # mm from the board top down to the bowl's rim

    @classmethod
    def cut(cls, x: float, y: float, rim_x: float, rim_y: float, depth: float, bevel_rim: float = 0.0, bevel_drop: float = 0.0) -> Hollow:
        narrow = min(rim_x, rim_y)
        radius = (narrow**2 + depth**2) / (2 * depth)  # the sphere whose cap is rim wide and depth deep
        stretch = radius / narrow
        return cls(
            np.array([x, y, radius - depth - bevel_drop]), np.array([rim_x * stretch, rim_y * stretch, radius]),
            np.array([rim_x, rim_y]), bevel_rim, bevel_drop,
        )

    @property
    def opening(self) -> np.ndarray:
        """Half axes (x, y) of its outline on the board top."""
        return np.full(2, self.bevel_rim) if self.bevel_rim else self.rim

    def floor_height(self, xy: np.ndarray) -> np.ndarray:
        """Height of the wood under each (x, y): the bowl inside the rim, the bevel around it,
        the board top outside."""
        scaled = (xy - self.centre[:2]) / self.semi_axes[:2]
        inside = 1 - (scaled**2).sum(axis=-1)
        bowl = self.centre[2] - self.semi_axes[2] * np.sqrt(np.clip(inside, 0, None))
        top = self.bevel_height(xy) if self.bevel_rim else 0.0
        return np.where(inside > 0, np.minimum(bowl, top), top)

    @property
    def bevel_slope(self) -> float:
        """How far the bevel rises per mm out from the bowl's rim."""
        return self.bevel_drop / (self.bevel_rim - self.rim[0])

    def bevel_height(self, xy: np.ndarray) -> np.ndarray:
        reach = np.linalg.norm(xy - self.centre[:2], axis=-1)
        return np.clip((reach - self.bevel_rim) * self.bevel_slope, -self.bevel_drop, 0.0)

    def bevel_span(self, origins: np.ndarray, directions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Ray parameters where rays enter and leave the space the bevel cuts away (inside its
        cone, between the bowl's rim's level and the board top; empty where they enter after they
        leave), and whether they leave it through the cone rather than through either level."""
        slope = self.bevel_slope
        offsets = np.broadcast_to(origins - self.centre, directions.shape)
        heights = offsets[:, 2] + self.centre[2]
        with np.errstate(divide="ignore", invalid="ignore"):
            to_rim_level, to_top = (-self.bevel_drop - heights) / directions[:, 2], -heights / directions[:, 2]
            cone_enter, cone_leave = cone_span(offsets[:, :2], self.bevel_rim + heights / slope, directions, slope)
        level_leave = np.maximum(to_rim_level, to_top)
        return np.maximum(np.minimum(to_rim_level, to_top), cone_enter), np.minimum(level_leave, cone_leave), cone_leave < level_leave

    def leave(self, origins: np.ndarray, directions: np.ndarray, start: np.ndarray | float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Where rays that are in the space cut away at ray parameter `start` leave it, as ray
        parameters, and the wood's normal there (facing the hollow; upward where they leave
        through the opening)."""
        near, far, met = ellipsoid_roots(origins, directions, self.centre, self.semi_axes)
        if not self.bevel_rim:
            leaving, from_bowl = far, np.ones(len(far), bool)
        else:
            enter, out, by_cone = self.bevel_span(origins, directions)
            leaving = np.broadcast_to(np.asarray(start, np.float64), far.shape)
            for _ in range(2):  # from the bevel on into the bowl, or the other way
                leaving = np.where((enter <= leaving + 1e-6) & (out > leaving), out, leaving)
                leaving = np.where(met & (near <= leaving + 1e-6) & (far > leaving), far, leaving)
            from_bowl = met & (leaving == far)
        points = origins + leaving[:, None] * directions
        normals = -normalised((points - self.centre) / self.semi_axes**2)
        if self.bevel_rim:
            aside = points[:, :2] - self.centre[:2]
            cone = normalised(np.column_stack([-aside, (self.bevel_rim + points[:, 2] / self.bevel_slope) / self.bevel_slope]))
            flat = np.tile([0.0, 0.0, 1.0], (len(points), 1))
            normals = np.where(from_bowl[:, None], normals, np.where(by_cone[:, None], cone, flat))
        return leaving, normals

    def holds(self, xy: np.ndarray, margin: float) -> np.ndarray:
        """Whether each (x, y) lies at least about `margin` inside the rim."""
        return self.squared_reach(xy - self.centre[:2], margin) < 1

    def squared_reach(self, offset: np.ndarray, margin: float) -> np.ndarray:
        """How far out each offset from the bowl's middle reaches, squared: 1 on the ellipse
        `margin` inside the rim."""
        return ((offset / (self.rim - margin)) ** 2).sum(axis=-1)


@dataclass(frozen=True)
class Board:
    half_length: float
    half_width: float
    thickness: float
    hollows: tuple[Hollow, ...]  # pits in contract order, then South's store, North's store
    wood: np.ndarray  # linear BGR
    grain_phases: np.ndarray


@dataclass(frozen=True)
class Camera:
    position: np.ndarray
    axes: np.ndarray  # columns: image right, image down, viewing direction (world)
    focal: float  # pixels of the full-size frame


@dataclass(frozen=True)
class Lamp:
    centre: np.ndarray
    radius: float
    kelvin: int


@dataclass(frozen=True)
class Session:
    style: SeedStyle
    board: Board
    camera: Camera
    lamp: Lamp
    table_colour: np.ndarray  # linear BGR
    ambient: float
    exposure: float
    vignetting: float
    blur: float  # Gaussian sigma in pixels, 0 for a sharp lens
    noise: float  # sensor noise sigma in 8-bit levels
    jpeg_quality: int
    rim_clearance: float = RIM_CLEARANCE
    board_finish: tuple[float, float] = BOARD_FINISH


@dataclass(frozen=True)
class Seeds:
    """Every seed on the board, as arrays (one row per seed)."""

    centres: np.ndarray  # (S, 3)
    rotations: np.ndarray  # (S, 3, 3): columns are the seed's long, middle and short axes
    semi_axes: np.ndarray  # (S, 3)
    colours: np.ndarray  # (S, 3) linear BGR
    regions: np.ndarray  # (S,) the pit or store it lies in
    waves: np.ndarray  # (S, 3, 3) wave vectors of its surface texture, per mm
    phases: np.ndarray  # (S, 3)

