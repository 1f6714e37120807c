"""Fixtures shared by the tracker tests: the rules they judge and a record store on disk."""
from __future__ import annotations

import pytest

from arbiter.store import Store
from engines import load_rules


@pytest.fixture(scope="session")
def varanasi():
    return load_rules({"game": "varanasi"})


@pytest.fixture(scope="session")
def wari():
    return load_rules({"game": "wari"})


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "arbiter.sqlite3") as opened:
        yield opened
