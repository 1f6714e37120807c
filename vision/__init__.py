"""Vision: image (BGR NumPy array) + calibration profile -> observation with confidences.

Every recogniser returns an observation object with `to_json()` giving the contract's
`{"state": ..., "confidence": ..., "evidence": {...}}` (without the "image" key). Each game that
is read by camera registers its recogniser and its overlay drawer here, once.
"""
from __future__ import annotations

import numpy as np

from engines.errors import ArbiterError
from engines.registry import Parts

RECOGNISERS = Parts("recogniser")
OVERLAYS = Parts("overlay drawer")

RECOGNISERS.register("varanasi", "vision.varanasi:recognize")
OVERLAYS.register("varanasi", "vision.varanasi_overlay:draw_overlay")
RECOGNISERS.register("wari", "vision.wari:recognize")
OVERLAYS.register("wari", "vision.wari_overlay:draw_overlay")
RECOGNISERS.register("nanku", "vision.nanku:recognize")
OVERLAYS.register("nanku", "vision.nanku_overlay:draw_overlay")


def recognize(image: np.ndarray, profile: dict):
    """The observation of `image` by the recogniser of the profile's game."""
    game = profile.get("game") if isinstance(profile, dict) else None
    if game not in RECOGNISERS:
        raise ArbiterError(f"no recogniser for a profile of game {game!r}")
    return RECOGNISERS.get(game)(image, profile)


def overlay_drawer(game: str):
    """`draw_overlay(image, observation) -> image` for a game read by camera, else None."""
    return OVERLAYS.get(game) if game in OVERLAYS else None
