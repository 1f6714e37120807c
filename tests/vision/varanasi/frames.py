"""What the Varanasi vision tests share besides fixtures: the standard piece set, the lamps of
the synthetic sessions, and how two readings are compared."""
from __future__ import annotations

import json
from pathlib import Path

STANDARD = json.loads((Path(__file__).parents[3] / "calibration" / "pieces" / "nestor-standard.json").read_text())
# The standard set with the bench's white disc (board-like on a cream board).
WITH_WHITE = {**STANDARD, "colours": {**STANDARD["colours"], "white": {"srgb": [235, 235, 228]}}}
# BGR gains of the synthetic sessions' tinted lamps (`lamp=` of the renderer); None is the
# session's own lamp.
BLUE_LAMP = (1.15, 0.95, 0.75)
ORANGE_LAMP = (0.7, 0.95, 1.15)


def same_towers(a, b) -> bool:
    """Whether two lists of towers hold the same towers, in any order."""
    return sorted(map(tuple, a)) == sorted(map(tuple, b))
