"""Every registered game passes the same checks: what each layer relies on, asked of each game.

A new game registered in `engines/__init__.py` is picked up here without a line of this file
changing (docs/adding-a-game.md).
"""
from __future__ import annotations

import json
from random import Random

import pytest

from calibration import CALIBRATORS
from device.simulated import TABLES
from engines import game_info, game_names, load_rules
from engines.errors import ArbiterError, RulesError
from vision import OVERLAYS, RECOGNISERS
from webui.games import WEB_GAMES, web_game

PLAYOUTS = 3  # random games per registered game
PLIES = 24  # moves per random game at most


@pytest.mark.parametrize("game", game_names())
def test_rules_declare_their_game_sides_and_start(game):
    rules = load_rules({"game": game})
    assert rules.game == game and game_info(game).rules_class is type(rules)
    assert load_rules(json.loads(json.dumps(rules.to_json()))).to_json() == rules.to_json()
    assert len(rules.sides) == rules.players >= 2 and len(set(rules.sides)) == rules.players
    names = [rules.side_name(side) for side in rules.sides]
    assert all(isinstance(name, str) and name for name in names) and len(set(names)) == len(names)
    assert isinstance(rules.history_keys, tuple)
    if rules.has_standard_start:
        assert rules.start().to_move == rules.sides[0]
    else:
        with pytest.raises(RulesError):
            rules.start()


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("seed", range(PLAYOUTS))
def test_random_playouts_round_trip_and_explain_every_legal_move(game, seed):
    rng = Random(seed)
    rules = load_rules({"game": game})
    state = game_info(game).opening(rules, rng)
    for _ in range(PLIES):
        assert rules.state_from_json(json.loads(json.dumps(state.to_json()))) == state
        position = {key: value for key, value in state.to_json().items() if key not in rules.history_keys}
        assert rules.state_from_json(position).to_json()["to_move"] == state.to_json()["to_move"]
        moves = rules.legal_moves(state)
        if rules.is_over(state) or not moves:
            break
        assert state.to_move in rules.sides
        for move in moves:
            assert rules.move_from_json(json.loads(json.dumps(move.to_json()))) == move
            assert rules.notation(move)
            after = rules.apply(state, move)
            explanation = rules.explain(state, after)
            assert explanation.legal and move in explanation.moves, (rules.notation(move), explanation.reason)
        state = rules.apply(state, rng.choice(moves))
    outcome = rules.outcome(state)
    assert outcome.over == rules.is_over(state)
    json.dumps(outcome.to_json())


@pytest.mark.parametrize("game", game_names())
def test_a_position_no_move_reaches_is_explained_as_illegal(game):
    rules = load_rules({"game": game})
    state = game_info(game).opening(rules, Random(0))
    assert not rules.explain(state, state).legal  # standing still is no move
    assert rules.explain(state, state).reason


@pytest.mark.parametrize("game", game_names())
def test_each_layer_has_a_part_or_none_for_every_game(game):
    """A game read by camera has every camera part; a game without one has none of them."""
    camera_parts = {game in RECOGNISERS, game in OVERLAYS, game in CALIBRATORS, game in TABLES,
                    web_game(game) is not None}
    assert len(camera_parts) == 1, f"{game}: some camera parts registered, not all"


def test_unknown_games_are_refused_by_every_registry():
    for parts in (RECOGNISERS, OVERLAYS, CALIBRATORS, TABLES, WEB_GAMES):
        with pytest.raises(ArbiterError, match="chess"):
            parts.get("chess")
    with pytest.raises(RulesError, match="expected one of"):
        game_info("chess")
