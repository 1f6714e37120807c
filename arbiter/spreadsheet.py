"""CSV cells a spreadsheet opens as text: a cell that begins like a formula is quoted.

A player named "=HYPERLINK(...)" would otherwise run as a formula when a director opens the
scores in a spreadsheet (CSV injection).
"""
from __future__ import annotations

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
