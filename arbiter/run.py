"""`arbiter run`: drive a live table from a camera into the record store, printing every event.

A restart with the same database resumes the unfinished game where it stood (the move log is
replayed), so killing the process loses at most the move being judged.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from engines.errors import ArbiterError

SIM_PLIES = 12  # moves a simulated game plays before the camera stops


def load_run_rules(game: str, rules_path: str | None):
    """The rules file's rules (which must be of `game`), or the game's default rules."""
    from calibration.profiles import load_json_file
    from engines import load_rules

    rules = load_rules(load_json_file(rules_path, "rules file") if rules_path else {"game": game})
    if rules.game != game:
        raise ArbiterError(f"{rules_path}: rules of {rules.game}, but --game is {game}")
    return rules


def load_run_profile(game: str, profile_path: str) -> dict:
    from calibration.profiles import load_profile

    profile = load_profile(profile_path)
    if profile["game"] != game:
        raise ArbiterError(f"{profile_path}: a calibration profile for {profile['game']}, but --game is {game}")
    return profile


def player_names(text: str | None, rules) -> list[str]:
    """`--players A,B[,...]`: one distinct name per seat of the rules, in seat order."""
    if not text:
        return []
    names = [name.strip() for name in text.split(",")]
    if len(names) != rules.players or not all(names) or len(set(names)) != len(names):
        raise ArbiterError(f"--players needs {rules.players} different names separated by commas "
                           f"(one per seat, in order), not {text!r}")
    return names


def seat_players(store, names) -> list[int]:
    """The store's player ids for these names, adding the players it does not know yet."""
    known = {player["name"]: player["id"] for player in store.players()}
    return [known.get(name) or store.add_player(name) for name in names]


def simulated_camera(spec: str, rules, profile: dict, realtime: bool = True):
    """`sim:GAME[:SEED]`: a simulated camera playing a random legal game of GAME.

    SEED picks the table's session (camera, lamp, where pieces stand) and the game played.
    """
    from device.cameras import CameraError, SimulatedCamera
    from device.simulated import scripted_positions, simulated_table

    _, game, seed_text = (spec.split(":") + [""])[:3]
    if game != rules.game:
        raise CameraError(f"camera {spec!r}: simulates {game or 'no game'}, but the game is {rules.game}")
    if seed_text and not seed_text.isdigit():
        raise CameraError(f"camera {spec!r}: the seed must be a whole number, e.g. sim:{game}:7")
    seed = int(seed_text or 0)
    options = {"pieceset": profile["pieceset"]} if "pieceset" in profile else {}
    table = simulated_table(game, seed, **options)
    states = scripted_positions(rules, table.opening(rules, random.Random(seed)), SIM_PLIES, seed)
    pictures = table.game_pictures([state.to_json() for state in states])
    return SimulatedCamera(pictures, seed=seed, realtime=realtime, name=spec)


def camera_from_spec(spec: str, rules=None, profile: dict | None = None):
    """Any `--camera` spec, including `sim:GAME[:SEED]` (which needs the rules and profile)."""
    from device.cameras import open_camera

    if spec.startswith("sim:"):
        if rules is None or profile is None:
            raise ArbiterError("a simulated camera needs the game's rules and profile")
        return simulated_camera(spec, rules, profile)
    return open_camera(spec)


def run_table(args) -> int:
    """Judge the table until the camera ends; events are printed as JSON lines."""
    from arbiter.store import Store
    from arbiter.matches import open_game
    from arbiter.tracker import Tracker
    from vision import overlay_drawer

    rules = load_run_rules(args.game, args.rules)
    names = player_names(args.players, rules)
    profile = load_run_profile(args.game, args.profile)
    camera = camera_from_spec(args.camera, rules, profile)
    with Store(args.db) as store:
        outbox = open_outbox(args, store, lambda event: print(json.dumps(event), flush=True))
        try:
            game_id = open_game(store, rules, seat_players(store, names), table=args.table)
            tracker = Tracker(rules, profile, store, game_id, mark=overlay_drawer(args.game))
            print(json.dumps({"type": "resume", **tracker.snapshot()}), flush=True)
            tracker.subscribe(lambda event: print(json.dumps(event), flush=True))
            if outbox is not None:
                tracker.subscribe(outbox.wake)
            tracker.run(camera)
            if outbox is not None and outbox.pending():
                # The camera has ended; what the director has not acknowledged yet is sent before
                # the table stops (Ctrl-C leaves it in the outbox, sent at the next start).
                print(f"arbiter: sending {outbox.pending()} events to the director...", file=sys.stderr, flush=True)
                outbox.drain()
        finally:
            if outbox is not None:
                outbox.stop()
    return 0


# Where a table's director token is read from when `--token` is not given (a token on the
# command line shows in `ps` to every user of the machine).
TOKEN_VARIABLE = "ARBITER_DIRECTOR_TOKEN"


def open_outbox(args, store, on_status):
    """The table's outbox to `--director`, attached to `store` and sending; None without one."""
    import os

    from arbiter.outbox import Outbox

    url = getattr(args, "director", None)
    if not url:
        return None
    if not url.startswith(("http://", "https://")):
        raise ArbiterError(f"--director {url}: expected the director's address, e.g. http://10.0.0.2:8100")
    if not args.table:
        raise ArbiterError("--director needs --table: the name this table joined the director with")
    token = getattr(args, "token", None) or os.environ.get(TOKEN_VARIABLE)
    if not token:
        raise ArbiterError(f"--director needs the table's token: --token or ${TOKEN_VARIABLE} "
                           "(from `arbiter director token`)")
    outbox = Outbox(args.db, args.table, url, token, on_status=on_status)
    outbox.attach(store)
    outbox.start()
    return outbox


def latest_played_match(store, db: str) -> int:
    """The match whose game was logged last (a tournament's later pairings not yet played are
    passed over), or the latest match where none has been played."""
    matches = store.matches()
    if not matches:
        raise ArbiterError(f"{db}: no matches recorded yet")
    played = store.last_logged_match()
    return played if played is not None else matches[-1]["id"]


def export_results(args) -> int:
    """Print a match (default: the latest) as JSON or its move log as CSV, or its current game
    as a record `arbiter check` accepts or as a numbered move list."""
    from arbiter.director_store import is_director_database
    from arbiter.records import game_record, numbered_moves
    from arbiter.store import Store

    if is_director_database(args.db):
        return export_from_director(args)
    if not Path(args.db).is_file():
        raise ArbiterError(f"{args.db}: no such record database")
    with Store(args.db) as store:
        match_id = args.match if args.match is not None else latest_played_match(store, args.db)
        table = getattr(args, "table", None)
        if args.match is None and table is not None:
            played = [m["id"] for m in store.matches() if m["table"] == table and store.games(m["id"])]
            if not played:
                raise ArbiterError(f"{args.db}: table {table!r} has played no match")
            match_id = played[-1]
        if args.format == "csv":
            sys.stdout.write(store.export_csv(match_id))
        elif args.format in ("record", "moves"):
            games = store.games(match_id)
            if not games:
                raise ArbiterError(f"match {match_id} has no game yet")
            record = game_record(store, games[-1]["id"])
            if args.format == "record":
                print(json.dumps(record), flush=True)
            else:
                sys.stdout.write("".join(line + "\n" for line in numbered_moves(record)))
        else:
            print(json.dumps(store.export_json(match_id)), flush=True)
    return 0


def export_from_director(args) -> int:
    """`export --db DIRECTOR --table NAME`: the table's current game from the director's store."""
    from arbiter.director_store import DirectorStore
    from arbiter.records import numbered_moves

    if not getattr(args, "table", None):
        raise ArbiterError(f"{args.db} is a director's store: name the table with --table")
    if args.format not in ("record", "moves") or args.match is not None:
        raise ArbiterError("from a director's store, export gives a table's current game: --format record or moves")
    with DirectorStore(args.db, create=False) as store:
        record = store.record(args.table)
    if args.format == "record":
        print(json.dumps(record), flush=True)
    else:
        sys.stdout.write("".join(line + "\n" for line in numbered_moves(record)))
    return 0
