"""Scores: the current game's progress, set and match standings, every match, CSV export.

Match scoring itself is `arbiter.scoring`'s; this module only shows it.

Totals come from the engines' own match keepers: a game whose rules fix the match's length
(Varanasi: sets to a target or a number of sets, doubles teams) through its registered
`match_standing`, the others as a series (`engines.series.Series`).
"""
from __future__ import annotations

import csv
import io

from flask import Blueprint, Response, abort, render_template

from arbiter.scoring import finished_outcomes, hand_result, is_bye, match_summary, seat_key, seat_names
from arbiter.spreadsheet import safe_row
from engines.errors import ArbiterError
from webui.chart_svg import line_chart
from webui.games import web_game
from webui.routes.table import companion
from webui.scoreboard import side_label

bp = Blueprint("scores", __name__)

def game_progress(store, game_id: int, game: str, label=str) -> list[dict]:
    """The rows of the current game's chart, where the game draws one (Wari: the seeds captured),
    each side named by `label` (the players' names, as the tables beside it name them)."""
    part = web_game(game)
    if part is None or part.progress is None:
        return []
    return [{label(side): value for side, value in row.items()} for row in part.progress(store.game_history(game_id))]


@bp.get("/scores")
def page():
    table = companion()
    store = table.store
    current_match_id = store.game(table.tracker.game_id)["match_id"]
    summaries = [match_summary(store, m) for m in reversed(store.matches()) if not is_bye(m)]
    current = next((s for s in summaries if s["match"]["id"] == current_match_id), None)
    def label(side) -> str:
        return side_label(table.rules, table.seat_names, side)

    part = web_game(table.game)
    game_chart = line_chart(game_progress(store, table.tracker.game_id, table.game, label),
                            "moves", part.progress_title if part else "")
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
            winner = names.get(seat_key(outcome.winner, names), "") if outcome.winner is not None else ""
            for seat, score in outcome.scores.items():
                writer.writerow(safe_row(prefix + [number, names.get(seat_key(seat, names), seat), score, winner, "camera"]))
        by_hand = hand_result(match)
        if by_hand is not None:
            summary = match_summary(store, match)
            for name, score in by_hand:
                writer.writerow(safe_row(prefix + ["", name, score, " & ".join(summary["winners"]), "by hand"]))
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
