"""Seeds dropped one by one into their bowls, each rolling to rest on the wood and the seeds before it."""
from __future__ import annotations

import numpy as np

from training.wari_render.geometry import linear, rotation_x, rotation_y, rotation_z
from training.wari_render.scene import Hollow, SeedStyle, Seeds, Session

SETTLE_ROUNDS = 16
SETTLE_CANDIDATES = 24


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
    that clearance too: dropped beyond the rim, about one seed in 600 would come to rest on the
    board top, out of its pit, where no player leaves one.
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


