"""A recorded game as the contract's record (`rules`, `start`, `moves`, `players`), which
`arbiter check` replays, and as a numbered move list in table notation.

The move log holds more than a record can say: corrections and accepted tables set the position
by hand, and an undo takes moves back. A record starts where the log last set the position by hand
(the game's start when it never did), and an undo drops the moves it took back.
"""
from __future__ import annotations

from engines import load_rules
from engines.errors import ArbiterError, MoveError, RulesError

# Log verdicts after which the position is the one the players stated, not one a move made.
SET_BY_HAND = ("start", "override", "accept")


def read_record(record, source: str) -> tuple:
    """(rules, start, moves) of a contract record read from `source`; a one-line error for a
    record that is not one. The optional "players" name the seats and change no verdict, but a
    list that cannot be the seats' names means the record is not what its writer meant."""
    if not isinstance(record, dict) or "rules" not in record:
        raise ArbiterError(f'{source}: a record is an object with "rules", optional "start", "moves" and "players"')
    unknown = set(record) - {"rules", "start", "moves", "players"}
    if unknown:
        raise RulesError(f"{source}: unknown record keys: {', '.join(sorted(unknown))}")
    rules = load_rules(record["rules"])
    players = record.get("players", None)
    if "players" in record and not (
        isinstance(players, list) and len(players) == rules.players
        and all(isinstance(name, str) and name.strip() for name in players)
    ):
        raise ArbiterError(f'{source}: "players" must be a list of {rules.players} names, one per seat in order')
    start = rules.state_from_json(record["start"]) if "start" in record else rules.start()
    moves_json = record.get("moves", [])
    if not isinstance(moves_json, list):
        raise MoveError(f'{source}: "moves" must be a list')
    return rules, start, [rules.move_from_json(move) for move in moves_json]


def game_record(store, game_id: int) -> dict:
    """The record of one stored game; the players are named in seat order."""
    game = store.game(game_id)
    match = store.match(game["match_id"])
    rules = load_rules(match["rules"])
    start, states, moves = None, [], []
    for entry in store.moves(game_id):
        if entry.verdict in SET_BY_HAND:
            start, states, moves = entry.state, [rules.state_from_json(entry.state)], []
        elif entry.verdict == "move" and states:
            for move_json in entry.move if isinstance(entry.move, list) else [entry.move]:
                move = rules.move_from_json(move_json)
                states.append(rules.apply(states[-1], move))
                moves.append(move.to_json())
        elif entry.verdict == "undo" and states:
            back = rules.state_from_json(entry.state)
            while len(states) > 1 and states[-1] != back:
                states.pop()
                moves.pop()
            if states[-1] != back:
                start, states, moves = entry.state, [back], []
    if start is None:
        raise ArbiterError(f"game {game_id} has no recorded position yet")
    return {"rules": rules.to_json(), "start": start, "moves": moves,
            "players": [player["name"] for player in match["players"]]}


def numbered_moves(record: dict) -> list[str]:
    """`1. South f`, one line per move, numbered from the record's start."""
    rules = load_rules(record["rules"])
    return [f"{number}. {rules.notation(rules.move_from_json(move))}"
            for number, move in enumerate(record["moves"], start=1)]
