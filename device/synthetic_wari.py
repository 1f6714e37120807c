"""A fast synthetic camera view of a Wari table, for unit tests, the simulated camera and the demo.

`session` fixes what stays put on a real table (camera pose, lens tilt, lamp colour and hot spot,
board wood, table cloth); `seed` varies what changes from photo to photo (where each seed rolls,
sensor noise, a camera shake of a pixel or so). The board is painted top-down in its own frame and
warped into the 1280x960 frame with a homography, so perspective comes for free.
"""
from __future__ import annotations

import itertools

import cv2
import numpy as np

from engines.errors import ArbiterError

FRAME_SIZE = (1280, 960)
PITS_PER_ROW = 6
STYLES = ("nicker", "glass")
_PITCH = 120  # canvas pixels between pit centres
PIT_RADIUS = 0.41 * _PITCH
_ROW_SPACING = 1.15 * _PITCH
_STORE_OFFSET = 1.05 * _PITCH
_STORE_HALF_LENGTH = 0.45 * _PITCH
_STORE_HALF_WIDTH = 0.85 * _PITCH
_MARGIN = 0.25 * _PITCH
_GLASS_COLOURS = ((70, 60, 235), (200, 90, 30), (40, 190, 60), (30, 200, 220), (170, 50, 150), (235, 235, 235))


def render_board(
    pits,
    stores=(0, 0),
    seed: int = 0,
    style: str = "nicker",
    session: int = 0,
    hand: bool = False,
    recolour: dict[int, tuple[float, float, float]] | None = None,
) -> np.ndarray:
    """A 1280x960 BGR photo of a board holding `pits` (contract order) and `stores` [south, north].

    `recolour` paints chosen seeds another BGR colour: by each seed's index in painting order
    (region by region in contract order, each pit's floor layer first), say to make a few seeds
    almost the wood's colour. Those seeds draw no colour of their own, so the rest of the photo
    is as without them."""
    pits, stores = _checked_counts(pits, stores)
    if style not in STYLES:
        raise ArbiterError(f"unknown seed style {style!r} (expected one of {', '.join(STYLES)})")
    table = np.random.default_rng([session, 7])
    photo = np.random.default_rng([session, seed, 11])
    canvas, origin = _paint_board(table)
    painted = itertools.count()
    for region, count in enumerate(pits + stores):
        centre, half_axes = _region_shape(region, origin)
        _paint_seeds(canvas, centre, half_axes, count, style, photo, painted, recolour or {})
    frame = _place_on_table(canvas, table, photo)
    if hand:
        _paint_hand(frame, photo)
    return _apply_camera(frame, table, photo)


def _checked_counts(pits, stores) -> tuple[list[int], list[int]]:
    try:
        pits, stores = [int(n) for n in pits], [int(n) for n in stores]
    except (TypeError, ValueError):
        raise ArbiterError("a Wari board needs 12 pit counts and 2 store counts") from None
    if len(pits) != 2 * PITS_PER_ROW or len(stores) != 2 or min(pits + stores) < 0:
        raise ArbiterError("a Wari board needs 12 non-negative pit counts and 2 store counts")
    return pits, stores


def _region_shape(region: int, origin: np.ndarray) -> tuple[np.ndarray, tuple[float, float]]:
    """Canvas centre and half axes of a pit (contract index) or store (12 South's, 13 North's).

    The canvas is drawn as the camera sees it: South's row at the bottom, South's store on the right.
    """
    if region == 2 * PITS_PER_ROW:
        return origin + ((PITS_PER_ROW - 1) * _PITCH + _STORE_OFFSET, -_ROW_SPACING / 2), (_STORE_HALF_LENGTH, _STORE_HALF_WIDTH)
    if region == 2 * PITS_PER_ROW + 1:
        return origin + (-_STORE_OFFSET, -_ROW_SPACING / 2), (_STORE_HALF_LENGTH, _STORE_HALF_WIDTH)
    column = region if region < PITS_PER_ROW else 2 * PITS_PER_ROW - 1 - region
    row = 0 if region < PITS_PER_ROW else 1
    return origin + (column * _PITCH, -row * _ROW_SPACING), (PIT_RADIUS, PIT_RADIUS)


def _paint_board(table: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The wooden board with its hollows, top-down; returns it and the canvas position of South's pit a."""
    width = int(round((PITS_PER_ROW - 1) * _PITCH + 2 * (_STORE_OFFSET + _STORE_HALF_LENGTH + _MARGIN)))
    height = int(round(_ROW_SPACING + 2 * (PIT_RADIUS + _MARGIN)))
    origin = np.array([_STORE_OFFSET + _STORE_HALF_LENGTH + _MARGIN, height - PIT_RADIUS - _MARGIN])
    wood = np.array([30, 75, 140], np.float32) * table.uniform(0.6, 1.15) + table.uniform(-15, 15, 3)
    rows = np.arange(height, dtype=np.float32)[:, None]
    columns = np.arange(width, dtype=np.float32)[None, :]
    phase = table.uniform(0, 6.3)
    grain = 0.08 * np.sin(rows / 9 + 1.5 * np.sin(columns / 140 + phase)) + 0.04 * np.sin(rows / 3.1 + columns / 400)
    canvas = np.clip(wood[None, None, :] * (1 + grain[..., None]), 0, 255).astype(np.float32)
    for region in range(2 * PITS_PER_ROW + 2):
        centre, half_axes = _region_shape(region, origin)
        _paint_hollow(canvas, centre, half_axes)
    return canvas, origin


def _paint_hollow(canvas: np.ndarray, centre: np.ndarray, half_axes: tuple[float, float]) -> None:
    """A bowl lit from the top left: its far wall shaded, its near wall lit, a dark rim line."""
    x0, y0 = int(centre[0] - half_axes[0]) - 2, int(centre[1] - half_axes[1]) - 2
    x1, y1 = int(centre[0] + half_axes[0]) + 3, int(centre[1] + half_axes[1]) + 3
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    u, v = (xs - centre[0]) / half_axes[0], (ys - centre[1]) / half_axes[1]
    radius = np.sqrt(u**2 + v**2)
    inside = radius < 1
    slope = np.clip(radius, 0, 1) ** 2
    light = 1 - 0.35 * slope * (-(u + v) / np.maximum(radius, 1e-3) * 0.5 + 0.5) - 0.12
    light = np.where(inside, light, 1.0)
    rim = np.exp(-(((radius - 1) / 0.03) ** 2)) * 0.3
    patch = canvas[y0:y1, x0:x1]
    patch *= (light - rim)[..., None]


def _paint_seeds(canvas, centre, half_axes, count, style, photo: np.random.Generator, painted, recolour) -> None:
    """Seeds roll to free spots near the bowl's bottom; once the floor is full they land on top of
    others. `painted` numbers the photo's seeds; `recolour` gives some of them their colour."""
    size, elongation, spacing = seed_shape(style)
    for x, y, level in sorted(seed_places(centre, half_axes, count, style, photo), key=lambda p: p[2]):
        index = next(painted)
        colour = np.array(recolour[index], np.float32) if index in recolour else _seed_colour(style, photo)
        grow = 1 + 0.04 * level
        angle = photo.uniform(0, 180)
        axes = (size * grow * elongation, size * grow)
        _paint_seed(canvas, (x, y), axes, angle, colour)


def seed_shape(style: str) -> tuple[float, float, float]:
    """Half a seed's short axis (canvas pixels), its elongation, and how close two seeds' centres
    come when they lie side by side."""
    size = 0.085 * _PITCH if style == "nicker" else 0.07 * _PITCH
    elongation = 1.25 if style == "nicker" else 1.0
    spacing = 1.9 * size * (1 + elongation) / 2  # long seeds side by side nestle against each other
    return size, elongation, spacing


def seed_places(centre, half_axes, count, style, photo: np.random.Generator) -> list[tuple[float, float, float]]:
    """Canvas x, y and layer (0: on the floor) of each seed, in the order they were sown."""
    size, elongation, spacing = seed_shape(style)
    floor = (half_axes[0] - 1.1 * size, half_axes[1] - 1.1 * size)
    placed: list[tuple[float, float, float]] = []  # x, y, height level
    for _ in range(count):
        # A seed rolls down the bowl: of a few spots where it would fit, it stops at the lowest.
        angles = photo.uniform(0, 2 * np.pi, 80)
        distances = np.sqrt(photo.uniform(0, 1, 80))
        xs = centre[0] + floor[0] * distances * np.cos(angles)
        ys = centre[1] + floor[1] * distances * np.sin(angles)
        free = np.ones(len(xs), bool)
        for px, py, level in placed:
            if level == 0:
                free &= (xs - px) ** 2 + (ys - py) ** 2 > spacing**2
        if free.any():
            lowest = np.flatnonzero(free)[np.argmin(distances[free] + photo.uniform(0, 0.15, free.sum()))]
            placed.append((xs[lowest], ys[lowest], 0.0))
        else:
            placed.append(_resting_place(centre, floor, size, spacing, placed, photo))
    return placed


def _resting_place(centre, floor, size, spacing, placed, photo: np.random.Generator) -> tuple[float, float, float]:
    """Where a seed comes to rest once the few spots it first rolled past were taken.

    It rolls on: into any gap left on the bowl's floor, or else onto the pile, at the lowest layer
    where it rests in a hollow between two seeds of the layer below (it cannot balance on one)
    without passing through a seed of its own layer. Upper layers reach a little further up the
    bowl's wall than the floor's seeds, and no seed passes through another, so piles grow as
    real ones do rather than as towers beside bare floor.
    """
    tries = 400
    angles = photo.uniform(0, 2 * np.pi, tries)
    distances = np.sqrt(photo.uniform(0, 1, tries))
    wall = 0.5 * size  # how much further up the wall a seed resting on others may lie
    xs = centre[0] + (floor[0] + wall) * distances * np.cos(angles)
    ys = centre[1] + (floor[1] + wall) * distances * np.sin(angles)
    on_floor = distances * np.hypot((floor[0] + wall) * np.cos(angles) / floor[0], (floor[1] + wall) * np.sin(angles) / floor[1]) <= 1
    seeds = np.array(placed)
    apart = (xs[:, None] - seeds[None, :, 0]) ** 2 + (ys[:, None] - seeds[None, :, 1]) ** 2 > spacing**2
    layers = np.full(tries, np.inf)
    layers[on_floor & apart[:, seeds[:, 2] == 0].all(axis=1)] = 0
    for layer in range(1, int(seeds[:, 2].max()) + 2):
        below = seeds[:, 2] == layer - 1
        same = seeds[:, 2] == layer
        # A round seed cannot balance on one other: it rests in the hollow between two or more.
        rests = ((~apart[:, below]).sum(axis=1) >= min(2, below.sum())) & apart[:, same].all(axis=1)
        layers = np.where(np.isinf(layers) & rests, layer, layers)
    if np.isinf(layers).all():  # nowhere found (rare): on top of the pile's highest seed
        top = seeds[np.argmax(seeds[:, 2])]
        return float(top[0]), float(top[1]), float(top[2] + 1)
    choice = np.argmin(layers * 10 + distances + photo.uniform(0, 0.15, tries))
    return float(xs[choice]), float(ys[choice]), float(layers[choice])


def _seed_colour(style: str, photo: np.random.Generator) -> np.ndarray:
    if style == "nicker":
        return np.array([120, 140, 130], np.float32) * photo.uniform(0.85, 1.1)
    return np.array(_GLASS_COLOURS[photo.integers(len(_GLASS_COLOURS))], np.float32)


def _paint_seed(canvas, centre, axes, angle, colour) -> None:
    """A shaded seed: a soft shadow, a darker body, a lit cap and a glint."""
    def ellipse(offset, scale, value, thickness=-1):
        cv2.ellipse(
            canvas,
            (int(round((centre[0] + offset[0]) * 16)), int(round((centre[1] + offset[1]) * 16))),
            (max(int(axes[0] * scale * 16), 16), max(int(axes[1] * scale * 16), 16)),
            angle, 0, 360, [float(c) for c in value], thickness, cv2.LINE_AA, 4,
        )

    ellipse((0.25 * axes[1], 0.3 * axes[1]), 1.05, canvas[int(centre[1]), int(centre[0])] * 0.55)
    ellipse((0, 0), 1.0, colour * 0.7)
    ellipse((-0.15 * axes[1], -0.15 * axes[1]), 0.75, colour)
    ellipse((-0.35 * axes[1], -0.35 * axes[1]), 0.2, np.minimum(colour * 0.4 + 170, 255))


def _place_on_table(canvas: np.ndarray, table: np.random.Generator, photo: np.random.Generator) -> np.ndarray:
    """Warp the board into a frame of table cloth, with the session's pose and a little shake."""
    width, height = FRAME_SIZE
    cloth = np.array([table.uniform(40, 120), table.uniform(60, 130), table.uniform(40, 110)], np.float32)
    frame = np.empty((height, width, 3), np.float32)
    frame[:] = cloth
    board_h, board_w = canvas.shape[:2]
    corners = np.float32([[0, 0], [board_w, 0], [board_w, board_h], [0, board_h]])
    scale = table.uniform(0.85, 1.0) * width / board_w
    angle = np.radians(table.uniform(-6, 6))
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32)
    placed = (corners - (board_w / 2, board_h / 2)) @ rotation.T * scale
    placed += (width / 2 + table.uniform(-30, 30), height / 2 + table.uniform(-30, 30))
    # A slightly tilted camera: one end of the board a few percent nearer than the other.
    tilt = table.uniform(-0.04, 0.04)
    placed[[0, 3]] += (placed[[0, 3]] - placed.mean(axis=0)) * tilt
    placed[[1, 2]] -= (placed[[1, 2]] - placed.mean(axis=0)) * tilt
    placed += photo.normal(0, 0.5, 2)
    homography = cv2.getPerspectiveTransform(corners, placed.astype(np.float32))
    cv2.warpPerspective(canvas, homography, FRAME_SIZE, frame, cv2.INTER_LINEAR, cv2.BORDER_TRANSPARENT)
    return frame


def _paint_hand(frame: np.ndarray, photo: np.random.Generator) -> None:
    """A hand reaching over the middle of the board from the bottom edge."""
    width, height = FRAME_SIZE
    x = int(width * photo.uniform(0.35, 0.65))
    skin = (110, 150, 215)
    cv2.ellipse(frame, (x, int(height * 0.55)), (110, 150), photo.uniform(-20, 20), 0, 360, skin, -1, cv2.LINE_AA)
    cv2.rectangle(frame, (x - 80, int(height * 0.6)), (x + 80, height), skin, -1)


def _apply_camera(frame: np.ndarray, table: np.random.Generator, photo: np.random.Generator) -> np.ndarray:
    """Lamp colour cast and hot spot, vignetting, sensor noise, 8-bit output."""
    width, height = FRAME_SIZE
    ys, xs = np.mgrid[0:height:8, 0:width:8].astype(np.float32)
    hot_x, hot_y = width * table.uniform(0.3, 0.7), height * table.uniform(0.3, 0.6)
    spot = np.exp(-((xs - hot_x) ** 2 + (ys - hot_y) ** 2) / (2 * (0.3 * width) ** 2))
    vignette = 1 - 0.35 * (((xs - width / 2) / width) ** 2 + ((ys - height / 2) / height) ** 2)
    light = cv2.resize((0.75 + 0.45 * spot) * vignette, FRAME_SIZE, interpolation=cv2.INTER_LINEAR)
    cast = np.array([table.uniform(0.8, 1.1), 1.0, table.uniform(0.85, 1.15)], np.float32)
    frame *= light[..., None] * cast
    frame += photo.normal(0, 3.0, frame.shape).astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8)
