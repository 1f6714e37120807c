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
from webui.companion import Companion, LatestObservation
from webui.security import check_bind

DEMO_GAME = "wari-demo.json"
# Frames each position of the demo stays still (at the simulated camera's 10 fps): long enough to
# watch a move land, short enough that the whole game plays in about a minute.
DEMO_STILL_FRAMES = 25
# The demo table: coloured glass beads under one lamp (the synthetic renderer's session).
DEMO_STYLE = "glass"
DEMO_SESSION = 2
DEMO_SEED = 3


def build_companion(rules, profile: dict, camera, store, player_names=()) -> Companion:
    """Tracker on `camera`, recording into `store`, as a Companion ready to start."""
    from arbiter.tracker import Tracker, open_game
    from webui.routes.scores import seat_names

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

def load_demo_game(name: str = DEMO_GAME) -> dict:
    """The bundled demo game: rules, players and the moves, one with a seed dropped in the wrong pit."""
    text = resources.files("webui.demo").joinpath(name).read_text(encoding="utf-8")
    return json.loads(text)


def demo_positions(game: dict) -> tuple[object, list[dict]]:
    """The rules and every table position the demo camera shows, in order.

    A step `{"move": M}` shows the position after M. A step with `"slip": [FROM, TO]` first shows
    the table with one seed of pit FROM dropped in pit TO instead (the illegal move the companion
    must catch), then the position after M (the player puts the seed right).
    """
    rules = load_rules(game["rules"])
    state = rules.start()
    shown = [state.to_json()]
    for number, step in enumerate(game["steps"], 1):
        after = rules.apply(state, rules.move_from_json(step["move"]))
        if "slip" in step:
            slipped = after.to_json()
            source, target = step["slip"]
            if slipped["pits"][source] == 0:
                raise ArbiterError(f"demo step {number}: pit {source} is empty, no seed to slip")
            slipped["pits"][source] -= 1
            slipped["pits"][target] += 1
            if rules.explain(state, rules.state_from_json(slipped)).legal:
                raise ArbiterError(f"demo step {number}: the slipped seed still makes a legal move")
            shown.append(slipped)
        shown.append(after.to_json())
        state = after
    return rules, shown


def build_demo(db_path: str | Path, still_frames: int = DEMO_STILL_FRAMES, realtime: bool = True) -> Companion:
    """The demo's companion: a simulated camera shows the bundled game to the real chain."""
    from arbiter.store import Store
    from calibration.wari import calibrate
    from device.cameras import SimulatedCamera
    from device.synthetic_wari import render_board

    game = load_demo_game()
    rules, positions = demo_positions(game)
    pictures = [render_board(p["pits"], p["stores"], seed=DEMO_SEED, style=DEMO_STYLE, session=DEMO_SESSION)
                for p in positions]
    # Calibrate like a newcomer would: from the camera's own picture of the start position.
    profile = calibrate(pictures[0])
    camera = SimulatedCamera(pictures, still_frames=still_frames, seed=DEMO_SEED, realtime=realtime,
                             name="demo")
    return build_companion(rules, profile, camera, Store(db_path), game.get("players", ()))


def start_demo(host: str, port: int, pin: str | None, still_frames: int = DEMO_STILL_FRAMES) -> Running:
    """The demo served in the background with a throw-away record store."""
    check_bind(host, pin)
    folder = tempfile.mkdtemp(prefix="arbiter-demo-")
    companion = None
    try:
        companion = build_demo(Path(folder) / "demo.sqlite3", still_frames)
        return start_serving(companion, host, port, pin, cleanup=lambda: shutil.rmtree(folder, ignore_errors=True))
    except BaseException:
        if companion is not None:
            companion.store.close()
        shutil.rmtree(folder, ignore_errors=True)
        raise


def demo(args) -> int:
    """`arbiter demo [--host H] [--port N] [--pin X]`: no camera, no calibration, no set-up."""
    running = start_demo(args.host, args.port, args.pin)
    return serve_until_interrupted(running, "demo (a simulated camera plays a Wari game)")
