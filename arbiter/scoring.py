"""Match scoring from the record store: standings by player name, results entered by hand, byes.

A game whose rules fix the match's length (Varanasi: sets to a target or a number of sets) is
scored by its registered `match_standing`; the others as a series (`engines.series.Series`),
since their length is the organiser's choice.
"""
from __future__ import annotations

from engines import Outcome, game_info, load_rules
from engines.series import Series


def seat_names(match: dict) -> dict:
    """Side (as the engine names it) -> the player's name, falling back to the side's own name."""
    rules = load_rules(match["rules"])
    by_seat = {p["seat"]: p["name"] for p in match["players"]}
    return {side: by_seat.get(seat, rules.side_name(side)) for seat, side in enumerate(rules.sides)}


# The match result of a bye in a tournament (a one-seat match finished when paired).
BYE = {"bye": True}


def finished_outcomes(store, match: dict) -> list[Outcome]:
    outcomes = []
    for game in store.games(match["id"]):
        result = game["result"]
        if result and result.get("over"):
            outcomes.append(Outcome(True, result.get("winner"), result.get("scores", {})))
    return outcomes


def is_bye(match: dict) -> bool:
    return match["result"] == BYE


def hand_result(match: dict) -> list[tuple[str, float]] | None:
    """(player name, score) by seat of a result the director entered by hand, else None."""
    result = match["result"]
    if not result or result.get("entered") != "by hand":
        return None
    return [(p["name"], result["scores"][str(p["seat"])]) for p in match["players"]]


def match_summary(store, match: dict) -> dict:
    """Standings of one match by player name, and the totals after each finished game."""
    names = seat_names(match)
    outcomes = finished_outcomes(store, match)
    by_hand = hand_result(match)
    if by_hand is not None:
        winner = match["result"]["winner"]
        winners = [by_hand[winner][0]] if winner is not None else []
        return {"match": match, "names": names, "progress": [dict(by_hand)], "games": len(outcomes),
                "standings": [{"name": name, "points": score, "wins": None} for name, score in by_hand],
                "over": True, "winners": winners, "format": "result entered by hand"}
    progress, totals = [], dict.fromkeys(names.values(), 0)
    for outcome in outcomes:
        for seat, score in outcome.scores.items():
            name = names.get(seat_key(seat, names), str(seat))
            totals[name] = totals.get(name, 0) + score
        progress.append(dict(totals))
    summary = {"match": match, "names": names, "progress": progress, "games": len(outcomes)}
    info = game_info(match["game"])
    if info.match_standing is not None:
        rules = load_rules(match["rules"])
        standing = info.match_standing(rules, [g["result"] for g in store.games(match["id"]) if g["result"]])
        summary["standings"] = [{"name": names[int(seat)], "points": points, "wins": None}
                                for seat, points in standing["standings"].items()]
        if "teams" in standing:
            summary["teams"] = [{"name": f"{names[int(team)]} & {names[int(team) + 2]}", "points": points}
                                for team, points in standing["teams"].items()]
        summary["over"] = standing["over"]
        summary["winners"] = [names[seat] for seat in standing["winners"]]
        summary["format"] = info.match_format(rules)
    else:
        # The store does not record how long a series was agreed to be: standings so far.
        series = Series.new(list(names.values()), games=max(1, len(outcomes)))
        for outcome in outcomes:
            series = series.record(outcome, names)
        summary["standings"] = [{"name": s.player, "points": s.points, "wins": s.wins} for s in series.standings()]
        summary["over"] = False
        summary["winners"] = []
        summary["format"] = "series"
    return summary


def seat_key(seat, names: dict):
    """Outcome scores keep seat numbers as JSON object keys (strings); match them to the seats."""
    if seat in names:
        return seat
    return int(seat) if isinstance(seat, str) and seat.isdigit() else seat
