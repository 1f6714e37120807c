"""The events a table reports to the director, checked before they are stored, and what the
director makes of them: each table's board, the record of its current game, the standings.

One event stands for one write of a table's record store: a row of its move log (`"kind": "log"`),
a game's result (`"game_result"`) or a match's result (`"match_result"`). Every event names the
match and game it belongs to by the table's own ids, with what the director needs to show it (the
rules, the players); `seq` numbers a table's events 1, 2, 3... in the order the table wrote them.
docs/director.md gives the format.
"""
from __future__ import annotations

from engines import load_rules
from engines.errors import ArbiterError

from arbiter.matches import match_standing
from arbiter.records import game_record
from arbiter.store import POSITION_VERDICTS, VERDICTS, MoveRecord
from arbiter.tournament import Result, standings

EVENT_KINDS = ("log", "game_result", "match_result")
# A table name as `--table` gives it: short enough for a page's column and a database key.
MAX_TABLE_NAME = 100
# Nesting deeper than any position, move or result of a registered game (a Nanku position is 4).
MAX_JSON_DEPTH = 12
# Events one request may carry; a table's sender posts at most this many at once.
MAX_BATCH = 200


class EventError(ArbiterError):
    """An event, or a batch of them, that is not what a table sends."""


def json_depth(value, limit: int = MAX_JSON_DEPTH, depth: int = 0) -> int:
    """How deeply `value` nests (a scalar: 0), stopping once past `limit`."""
    if depth > limit:
        return depth
    if isinstance(value, dict):
        return max((json_depth(v, limit, depth + 1) for v in value.values()), default=depth + 1)
    if isinstance(value, list):
        return max((json_depth(v, limit, depth + 1) for v in value), default=depth + 1)
    return depth


def check_table_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_TABLE_NAME or not name.isprintable():
        raise EventError(f"a table name is 1 to {MAX_TABLE_NAME} printable characters")
    return name


def _is_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def check_event(event: object) -> dict:
    """The event itself if it has the shape of one a table sends, else EventError saying why."""
    if not isinstance(event, dict):
        raise EventError("an event is a JSON object")
    seq = event.get("seq")
    if not _is_id(seq):
        raise EventError("an event's seq is a whole number from 1")
    kind = event.get("kind")
    if kind not in EVENT_KINDS:
        raise EventError(f"event {seq}: kind must be one of {', '.join(EVENT_KINDS)}")
    match = event.get("match")
    if not (isinstance(match, dict) and _is_id(match.get("id")) and isinstance(match.get("rules"), dict)
            and isinstance(match["rules"].get("game"), str) and isinstance(match.get("players"), list)
            and all(isinstance(name, str) for name in match["players"])):
        raise EventError(f'event {seq}: "match" needs an id, rules naming the game, and a list of players')
    if kind != "match_result":
        game = event.get("game")
        if not (isinstance(game, dict) and _is_id(game.get("id")) and _is_id(game.get("number"))):
            raise EventError(f'event {seq}: "game" needs an id and a number')
    if kind == "log":
        row = event.get("row")
        if not (isinstance(row, dict) and row.get("verdict") in VERDICTS and isinstance(row.get("state"), dict)
                and _is_id(row.get("id"))):
            raise EventError(f'event {seq}: "row" needs an id, a verdict ({", ".join(VERDICTS)}) and a state')
    elif not (isinstance(event.get("result"), dict)):
        raise EventError(f'event {seq}: "result" must be an object')
    if json_depth(event) > MAX_JSON_DEPTH:
        raise EventError(f"event {seq}: nested more than {MAX_JSON_DEPTH} levels deep")
    return event


def check_batch(body: object) -> tuple[str, list[dict]]:
    """(table, events in seq order) of a posted batch `{"table": NAME, "events": [...]}`."""
    if not isinstance(body, dict) or set(body) - {"table", "events"}:
        raise EventError('a batch is an object {"table": NAME, "events": [EVENT, ...]}')
    table = check_table_name(body.get("table"))
    events = body.get("events")
    if not isinstance(events, list) or not 0 < len(events) <= MAX_BATCH:
        raise EventError(f'"events" must list 1 to {MAX_BATCH} events')
    return table, sorted((check_event(event) for event in events), key=lambda event: event["seq"])


# What the director makes of them -------------------------------------------------------------

def board_after(board: dict | None, event: dict) -> dict:
    """A table's board (what the director's page shows of it) after one more event."""
    board = dict(board or {})
    match, game = event["match"], event.get("game")
    if game is not None and (board.get("game_id") != game["id"] or board.get("match_id") != match["id"]):
        # The table moved on to another game: its alert and result belonged to the last one.
        board.update(match_id=match["id"], game_id=game["id"], game_number=game["number"], alert=None,
                     result=None, state=None, verdict=None)
    board.update(rules=match["rules"], players=match["players"])
    if event["kind"] == "log":
        row = event["row"]
        board["verdict"] = row["verdict"]
        if row["verdict"] == "illegal":
            board["alert"] = row.get("reason") or "illegal move"
        elif row["verdict"] in POSITION_VERDICTS or row["verdict"] == "restored":
            board["alert"] = None
        if row["verdict"] in POSITION_VERDICTS or board.get("state") is None:
            board["state"] = row["state"]
    elif event["kind"] == "game_result":
        board["result"] = event["result"]
    return board


def to_move_of(board: dict) -> str | None:
    """Who is to move on a board, by the player's name where the table named its players."""
    state = board.get("state") or {}
    if board.get("result") or "to_move" not in state:
        return None
    try:
        rules = load_rules(board["rules"])
        side = rules.state_from_json(state).to_move
    except (ArbiterError, KeyError, TypeError, ValueError):
        return str(state["to_move"])
    names = board.get("players") or []
    seat = list(rules.sides).index(side) if side in rules.sides else None
    if seat is not None and seat < len(names):
        return names[seat]
    return rules.side_name(side)


def result_line(board: dict) -> str | None:
    """A finished game's result in words: "Kofi won, 26 to 10" (the winner's score first),
    "Drawn, 24 to 24"."""
    result = board.get("result")
    if not result:
        return None
    try:
        rules = load_rules(board["rules"])
    except (ArbiterError, KeyError, TypeError):
        return "Over"
    names = board.get("players") or []
    scores = result.get("scores") or {}
    by_seat = [scores.get(side if isinstance(side, str) else str(side)) for side in rules.sides]
    score_text = " to ".join(f"{score:g}" for score in by_seat if isinstance(score, (int, float)))
    winner = result.get("winner")
    if winner is None:
        return f"Drawn, {score_text}" if score_text else "Drawn"
    sides = [side if isinstance(side, str) else str(side) for side in rules.sides]
    seat = sides.index(str(winner)) if str(winner) in sides else None
    if seat is not None and isinstance(by_seat[seat], (int, float)):
        others = [score for number, score in enumerate(by_seat) if number != seat and isinstance(score, (int, float))]
        score_text = " to ".join(f"{score:g}" for score in [by_seat[seat], *others])
    name = names[seat] if seat is not None and seat < len(names) else rules.side_name(rules.sides[seat]) \
        if seat is not None else str(winner)
    return f"{name} won, {score_text}" if score_text else f"{name} won"


def result_scores(rules_json: dict, players: list[str], result: dict) -> tuple[float, float] | None:
    """(seat 0's score, seat 1's score) of a two-player game's result, or None where it has none."""
    if len(players) != 2 or not result.get("over"):
        return None
    rules = load_rules(rules_json)
    scores = result.get("scores") or {}
    by_seat = []
    for side in rules.sides[:2]:
        key = side if isinstance(side, str) else str(side)
        by_seat.append(float(scores.get(key, scores.get(str(key), 0)) or 0))
    return by_seat[0], by_seat[1]


def standings_of(results: list[dict]) -> list[dict]:
    """Standings of the two-player matches the tables reported, each decided as the tournament
    page decides a pairing (`webui/routes/tournament.py`): a match whose rules fix its length
    (Varanasi) once they say it is over, by its match score; any other by its first finished game.
    Scored as `arbiter.tournament.standings` scores them."""
    by_match: dict[tuple, list[dict]] = {}
    for entry in results:  # in the order the games were played
        by_match.setdefault((entry["table"], entry["match_id"]), []).append(entry)
    games = []
    for entries in by_match.values():
        first = entries[0]
        if len(first["players"]) != 2:
            continue
        standing = match_standing(load_rules(first["rules"]), [entry["result"] for entry in entries])
        if standing is not None:
            if not standing["over"]:
                continue
            points = standing["standings"]
            scores = tuple(float(points.get(str(seat), points.get(seat, 0))) for seat in (0, 1))
        else:
            scores = next((found for entry in entries
                           if (found := result_scores(entry["rules"], entry["players"], entry["result"]))), None)
            if scores is None:
                continue
        games.append(Result(first.get("round") or 1, first["players"][0], first["players"][1], *scores))
    entrants = sorted({name for game in games for name in (game.home, game.away)})
    if len(entrants) < 2:
        return []
    return [standing.to_json() | {"place": standing.place} for standing in standings(entrants, games)]


class _EventsAsStore:
    """One table's log events shaped as `arbiter.records.game_record` reads a store."""

    def __init__(self, events: list[dict]):
        self.events = events

    def game(self, game_id: int) -> dict:
        for event in self.events:
            if event.get("game", {}).get("id") == game_id:
                return {"id": game_id, "match_id": event["match"]["id"], "number": event["game"]["number"]}
        raise EventError(f"no game {game_id}")

    def match(self, match_id: int) -> dict:
        match = next(event["match"] for event in reversed(self.events) if event["match"]["id"] == match_id)
        return {"id": match_id, "rules": match["rules"],
                "players": [{"seat": seat, "name": name} for seat, name in enumerate(match["players"])]}

    def moves(self, game_id: int) -> list[MoveRecord]:
        return [MoveRecord(e["row"]["id"], game_id, e["row"].get("at", ""), e["row"]["verdict"], e["row"].get("move"),
                           e["row"].get("reason"), e["row"]["state"], e["row"].get("recognised"), None, None,
                           e["row"].get("mover"))
                for e in self.events if e["kind"] == "log" and e["game"]["id"] == game_id]


def current_game_record(table: str, events: list[dict]) -> dict:
    """The record (as `arbiter check` reads it) of the game the table reported last."""
    logged = [event for event in events if event["kind"] == "log"]
    if not logged:
        raise EventError(f"table {table!r} has reported no game yet")
    record = game_record(_EventsAsStore(logged), logged[-1]["game"]["id"])
    if len(record["players"]) != load_rules(record["rules"]).players:
        del record["players"]  # a table that named no players: the record names none
    return record


def current_game_log(events: list[dict]) -> list[dict]:
    """The log of the game the table reported last, as the director reads it: each row's verdict,
    its moves in table notation, the judge's reason and when it was written."""
    logged = [event for event in events if event["kind"] == "log"]
    if not logged:
        return []
    game_id, rules = logged[-1]["game"]["id"], load_rules(logged[-1]["match"]["rules"])
    rows = []
    for event in logged:
        if event["game"]["id"] != game_id:
            continue
        row = event["row"]
        moves = row.get("move")
        moves = moves if isinstance(moves, list) else [moves] if moves else []
        try:
            text = ", ".join(rules.notation(rules.move_from_json(move)) for move in moves)
        except ArbiterError:
            text = ""
        rows.append({"seq": event["seq"], "verdict": row["verdict"], "moves": text, "reason": row.get("reason"),
                     "at": row.get("at")})
    return rows
