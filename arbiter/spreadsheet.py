"""CSV cells a spreadsheet opens as text: a cell that begins like a formula is quoted.

A player named "=HYPERLINK(...)" would otherwise run as a formula when a director opens the
scores in a spreadsheet (CSV injection).
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value):
    """The value, with a leading apostrophe where a spreadsheet would read a formula.

    Numbers stay numbers: a negative score is data, not a formula.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_row(cells) -> list:
    return [safe_cell(cell) for cell in cells]


def move_log_csv(match_id: int, games: list[tuple[int, list]], history_keys: tuple) -> str:
    """A match's move log, one row per entry of each (game number, its `MoveRecord`s): JSON cells as
    text, each position without the history it carries (the positions a Wari game went through
    since the last capture are in the rows above it), snapshots by file name, as they lie in the
    snapshot folder."""
    def text(obj) -> str | None:
        return None if obj is None else json.dumps(obj, separators=(",", ":"))

    def file_name(path: str | None) -> str | None:
        return Path(path).name if path else path

    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["match", "game", "id", "at", "verdict", "move", "reason", "state", "recognised",
                     "snapshot_before", "snapshot_after"])
    for number, moves in games:
        for m in moves:
            state = {key: value for key, value in m.state.items() if key not in history_keys}
            writer.writerow(safe_row([match_id, number, m.id, m.at, m.verdict, text(m.move), m.reason, text(state),
                                      text(m.recognised), file_name(m.snapshot_before), file_name(m.snapshot_after)]))
    return out.getvalue()
