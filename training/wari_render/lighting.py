"""Light at each ray's hit: the lamp's soft shadows, ambient light shut off by seeds, materials and Blinn-Phong shading."""
from __future__ import annotations

import cv2
import numpy as np

from training.wari_render.geometry import ellipsoid_roots, normalised
from training.wari_render.scene import (
    BOARD_SIDE, BOARD_TOP, HOLLOW, SEED, SHADOW_MARGIN, TABLE, TABLE_FINISH, Board, Hollow, Lamp, Seeds, Session,
)
from training.wari_render.trace import Hits, board_box

LAMP_SAMPLES = 6  # shadow rays per point, spread over the lamp's disc: soft shadow edges


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


