"""Render a bench-format Wari session with a small ray tracer: photos whose seed piles really stack.

Usage (from the repository root):
    .venv/bin/python benchmarks/render_wari_session.py OUT_DIR --style nicker|glass --session N
        [--positions 8] [--sequence 0] [--near-starts 0] [--training] [--lamp-reach MM]

Writes OUT_DIR/start.jpg (4 seeds in every pit), OUT_DIR/pos000.jpg ... (random positions, drawn
as bench_wari_vision.py draws them), OUT_DIR/seq000.jpg ... (a random pbmserv game from the start,
one photo after every move, if --sequence asks for photos), OUT_DIR/near000.jpg ... (the start
with one pit holding 1, 2, 3, 5 or 6 seeds instead of 4, if --near-starts asks for photos: a
calibration must refuse them, see `bench_wari_calibration.py`) and OUT_DIR/truth.json in the
bench's format, so that `bench_wari_vision.py OUT_DIR` reads the folder like a bench session.

The session number fixes what a mounted camera over one table keeps: camera pose and lens, the
lamp's place, size and colour, the board (its proportions and wood) and the table cloth. Every
photo drops its seeds afresh and draws its own sensor noise. Output depends only on (style,
session), so sessions nobody tuned on can be made at will.

`--training` makes sessions for training a counter rather than for measuring one: each session
also draws the seeds' size and how their shades vary, the bowls' depth and how near their rims
the seeds come to rest (so that piles lie spread up the walls in some sessions and gathered
nearer the middle in others) and whether the board is varnished (the lamp glares on the bowls'
floors) or oiled, whether the pits' rims are bevelled (a cone cut round the bowl, as on the
bench's boards) and how wide and steep, and each position's pits hold counts drawn evenly from 0
up to 10-20, so that big piles come as often as small ones. Its positions are not game
positions (their seeds need not add up to 48). It also draws how far to the side of the board
the lamp hangs, further than plain sessions do. `--lamp-reach MM` sets that distance instead
(plain or training): the same session and photos under a lamp moved nearer overhead or further
to the side.

The scene is measured in millimetres: the board top is the plane z = 0, x runs along the rows
(South's pits a..f towards +x), y towards North and z up. Seeds are dropped one by one into their
bowl and roll to rest on the bowl and on each other, then the scene is ray traced (perspective,
an area lamp with soft shadows, Lambert plus Blinn-Phong highlights, a little ambient light), and
the photo is given vignetting, the lamp's colour cast, sensor noise, sometimes blur, and JPEG
compression.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from engines.wari import VARIANTS, WariRules
from vision.wari_board import PIT_COUNT, PITS_PER_ROW, pit_column_and_row

from bench_wari_vision import random_position  # beside this script: positions drawn as the benchmark draws them

FRAME_SIZE = (1280, 960)
EDGE_SUBPIXELS = ((-0.25, -0.25), (0.25, -0.25), (-0.25, 0.25), (0.25, 0.25))  # rays averaged on outlines
STYLES = ("nicker", "glass")
LAMP_SAMPLES = 6  # shadow rays per point, spread over the lamp's disc: soft shadow edges
SETTLE_ROUNDS = 16
SETTLE_CANDIDATES = 24
RIM_CLEARANCE = 0.7  # in seed radii: how far inside the rim a seed's centre stays
# --training: ranges of the seeds' size (x the style's), the bowls' depth (x the board's) and the
# rim clearance (seed radii). The bench's nicker pits hold about 12 nuts' area, ours 8-10. Up to
# session 25 clearances of 0.7-2.5 were drawn; above about 1.2 the nuts gather two deep in the
# bowl's middle and a pile of 8-12 hides a nut (shows under a tenth of it) in 18-43 % of pits,
# 6 % below 1.2. The bench's nuts lie side by side up the bowl's walls, and a counter trained
# on the low clearances read its piles better (docs/vision-wari.md, session 26).
TRAINING_SEED_SCALE = {"nicker": (0.78, 1.0), "glass": (0.88, 1.05)}
TRAINING_DEPTH = (0.55, 1.2)
TRAINING_RIM_CLEARANCE = (0.7, 1.2)
# --training: half the boards varnished (specular strength, shininess drawn from these ranges),
# half oiled: a varnished bowl shows the lamp as a bright spot on its floor, as the bench's
# bowls do, and a counter that never saw one counted it as a seed.
TRAINING_VARNISH = ((0.15, 0.6), (40.0, 250.0))
# --training: how much one seed's shade differs from the next (the SeedStyle's brightness_spread)
# drawn per session from these ranges: the bench's nicker nuts run from pale to dark grey-green,
# more than the plain style's 0.07. (A counter trained on with these too read the bench no better:
# docs/vision-wari.md, session 25.)
TRAINING_SHADE_SPREAD = {"nicker": (0.04, 0.3), "glass": (0.02, 0.08)}
# --training: how far (mm) the lamp hangs to the side of the board's middle, drawn per session
# (plain sessions: 100-300 at a height of 600-900). A lamp further to the side shades each nut
# darker on one side, and the counter trained under the plain range took those shaded sides for
# nuts half hidden: the same 30 photos of plain nicker 811, its lamp moved from 167 to 281 mm to
# the side, read 35 → 27 of 36 piles of 8-12 right, every miss one high (docs/vision-wari.md,
# session 28).
TRAINING_LAMP_REACH = (100.0, 450.0)
TRAINING_MOST_SEEDS = (10, 20)
# --training: on this share of the boards the pits' rims are bevelled, cut away as a cone that
# slopes from the board top down to the bowl's rim, as on both the bench's boards (S0's wide and
# plain to see, S1's narrow): the bevel's outline on the board top this many times the rim's
# radius from the middle, its slope this share of the bowl's wall's at the rim (a bevel as steep
# as the wall looks like a wider bowl). Calibration may then find either edge (S0's circles lie
# on the bevel's outline, S1's on the bowl's rim).
TRAINING_BEVELLED = 0.5
TRAINING_BEVEL_WIDTH = (1.04, 1.15)
TRAINING_BEVEL_SLOPE = (0.35, 0.75)
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


# ---- session set-up ---------------------------------------------------------------------

def make_session(style: str, session: int, training: bool = False, lamp_reach: float | None = None) -> Session:
    rng = session_rng(style, session, 1)
    board = make_board(rng)
    made = Session(
        style=SEED_STYLES[style],
        board=board,
        camera=make_camera(board, rng),
        lamp=Lamp(
            centre=np.array([*rng.uniform(100, 300) * unit_circle(rng.uniform(0, 2 * np.pi)), rng.uniform(600, 900)]),
            radius=rng.uniform(20, 60),
            kelvin=int(rng.integers(3500, 7000)),
        ),
        table_colour=linear(random_cloth_colour(rng)),
        ambient=rng.uniform(0.2, 0.3),
        exposure=rng.uniform(0.9, 1.1),
        vignetting=rng.uniform(0.15, 0.4),
        blur=rng.uniform(0.6, 1.3) if rng.random() < 0.4 else 0.0,
        noise=rng.uniform(1.5, 3.5),
        jpeg_quality=int(rng.integers(88, 93)),
    )
    made = varied_for_training(made, style, session) if training else made
    return with_lamp_reach(made, lamp_reach) if lamp_reach is not None else made


def with_lamp_reach(session: Session, reach: float) -> Session:
    """The session with its lamp `reach` mm to the side of the board's middle, in the same direction
    and at the same height."""
    lamp = session.lamp
    side = lamp.centre[:2] * reach / np.linalg.norm(lamp.centre[:2])
    return replace(session, lamp=replace(lamp, centre=np.array([*side, lamp.centre[2]])))


def varied_for_training(session: Session, style: str, number: int) -> Session:
    """The session with its seeds' size and shades, its bowls' depth, its rim clearance, its
    board's finish and how far to the side its lamp hangs drawn too (from generators of their
    own, so that the camera, the board and the lamp's direction, height and colour stay those of
    the plain session)."""
    rng = session_rng(style, number, 4)
    scale = rng.uniform(*TRAINING_SEED_SCALE[style])
    depth = rng.uniform(*TRAINING_DEPTH)
    seeds = replace(
        session.style,
        semi_axes=tuple(scale * a for a in session.style.semi_axes),
        proxy_offsets=tuple(scale * o for o in session.style.proxy_offsets),
        proxy_radius=scale * session.style.proxy_radius,
    )
    hollows = tuple(
        Hollow.cut(h.centre[0], h.centre[1], h.rim[0], h.rim[1], depth * (h.semi_axes[2] - h.centre[2]))
        for h in session.board.hollows
    )
    finish_rng = session_rng(style, number, 5)  # its own, so the draws above stay as they were
    varnished = finish_rng.random() < 0.5
    finish = tuple(finish_rng.uniform(*span) for span in TRAINING_VARNISH) if varnished else BOARD_FINISH
    shades = session_rng(style, number, 6)  # its own too
    seeds = replace(seeds, brightness_spread=shades.uniform(*TRAINING_SHADE_SPREAD[style]))
    varied = replace(
        session, style=seeds, board=replace(session.board, hollows=hollows),
        rim_clearance=rng.uniform(*TRAINING_RIM_CLEARANCE), board_finish=finish,
    )
    varied = with_lamp_reach(varied, session_rng(style, number, 9).uniform(*TRAINING_LAMP_REACH))
    bevels = session_rng(style, number, 10)
    if bevels.random() >= TRAINING_BEVELLED:
        return varied
    widen, slope = bevels.uniform(*TRAINING_BEVEL_WIDTH), bevels.uniform(*TRAINING_BEVEL_SLOPE)
    pits = tuple(bevelled(hollow, widen, slope) for hollow in varied.board.hollows[:PIT_COUNT])
    return replace(varied, board=replace(varied.board, hollows=pits + varied.board.hollows[PIT_COUNT:]))


def bevelled(hollow: Hollow, widen: float, slope: float) -> Hollow:
    """A round bowl with its rim bevelled out to `widen` times its radius, at `slope` times the
    angle of the bowl's wall at the rim. The wall grows steeper above the rim, so the bowl's
    sphere, lowered with its rim, stays inside the bevel's cone."""
    rim, depth = hollow.rim[0], hollow.semi_axes[2] - hollow.centre[2]
    wall = np.arcsin(rim / hollow.semi_axes[2])
    drop = (widen - 1) * rim * np.tan(slope * wall)
    return Hollow.cut(hollow.centre[0], hollow.centre[1], rim, rim, depth, widen * rim, drop)


def make_board(rng: np.random.Generator) -> Board:
    """A board of the bench's proportions (pits about 0.8 of their pitch across), each a little different."""
    pitch = rng.uniform(62, 70)
    row_spacing = pitch * rng.uniform(1.1, 1.2)
    pit_radius = pitch * rng.uniform(0.38, 0.42)
    pit_depth = pit_radius * rng.uniform(0.45, 0.55)
    store_offset = pitch * rng.uniform(1.0, 1.1)
    store_half_length = pitch * rng.uniform(0.4, 0.46)
    store_half_width = row_spacing * rng.uniform(0.7, 0.78)
    margin = pitch * rng.uniform(0.22, 0.35)
    hollows = []
    for region in range(PIT_COUNT + 2):
        x, y = region_centre(region, pitch, row_spacing, store_offset)
        if region < PIT_COUNT:
            hollows.append(Hollow.cut(x, y, pit_radius, pit_radius, pit_depth))
        else:
            hollows.append(Hollow.cut(x, y, store_half_length, store_half_width, pit_depth * rng.uniform(1.0, 1.2)))
    light_wood, dark_wood = np.array([30, 95, 170]), np.array([20, 40, 80])
    wood = light_wood + rng.uniform(0, 1) * (dark_wood - light_wood) + rng.uniform(-12, 12, 3)
    return Board(
        half_length=(PITS_PER_ROW - 1) / 2 * pitch + store_offset + store_half_length + margin,
        half_width=row_spacing / 2 + pit_radius + margin,
        thickness=rng.uniform(25, 40),
        hollows=tuple(hollows),
        wood=linear(np.clip(wood, 10, 255)),
        grain_phases=rng.uniform(0, 2 * np.pi, 4),
    )


def region_centre(region: int, pitch: float, row_spacing: float, store_offset: float) -> tuple[float, float]:
    """Board (x, y) of a pit (contract index) or store (12 South's, 13 North's), laid out as the
    recogniser's board frame has them (`pit_column_and_row`): South's row nearest the camera's
    bottom edge, its pits a..f left to right, North's a..f right to left, each player's store on
    his right hand."""
    end = (PITS_PER_ROW - 1) / 2 * pitch + store_offset
    if region == PIT_COUNT:
        return end, 0.0
    if region == PIT_COUNT + 1:
        return -end, 0.0
    column, row = pit_column_and_row(region)
    return (column - (PITS_PER_ROW - 1) / 2) * pitch, (row - 0.5) * row_spacing


def make_camera(board: Board, rng: np.random.Generator) -> Camera:
    """45-55 cm above the board, looking roughly straight down, the board's rows running across
    the frame (turned a few degrees) and the whole board nearly filling its width."""
    height = rng.uniform(450, 550)
    position = np.array([*rng.uniform(-40, 40, 2), height])
    target = np.array([*rng.uniform(-25, 25, 2), 0.0])
    forward = normalised(target - position)
    up_in_image = np.array([*unit_circle(np.pi / 2 + np.radians(rng.uniform(-9, 9))), 0.0])
    right = normalised(np.cross(forward, up_in_image))
    down = np.cross(forward, right)
    focal = rng.uniform(0.86, 0.96) * FRAME_SIZE[0] * height / (2 * board.half_length)
    return Camera(position, np.stack([right, down, forward], axis=1), focal)


def random_cloth_colour(rng: np.random.Generator) -> np.ndarray:
    """A muted table cloth of any hue (display BGR)."""
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(50, 130), rng.integers(80, 150)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float64)


# ---- seeds settling in their bowls --------------------------------------------------------

def _disc_pattern() -> np.ndarray:
    """Points on a unit disc, each with the height of the unit sphere above it: where a sphere
    may touch the wood beneath it."""
    rings = [(0.0, 1)] + [(radius, 12) for radius in (0.35, 0.65, 0.85, 0.97)]
    points = [
        (radius * np.cos(angle), radius * np.sin(angle), np.sqrt(1 - radius**2))
        for radius, count in rings
        for angle in np.arange(count) * 2 * np.pi / count + radius
    ]
    return np.array(points)


DISC_PATTERN = _disc_pattern()


def drop_seeds(session: Session, counts: list[int], rng: np.random.Generator) -> Seeds:
    """Drop each region's seeds into its bowl one by one; each rests on the bowl and those before."""
    style = session.style
    centres, rotations, regions = [], [], []
    for region, count in enumerate(counts):
        hollow = session.board.hollows[region]
        resting = np.zeros((0, 4))  # proxy spheres already lying in this bowl: x, y, z, radius
        for _ in range(count):
            rotation = lying_rotation(style, rng)
            offsets = np.outer(style.proxy_offsets, rotation[:, 0])
            centre = roll_to_rest(hollow, resting, offsets, style.proxy_radius, session.rim_clearance, rng)
            proxies = np.column_stack([centre + offsets, np.full(len(offsets), style.proxy_radius)])
            resting = np.vstack([resting, proxies])
            centres.append(centre)
            rotations.append(rotation)
            regions.append(region)
    total = len(centres)
    palette = linear(np.array(style.palette, np.float64))
    base = palette[rng.integers(len(palette), size=total)]
    shade = 1 + style.brightness_spread * rng.standard_normal((total, 1)) + 0.02 * rng.standard_normal((total, 3))
    return Seeds(
        centres=np.array(centres).reshape(total, 3),
        rotations=np.array(rotations).reshape(total, 3, 3),
        semi_axes=np.tile(style.semi_axes, (total, 1)) * rng.uniform(0.95, 1.05, (total, 1)),
        colours=np.clip(base * shade, 0, 1),
        regions=np.array(regions, int),
        waves=rng.normal(0, 1.0, (total, 3, 3)),
        phases=rng.uniform(0, 2 * np.pi, (total, 3)),
    )


def lying_rotation(style: SeedStyle, rng: np.random.Generator) -> np.ndarray:
    """A seed's axes as it lands: long axis any way round, mostly flat, now and then on its side."""
    rotation = rotation_z(rng.uniform(0, 2 * np.pi)) @ rotation_x(rng.normal(0, 0.15)) @ rotation_y(rng.normal(0, 0.15))
    if rng.random() < style.on_side:
        rotation = rotation @ rotation_x(np.pi / 2)
    return rotation


def roll_to_rest(
    hollow: Hollow, resting: np.ndarray, offsets: np.ndarray, radius: float, clearance: float, rng: np.random.Generator
) -> np.ndarray:
    """Where a seed dropped near the bowl's middle comes to rest.

    It falls until it touches the wood or another seed, then rolls: it keeps moving to the lowest
    spot within a shrinking reach. The reach is short at first, so a seed sometimes stops in a
    hollow on top of the pile, as a real one does, instead of always finding the lowest gap in the
    whole bowl. Its centre stays `clearance` seed radii inside the rim: resting on the rim is lower
    than on top of a full floor, but the bench's piles stay in their bowls. It is dropped within
    that clearance too: dropped beyond the rim, about one seed in 600 came to rest on the board
    top, out of its pit (session 32), where no player leaves one.
    """
    offset = rng.normal(0, 0.3, 2) * hollow.rim
    spread = np.sqrt(hollow.squared_reach(offset, clearance * radius))
    position = hollow.centre[:2] + (offset / (1.01 * spread) if spread >= 1 else offset)
    height = rest_heights(position[None], hollow, resting, offsets, radius)[0]
    reach = 0.3 * hollow.rim.min()
    for _ in range(SETTLE_ROUNDS):
        angles = rng.uniform(0, 2 * np.pi, SETTLE_CANDIDATES)
        candidates = position + reach * np.sqrt(rng.uniform(0, 1, (SETTLE_CANDIDATES, 1))) * np.column_stack([np.cos(angles), np.sin(angles)])
        heights = np.where(hollow.holds(candidates, clearance * radius), rest_heights(candidates, hollow, resting, offsets, radius), np.inf)
        best = int(np.argmin(heights))
        if heights[best] < height:
            position, height = candidates[best], heights[best]
        reach *= 0.85
    return np.array([position[0], position[1], height])


def rest_heights(candidates: np.ndarray, hollow: Hollow, resting: np.ndarray, offsets: np.ndarray, radius: float) -> np.ndarray:
    """For each candidate (x, y) of a seed's centre, the lowest centre height at which none of its
    proxy spheres enters the wood or another seed's: where it stops when dropped from above."""
    centres = candidates[:, None, :] + offsets[None, :, :2]  # (N, P, 2)
    under = centres[:, :, None, :] + radius * DISC_PATTERN[:, :2]  # (N, P, K, 2)
    needed = (hollow.floor_height(under) + radius * DISC_PATTERN[:, 2]).max(axis=2)
    if len(resting):
        gaps = np.linalg.norm(centres[:, :, None, :] - resting[:, :2], axis=-1)  # (N, P, M)
        touching = radius + resting[:, 3]
        lift = resting[:, 2] + np.sqrt(np.clip(touching**2 - gaps**2, 0, None))
        needed = np.maximum(needed, np.where(gaps < touching, lift, -np.inf).max(axis=2))
    return (needed - offsets[:, 2]).max(axis=1)


# ---- ray tracing ----------------------------------------------------------------------

@dataclass
class Hits:
    """What each camera ray hits first."""

    points: np.ndarray  # (N, 3)
    normals: np.ndarray  # (N, 3), towards the camera's side of the surface
    kinds: np.ndarray  # (N,) TABLE, BOARD_TOP, ...
    regions: np.ndarray  # (N,) the bowl a HOLLOW or SEED hit lies in, else -1
    seeds: np.ndarray  # (N,) the seed hit, else -1


def pixel_grid() -> np.ndarray:
    """(x, y) of every pixel centre of the frame, row by row."""
    width, height = FRAME_SIZE
    ys, xs = np.mgrid[0:height, 0:width]
    return np.column_stack([xs.ravel(), ys.ravel()]).astype(np.float64)


def camera_rays(camera: Camera, pixels: np.ndarray) -> np.ndarray:
    """Unit directions of the rays through the given frame positions."""
    width, height = FRAME_SIZE
    local = np.column_stack([
        (pixels[:, 0] - (width - 1) / 2) / camera.focal,
        (pixels[:, 1] - (height - 1) / 2) / camera.focal,
        np.ones(len(pixels)),
    ])
    return normalised(local @ camera.axes.T)


def projected(camera: Camera, points: np.ndarray) -> np.ndarray:
    """Frame positions (N x 2) of world points (N x 3) in front of the camera."""
    local = (points - camera.position) @ camera.axes
    width, height = FRAME_SIZE
    return np.column_stack([
        local[:, 0] / local[:, 2] * camera.focal + (width - 1) / 2,
        local[:, 1] / local[:, 2] * camera.focal + (height - 1) / 2,
    ])


def rays_near(camera: Camera, pixels: np.ndarray, centre: np.ndarray, radius: float) -> np.ndarray:
    """Indices of the rays (their pixels sorted by row) that may pass within `radius` of
    `centre`: those inside the image box of the cube around that sphere."""
    corners = centre + radius * np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
    box_x, box_y = projected(camera, corners).T
    first, last = np.searchsorted(pixels[:, 1], [box_y.min(), box_y.max()], side="left")
    columns = pixels[first:last, 0]
    return first + np.flatnonzero((columns >= box_x.min()) & (columns <= box_x.max()))


def ellipsoid_roots(origins, directions, centre, semi_axes, rotation=None):
    """Ray parameters (near, far) where rays enter and leave an ellipsoid, and whether they meet it.
    Directions need not be unit length; `rotation`'s columns are the ellipsoid's axes."""
    offsets = origins - centre
    if rotation is not None:
        offsets, directions = offsets @ rotation, directions @ rotation
    offsets, directions = offsets / semi_axes, directions / semi_axes
    a = (directions**2).sum(axis=-1)
    b = (offsets * directions).sum(axis=-1)
    c = (offsets**2).sum(axis=-1) - 1
    discriminant = b**2 - a * c
    root = np.sqrt(np.clip(discriminant, 0, None))
    return (-b - root) / a, (-b + root) / a, discriminant > 0


def cone_span(aside: np.ndarray, reach: np.ndarray, directions: np.ndarray, slope: float) -> tuple[np.ndarray, np.ndarray]:
    """Ray parameters where rays enter and leave the inside of an upright cone that widens upward,
    its wall rising `slope` per unit out: `aside` holds the rays' origins' offsets (x, y) from its
    axis, `reach` its radius at their heights."""
    a = (directions[:, :2] ** 2).sum(axis=1) - (directions[:, 2] / slope) ** 2
    b = 2 * ((aside * directions[:, :2]).sum(axis=1) - reach * directions[:, 2] / slope)
    c = (aside**2).sum(axis=1) - reach**2
    discriminant = b**2 - 4 * a * c
    root = np.sqrt(np.clip(discriminant, 0, None))
    first, second = np.minimum((-b - root) / (2 * a), (-b + root) / (2 * a)), np.maximum((-b - root) / (2 * a), (-b + root) / (2 * a))
    # A ray steeper than the wall meets the cone and its mirror image below the apex: the cone's
    # side of the two is where its radius is positive.
    upper_first = reach + first * directions[:, 2] / slope >= 0
    enter = np.where(a > 0, first, np.where(upper_first, -np.inf, second))
    leave = np.where(a > 0, second, np.where(upper_first, first, np.inf))
    # No crossing: a ray less steep than the wall passes outside, a steeper one stays inside.
    missed = discriminant <= 0
    return np.where(missed, np.where(a > 0, np.inf, -np.inf), enter), np.where(missed, np.where(a > 0, -np.inf, np.inf), leave)


def box_entry(origins, directions, low, high):
    """Slab test: ray parameters where rays enter and leave an axis-aligned box, and the axis of
    the face they enter by."""
    with np.errstate(divide="ignore", invalid="ignore"):
        first, second = (low - origins) / directions, (high - origins) / directions
    near, far = np.minimum(first, second), np.maximum(first, second)
    return near.max(axis=-1), far.min(axis=-1), near.argmax(axis=-1)


def board_box(board: Board) -> tuple[np.ndarray, np.ndarray]:
    return np.array([-board.half_length, -board.half_width, -board.thickness]), np.array([board.half_length, board.half_width, 0.0])


def trace(camera: Camera, board: Board, seeds: Seeds, pixels: np.ndarray, directions: np.ndarray) -> Hits:
    origin = camera.position
    count = len(directions)
    distances = np.where(directions[:, 2] < 0, (-board.thickness - origin[2]) / directions[:, 2], np.inf)
    kinds = np.full(count, TABLE, np.int8)
    normals = np.zeros((count, 3))
    normals[:, 2] = 1
    regions = np.full(count, -1, np.int32)
    seed_hit = np.full(count, -1, np.int32)

    enter, leave, axis = box_entry(origin, directions, *board_box(board))
    on_board = (enter < leave) & (enter > 0)
    distances[on_board] = enter[on_board]
    kinds[on_board] = np.where(axis[on_board] == 2, BOARD_TOP, BOARD_SIDE)
    sides = np.flatnonzero(kinds == BOARD_SIDE)
    normals[sides] = 0
    normals[sides, axis[sides]] = -np.sign(directions[sides, axis[sides]])

    top = np.flatnonzero(kinds == BOARD_TOP)
    top_xy = origin[:2] + distances[top, None] * directions[top, :2]
    for region, hollow in enumerate(board.hollows):
        rays = top[(((top_xy - hollow.centre[:2]) / hollow.opening) ** 2).sum(axis=1) < 1]
        distances[rays], normals[rays] = hollow.leave(origin, directions[rays], distances[rays])
        kinds[rays], regions[rays] = HOLLOW, region

    for seed in range(len(seeds.centres)):
        centre, rotation, semi_axes = seeds.centres[seed], seeds.rotations[seed], seeds.semi_axes[seed]
        rays = rays_near(camera, pixels, centre, semi_axes.max())
        near, _, met = ellipsoid_roots(origin, directions[rays], centre, semi_axes, rotation)
        closer = met & (near > 0) & (near < distances[rays])
        rays, near = rays[closer], near[closer]
        distances[rays], kinds[rays], regions[rays], seed_hit[rays] = near, SEED, seeds.regions[seed], seed
        local = ((origin + near[:, None] * directions[rays] - centre) @ rotation) / semi_axes**2
        normals[rays] = normalised(local @ rotation.T)

    points = origin + np.where(np.isfinite(distances), distances, 0)[:, None] * directions
    return Hits(points, normals, kinds, regions, seed_hit)


# ---- lighting ----------------------------------------------------------------------------

def lamp_points(lamp: Lamp, rng: np.random.Generator) -> np.ndarray:
    """Stratified points on the lamp's horizontal disc, turned at random per photo."""
    angles = (np.arange(LAMP_SAMPLES) + rng.uniform(0, 1, LAMP_SAMPLES)) * 2 * np.pi / LAMP_SAMPLES
    radii = lamp.radius * np.sqrt(rng.uniform(0.1, 1, LAMP_SAMPLES))
    return lamp.centre + np.column_stack([radii * np.cos(angles), radii * np.sin(angles), np.zeros(LAMP_SAMPLES)])


def lamp_visibility(hits: Hits, board: Board, seeds: Seeds, lights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per ray: the share of the lamp's disc it sees, and how much the seeds nearby shut off the
    room's ambient light (1: not at all)."""
    count = len(hits.kinds)
    hidden = np.zeros((count, len(lights)), bool)  # per ray and lamp point
    ambient = np.ones(count)
    lifted = hits.points + 0.05 * hits.normals  # off the surface, so that it does not shade itself
    on_board = np.flatnonzero(hits.kinds != TABLE)
    board_xy = hits.points[on_board, :2]
    for region, hollow in enumerate(board.hollows):
        low = hollow.centre[:2] - hollow.opening - SHADOW_MARGIN
        high = hollow.centre[:2] + hollow.opening + SHADOW_MARGIN
        near = on_board[((board_xy > low) & (board_xy < high)).all(axis=1)]
        in_bowl = near[(hits.regions[near] == region) & (hits.points[near, 2] < 0)]
        hidden[in_bowl] |= rim_hides(lifted[in_bowl], hollow, lights)
        mine = np.flatnonzero(seeds.regions == region)
        if len(mine):
            hidden[near] |= seeds_hide(lifted[near], hits.seeds[near], seeds, mine, lights)
            ambient[near] *= seed_ambient(hits.points[near], hits.normals[near], seeds, mine)
    table = np.flatnonzero(hits.kinds == TABLE)
    hidden[table] = board_hides(lifted[table], board, lights)
    return 1 - hidden.mean(axis=1), ambient


def rim_hides(points: np.ndarray, hollow: Hollow, lights: np.ndarray) -> np.ndarray:
    """Whether the bowl's own wall hides each lamp point from points inside it: a ray to the
    lamp leaving the space cut away below the board top runs into wood."""
    hidden = np.zeros((len(points), len(lights)), bool)
    for index, light in enumerate(lights):
        towards = light - points
        leaving, _ = hollow.leave(points, towards)
        hidden[:, index] = points[:, 2] + leaving * towards[:, 2] < -1e-6
    return hidden


def seeds_hide(points, hit_seeds, seeds: Seeds, candidates: np.ndarray, lights: np.ndarray) -> np.ndarray:
    """Whether any of the given seeds hides each lamp point from the points."""
    hidden = np.zeros((len(points), len(lights)), bool)
    towards_centre = normalised(lights.mean(axis=0) - points)
    for seed in candidates:
        centre = seeds.centres[seed]
        reach = seeds.semi_axes[seed].max() + 2.0  # the lamp's disc widens the shadow a little
        offset = centre - points
        along = (offset * towards_centre).sum(axis=1)
        aside = (offset**2).sum(axis=1) - along**2
        # A seed does not shade itself: its lit side faces the lamp, its dark side faces away.
        maybe = np.flatnonzero((along > 0) & (aside < reach**2) & (hit_seeds != seed))
        for index, light in enumerate(lights):
            towards = light - points[maybe]
            near, far, met = ellipsoid_roots(points[maybe], towards, centre, seeds.semi_axes[seed], seeds.rotations[seed])
            hidden[maybe, index] |= met & (far > 0) & (near < 1)
    return hidden


def seed_ambient(points, normals, seeds: Seeds, candidates: np.ndarray) -> np.ndarray:
    """Ambient light left where seeds crowd round a point (in the gaps of a pile, under a seed):
    each seed in front of the surface takes a share growing with the solid angle it covers."""
    occlusion = np.zeros(len(points))
    for seed in candidates:
        offset = seeds.centres[seed] - points
        distance = np.maximum(np.linalg.norm(offset, axis=1), 1e-6)
        facing = np.clip((offset * normals).sum(axis=1) / distance, 0, 1)
        occlusion += facing * np.clip(seeds.semi_axes[seed].mean() / distance, 0, 1) ** 2
    return np.exp(-1.2 * occlusion)


def board_hides(points: np.ndarray, board: Board, lights: np.ndarray) -> np.ndarray:
    """Whether the board hides each lamp point from points on the table: whether they lie in the
    board's shadow, the convex hull of its corners cast from that lamp point onto the table."""
    hidden = np.zeros((len(points), len(lights)), bool)
    low, high = board_box(board)
    corners = np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1]) for z in (low[2], high[2])])
    for index, light in enumerate(lights):
        reach = (low[2] - light[2]) / (corners[:, 2] - light[2])
        cast = (light + reach[:, None] * (corners - light))[:, :2]
        hull = cv2.convexHull(cast.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        edges = np.roll(hull, -1, axis=0) - hull
        near = np.flatnonzero(((points[:, :2] >= hull.min(axis=0)) & (points[:, :2] <= hull.max(axis=0))).all(axis=1))
        # Inside a convex polygon: on the same side of every edge.
        sides = edges[:, 0] * (points[near, None, 1] - hull[:, 1]) - edges[:, 1] * (points[near, None, 0] - hull[:, 0])
        hidden[near, index] = (sides >= 0).all(axis=1) | (sides <= 0).all(axis=1)
    return hidden


# ---- materials and shading ---------------------------------------------------------------

def surface_colours(hits: Hits, session: Session, seeds: Seeds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per ray: linear BGR albedo, specular strength and shininess."""
    count = len(hits.kinds)
    albedo = np.empty((count, 3))
    specular, shininess = np.empty(count), np.empty(count)

    table = hits.kinds == TABLE
    albedo[table] = session.table_colour * cloth_texture(hits.points[table])[:, None]
    specular[table], shininess[table] = TABLE_FINISH

    wood = (hits.kinds == BOARD_TOP) | (hits.kinds == BOARD_SIDE) | (hits.kinds == HOLLOW)
    albedo[wood] = session.board.wood * wood_grain(hits.points[wood], session.board.grain_phases)[:, None]
    specular[wood], shininess[wood] = session.board_finish

    on_seed = np.flatnonzero(hits.kinds == SEED)
    which = hits.seeds[on_seed]
    local = np.einsum("nij,ni->nj", seeds.rotations[which], hits.points[on_seed] - seeds.centres[which])
    waves = np.sin(np.einsum("nkj,nj->nk", seeds.waves[which], local) + seeds.phases[which])
    mottle = 1 + session.style.mottle * (waves[:, 0] * waves[:, 1] + 0.6 * waves[:, 2])
    albedo[on_seed] = seeds.colours[which] * mottle[:, None]
    specular[on_seed], shininess[on_seed] = session.style.specular, session.style.shininess
    return albedo, specular, shininess


def wood_grain(points: np.ndarray, phases: np.ndarray) -> np.ndarray:
    """Brightness of long-grained wood: wavy stripes along the board, finer streaks within."""
    x, y, z = points.T
    wobble = 6 * np.sin(x / 90 + phases[0]) + 2.5 * np.sin(x / 23 + phases[1]) + 0.3 * z
    stripes = 0.5 + 0.5 * np.sin((y + wobble) / 4.5 + phases[2])
    streaks = np.sin((y + 0.5 * wobble) * 1.7 + np.sin(x / 7 + phases[3]))
    return 0.82 + 0.22 * stripes**3 + 0.04 * streaks


def cloth_texture(points: np.ndarray) -> np.ndarray:
    x, y = points[:, 0], points[:, 1]
    return 1 + 0.03 * np.sin(2.3 * x) * np.sin(2.1 * y) + 0.02 * np.sin(0.11 * x + 0.07 * y)


def shade(hits: Hits, directions: np.ndarray, session: Session, seeds: Seeds, lights: np.ndarray) -> np.ndarray:
    """Linear BGR radiance per ray: ambient + Lambert + Blinn-Phong from the lamp, which fades
    with the square of the distance (1 at the board's centre)."""
    visible, ambient_left = lamp_visibility(hits, session.board, seeds, lights)
    albedo, specular, shininess = surface_colours(hits, session, seeds)
    to_lamp = session.lamp.centre - hits.points
    distance = np.linalg.norm(to_lamp, axis=1)
    light_dir = to_lamp / distance[:, None]
    falloff = (np.linalg.norm(session.lamp.centre) / distance) ** 2
    lambert = np.clip((hits.normals * light_dir).sum(axis=1), 0, None)
    halfway = normalised(light_dir - directions)
    glint = specular * np.clip((hits.normals * halfway).sum(axis=1), 0, None) ** shininess * (lambert > 0)
    sky = session.ambient * ambient_left * (0.6 + 0.4 * hits.normals[:, 2])  # a room lit from above
    direct = falloff * visible
    return albedo * (sky + direct * lambert)[:, None] + (direct * glint)[:, None]


# ---- the camera ---------------------------------------------------------------------------

def develop(radiance: np.ndarray, session: Session, rng: np.random.Generator) -> np.ndarray:
    """The sensor's picture: exposure, lamp colour cast, vignetting, gamma, blur, noise; 8-bit BGR."""
    width, height = FRAME_SIZE
    ys, xs = np.mgrid[0:height, 0:width]
    corner_distance = ((xs - width / 2) ** 2 + (ys - height / 2) ** 2) / ((width / 2) ** 2 + (height / 2) ** 2)
    image = radiance.reshape(height, width, 3) * (session.exposure * (1 - session.vignetting * corner_distance))[..., None]
    image = (255 * np.clip(image * colour_cast(session.lamp.kelvin), 0, 1) ** (1 / 2.2)).astype(np.float32)
    if session.blur:
        image = cv2.GaussianBlur(image, (0, 0), session.blur)
    image += rng.normal(0, session.noise, image.shape).astype(np.float32)
    return np.clip(np.round(image), 0, 255).astype(np.uint8)


def colour_cast(kelvin: int) -> np.ndarray:
    """BGR gains of a lamp of this colour temperature seen by a camera balanced for 6000 K, whose
    automatic white balance has taken out part of the difference."""
    gains = (blackbody_bgr(kelvin) / blackbody_bgr(6000)) ** 0.6
    return gains / gains[1]


def blackbody_bgr(kelvin: float) -> np.ndarray:
    """Approximate display colour of a black body (Tanner Helland's fit), BGR in 0..1."""
    t = kelvin / 100
    red = 255 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    green = 99.4708025861 * np.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    blue = 255 if t >= 66 else 138.5177312231 * np.log(t - 10) - 305.0447927307
    return np.clip([blue, green, red], 1, 255) / 255


def render_photo(session: Session, pits: list[int], stores: list[int], rng: np.random.Generator) -> np.ndarray:
    seeds = drop_seeds(session, list(pits) + list(stores), rng)
    lights = lamp_points(session.lamp, rng)
    pixels = pixel_grid()
    radiance, labels = render_rays(session, seeds, lights, pixels)
    # Anti-aliasing where it shows: pixels on an outline (what the ray hit changes next door)
    # are traced again with four rays each, and averaged.
    width, height = FRAME_SIZE
    labels = labels.reshape(height, width)
    outline = np.zeros((height, width), np.uint8)
    outline[:, :-1] |= labels[:, :-1] != labels[:, 1:]
    outline[:-1, :] |= labels[:-1, :] != labels[1:, :]
    edges = np.flatnonzero(cv2.dilate(outline, np.ones((2, 2), np.uint8)))
    subpixels = (pixels[edges, None, :] + np.array(EDGE_SUBPIXELS)).reshape(-1, 2)
    order = np.argsort(subpixels[:, 1], kind="stable")
    sub_radiance = np.empty((len(subpixels), 3))
    sub_radiance[order] = render_rays(session, seeds, lights, subpixels[order])[0]
    radiance[edges] = sub_radiance.reshape(len(edges), len(EDGE_SUBPIXELS), 3).mean(axis=1)
    return develop(radiance, session, rng)


def render_rays(session: Session, seeds: Seeds, lights: np.ndarray, pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Radiance of the rays through the given frame positions (sorted by row), and a label per
    ray that changes across every outline (what kind of thing, which seed, which bowl)."""
    directions = camera_rays(session.camera, pixels)
    hits = trace(session.camera, session.board, seeds, pixels, directions)
    labels = (hits.kinds.astype(np.int64) * 100 + hits.regions + 1) * 1000 + hits.seeds + 1
    return shade(hits, directions, session, seeds, lights), labels


# ---- the session folder --------------------------------------------------------------------

def random_game(photos: int, rng: np.random.Generator) -> list[dict]:
    """The positions of a pbmserv game of random legal moves from the start, each but the last
    with the move played next; shorter if the game ends first."""
    rules = WariRules(VARIANTS["pbmserv"])
    state = rules.start()
    items = []
    for _ in range(photos):
        items.append({"pits": list(state.pits), "stores": list(state.stores)})
        moves = [] if rules.is_over(state) else rules.legal_moves(state)
        if len(items) == photos or not moves:
            break
        move = moves[int(rng.integers(len(moves)))]
        items[-1]["next_move"] = move.to_json()
        state = rules.apply(state, move)
    return items


def even_piles(rng: np.random.Generator) -> dict:
    """Pits holding counts drawn evenly from 0 up to a most of 10-20, stores 0-7 (--training)."""
    most = int(rng.integers(TRAINING_MOST_SEEDS[0], TRAINING_MOST_SEEDS[1] + 1))
    return {"pits": [int(n) for n in rng.integers(0, most + 1, PIT_COUNT)], "stores": [int(n) for n in rng.integers(0, 8, 2)]}


def near_starts(photos: int, rng: np.random.Generator) -> list[dict]:
    """Start positions with one pit (drawn) holding 1, 2, 3, 5 or 6 seeds instead of 4 (drawn in turn)."""
    odd_counts = (1, 2, 3, 5, 6)
    items = []
    for index in range(photos):
        pits = [4] * PIT_COUNT
        pits[int(rng.integers(PIT_COUNT))] = odd_counts[index % len(odd_counts)]
        items.append({"image": f"near{index:03d}.jpg", "pits": pits, "stores": [0, 0]})
    return items


def write_session(
    out_dir: Path, style: str, session_number: int, positions: int, sequence: int, training: bool = False, near: int = 0,
    lamp_reach: float | None = None,
) -> None:
    session = make_session(style, session_number, training, lamp_reach)
    counts_rng = session_rng(style, session_number, 2)
    start = {"image": "start.jpg", "pits": [4] * PIT_COUNT, "stores": [0, 0]}
    draw = even_piles if training else random_position
    position_items = [{"image": f"pos{i:03d}.jpg", **draw(counts_rng)} for i in range(positions)]
    sequence_items = [{"image": f"seq{i:03d}.jpg", **item} for i, item in enumerate(random_game(sequence, counts_rng))]
    near_items = near_starts(near, session_rng(style, session_number, 7))
    # Near starts draw their photos from a stream of their own, so that asking for them leaves
    # every other photo of the session as it was.
    photos = [(item, photo_rng(style, session_number, index)) for index, item in enumerate([start] + position_items + sequence_items)]
    photos += [(item, session_rng(style, session_number, 8, index)) for index, item in enumerate(near_items)]
    out_dir.mkdir(parents=True, exist_ok=True)
    for item, rng in photos:
        started = time.perf_counter()
        photo = render_photo(session, item["pits"], item["stores"], rng)
        cv2.imwrite(str(out_dir / item["image"]), photo, [cv2.IMWRITE_JPEG_QUALITY, session.jpeg_quality])
        print(f"{out_dir / item['image']}: {time.perf_counter() - started:.1f} s")
    truth = {
        "style": style, "kelvin": session.lamp.kelvin, "variant": "pbmserv",
        "start": start, "positions": position_items, "sequence": sequence_items,
    }
    if near_items:
        truth["near_starts"] = near_items
    (out_dir / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")


def session_rng(style: str, session_number: int, *stream: int) -> np.random.Generator:
    """One of a session's generators, each drawing its own things, so that adding draws to one
    leaves the others as they were: 1 the session's set-up, 2 its positions, (3, photo) each
    photo, 4-6 and 9 the --training draws, 7 the near starts' odd pits, (8, photo) each near start's photo."""
    return np.random.default_rng([session_number, STYLES.index(style), *stream])


def photo_rng(style: str, session_number: int, index: int) -> np.random.Generator:
    """The generator of a session's photo `index` (0: the start photo): its seeds are dropped first."""
    return session_rng(style, session_number, 3, index)


# ---- small helpers ---------------------------------------------------------------------

def normalised(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


def unit_circle(angle: float) -> np.ndarray:
    return np.array([np.cos(angle), np.sin(angle)])


def linear(display_bgr: np.ndarray) -> np.ndarray:
    """Display 0-255 colour to linear light 0-1."""
    return (np.asarray(display_bgr, np.float64) / 255) ** 2.2


def rotation_x(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rotation_y(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rotation_z(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--style", choices=STYLES, required=True)
    parser.add_argument("--session", type=int, required=True, help="fixes camera, lamp, board and table")
    parser.add_argument("--positions", type=int, default=8, help="random positions to photograph")
    parser.add_argument("--sequence", type=int, default=0, help="photos of a random game from the start")
    parser.add_argument("--near-starts", type=int, default=0, help="photos of the start with one pit of other than 4 seeds")
    parser.add_argument("--training", action="store_true", help="seeds, bowls and pile sizes varied for training a counter")
    parser.add_argument("--lamp-reach", type=float, help="mm from the board's middle to the lamp, sideways (default: drawn)")
    args = parser.parse_args(argv)
    if args.lamp_reach is not None and not 0 < args.lamp_reach <= 1000:
        parser.error("--lamp-reach takes a distance in mm, above 0 and at most 1000")
    write_session(
        args.out_dir, args.style, args.session, args.positions, args.sequence, args.training, args.near_starts, args.lamp_reach,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
