"""Events as a table reports them, made up for the director's tests."""
from __future__ import annotations

from engines import load_rules

WARI = {"game": "wari"}


def wari_game_events(plies: int = 3, first_seq: int = 1, match_id: int = 1, game_id: int = 1,
                     players=("Ama", "Kofi")) -> list[dict]:
    """A start row then `plies` move rows of a Wari game, numbered from `first_seq`."""
    rules = load_rules(WARI)
    state = rules.start()
    match = {"id": match_id, "rules": rules.to_json(), "players": list(players), "round": None}
    game = {"id": game_id, "number": 1}
    rows = [{"id": 1, "verdict": "start", "move": None, "state": state.to_json()}]
    for number in range(plies):
        move = rules.legal_moves(state)[0]
        mover = state.to_json()["to_move"]
        state = rules.apply(state, move)
        rows.append({"id": number + 2, "verdict": "move", "move": move.to_json(), "state": state.to_json(),
                     "mover": mover})
    return [{"seq": first_seq + index, "kind": "log", "match": match, "game": game, "row": row}
            for index, row in enumerate(rows)]


def game_result(seq: int, winner: str | None, scores: dict, match_id: int = 1, game_id: int = 1,
                players=("Ama", "Kofi")) -> dict:
    return {"seq": seq, "kind": "game_result",
            "match": {"id": match_id, "rules": WARI, "players": list(players), "round": None},
            "game": {"id": game_id, "number": 1}, "result": {"over": True, "winner": winner, "scores": scores}}
