"""Match policy: how long a match lasts, and which game a table plays next.

`match_standing` scores a match where the rules say how long it is; `open_game` picks the game a
run continues after a restart; `game_to_play` picks a match's current game.
"""
from __future__ import annotations

from engines import game_info


def match_standing(rules, results: list[dict]) -> dict | None:
    """The match score after its finished games, where the rules say how long a match is.

    A game registers its match scoring when its rules carry the match length (Varanasi: "target"
    points or a number of "sets"). A Wari or Nanku series length is the organiser's choice, not a
    rule, so their matches end when the tournament ends them (`Store.finish_match`): None.
    """
    info = game_info(rules.game)
    return info.match_standing(rules, results) if info.match_standing is not None else None


def open_game(store, rules, player_ids=(), tournament_id: int | None = None, table: str | None = None) -> int:
    """The game a run continues, so that a restart resumes where the table stood.

    The latest unfinished match of the same rules (and players, when given) at this `table` goes
    on: its unfinished game, or its next game if the last one has ended. Otherwise a new match begins.
    """
    match_id = store.unfinished_match(rules.game, table)
    if match_id is not None:
        match = store.match(match_id)
        seated = [p["id"] for p in match["players"]]
        if match["rules"] == rules.to_json() and (not player_ids or seated == list(player_ids)):
            return game_to_play(store, match_id)
    return store.new_game(store.new_match(rules.to_json(), player_ids, tournament_id, table))


def game_to_play(store, match_id: int) -> int:
    """The match's unfinished game, or its next game if the last one has ended."""
    unfinished = [g["id"] for g in store.games(match_id) if g["finished_at"] is None]
    return unfinished[-1] if unfinished else store.new_game(match_id)
