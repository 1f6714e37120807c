"""Calibrating Nanku from the first photo of a game: the first piece alone on the table.

From one piece the photo tells the cube's size in pixels, what the table, a white and a black face
look like under this lamp, and, from the piece's visible sides, how the camera leans. The camera's
height is tried at a few values (one piece barely shows it) and the one that draws the piece best
is kept. The first piece, lying or standing, sets the grid of every state read from this camera
(the contract: white cube at the origin).
"""
from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.nanku import FIRST_SHAPES, make_scene
from vision.nanku_camera import BLACK_SIDE, BLACK_TOP, TABLE, WHITE_SIDE, WHITE_TOP, Camera
from vision.nanku_params import CAMERA_HEIGHT, CUBE_MIN_PX, PIECE_CONTRAST, PIECE_MAX_SHARE, WORKING_CUBE_PX
from vision.nanku_pixels import Appearance, Costs
from vision.nanku_pose import Scene, fit_camera, fit_pose
from vision.nanku_readings import state_json

# The first look at the photo is this wide (pixels): enough to find one piece, quick to search.
LOOK_WIDTH = 480
# A black face reflects about this share of what a white one does (matt plastic or painted wood):
# the colour a standing first piece hides is taken as this share (or its inverse) of the one seen,
# until the game shows it.
ALBEDO_RATIO = 0.12
# The cube's size is tried at these shares of the piece's outline's short side (which holds its
# sides and shadow), then fitted within SCALE_RANGE of the best, first in steps of SCALE_STEP.
SIZES_TRIED = (0.55, 0.65, 0.75, 0.85, 0.95, 1.05)
SCALE_RANGE = (0.9, 1.1)
SCALE_STEP = 0.02


def _border(pixels: np.ndarray) -> np.ndarray:
    height, width = pixels.shape[:2]
    band = max(2, min(height, width) // 16)
    return np.concatenate([pixels[:band].reshape(-1, 3), pixels[-band:].reshape(-1, 3),
                           pixels[:, :band].reshape(-1, 3), pixels[:, -band:].reshape(-1, 3)])


def _find_piece(small: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The piece's mask, the table's colour and its spread, or a refusal in players' words."""
    pixels = small.astype(np.float32)
    border = _border(pixels)
    table = np.median(border, axis=0)
    spread = float(np.median(np.linalg.norm(border - table, axis=1)) * 1.25)
    mask = (np.linalg.norm(pixels - table, axis=2) > max(PIECE_CONTRAST, 4 * spread)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    areas = stats[1:, cv2.CC_STAT_AREA]
    if count < 2 or areas.max() < CUBE_MIN_PX ** 2:
        raise ArbiterError("the photo shows no piece on the table: place the first piece, lying or standing, and retake it")
    largest = int(np.argmax(areas)) + 1
    if areas.max() > PIECE_MAX_SHARE * mask.size:
        raise ArbiterError("the photo shows more than a single piece (or no table around it): "
                           "calibrate on the first piece alone on the table")
    if (areas >= areas.max() / 3).sum() > 1:
        raise ArbiterError("the photo shows more than one piece: calibrate on the first piece alone on the table")
    return labels == largest, table, spread


def _face_colours(pixels: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The white and the black cube's colours: the bright and the dark part of the piece.

    A standing piece shows one colour from above (its sides hardly): that one is measured, on the
    side of the table's brightness it lies, and the other taken from it by the pieces' albedo ratio.
    """
    try:
        return _two_colours(pixels)
    except ArbiterError:
        brightness = pixels.sum(axis=1)
        if brightness.mean() > float(np.sum(table)):
            white = np.median(pixels[brightness >= np.median(brightness)], axis=0)
            return white, white * ALBEDO_RATIO
        black = np.median(pixels[brightness <= np.median(brightness)], axis=0)
        if black.sum() < 1.0:
            raise
        return _white_from(black), black


def _white_from(black: np.ndarray) -> np.ndarray:
    """The white a standing piece with black on top hides: a grey as bright as the black over
    the albedo ratio. A black's tint, amplified by the inverse ratio (eight times), says nothing
    of the white's: the white is marked guessed (`Appearance.guessed`) until a picture shows it.
    (A black hidden under a white is the white times the ratio: its error in sRGB units is the
    white's tint times the ratio, a few units.)"""
    return np.full(3, min(255.0, float(np.mean(black)) / ALBEDO_RATIO), np.float32)


def _two_colours(pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    brightness = pixels.sum(axis=1)
    order = np.sort(brightness)
    # Split where the two groups' spread is least (Otsu on brightness).
    best, split = None, None
    for index in range(len(order) // 10, len(order) - len(order) // 10):
        low, high = order[:index], order[index:]
        score = low.var() * len(low) + high.var() * len(high)
        if best is None or score < best:
            best, split = score, order[index]
    bright, dark = pixels[brightness >= split], pixels[brightness < split]
    if len(bright) < 0.15 * len(pixels) or len(dark) < 0.15 * len(pixels) or bright.sum(1).mean() < 1.5 * dark.sum(1).mean():
        raise ArbiterError("cannot tell the piece's white cube from its black one: is the first piece in view and lit?")
    # The brighter half of the white part is its top (its sides are darker); the black cube's top
    # may shine (a glossy cube under a near lamp), so the whole dark part is its colour. Both are
    # measured again where the fitted drawing puts each top.
    tops = bright[bright.sum(axis=1) >= np.median(bright.sum(axis=1))]
    return np.median(tops, axis=0), np.median(dark, axis=0)


def _measured(scene: Scene, image_small: np.ndarray, shape, pose, appearance: Appearance) -> Appearance:
    """The colours measured where the fitted drawing puts each cube's top and sides. A standing
    piece hides one top: that colour follows from the seen one by the albedo ratio (a white
    under a black is marked guessed: `_white_from`), not taken from the outline's other part
    (which, beside a standing piece, is mostly its shadow)."""
    drawing = scene.drawing(shape, pose)
    colours = dict(appearance.colours)
    seen = {}
    for top, side in ((WHITE_TOP, WHITE_SIDE), (BLACK_TOP, BLACK_SIDE)):
        inner = cv2.erode((drawing == top).astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        if inner.sum() >= 9:
            colours[top] = colours[side] = seen[top] = np.median(image_small[inner].astype(np.float32), axis=0)
    guessed = frozenset()
    if list(seen) == [WHITE_TOP]:
        colours[BLACK_TOP] = colours[BLACK_SIDE] = seen[WHITE_TOP] * ALBEDO_RATIO
    elif list(seen) == [BLACK_TOP]:
        colours[WHITE_TOP] = colours[WHITE_SIDE] = _white_from(seen[BLACK_TOP])
        guessed = frozenset((WHITE_TOP, WHITE_SIDE))
    return Appearance(colours, appearance.spread, guessed=guessed)


def _appearance(table, white, black, spread) -> Appearance:
    return Appearance({TABLE: table, WHITE_TOP: white, WHITE_SIDE: white, BLACK_TOP: black, BLACK_SIDE: black}, spread)


def _fit_scale(scene: Scene, shape, pose) -> tuple[Scene, object, float]:
    """The piece's pose and the camera's scale (its lean and height held)."""
    return fit_camera(scene, shape, pose, steps=(0.0, 0.0, 0.0, SCALE_STEP), scale_range=SCALE_RANGE)


def _tops_scene(image_bgr: np.ndarray, camera: Camera, appearance: Appearance, factor: float) -> Scene:
    """The frame's costs with the sides made neutral: each side pixel costs what its best class does."""
    scene = make_scene(image_bgr, camera, appearance, factor)
    maps = scene.costs.maps.copy()
    maps[WHITE_SIDE] = maps[BLACK_SIDE] = scene.costs.least
    return Scene(Costs(maps, scene.costs.per_cube_px), scene.camera)


def calibrate(image_bgr: np.ndarray) -> dict:
    """A Nanku profile from the first photo of a game (its first piece alone on the table)."""
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or min(image_bgr.shape[:2]) < 64:
        raise ArbiterError("the calibration photo is not a colour image")
    height, width = image_bgr.shape[:2]
    look = min(1.0, LOOK_WIDTH / width)
    small = cv2.resize(image_bgr, (round(width * look), round(height * look)), interpolation=cv2.INTER_AREA)
    mask, table, spread = _find_piece(small)
    white, black = _face_colours(small[mask].astype(np.float32), table)
    points = np.argwhere(mask)[:, ::-1].astype(np.float32)
    (_, _), (side_a, side_b), _ = cv2.minAreaRect(points)
    cube_px = min(side_a, side_b) / look
    if cube_px * look < CUBE_MIN_PX / 2:
        raise ArbiterError("the piece is too small in the photo: bring the camera closer")
    appearance = _appearance(table, white, black, spread)
    factor = min(1.0, WORKING_CUBE_PX / cube_px)
    # The piece's shape and the cube's size in the picture are read from the cubes' tops: the
    # sides are neutral here, since a shadow beside one piece looks like a dim side (and one
    # piece near the middle shows too little side to tell the camera's lean or height, which
    # the judging of the first structures fits: vision.nanku_pose.fit_camera).
    # The outline holds the piece's shadow too, so the cube is at most its short side: smaller
    # sizes are tried, each shape at each, and the best refined.
    base = _tops_scene(image_bgr, Camera(cube_px * CAMERA_HEIGHT, width / 2.0, height / 2.0, CAMERA_HEIGHT),
                       appearance, factor)
    tried = []
    for share in SIZES_TRIED:
        scene = Scene(base.costs, replace(base.camera, focal=base.camera.focal * share))
        for shape in FIRST_SHAPES:
            pose, cost = fit_pose(scene, shape)
            tried.append((cost, share, shape, scene, pose))
    _, _, shape, scene, pose = min(tried, key=lambda fit: fit[0])
    scene, pose, cost = _fit_scale(scene, shape, pose)
    working = cv2.resize(image_bgr, scene.costs.shape[::-1], interpolation=cv2.INTER_AREA)
    appearance = _measured(scene, working, shape, pose, appearance)
    scene = _tops_scene(image_bgr, scene.camera.scaled(width / 2.0 / scene.camera.centre_x), appearance, factor)
    scene, pose, cost = _fit_scale(scene, shape, pose)
    camera = scene.camera.scaled(width / 2.0 / scene.camera.centre_x)  # back to the photo's pixels
    profile = {
        "game": "nanku",
        "image_size": [width, height],
        "camera": camera.to_json(),
        "appearance": appearance.to_json(),
        "first_piece": state_json(shape)["pieces"][0],
        "summary": {
            "cube_px": round(camera.cube_px, 1),
            "height_cubes": camera.height,
            "tilt_degrees": round(math.degrees(math.hypot(camera.pitch, camera.roll)), 1),
            "first_piece": "standing" if shape[0][2] != shape[1][2] else "lying",
        },
    }
    return profile
