"""`arbiter demo`: a simulated camera shows a bundled game to the real chain (recogniser, tracker,
store, web page), including one illegal move the companion must catch.

A demo game (`arbiter/demos/GAME.json`) gives the rules, the players, the opening where the game has
no standard start, the moves, and its simulated table: `session` (camera, lamp, board, where towers
stand), the game's own table options (`style`, `pieces`), `shot` (the sensor noise of every picture)
and `camera_seed` (the arm reaching in between moves). Its table is one where the recogniser reads
the whole game (tests/webui/test_demo_chain.py checks every demo).
"""
from __future__ import annotations

import json
from importlib import resources

from engines import load_rules
from engines.errors import ArbiterError

DEFAULT_DEMO = "wari"
# Frames each position of the demo stays still (at the simulated camera's 10 fps): long enough to
# watch a move land, short enough that the whole game plays in about a minute.
DEMO_STILL_FRAMES = 25


def demo_games() -> tuple[str, ...]:
    """The games with a bundled demo."""
    folder = resources.files("arbiter.demos")
    return tuple(sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json")))


def load_demo_game(game: str) -> dict:
    """A bundled demo game: rules, players, table, the opening (where the game has no standard start), moves."""
    if game not in demo_games():
        raise ArbiterError(f"no demo for {game!r}: expected one of {', '.join(demo_games())}")
    return json.loads(resources.files("arbiter.demos").joinpath(f"{game}.json").read_text(encoding="utf-8"))


def demo_positions(game: dict) -> tuple[object, list[dict]]:
    """The rules and every table position the demo camera shows, in order.

    A step `{"move": M}` shows the position after M. A step that also has `"instead": {...}` first
    shows the position after M with those keys replaced (the illegal move the companion must catch:
    a seed dropped one pit too far, a disc left behind), then the position after M (the player puts
    it right). The demo refuses an `instead` that some legal move would explain.
    """
    rules = load_rules(game["rules"])
    state = rules.state_from_json(game["start"]) if "start" in game else rules.start()
    shown = [state.to_json()]
    for number, step in enumerate(game["steps"], 1):
        after = rules.apply(state, rules.move_from_json(step["move"]))
        if "instead" in step:
            mistaken = {**after.to_json(), **step["instead"]}
            try:
                explained = rules.explain(state, rules.state_from_json(mistaken)).legal
            except ArbiterError:
                explained = False  # no position of the game looks like it (a piece cut off)
            if explained:
                raise ArbiterError(f"demo step {number}: the mistaken table is still a legal move")
            shown.append(mistaken)
        shown.append(after.to_json())
        state = after
    return rules, shown


def bundled_pieceset(name: str) -> dict:
    """A piece-set file shipped in calibration/pieces."""
    return json.loads(resources.files("calibration").joinpath("pieces", name).read_text("utf-8"))


def demo_table(record: dict, positions: list[dict]) -> tuple[dict, list]:
    """A calibration profile and the simulated camera's pictures of every position.

    The profile is made as a newcomer would make it: from the table's own calibration picture
    (Varanasi: every disc of the set laid out; Wari: the board at the start).
    """
    from calibration import calibrate
    from device.simulated import simulated_table

    game = record["rules"]["game"]
    options = dict(record["table"])
    session, shot = options.pop("session"), options.pop("shot", 0)
    options.pop("camera_seed", None)
    pieceset = bundled_pieceset(options.pop("pieces")) if "pieces" in options else None
    if pieceset is not None:
        options["pieceset"] = pieceset
    table = simulated_table(game, session, **options)
    profile = calibrate(game, table.calibration_picture(positions[0], shot), pieceset)
    return profile, table.game_pictures(positions, shot)


def demo_camera(game: str, still_frames: int = DEMO_STILL_FRAMES, realtime: bool = True):
    """(rules, profile, camera, players) of a bundled demo: its simulated camera ready to open."""
    from device.cameras import SimulatedCamera

    record = load_demo_game(game)
    rules, positions = demo_positions(record)
    profile, pictures = demo_table(record, positions)
    camera = SimulatedCamera(pictures, still_frames=still_frames, seed=record["table"].get("camera_seed", 0),
                             realtime=realtime, name=f"demo:{game}")
    return rules, profile, camera, record.get("players", ())
