"""Tournament: the players' roster, rounds and tables, pairings, results by hand, standings.

Everything is kept in the record store: a tournament is a store tournament, each pairing a match
of it (a bye is a one-seat match finished at once), and the rounds are recovered from the order
the matches were paired (`arbiter.tournament.number_rounds`).
"""
from __future__ import annotations

import csv
import io

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for

from arbiter.scoring import BYE, hand_result, is_bye, match_summary
from arbiter.spreadsheet import safe_row
from arbiter.store import now_iso
from arbiter.tournament import Result, number_rounds, round_robin, standings, swiss_round
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
    rounds = number_rounds([(m["id"], [p["name"] for p in m["players"]]) for m in matches])
    games, tables_in_round = [], {}
    for match in matches:
        names = [p["name"] for p in match["players"]]
        number = rounds[match["id"]]
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
    tournament = next((t for t in store.tournaments() if t["id"] == tournament_id), None)
    if tournament is None:
        abort(404, description=f"no tournament with id {tournament_id}")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(STANDINGS_COLUMNS)
    for standing in standings_of(tournament_games(store, tournament_id)):
        cells = safe_row(getattr(standing, column) for column in STANDINGS_COLUMNS)
        writer.writerow(f"{cell:g}" if isinstance(cell, float) else cell for cell in cells)  # 1.5, not 1.50
    name = "".join(c if c.isascii() and c.isalnum() else "-" for c in tournament["name"]).strip("-") or f"tournament-{tournament_id}"
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename={name}-standings.csv"})


@bp.get("/tournament")
def page():
    store = companion().store
    tournaments = store.tournaments()
    chosen = request.args.get("id", type=int) or (tournaments[-1]["id"] if tournaments else None)
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
    return render_template("tournament.html", tournaments=tournaments, chosen=chosen, rounds=rounds,
                           standings=table, players=store.players(), systems=SYSTEMS, system=system,
                           complete=complete, entrants=entrants, at_table=at_table)


@bp.post("/tournament/players")
@director_required
def add_player():
    companion().store.add_player(request.form.get("name", ""))
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
    if tournament_id not in {t["id"] for t in store.tournaments()}:
        abort(404, description=f"no tournament with id {tournament_id}")
    game = request.form.get("game", "")
    # Pairings of this table's game follow its rules, so that they can be played here.
    rules = table.rules if game == table.game else load_rules({"game": game})
    # The system is chosen with the first round and kept: a Swiss round 2 never comes from the
    # round-robin schedule because a form was left at its default.
    kept = next(t["system"] for t in store.tournaments() if t["id"] == tournament_id)
    system = kept or request.form.get("system", "")
    if system not in SYSTEMS:
        raise ArbiterError(f"unknown pairing system {system!r}: expected {' or '.join(SYSTEMS)}")
    games = tournament_games(store, tournament_id)
    entrants = entrants_of(games) or sorted(request.form.getlist("entrant"))
    if any(g["away"] is not None and g["scores"] is None for g in games):
        raise ArbiterError("enter every result of the current round before pairing the next one")
    if system == "round_robin":
        schedule = round_robin(entrants)
        played = max((g["round"] for g in games), default=0)
        if played >= len(schedule):
            raise ArbiterError("the round robin is complete: every entrant has met every other")
        pairings = schedule[played]
    else:
        pairings = swiss_round(entrants, *results_and_byes(games))
    player_ids = {p["name"]: p["id"] for p in store.players()}
    unknown = sorted({name for pairing in pairings for name in (pairing.home, pairing.away)
                      if name is not None and name not in player_ids})
    if unknown:
        raise ArbiterError(f"not on the roster: {', '.join(unknown)}")
    store.set_tournament_system(tournament_id, system)
    for pairing in pairings:
        seated = [name for name in (pairing.home, pairing.away) if name is not None]
        match_id = store.new_match(rules.to_json(), [player_ids[name] for name in seated], tournament_id)
        if pairing.away is None:
            store.finish_match(match_id, BYE)
    flash(f"Round {pairings[0].round} paired: {len(pairings)} tables.")
    return redirect(url_for("tournament.page", id=tournament_id), code=303)


@bp.post("/tournament/match/<int:match_id>/play")
@director_required
def play_here(match_id: int):
    table = companion()
    match = table.store.match(match_id)
    table.tracker.play_match(match_id)
    names = " – ".join(p["name"] for p in match["players"])
    flash(f"{names} now play at this table: set up the opening position.")
    return redirect(url_for("table.page"), code=303)


@bp.post("/tournament/match/<int:match_id>/result/delete")
@director_required
def delete_result(match_id: int):
    """Withdraw a result entered by hand (entered at the wrong table, say); it stays on record."""
    store = companion().store
    match = store.match(match_id)
    if hand_result(match) is None:
        raise ArbiterError("only a result entered by hand can be deleted; the camera's record stays")
    store.reopen_match(match_id, {"withdrawn": match["result"], "at": now_iso()})
    flash("Result deleted: enter the right one.")
    return redirect(url_for("tournament.page", id=match["tournament_id"]), code=303)


@bp.post("/tournament/match/<int:match_id>/result")
@director_required
def enter_result(match_id: int):
    store = companion().store
    match = store.match(match_id)
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
