"""Vector helpers and ray-surface intersections shared by the renderer's scene, tracer and lighting."""
from __future__ import annotations

import numpy as np


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

