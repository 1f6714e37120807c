"""Camera rays and what each hits first: table, board top or side, a bowl's wood, a seed."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from training.wari_render.geometry import box_entry, ellipsoid_roots, normalised
from training.wari_render.scene import BOARD_SIDE, BOARD_TOP, FRAME_SIZE, HOLLOW, SEED, TABLE, Board, Camera, Seeds


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


