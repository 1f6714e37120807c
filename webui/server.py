"""`arbiter serve` (a real table) and `arbiter demo` (a simulated camera playing a bundled game).

Both build the same chain, camera -> recogniser -> tracker -> store -> web, and serve it with a
threaded WSGI server so the event and video streams of several phones never block each other.
"""
from __future__ import annotations

import json
import logging
import shutil
import signal
import tempfile
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

from werkzeug.serving import make_server

from engines import load_rules
from engines.errors import ArbiterError
from webui.app import create_app
from webui.companion import Companion, LatestObservation, seat_names
from webui.security import check_bind

DEMO_GAMES = {"wari": "wari-demo.json", "varanasi": "varanasi-demo.json"}
DEFAULT_DEMO = "wari"
DEMO_PIECES = "nestor-standard.json"
# Frames each position of the demo stays still (at the simulated camera's 10 fps): long enough to
# watch a move land, short enough that the whole game plays in about a minute.
DEMO_STILL_FRAMES = 25
# The demo tables: a renderer seed per game (where towers stand, how seeds lie, sensor noise),
# picked where the recognisers read the whole bundled game (checked by tests/webui/test_demo_chain.py).
DEMO_SEEDS = {"wari": 3, "varanasi": 9}
# The Wari demo table: coloured glass beads under one lamp (the synthetic renderer's session).
DEMO_WARI_STYLE = "glass"
DEMO_WARI_SESSION = 2


def build_companion(rules, profile: dict, camera, store, player_names=()) -> Companion:
    """Tracker on `camera`, recording into `store`, as a Companion ready to start."""
    from arbiter.tracker import Tracker, open_game

    known = {p["name"]: p["id"] for p in store.players()}
    player_ids = [known.get(name) or store.add_player(name) for name in player_names]
    game_id = open_game(store, rules, player_ids)
    observations = LatestObservation()
    tracker = Tracker(rules, profile, store, game_id, recognize=observations)
    match = store.match(store.game(game_id)["match_id"])
    return Companion(tracker, camera, pieceset=profile.get("pieceset"), seat_names=seat_names(match),
                     observations=observations)


@dataclass
class Running:
    """A companion being served: stop() ends the server, the tracker and the store."""

    companion: Companion
    server: object
    thread: threading.Thread
    cleanup: Callable[[], None] | None = None

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(5)
        self.companion.stop()
        self.companion.store.close()
        if self.cleanup is not None:
            self.cleanup()


def start_serving(companion: Companion, host: str, port: int, pin: str | None,
                  profile_path: str | None = None, cleanup=None) -> Running:
    """Start the tracker and a threaded HTTP server in the background (port 0: any free port)."""
    check_bind(host, pin)
    # One line per request (every frame of a live view) would bury the companion's own messages.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app(companion, pin=pin, profile_path=profile_path)
    # A port in use: werkzeug says so in one line and exits (SystemExit), which callers clean up after.
    server = make_server(host, port, app, threaded=True)
    # Streams end with the process: a browser tab left open must not keep the companion alive.
    server.daemon_threads = True
    companion.start()
    thread = threading.Thread(target=server.serve_forever, name="arbiter-web", daemon=True)
    thread.start()
    return Running(companion, server, thread, cleanup)


def serve_until_interrupted(running: Running, what: str) -> int:
    """Serve until Ctrl-C or SIGTERM (a service manager stopping it), then close everything."""
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    print(f"Arbiter {what} at {running.url}/  (Ctrl-C stops)", flush=True)
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    finally:
        running.stop()
    return 0


def serve(args) -> int:
    """`arbiter serve --game G --camera C --profile P [--rules R] [--db D] [--host H] [--port N] [--pin X]`."""
    from arbiter.run import camera_from_spec, load_run_profile, load_run_rules
    from arbiter.store import Store

    check_bind(args.host, args.pin)
    rules = load_run_rules(args.game, args.rules)
    profile = load_run_profile(args.game, args.profile)
    camera = camera_from_spec(args.camera, rules, profile)
    store = Store(args.db)
    try:
        companion = build_companion(rules, profile, camera, store)
        running = start_serving(companion, args.host, args.port, args.pin, profile_path=args.profile)
    except BaseException:
        store.close()
        raise
    return serve_until_interrupted(running, "companion")


# ---------------------------------------------------------------------------------------------
# The demo

def load_demo_game(game: str) -> dict:
    """A bundled demo game: rules, players, the opening (where the game has no standard start), moves."""
    if game not in DEMO_GAMES:
        raise ArbiterError(f"no demo for {game!r}: expected one of {', '.join(DEMO_GAMES)}")
    text = resources.files("webui.demo").joinpath(DEMO_GAMES[game]).read_text(encoding="utf-8")
    return json.loads(text)


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
            if rules.explain(state, rules.state_from_json(mistaken)).legal:
                raise ArbiterError(f"demo step {number}: the mistaken table is still a legal move")
            shown.append(mistaken)
        shown.append(after.to_json())
        state = after
    return rules, shown


def demo_table(game: str, positions: list[dict]) -> tuple[dict, list]:
    """A calibration profile and the simulated camera's pictures of every position.

    The profile is made like a newcomer would make it: from the camera's own calibration picture
    (Varanasi: every disc of the standard set laid out; Wari: the board at the start).
    """
    if game == "varanasi":
        from calibration.varanasi import calibrate
        from device.synthetic_varanasi import render_calibration, render_table

        pieceset = json.loads(resources.files("calibration").joinpath("pieces", DEMO_PIECES).read_text("utf-8"))
        seed = DEMO_SEEDS[game]
        profile = calibrate(render_calibration(pieceset, seed=seed), pieceset)
        return profile, [render_table(p, pieceset, seed=seed) for p in positions]
    from calibration.wari import calibrate
    from device.synthetic_wari import render_board

    pictures = [render_board(p["pits"], p["stores"], seed=DEMO_SEEDS[game], style=DEMO_WARI_STYLE,
                             session=DEMO_WARI_SESSION) for p in positions]
    return calibrate(pictures[0]), pictures


def build_demo(db_path: str | Path, game: str = DEFAULT_DEMO, still_frames: int = DEMO_STILL_FRAMES,
               realtime: bool = True) -> Companion:
    """The demo's companion: a simulated camera shows a bundled game to the real chain."""
    from arbiter.store import Store
    from device.cameras import SimulatedCamera

    record = load_demo_game(game)
    rules, positions = demo_positions(record)
    profile, pictures = demo_table(game, positions)
    camera = SimulatedCamera(pictures, still_frames=still_frames, seed=DEMO_SEEDS[game], realtime=realtime,
                             name=f"demo:{game}")
    return build_companion(rules, profile, camera, Store(db_path), record.get("players", ()))


def start_demo(host: str, port: int, pin: str | None, game: str = DEFAULT_DEMO,
               still_frames: int = DEMO_STILL_FRAMES) -> Running:
    """The demo served in the background with a throw-away record store."""
    check_bind(host, pin)
    folder = tempfile.mkdtemp(prefix="arbiter-demo-")
    companion = None
    try:
        companion = build_demo(Path(folder) / "demo.sqlite3", game, still_frames)
        return start_serving(companion, host, port, pin, cleanup=lambda: shutil.rmtree(folder, ignore_errors=True))
    except BaseException:
        if companion is not None:
            companion.store.close()
        shutil.rmtree(folder, ignore_errors=True)
        raise


def demo(args) -> int:
    """`arbiter demo [--game wari|varanasi] [--host H] [--port N] [--pin X]`: no camera, no set-up."""
    game = getattr(args, "game", None) or DEFAULT_DEMO
    running = start_demo(args.host, args.port, args.pin, game)
    return serve_until_interrupted(running, f"demo (a simulated camera plays a {game.capitalize()} game)")
