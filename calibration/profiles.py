"""Calibration profiles are readable JSON files; this loads and saves them."""
from __future__ import annotations

import json
from pathlib import Path

from engines.errors import ArbiterError
from engines.json_input import parse_json



def load_json_file(path: str | Path, what: str = "JSON file") -> object:
    """Read a JSON file, turning every failure into a one-line ArbiterError."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ArbiterError(f"{p}: no such {what}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ArbiterError(f"{p}: cannot read {what}: {exc}") from None
    return parse_json(text, str(p))


def load_profile(path: str | Path) -> dict:
    """Load a calibration profile and check that it names a game Arbiter can recognise."""
    from calibration import calibrated_games

    games = calibrated_games()
    profile = load_json_file(path, "calibration profile")
    if not isinstance(profile, dict) or profile.get("game") not in games:
        raise ArbiterError(f"{path}: not an Arbiter calibration profile (expected \"game\": {' or '.join(games)})")
    return profile


def save_profile(profile: dict, path: str | Path) -> None:
    """Write a profile as indented JSON, atomically so a crash never leaves half a file."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(profile, indent=1) + "\n", encoding="utf-8")
    tmp.replace(p)
