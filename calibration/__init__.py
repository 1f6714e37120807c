"""Calibration: one photo -> a profile (readable JSON) that a game's recogniser reads with.

Each game read by camera registers its calibrator here, once: `calibrate(image, pieceset)` for a
game whose pieces come in sets (`NEEDS_PIECES`), `calibrate(image)` otherwise.
"""
from __future__ import annotations

from engines.errors import ArbiterError
from engines.registry import Parts

CALIBRATORS = Parts("calibrator")
NEEDS_PIECES: set[str] = set()

CALIBRATORS.register("varanasi", "calibration.varanasi:calibrate")
NEEDS_PIECES.add("varanasi")
CALIBRATORS.register("wari", "calibration.wari:calibrate")
CALIBRATORS.register("nanku", "calibration.nanku:calibrate")


def calibrate(game: str, image, pieceset: dict | None = None) -> dict:
    """A profile for `game` from its calibration photo (and piece set, where the game needs one)."""
    calibrator = CALIBRATORS.get(game)
    if game not in NEEDS_PIECES:
        return calibrator(image)
    if not pieceset:
        raise ArbiterError(f"calibrating {game} needs the piece set (--pieces PIECES.json)")
    return calibrator(image, pieceset)


def calibrated_games() -> tuple[str, ...]:
    return CALIBRATORS.games()
