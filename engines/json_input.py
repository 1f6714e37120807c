"""JSON text from outside (files, requests) into plain objects, with one-line errors.

Nesting is bounded: no contract object is more than a few levels deep, and a deeply nested
document would otherwise exhaust Python's recursion while it is parsed or walked.
"""
from __future__ import annotations

import json

from engines.errors import ArbiterError

# The deepest nesting accepted; contract objects go 5 levels deep (a Varanasi state with history).
MAX_DEPTH = 32


def nesting_depth(obj) -> int:
    """How many lists and objects deep `obj` goes (0 for a number or a string)."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_json(text: str | bytes, where: str) -> object:
    """The parsed document; ArbiterError naming `where` for malformed or too deeply nested JSON."""
    too_deep = ArbiterError(f"{where}: the JSON is nested more than {MAX_DEPTH} levels deep")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArbiterError(f"{where}: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise too_deep from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ArbiterError(f"{where}: not JSON text: {exc}") from None
    if nesting_depth(obj) > MAX_DEPTH:
        raise too_deep
    return obj
