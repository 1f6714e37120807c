"""Vision: image (BGR NumPy array) + calibration profile -> observation with confidences.

Every recogniser returns an observation object with `to_json()` giving the contract's
`{"state": ..., "confidence": ..., "evidence": {...}}` (without the "image" key).
"""
from __future__ import annotations

import numpy as np

from engines.errors import ArbiterError


def recognize(image: np.ndarray, profile: dict):
    """Dispatch on the profile's game to the matching recogniser."""
    game = profile.get("game") if isinstance(profile, dict) else None
    if game == "varanasi":
        from vision.varanasi import recognize as recognize_game
    elif game == "wari":
        from vision.wari import recognize as recognize_game
    else:
        raise ArbiterError(f"no recogniser for a profile of game {game!r}")
    return recognize_game(image, profile)
