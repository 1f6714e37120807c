"""`arbiter serve` (a real table) and `arbiter demo` (a simulated camera playing a bundled game).

Both put together the same chain, camera -> recogniser -> tracker -> store -> web page, and hand
the web layer what it needs (the companion, the calibrator): the web layer itself never opens a
camera or calibrates.
"""
from __future__ import annotations

import getpass
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from arbiter.demo import DEFAULT_DEMO, DEMO_STILL_FRAMES, demo_camera
from webui.companion import Companion, LatestObservation, seat_names
from engines.errors import ArbiterError
from webui.security import PIN_SUGGESTED_DIGITS, PIN_VARIABLE, check_bind, check_pin
from webui.server import Running, serve_until_interrupted, start_director, start_serving


class TableCalibrator:
    """Calibration as the calibrate page offers it: a new profile for this table's game.

    Recalibrating keeps the table's piece set: the one its current profile was made with.
    """

    def __init__(self, game: str, pieceset: dict | None = None):
        self.game = game
        self.pieceset = pieceset

    def calibrate(self, image) -> dict:
        from calibration import calibrate

        return calibrate(self.game, image, self.pieceset)

    def save(self, profile: dict, path: str) -> None:
        from calibration.profiles import save_profile

        save_profile(profile, path)


def director_pin(wanted: bool) -> str | None:
    """The director's PIN when `--pin` asks for one: from $ARBITER_PIN, else typed at a prompt.

    Never from the command line, where every user of the machine could read it in `ps`.
    """
    if not wanted:
        return None
    pin = os.environ.get(PIN_VARIABLE)
    if pin is None:
        if not sys.stdin.isatty():
            raise ArbiterError(f"--pin: set {PIN_VARIABLE} or start the companion in a terminal to type the PIN")
        pin = getpass.getpass(f"Director's PIN ({PIN_SUGGESTED_DIGITS} or more digits): ")
    check_pin(pin)
    if len(pin) < PIN_SUGGESTED_DIGITS:
        print(f"arbiter: warning: a PIN of {len(pin)} digits is easy to guess; {PIN_SUGGESTED_DIGITS} or more "
              "are suggested", file=sys.stderr)
    return pin


def build_companion(rules, profile: dict, camera, store, player_names=(), table: str | None = None) -> Companion:
    """Tracker on `camera`, recording into `store`, as a Companion ready to start."""
    from arbiter.run import seat_players
    from arbiter.matches import open_game
    from arbiter.tracker import Tracker
    from vision import overlay_drawer

    game_id = open_game(store, rules, seat_players(store, player_names), table=table)
    observations = LatestObservation()
    tracker = Tracker(rules, profile, store, game_id, recognize=observations,
                      mark=overlay_drawer(rules.to_json()["game"]))
    match = store.match(store.game(game_id)["match_id"])
    return Companion(tracker, camera, pieceset=profile.get("pieceset"), seat_names=seat_names(match),
                     observations=observations)


def serve(args) -> int:
    """`arbiter serve --game G --camera C --profile P [--rules R] [--db D] [--host H] [--port N] [--pin X]`."""
    from arbiter.run import camera_from_spec, load_run_profile, load_run_rules, open_outbox, player_names
    from arbiter.store import Store

    pin = director_pin(args.pin)
    check_bind(args.host, pin)
    rules = load_run_rules(args.game, args.rules)
    names = player_names(args.players, rules)
    profile = load_run_profile(args.game, args.profile)
    camera = camera_from_spec(args.camera, rules, profile)
    store = Store(args.db)
    outbox = None
    try:
        shown_on = []  # the companion, once built: its page shows how reporting stands

        def director_status(event: dict) -> None:
            print(json.dumps(event), file=sys.stderr, flush=True)
            for page in shown_on:
                page.director_status(event)

        outbox = open_outbox(args, store, director_status)
        companion = build_companion(rules, profile, camera, store, names, args.table)
        shown_on.append(companion)
        if outbox is not None:
            companion.tracker.subscribe(outbox.wake)
        running = start_serving(companion, args.host, args.port, pin, profile_path=args.profile,
                                calibrator=TableCalibrator(rules.game, profile.get("pieceset")),
                                cleanup=outbox.stop if outbox is not None else None)
    except BaseException:
        if outbox is not None:
            outbox.stop()
        store.close()
        raise
    return serve_until_interrupted(running, "companion")


def build_demo(db_path: str | Path, game: str = DEFAULT_DEMO, still_frames: int = DEMO_STILL_FRAMES,
               realtime: bool = True) -> Companion:
    """The demo's companion: a simulated camera shows a bundled game to the real chain."""
    from arbiter.store import Store

    rules, profile, camera, players = demo_camera(game, still_frames, realtime)
    return build_companion(rules, profile, camera, Store(db_path), players)


def start_demo(host: str, port: int, pin: str | None, game: str = DEFAULT_DEMO,
               still_frames: int = DEMO_STILL_FRAMES) -> Running:
    """The demo served in the background with a throw-away record store."""
    check_bind(host, pin)
    folder = tempfile.mkdtemp(prefix="arbiter-demo-")
    companion = None
    try:
        companion = build_demo(Path(folder) / "demo.sqlite3", game, still_frames)
        return start_serving(companion, host, port, pin, cleanup=lambda: shutil.rmtree(folder, ignore_errors=True),
                             calibrator=TableCalibrator(companion.game, companion.pieceset))
    except BaseException:
        if companion is not None:
            companion.store.close()
        shutil.rmtree(folder, ignore_errors=True)
        raise


def demo(args) -> int:
    """`arbiter demo [--game G] [--host H] [--port N] [--pin X]`: no camera, no set-up."""
    game = getattr(args, "game", None) or DEFAULT_DEMO
    running = start_demo(args.host, args.port, director_pin(args.pin), game)
    return serve_until_interrupted(running, f"demo (a simulated camera plays a {game.capitalize()} game)")


def serve_director(args) -> int:
    """`arbiter director [--db D] [--host H] [--port N] [--pin]`: the director's server."""
    from arbiter.director_store import DirectorStore

    pin = director_pin(args.pin)
    check_bind(args.host, pin)
    store = DirectorStore(args.db)
    try:
        running = start_director(store, args.host, args.port, pin)
    except BaseException:
        store.close()
        raise
    return serve_until_interrupted(running, "director")
