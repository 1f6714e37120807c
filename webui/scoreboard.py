"""The table page's headline in the players' words: who plays which side, the score, the result.

Engines name sides as their states do ("south", seat 0); players know each other by name. Every
line here names both: "Kofi (North)", "Hana (Seat 1)".
"""
from __future__ import annotations


def as_side(rules, key):
    """A side as the engine names it, from a JSON object key ("0" for seat 0)."""
    if key in rules.sides:
        return key
    return int(key) if isinstance(key, str) and key.isdigit() and int(key) in rules.sides else key


def side_label(rules, seat_names: dict, side) -> str:
    """"Kofi (North)", or the side's own name where nobody is seated there."""
    seat = rules.side_name(side) if side in rules.sides else str(side)
    name = seat_names.get(side)
    return f"{name} ({seat})" if name and name != seat else seat


def score_line(rules, seat_names: dict, scores: dict) -> str:
    """"Ama (South) 12 – Kofi (North) 9", sides in seat order."""
    by_side = {as_side(rules, key): value for key, value in scores.items()}
    return " – ".join(f"{side_label(rules, seat_names, side)} {by_side[side]:g}"
                      for side in rules.sides if side in by_side)


def result_words(rules, seat_names: dict, result: dict) -> str:
    """"Kofi (North) wins, Ama (South) 21 – Kofi (North) 27"; a draw says so."""
    winner = result.get("winner")
    head = "a draw" if winner is None else f"{side_label(rules, seat_names, as_side(rules, winner))} wins"
    scores = score_line(rules, seat_names, result.get("scores") or {})
    return head + (f", {scores}" if scores else "")


def result_text(rules, seat_names: dict, result: dict) -> str:
    """"Game over: Kofi (North) wins, Ama (South) 21 – Kofi (North) 27"."""
    return f"Game over: {result_words(rules, seat_names, result)}"


def match_line(summary: dict) -> str:
    """"Match (first to 10 points): Hana 3 – Kenji 5", and who won once it is over."""
    standings = " – ".join(f"{s['name']} {s['points']:g}" for s in summary["standings"])
    line = f"Match ({summary['format']}): {standings}"
    if summary.get("over") and summary.get("winners"):
        line += f" · {' & '.join(summary['winners'])} won the match"
    return line
