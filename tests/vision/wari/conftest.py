"""Fixtures of the Wari vision tests: calibrated synthetic tables, shared by every file."""
from __future__ import annotations

import pytest

from tests.vision.wari.boards import start_profile


@pytest.fixture(scope="session")
def nicker() -> dict:
    """Nicker nuts, the synthetic table render_board(style="nicker", session=0): its start profile."""
    return start_profile("nicker", 0)


@pytest.fixture(scope="session")
def glass() -> dict:
    """Glass beads, the synthetic table render_board(style="glass", session=1): its start profile."""
    return start_profile("glass", 1)


@pytest.fixture(params=[("nicker", 0), ("glass", 1)], ids=["nicker", "glass"])
def table(request) -> tuple[str, int, dict]:
    """Each seed style's table: (style, session, profile)."""
    style, session = request.param
    return style, session, start_profile(style, session)
