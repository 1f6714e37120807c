"""Scores: the current game's progress, set and match standings, every match, CSV export.

Totals come from the engines' own match keepers: Varanasi through the tracker's `match_standing`
(`engines.varanasi_match`: sets to a target or a number of sets, doubles teams), Wari and Nanku
through `engines.series.Series`.
"""
from __future__ import annotations

import csv
import io

from flask import Blueprint, Response, abort, render_template

from arbiter.tracker import match_standing
from engines import Outcome, load_rules
from engines.errors import ArbiterError
from engines.series import Series
from webui.chart_svg import line_chart
from webui.companion import seat_names
from webui.routes.table import companion

bp = Blueprint("scores", __name__)

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
            name = names.get(_seat_key(seat, names), str(seat))
            totals[name] = totals.get(name, 0) + score
        progress.append(dict(totals))
    summary = {"match": match, "names": names, "progress": progress, "games": len(outcomes)}
    if match["game"] == "varanasi":
        rules = load_rules(match["rules"])
        standing = match_standing(rules, [g["result"] for g in store.games(match["id"]) if g["result"]])
        summary["standings"] = [{"name": names[int(seat)], "points": points, "wins": None}
                                for seat, points in standing["standings"].items()]
        if "teams" in standing:
            summary["teams"] = [{"name": f"{names[int(team)]} & {names[int(team) + 2]}", "points": points}
                                for team, points in standing["teams"].items()]
        summary["over"] = standing["over"]
        summary["winners"] = [names[seat] for seat in standing["winners"]]
        summary["format"] = f"first to {rules.target} points" if rules.target else f"{rules.sets} sets"
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


def _seat_key(seat, names: dict):
    """Outcome scores keep seat numbers as JSON object keys (strings); match them to the seats."""
    if seat in names:
        return seat
    return int(seat) if isinstance(seat, str) and seat.isdigit() else seat


def game_progress(store, game_id: int, game: str) -> list[dict]:
    """Each side's store after every position of a Wari game (the seeds captured so far)."""
    if game != "wari":
        return []
    return [{"South": s["stores"][0], "North": s["stores"][1]} for s in store.game_history(game_id)]


@bp.get("/scores")
def page():
    table = companion()
    store = table.store
    current_match_id = store.game(table.tracker.game_id)["match_id"]
    summaries = [match_summary(store, m) for m in reversed(store.matches()) if not is_bye(m)]
    current = next((s for s in summaries if s["match"]["id"] == current_match_id), None)
    game_chart = line_chart(game_progress(store, table.tracker.game_id, table.game),
                            "moves", "Seeds captured this game")
    match_chart = line_chart(current["progress"], "games", "Match score") if current else ""
    return render_template("scores.html", current=current, summaries=summaries,
                           game_chart=game_chart, match_chart=match_chart)


@bp.get("/scores.csv")
def scores_csv():
    """One row per player per finished game of every match, and per result entered by hand."""
    store = companion().store
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["match", "tournament", "game", "number", "player", "score", "winner", "entered"])
    for match in store.matches():
        names = seat_names(match)
        prefix = [match["id"], match["tournament_id"] or "", match["game"]]
        for number, outcome in enumerate(finished_outcomes(store, match), 1):
            winner = names.get(_seat_key(outcome.winner, names), "") if outcome.winner is not None else ""
            for seat, score in outcome.scores.items():
                writer.writerow(prefix + [number, names.get(_seat_key(seat, names), seat), score, winner, "camera"])
        by_hand = hand_result(match)
        if by_hand is not None:
            summary = match_summary(store, match)
            for name, score in by_hand:
                writer.writerow(prefix + ["", name, score, " & ".join(summary["winners"]), "by hand"])
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=arbiter-scores.csv"})


@bp.get("/matches/<int:match_id>/moves.csv")
def moves_csv(match_id: int):
    store = companion().store
    try:
        store.match(match_id)
    except ArbiterError as exc:
        abort(404, description=str(exc))
    return Response(store.export_csv(match_id), mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename=arbiter-match-{match_id}.csv"})
