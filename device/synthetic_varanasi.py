"""Fast synthetic camera frames of a Varanasi table, for unit tests, the simulated camera and
`arbiter demo`.

A frame is drawn top-down with OpenCV: a table, a board with a border and a drawn curve, and
each tower as discs with a visible side, a soft shadow and a slightly textured top face. A lamp
tints everything, the view can be tilted (a perspective warp), a glare spot can wash out part of
the view, and sensor noise is added. Nothing here reads files; the piece set is the contract JSON.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

FRAME_SIZE = (1280, 960)
# About 2.35 px/mm puts a 41 mm disc at ~96 px across: a 1280x960 camera 48 cm above the table.
PX_PER_MM = 2.35
CAMERA_HEIGHT_MM = 480.0
BOARD_MM = (460.0, 340.0)
BOARDS_BGR = ((225, 238, 244), (200, 222, 236), (232, 236, 238))
TABLES_BGR = ((40, 70, 105), (70, 80, 90), (30, 45, 60))
LINE_BGR = (110, 150, 190)
# Towers are placed at least this far apart (mm), rim to rim.
TOWER_GAP_MM = 6.0


@dataclass(frozen=True)
class PlacedDisc:
    """A disc as it shows in the frame before any tilt: centre and radius in pixels."""

    code: str
    size: int
    colour: str
    level: int
    centre: tuple[float, float]
    radius: float


def _pieces(pieceset: dict):
    sizes = {int(k): float(v["diameter_mm"]) / 2.0 for k, v in pieceset["sizes"].items()}
    colours = {name: tuple(int(c) for c in v["srgb"]) for name, v in pieceset["colours"].items()}
    return sizes, colours, float(pieceset.get("thickness_mm", 5.0))


def _split(code: str) -> tuple[int, str]:
    return int(code[0]), code[1:]


def layout_table(stacks: list[list[str]], pieceset: dict, seed: int = 0, centres_px=None,
                 max_offset_mm: float = 2.5, offsets_mm=None) -> list[list[PlacedDisc]]:
    """Where each disc of each tower shows (bottom first), towers apart from each other.

    `centres_px` fixes the bottom centres (e.g. a tower at the image edge); otherwise they are
    drawn at random on the board. Each disc sits up to `max_offset_mm` off the one below, or
    exactly `offsets_mm[tower][level - 1]` (dx, dy) when given.
    """
    rng = np.random.default_rng(seed)
    radii_mm, _, thickness = _pieces(pieceset)
    width, height = FRAME_SIZE
    towers = []
    placed: list[tuple[float, float, float]] = []
    for index, stack in enumerate(stacks):
        bottom_radius = radii_mm[_split(stack[0])[0]] * PX_PER_MM
        if centres_px is not None:
            centre = np.array(centres_px[index], dtype=float)
        else:
            centre = _free_spot(rng, bottom_radius, placed, width, height)
        placed.append((centre[0], centre[1], bottom_radius))
        discs = []
        for level, code in enumerate(stack):
            size, colour = _split(code)
            if level:
                angle = rng.uniform(0, 2 * np.pi)
                shift = rng.uniform(0, max_offset_mm) * PX_PER_MM
                step = shift * np.array([np.cos(angle), np.sin(angle)])
                if offsets_mm is not None:
                    step = np.array(offsets_mm[index][level - 1], dtype=float) * PX_PER_MM
                centre = centre + step
            growth = 1.0 / (1.0 - level * thickness / CAMERA_HEIGHT_MM)
            discs.append(PlacedDisc(code, size, colour, level, (float(centre[0]), float(centre[1])),
                                    radii_mm[size] * PX_PER_MM * growth))
        towers.append(discs)
    return towers


def _free_spot(rng, radius, placed, width, height) -> np.ndarray:
    board_w, board_h = (b * PX_PER_MM for b in BOARD_MM)
    margin = radius + 10
    for _ in range(2000):
        spot = np.array([
            rng.uniform(width / 2 - board_w / 2 + margin, width / 2 + board_w / 2 - margin),
            rng.uniform(height / 2 - board_h / 2 + margin, height / 2 + board_h / 2 - margin),
        ])
        if all(np.hypot(spot[0] - x, spot[1] - y) > radius + r + TOWER_GAP_MM * PX_PER_MM for x, y, r in placed):
            return spot
    raise ValueError("no room on the board for another tower")


def render_table(stacks_json, pieceset: dict, seed: int = 0, *, session: int = 0, centres_px=None,
                 tilt_deg: float = 0.0, glare: bool = False, glare_at=None, glare_strength: float = 110.0,
                 noise: float = 3.0,
                 lamp=None, max_offset_mm: float = 2.5, offsets_mm=None, board_mm=BOARD_MM) -> np.ndarray:
    """A 1280x960 BGR frame of the towers in `stacks_json` (a contract state or its stack list).

    `seed` places the towers and draws the noise; `session` picks the board, table and lamp,
    which stay the same through a session (as the calibration photo's). `lamp` overrides the
    lamp's BGR gains; `offsets_mm` places each disc on the one below (see `layout_table`);
    `board_mm` is the board's size (one bigger than the view puts the table out of sight);
    `tilt_deg` tilts the camera about the horizontal axis; `glare` adds a
    bright spot (at `glare_at`, default random, `glare_strength` grey levels at its centre).
    """
    stacks = stacks_json["stacks"] if isinstance(stacks_json, dict) else stacks_json
    rng = np.random.default_rng(seed)
    setting = np.random.default_rng([session, 7919])
    towers = layout_table(stacks, pieceset, seed, centres_px, max_offset_mm, offsets_mm)
    image = _scene(setting, board_mm)
    _, colours, _ = _pieces(pieceset)
    for tower in towers:
        _draw_shadow(image, tower[0], lift=len(tower), strength=0.45)
        for disc in tower:
            if disc.level:
                # Each disc shades the one it rests on, as under a real lamp.
                _draw_shadow(image, disc, lift=1, strength=0.35)
            _draw_disc(image, disc, colours[disc.colour], rng)
    gains = lamp if lamp is not None else setting.uniform(0.85, 1.1, 3)
    return _camera(image, rng, tilt_deg, glare and glare_strength, glare_at, noise, gains)


def render_calibration(pieceset: dict, seed: int = 0, *, session: int = 0, tilt_deg: float = 0.0,
                       noise: float = 3.0, lamp=None, leave_out=()) -> np.ndarray:
    """Every disc of the set lying flat and apart: one row per colour, sizes across.

    `leave_out` lists disc codes not to draw (a calibration photo missing discs).
    """
    radii_mm, colours, _ = _pieces(pieceset)
    names, sizes = list(colours), sorted(radii_mm)
    width, height = FRAME_SIZE
    board_w, board_h = (b * PX_PER_MM for b in BOARD_MM)
    rng = np.random.default_rng(seed)
    stacks, centres = [], []
    for row, name in enumerate(names):
        for column, size in enumerate(sizes):
            code = f"{size}{name}"
            if code in leave_out:
                continue
            x = width / 2 - board_w / 2 + board_w * (column + 0.5) / len(sizes)
            y = height / 2 - board_h / 2 + board_h * (row + 0.5) / len(names)
            stacks.append([code])
            centres.append((x + rng.uniform(-8, 8), y + rng.uniform(-5, 5)))
    return render_table(stacks, pieceset, seed, session=session, centres_px=centres, tilt_deg=tilt_deg,
                        noise=noise, lamp=lamp)


def _scene(rng, board_mm) -> np.ndarray:
    width, height = FRAME_SIZE
    table = np.array(TABLES_BGR[rng.integers(len(TABLES_BGR))], dtype=np.float32)
    image = np.empty((height, width, 3), np.float32)
    image[:] = table
    grain = cv2.GaussianBlur(rng.normal(0, 6, (height, width)).astype(np.float32), (0, 0), 3)
    image += grain[..., None]
    board_w, board_h = (b * PX_PER_MM for b in board_mm)
    x0, y0 = int(width / 2 - board_w / 2), int(height / 2 - board_h / 2)
    x1, y1 = int(width / 2 + board_w / 2), int(height / 2 + board_h / 2)
    board = BOARDS_BGR[rng.integers(len(BOARDS_BGR))]
    cv2.rectangle(image, (x0, y0), (x1, y1), board, -1)
    cv2.rectangle(image, (x0 + 14, y0 + 14), (x1 - 14, y1 - 14), LINE_BGR, 3, cv2.LINE_AA)
    xs = np.linspace(x0 + 60, x1 - 60, 200)
    phase = rng.uniform(0, 2 * np.pi)
    ys = (y0 + y1) / 2 + 0.35 * board_h * np.sin(phase + 2 * np.pi * 1.5 * (xs - x0) / board_w)
    curve = np.stack([xs, ys], axis=1).astype(np.int32)
    cv2.polylines(image, [curve], False, LINE_BGR, 12, cv2.LINE_AA)
    return image


def _draw_shadow(image: np.ndarray, disc: PlacedDisc, lift: int, strength: float) -> None:
    """A soft shadow of `disc` down and to the right, longer the higher it is lifted."""
    height, width = image.shape[:2]
    shift = 2.0 + 1.5 * lift
    reach = int(disc.radius + shift + 12)
    cx, cy = int(round(disc.centre[0])), int(round(disc.centre[1]))
    x0, y0 = max(0, cx - reach), max(0, cy - reach)
    x1, y1 = min(width, cx + reach + 1), min(height, cy + reach + 1)
    if x1 <= x0 or y1 <= y0:
        return
    shadow = np.zeros((y1 - y0, x1 - x0), np.float32)
    centre = (disc.centre[0] + shift - x0, disc.centre[1] + shift - y0)
    cv2.circle(shadow, _fixed(centre), int(round((disc.radius + 1) * 16)), 1.0, -1, cv2.LINE_AA, 4)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 3.0)
    image[y0:y1, x0:x1] *= (1.0 - strength * shadow)[..., None]


def _draw_disc(image: np.ndarray, disc: PlacedDisc, srgb, rng) -> None:
    """Side band (seen because the camera looks from the image centre), then the top face."""
    width, height = FRAME_SIZE
    base = np.array(srgb[::-1], dtype=np.float32)
    outward = np.array(disc.centre) - np.array([width / 2, height / 2])
    outward = outward / max(1.0, np.linalg.norm(outward)) * min(4.0, 1.0 + np.linalg.norm(outward) / 200)
    side_centre = (disc.centre[0] + outward[0], disc.centre[1] + outward[1])
    for centre, colour in (
        (side_centre, base * 0.55),
        (disc.centre, base),
    ):
        cv2.circle(image, _fixed(centre), int(round(disc.radius * 16)), colour.tolist(), -1, cv2.LINE_AA, 4)
    # Texture and a gentle light falloff across the face, so no disc is a flat colour.
    r = int(np.ceil(disc.radius))
    cx, cy = int(round(disc.centre[0])), int(round(disc.centre[1]))
    y0, y1, x0, x1 = max(0, cy - r), min(height, cy + r + 1), max(0, cx - r), min(width, cx + r + 1)
    if y1 <= y0 or x1 <= x0:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1]
    face = (xx - disc.centre[0]) ** 2 + (yy - disc.centre[1]) ** 2 <= (disc.radius - 1) ** 2
    shade = 1.0 - 0.08 * ((xx - disc.centre[0]) + (yy - disc.centre[1])) / max(1.0, disc.radius)
    texture = rng.normal(1.0, 0.025, face.shape)
    patch = image[y0:y1, x0:x1]
    patch[face] *= (shade * texture)[face][:, None]
    cv2.circle(image, _fixed(disc.centre), int(round((disc.radius - 0.5) * 16)), (base * 0.75).tolist(), 1, cv2.LINE_AA, 4)


def _fixed(point) -> tuple[int, int]:
    """Point in OpenCV's 4-bit sub-pixel fixed point."""
    return int(round(point[0] * 16)), int(round(point[1] * 16))


def _camera(image: np.ndarray, rng, tilt_deg: float, glare: float, glare_at, noise: float, gains) -> np.ndarray:
    """Lamp cast, vignetting, glare, tilt, blur and sensor noise."""
    height, width = image.shape[:2]
    image *= np.asarray(gains, dtype=np.float32)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    distance2 = ((xx - width / 2) ** 2 + (yy - height / 2) ** 2) / (width / 2) ** 2
    image *= (1.0 - 0.12 * distance2)[..., None]
    if glare:
        gx, gy = glare_at if glare_at is not None else (rng.uniform(0.3, 0.7) * width, rng.uniform(0.3, 0.7) * height)
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * 40.0 ** 2))
        image += (glare * spot)[..., None]
    if tilt_deg:
        image = _tilt(image, tilt_deg)
    image = cv2.GaussianBlur(image, (0, 0), 0.7)
    image += rng.normal(0, noise, image.shape).astype(np.float32)
    return np.clip(image, 0, 255).astype(np.uint8)


def _tilt(image: np.ndarray, tilt_deg: float) -> np.ndarray:
    """Perspective of a camera tilted about the horizontal axis: the far side shrinks."""
    height, width = image.shape[:2]
    squeeze = np.tan(np.radians(abs(tilt_deg))) * 0.5
    top, bottom = (1 - squeeze, 1 + squeeze) if tilt_deg > 0 else (1 + squeeze, 1 - squeeze)
    centre = width / 2
    source = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    target = np.float32([
        [centre - centre * top, 0], [centre + centre * top, 0],
        [centre + centre * bottom, height], [centre - centre * bottom, height],
    ])
    scale = 1.0 / max(top, bottom)
    target = (target - [centre, height / 2]) * scale + [centre, height / 2]
    matrix = cv2.getPerspectiveTransform(source, target.astype(np.float32))
    return cv2.warpPerspective(image, matrix, (width, height), borderMode=cv2.BORDER_REPLICATE)
