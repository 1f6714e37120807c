"""The import rules of docs/architecture.md hold: the contracts in pyproject.toml, checked by
import-linter (a test tool, like pytest)."""
from __future__ import annotations

from pathlib import Path

import pytest

importlinter_cli = pytest.importorskip("importlinter.cli")

ROOT = Path(__file__).resolve().parents[1]


def test_every_import_contract_is_kept(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    status = importlinter_cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert status == importlinter_cli.EXIT_STATUS_SUCCESS, report
    assert "0 broken" in report
