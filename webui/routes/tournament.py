"""Tournament: the players' roster, rounds and tables, pairings, results by hand, standings.

Everything is kept in the record store: a tournament is a store tournament, each pairing a match
of it (a bye is a one-seat match finished at once), and the rounds are recovered from the order
the matches were paired (`arbiter.tournament.number_rounds`).
"""
from __future__ import annotations

import csv
import io
from dataclasses import replace

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for

from arbiter.scoring import BYE, hand_result, is_bye, match_summary
from arbiter.spreadsheet import safe_row
from arbiter.store import StoreError, now_iso
from arbiter.tournament import Pairing, Result, number_rounds, round_robin, standings, swiss_round
from engines import game_info, load_rules
from engines.errors import ArbiterError
from webui.routes.table import companion
from webui.security import director_required

bp = Blueprint("tournament", __name__)

SYSTEMS = {"round_robin": "Round robin", "swiss": "Swiss"}
# A result entered as a chess club writes it: (home, away) points.
QUICK_RESULTS = {"1-0": (1, 0), "0.5-0.5": (0.5, 0.5), "0-1": (0, 1)}


def form_number(name: str) -> float:
    text = request.form.get(name, "").strip()
    try:
        value = float(text)
    except ValueError:
        raise ArbiterError(f"{name.replace('_', ' ')} must be a number, not {text!r}") from None
    if not 0 <= value < 1e9:
        raise ArbiterError(f"{name.replace('_', ' ')} must be 0 or more")
    return int(value) if value.is_integer() else value


def tournament_games(store, tournament_id: int) -> list[dict]:
    """The tournament's matches as tables of rounds: round, table, home, away, scores, source."""
    matches = store.matches(tournament_id)
    # Matches paired before rounds were stored: every entrant plays once per round (number_rounds).
    inferred = number_rounds([(m["id"], [p["name"] for p in m["players"]]) for m in matches])
    games, tables_in_round = [], {}
    for match in matches:
        names = [p["name"] for p in match["players"]]
        number = match["round"] or inferred[match["id"]]
        tables_in_round[number] = tables_in_round.get(number, 0) + 1
        game = {"id": match["id"], "round": number, "table": tables_in_round[number], "game": match["game"],
                "home": names[0], "away": names[1] if len(names) > 1 else None, "scores": None, "source": None}
        if game["away"] is not None:
            game["scores"], game["source"] = decided_scores(store, match)
        games.append(game)
    return games


def decided_scores(store, match: dict) -> tuple[tuple | None, str | None]:
    """(home, away) scores of a decided match and who decided it, else (None, None).

    A result entered by hand wins; otherwise the tracker's record decides: a Varanasi match once
    its target or number of sets is reached, a Wari or Nanku pairing by its first finished game.
    """
    by_hand = hand_result(match)
    if by_hand is not None:
        return (by_hand[0][1], by_hand[1][1]), "by hand"
    summary = match_summary(store, match)
    if summary["games"] and (summary["over"] or game_info(match["game"]).match_standing is None):
        by_name = {s["name"]: s["points"] for s in summary["standings"]}
        names = [p["name"] for p in match["players"]]
        return (by_name.get(names[0], 0), by_name.get(names[1], 0)), "tracker"
    return None, None


def results_and_byes(games: list[dict]) -> tuple[list[Result], list[str]]:
    results = [Result(g["round"], g["home"], g["away"], *g["scores"]) for g in games if g["scores"]]
    byes = [g["home"] for g in games if g["away"] is None]
    return results, byes


def entrants_of(games: list[dict]) -> list[str]:
    return sorted({name for g in games for name in (g["home"], g["away"]) if name})


def standings_of(games: list[dict]) -> list:
    """The standings of a tournament's games (none before two entrants are paired)."""
    entrants = entrants_of(games)
    return standings(entrants, *results_and_byes(games)) if len(entrants) >= 2 else []


# The standings CSV's columns, as the page shows them (place "1=" for a shared place).
STANDINGS_COLUMNS = ("place", "entrant", "points", "buchholz", "sonneborn_berger", "score_difference",
                     "played", "wins", "draws", "losses", "byes")


@bp.get("/tournament/<int:tournament_id>/standings.csv")
def standings_csv(tournament_id: int):
    """The standings as a spreadsheet opens them: one row per entrant, in order."""
    store = companion().store
    rows = [[getattr(standing, column) for column in STANDINGS_COLUMNS]
            for standing in standings_of(tournament_games(store, tournament_id))]
    return csv_download(tournament_id, "standings", STANDINGS_COLUMNS, rows)


@bp.get("/tournament.csv")
def latest_standings_csv():
    """The address a director may guess: the latest tournament's standings."""
    tournaments = companion().store.tournaments()
    if not tournaments:
        abort(404, description="no tournament yet: start one on the tournament page")
    latest = max(t["id"] for t in tournaments)
    return redirect(url_for("tournament.standings_csv", tournament_id=latest))


PAIRINGS_COLUMNS = ("round", "table", "home", "away", "home_score", "away_score", "entered")


@bp.get("/tournament/<int:tournament_id>/pairings.csv")
def pairings_csv(tournament_id: int):
    """Every round's tables: who met whom, home first, and the result once it is in (a bye: no away)."""
    games = tournament_games(companion().store, tournament_id)
    rows = [[g["round"], g["table"], g["home"], g["away"] or "", *(g["scores"] or ("", "")), g["source"] or ""]
            for g in games]
    return csv_download(tournament_id, "pairings", PAIRINGS_COLUMNS, rows)


def tournament_or_404(store, tournament_id: int) -> dict:
    """The stored tournament (id, name, created_at, system), or a 404 answer."""
    tournament = next((t for t in store.tournaments() if t["id"] == tournament_id), None)
    if tournament is None:
        abort(404, description=f"no tournament with id {tournament_id}")
    return tournament


def match_or_404(store, match_id: int) -> dict:
    """The stored match, or a 404 answer (a form from a page older than the database, say)."""
    try:
        return store.match(match_id)
    except StoreError as exc:
        abort(404, description=str(exc))


def csv_download(tournament_id: int, what: str, columns: tuple, rows: list) -> Response:
    """A tournament's table as a CSV file named after it (cells a spreadsheet reads as text)."""
    tournament = tournament_or_404(companion().store, tournament_id)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(columns)
    for row in rows:
        writer.writerow(f"{cell:g}" if isinstance(cell, float) else cell for cell in safe_row(row))  # 1.5, not 1.50
    name = "".join(c if c.isascii() and c.isalnum() else "-" for c in tournament["name"]).strip("-") or f"tournament-{tournament_id}"
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename={name}-{what}.csv"})


@bp.get("/tournament")
def page():
    return tournament_page(request.args.get("id", type=int))


@bp.errorhandler(ArbiterError)
def refused(exc: ArbiterError):
    """A form refused: the page again (400) with the reason on top and what was typed still in its
    fields (the templates read the failed post's form), not a bare error page."""
    if request.method != "POST":
        from webui.app import error_response  # the app's own page for refused requests

        return error_response(400, str(exc))
    flash(str(exc), "error")
    args = request.view_args or {}
    tournament_id = args.get("tournament_id") or request.form.get("tournament", type=int)
    if "match_id" in args:
        tournament_id = match_or_404(companion().store, args["match_id"])["tournament_id"]
    return tournament_page(tournament_id), 400


def tournament_page(tournament_id: int | None) -> str:
    """The tournament page, of `tournament_id` or else the latest tournament."""
    store = companion().store
    tournaments = store.tournaments()
    chosen = tournament_id or (tournaments[-1]["id"] if tournaments else None)
    if chosen is not None and chosen not in {t["id"] for t in tournaments}:
        abort(404, description=f"no tournament with id {chosen}")
    games = tournament_games(store, chosen) if chosen else []
    entrants = entrants_of(games)
    table = standings_of(games)
    rounds = {}
    for game in games:
        rounds.setdefault(game["round"], []).append(game)
    at_table = store.game(companion().tracker.game_id)["match_id"]
    system = next((t["system"] for t in tournaments if t["id"] == chosen), None)
    complete = system == "round_robin" and len(rounds) >= len(round_robin(entrants)) if len(entrants) >= 2 else False
    withdrawn = store.withdrawals(chosen) if chosen else {}
    return render_template("tournament.html", tournaments=tournaments, chosen=chosen, rounds=rounds,
                           standings=table, players=store.players(), systems=SYSTEMS, system=system,
                           complete=complete, entrants=entrants, at_table=at_table, withdrawn=withdrawn)


@bp.post("/tournament/players")
@director_required
def add_player():
    rating = request.form.get("rating", "").strip()
    companion().store.add_player(request.form.get("name", ""), form_number("rating") if rating else None)
    return redirect(url_for("tournament.page", id=request.form.get("tournament", type=int)), code=303)


@bp.post("/tournament/players/rating")
@director_required
def set_rating():
    """Set, change or clear (an empty box) a roster player's rating: the Swiss rounds paired from
    now on seed by it; rounds already paired stay as they are."""
    name = request.form.get("player", "")
    rating = form_number("rating") if request.form.get("rating", "").strip() else None
    companion().store.set_rating(name, rating)
    flash(f"{name} is now unrated." if rating is None else f"{name}'s rating is now {rating:g}.")
    return redirect(url_for("tournament.page", id=request.form.get("tournament", type=int)), code=303)


@bp.post("/tournament/new")
@director_required
def new_tournament():
    tournament_id = companion().store.add_tournament(request.form.get("name", ""))
    return redirect(url_for("tournament.page", id=tournament_id), code=303)


@bp.post("/tournament/<int:tournament_id>/pair")
@director_required
def pair_next_round(tournament_id: int):
    table = companion()
    store = table.store
    tournament = tournament_or_404(store, tournament_id)
    game = request.form.get("game", "")
    # Pairings of this table's game follow its rules, so that they can be played here.
    rules = table.rules if game == table.game else load_rules({"game": game})
    # The system is chosen with the first round and kept: a Swiss round 2 never comes from the
    # round-robin schedule because a form was left at its default.
    system = tournament["system"] or request.form.get("system", "")
    if system not in SYSTEMS:
        raise ArbiterError(f"unknown pairing system {system!r}: expected {' or '.join(SYSTEMS)}")
    games = tournament_games(store, tournament_id)
    withdrawn = store.withdrawals(tournament_id)
    entered = entrants_of(games)
    late = sorted(set(request.form.getlist("late")) - set(entered)) if games else []
    entrants = entered + late or sorted(request.form.getlist("entrant"))
    if any(g["away"] is not None and g["scores"] is None for g in games):
        raise ArbiterError("enter every result of the current round before pairing the next one")
    players = store.players()
    played = max((g["round"] for g in games), default=0)
    if system == "round_robin":
        if late:
            raise ArbiterError("a round robin's entrants are fixed with round 1: late entries join a Swiss tournament")
        schedule = round_robin(entrants)
        if played >= len(schedule):
            raise ArbiterError("the round robin is complete: every entrant has met every other")
        pairings = without_withdrawn(schedule[played], withdrawn)
    else:
        ratings = {p["name"]: p["rating"] for p in players if p["rating"] is not None}
        pairings = swiss_round(entrants, *results_and_byes(games), ratings=ratings, withdrawn=withdrawn)
        pairings = [replace(p, round=played + 1) for p in pairings]
    if not pairings:
        raise ArbiterError("nobody is left to pair: every entrant has withdrawn")
    player_ids = {p["name"]: p["id"] for p in players}
    unknown = sorted({name for pairing in pairings for name in (pairing.home, pairing.away)
                      if name is not None and name not in player_ids})
    if unknown:
        raise ArbiterError(f"not on the roster: {', '.join(unknown)}")
    store.set_tournament_system(tournament_id, system)
    for pairing in pairings:
        seated = [name for name in (pairing.home, pairing.away) if name is not None]
        match_id = store.new_match(rules.to_json(), [player_ids[name] for name in seated], tournament_id,
                                   round_number=pairing.round)
        if pairing.away is None:
            store.finish_match(match_id, BYE)
    flash(f"Round {pairings[0].round} paired: {len(pairings)} tables.")
    return redirect(url_for("tournament.page", id=tournament_id), code=303)


def without_withdrawn(pairings: list[Pairing], withdrawn: dict[str, int]) -> list[Pairing]:
    """A round-robin round with withdrawn entrants taken out: their opponents sit out with a bye
    (a game not played counts as a bye, as a forfeit would)."""
    kept = []
    for pairing in pairings:
        present = [name for name in (pairing.home, pairing.away) if name is not None and name not in withdrawn]
        if len(present) == 2:
            kept.append(pairing)
        elif present:
            kept.append(replace(pairing, home=present[0], away=None))
    return kept


@bp.post("/tournament/<int:tournament_id>/withdraw")
@director_required
def withdraw(tournament_id: int):
    """An entrant leaves after the current round: not paired again, still in the standings."""
    store = companion().store
    tournament_or_404(store, tournament_id)
    games = tournament_games(store, tournament_id)
    name = request.form.get("entrant", "")
    if name not in entrants_of(games):
        raise ArbiterError(f"{name!r} has not played in this tournament")
    player_id = next(p["id"] for p in store.players() if p["name"] == name)
    store.withdraw(tournament_id, player_id, max((g["round"] for g in games), default=0))
    flash(f"{name} withdrew: not paired from the next round on, and still in the standings.")
    return redirect(url_for("tournament.page", id=tournament_id), code=303)


@bp.post("/tournament/match/<int:match_id>/play")
@director_required
def play_here(match_id: int):
    table = companion()
    match = match_or_404(table.store, match_id)
    table.tracker.play_match(match_id)
    names = " – ".join(p["name"] for p in match["players"])
    flash(f"{names} now play at this table: set up the opening position.")
    return redirect(url_for("table.page"), code=303)


@bp.post("/tournament/match/<int:match_id>/result/delete")
@director_required
def delete_result(match_id: int):
    """Withdraw a result entered by hand (entered at the wrong table, say); it stays on record."""
    store = companion().store
    match = match_or_404(store, match_id)
    if hand_result(match) is None:
        raise ArbiterError("only a result entered by hand can be deleted; the camera's record stays")
    store.reopen_match(match_id, {"withdrawn": match["result"], "at": now_iso()})
    flash("Result deleted: enter the right one.")
    return redirect(url_for("tournament.page", id=match["tournament_id"]), code=303)


@bp.post("/tournament/match/<int:match_id>/result")
@director_required
def enter_result(match_id: int):
    store = companion().store
    match = match_or_404(store, match_id)
    if len(match["players"]) != 2:
        raise ArbiterError("a bye has no result to enter")
    quick = QUICK_RESULTS.get(request.form.get("result", ""))
    home, away = quick if quick else (form_number("home_score"), form_number("away_score"))
    winner = 0 if home > away else 1 if away > home else None
    result = {"over": True, "winner": winner, "scores": {"0": home, "1": away}, "entered": "by hand",
              "at": now_iso()}
    if match["result"] and not is_bye(match):
        result["replaces"] = match["result"]  # an edited result keeps the one it corrects
    store.finish_match(match_id, result)
    return redirect(url_for("tournament.page", id=match["tournament_id"]), code=303)
