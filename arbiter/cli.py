"""The `arbiter` command: one subcommand per contract command (see shared contract.md).

This is the composition root: it puts the layers together and nothing imports it.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import Sequence

from engines.errors import ArbiterError


def _print_json(obj: dict) -> None:
    print(json.dumps(obj), flush=True)


def progress(items, what: str):
    """`items`, with a progress bar on stderr while a person watches (none in a pipe or a log)."""
    from tqdm import tqdm

    return tqdm(items, desc=what, unit="photo", file=sys.stderr, disable=None, leave=False)


def _load_rules(path: str):
    from calibration.profiles import load_json_file
    from engines import load_rules

    return load_rules(load_json_file(path, "rules file"))


def cmd_check(args) -> int:
    from arbiter.records import read_record
    from calibration.profiles import load_json_file
    from engines import check_record

    rules, start, moves = read_record(load_json_file(args.record, "game record"), args.record)
    verdict = check_record(rules, start, moves)
    _print_json(verdict)
    return 0 if verdict["legal"] else 1


def read_state_file(path: str) -> object:
    """A state file, or a line of `arbiter recognize` output (its "state" is taken)."""
    from calibration.profiles import load_json_file

    obj = load_json_file(path, "state file")
    if isinstance(obj, dict) and "state" in obj and "game" not in obj:
        return obj["state"]
    return obj


def cmd_explain(args) -> int:
    from engines import Explanation, StateError

    rules = _load_rules(args.rules)
    before_json, after_json = read_state_file(args.before), read_state_file(args.after)
    # A camera cannot see whose turn it is: a BEFORE without one is explained from each side's turn.
    if isinstance(before_json, dict) and "to_move" not in before_json:
        befores = [rules.state_from_json({**before_json, "to_move": side}) for side in rules.sides]
    else:
        befores = [rules.state_from_json(before_json)]
    explanations = []
    for before in befores:
        try:
            after = rules.state_from_json(as_turn_after(rules, before, after_json))
        except StateError as exc:
            # What the camera sees after a move may be impossible (a disc on a smaller one): that is
            # a verdict on the move, not bad input.
            explanations.append(Explanation(legal=False, reason=str(exc)))
            continue
        explanations.append(rules.explain(before, after))
    legal = [move for explanation in explanations if explanation.legal for move in explanation.moves]
    _print_json(Explanation(True, tuple(legal)).to_json() if legal else explanations[0].to_json())
    return 0


def as_turn_after(rules, before, after_json):
    """AFTER as read by a camera (no "to_move"): with the turn a move from BEFORE passes on."""
    if not isinstance(after_json, dict) or "to_move" in after_json:
        return after_json
    moves = rules.legal_moves(before)
    mover = rules.apply(before, moves[0]).to_json().get("to_move") if moves else None
    return after_json if mover is None else {**after_json, "to_move": mover}


def cmd_calibrate(args) -> int:
    from calibration.profiles import load_json_file, save_profile
    from vision.io import read_image

    from calibration import calibrate

    image = read_image(args.image)
    pieceset = load_json_file(args.pieces, "piece-set file") if args.pieces else None
    if sys.stderr.isatty():
        print(f"Calibrating {args.game} from {args.image} (up to half a minute)...", file=sys.stderr, flush=True)
    profile = calibrate(args.game, image, pieceset)
    save_profile(profile, args.out)
    _print_json({"profile": args.out, "game": args.game, "summary": profile.get("summary", {})})
    return 0


def cmd_recognize(args) -> int:
    from calibration.profiles import load_profile
    from vision import recognize
    from vision.io import read_image

    profile = load_profile(args.profile)
    overlays = overlay_paths(args.overlay, args.images, profile["game"]) if args.overlay else {}
    failed = 0
    for path in progress(args.images, "reading"):
        try:
            image = read_image(path)
            observation = recognize(image, profile)
        except ArbiterError as exc:
            _print_json({"image": path, "error": str(exc)})
            failed += 1
            continue
        if path in overlays:
            write_overlay(overlays[path], image, observation, profile["game"])
        _print_json({"image": path, **observation.to_json()})
    return 1 if failed == len(args.images) else 0


def overlay_paths(out: str, images: list[str], game: str) -> dict[str, Path]:
    """Where each image's annotated copy goes: OUT itself for one image, OUT/NAME-overlay.jpg for several."""
    from vision import overlay_drawer

    if overlay_drawer(game) is None:
        raise ArbiterError(f"no overlay is drawn for {game}")
    if len(images) == 1 and not Path(out).is_dir():
        if Path(out).suffix.lower() not in (".jpg", ".jpeg", ".png"):
            raise ArbiterError(f"--overlay {out}: name a .jpg or .png file")
        return {images[0]: Path(out)}
    folder = Path(out)
    if not folder.is_dir():
        raise ArbiterError(f"--overlay {out}: with several images, name an existing folder")
    return {image: folder / f"{Path(image).stem}-overlay.jpg" for image in images}


def write_overlay(path: Path, image, observation, game: str) -> None:
    import cv2

    from vision import overlay_drawer

    if not cv2.imwrite(str(path), overlay_drawer(game)(image, observation)):
        raise ArbiterError(f"{path}: cannot write the annotated picture")


def cmd_replay(args) -> int:
    from calibration.profiles import load_profile
    from arbiter.replay import replay

    rules = _load_rules(args.rules)
    profile = load_profile(args.profile)
    for transition in replay(profile, rules, progress(args.images, "judging")):
        _print_json(transition)
    return 0


def cmd_run(args) -> int:
    from arbiter.run import run_table

    return run_table(args)


def cmd_export(args) -> int:
    from arbiter.run import export_results

    return export_results(args)


def cmd_serve(args) -> int:
    from arbiter.serving import serve

    return serve(args)


def cmd_director(args) -> int:
    from arbiter.serving import serve_director

    return serve_director(args)


def cmd_director_token(args) -> int:
    from arbiter.director_store import DirectorStore

    with DirectorStore(args.db) as store:
        print(store.new_token(args.table), flush=True)
    return 0


def cmd_demo(args) -> int:
    from arbiter.serving import demo

    return demo(args)


def port_number(text: str) -> int:
    """A TCP port, 1-65535 (argparse turns the ValueError into a one-line usage error)."""
    port = int(text)
    if not 0 < port < 65536:
        raise ValueError(text)
    return port


port_number.__name__ = "port"  # argparse names the type in its message: "invalid port value"


def version() -> str:
    from importlib.metadata import PackageNotFoundError, version as installed_version

    try:
        return installed_version("arbiter")
    except PackageNotFoundError:
        return "unknown (not installed)"


class HelpWithDefaults(argparse.HelpFormatter):
    """Help that names each option's default, where it has one."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
            text += " (default: %(default)s)"
        return text


def build_parser() -> argparse.ArgumentParser:
    from arbiter.demo import DEFAULT_DEMO, demo_games
    from calibration import calibrated_games

    camera_games = calibrated_games()  # the games a camera can read: those with a calibrator
    parser = argparse.ArgumentParser(prog="arbiter", description="Camera referee for abstract board games.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, helptext: str, func) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=helptext, description=helptext[0].upper() + helptext[1:] + ".",
                           formatter_class=HelpWithDefaults)
        p.set_defaults(func=func)
        return p

    p = command("check", "replay a game record and judge every move (exit 1 if one is illegal)", cmd_check)
    p.add_argument("record", help="record JSON: {\"rules\", \"start\" (optional), \"moves\"}")

    p = command("explain", "every legal move from BEFORE to AFTER, or why none", cmd_explain)
    p.add_argument("--rules", required=True, help="rules JSON, e.g. {\"game\": \"wari\"}")
    p.add_argument("before", help="state JSON before the change")
    p.add_argument("after", help="state JSON after the change")

    p = command("calibrate", "make a calibration profile from one photo", cmd_calibrate)
    p.add_argument("game", choices=camera_games, help="the game on the table")
    p.add_argument("--image", required=True, help="the calibration photo (JPEG or PNG)")
    p.add_argument("--pieces", help="piece-set JSON, for games with piece sets (varanasi: "
                                    "calibration/pieces/nestor-standard.json)")
    p.add_argument("--out", required=True, help="where to write the profile JSON")

    p = command("recognize", "recognise the position in photos, one JSON line each", cmd_recognize)
    p.add_argument("--profile", required=True, help="calibration profile JSON")
    p.add_argument("--overlay", metavar="OUT", help="also write each photo with what was recognised drawn over it: "
                                                    "a .jpg file for one photo, a folder for several")
    p.add_argument("images", nargs="+", help="photos of the table")

    p = command("replay", "judge the move between each pair of consecutive photos", cmd_replay)
    p.add_argument("--profile", required=True, help="calibration profile JSON")
    p.add_argument("--rules", required=True, help="rules JSON")
    p.add_argument("images", nargs="+", help="stable photos, one after each move")

    def table_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--game", required=True, choices=camera_games, help="the game on the table")
        p.add_argument("--camera", required=True,
                       help="picamera2 | usb:N | file:VIDEO | folder:DIR | rtsp://... | sim:GAME[:SEED]")
        p.add_argument("--profile", required=True, help="calibration profile JSON")
        p.add_argument("--rules", help="rules JSON (default: the game's standard rules)")
        p.add_argument("--players", help="the players' names in seat order, e.g. Ama,Kofi")
        p.add_argument("--table", help="this table's name, where several tables share one record store "
                                       "(each resumes its own games)")
        p.add_argument("--db", default="arbiter.sqlite3", help="the SQLite record store")
        p.add_argument("--director", metavar="URL", help="also report every judged move, result and correction "
                                                         "to the director's server at URL (needs --table)")
        p.add_argument("--token", help="this table's director token (`arbiter director token`); "
                                       "better from $ARBITER_DIRECTOR_TOKEN, which `ps` does not show")

    table_options(command("run", "judge a live table from a camera into the record store", cmd_run))

    p = command("export", "print a recorded match or game", cmd_export)
    p.add_argument("--db", default="arbiter.sqlite3",
                   help="the SQLite record store, or a director's store (SQLite path or postgresql:// URL)")
    p.add_argument("--match", type=int, help="match id (default: the latest)")
    p.add_argument("--table", help="the table whose latest match (or, from a director's store, current game) "
                                   "is printed")
    p.add_argument("--format", choices=["json", "csv", "record", "moves"], default="json",
                   help="json: the match with its move logs; csv: its move log; record: its current game "
                        "as a record `arbiter check` accepts; moves: a numbered move list")

    def server_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--host", default="127.0.0.1", help="address to serve on (another than loopback needs --pin)")
        p.add_argument("--port", type=port_number, default=8000, help="TCP port")
        p.add_argument("--pin", action="store_true",
                       help="require the director's PIN to change records (needed with a non-loopback --host): "
                            "read from $ARBITER_PIN, else asked for")

    p = command("serve", "the web companion for a real table", cmd_serve)
    table_options(p)
    server_options(p)
    p = command("director", "the director's server: every table's board, live standings", cmd_director)
    p.add_argument("--db", default="director.sqlite3", help="the director's store: a SQLite path or a "
                                                            "postgresql://USER@HOST/DB URL")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on: the tables need one on the club's "
                                                       "network, e.g. 0.0.0.0 (another than loopback needs --pin)")
    p.add_argument("--port", type=port_number, default=8100, help="TCP port")
    p.add_argument("--pin", action="store_true", help="require the director's PIN to see the page (tables post "
                                                      "with their tokens): read from $ARBITER_PIN, else asked for")
    director_sub = p.add_subparsers(dest="director_command", metavar="token",
                                    help="token: print the token a table joins with (without it: serve)")
    t = director_sub.add_parser("token", help="print the token a table joins with (a new one replaces the old)",
                                formatter_class=HelpWithDefaults)
    t.add_argument("--db", default="director.sqlite3", help="the director's store")
    t.add_argument("--table", required=True, help="the table's name, as its `--table` gives it")
    t.set_defaults(func=cmd_director_token)
    p = command("demo", "the web companion with a simulated camera and a bundled game", cmd_demo)
    p.add_argument("--game", choices=demo_games(), default=DEFAULT_DEMO, help="the bundled game to play")
    server_options(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
        # Output still buffered would fail at exit, past these handlers, with a traceback.
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader went away (`arbiter export | head`): stop quietly with the status of a tool
        # that SIGPIPE killed, as other Unix tools do. (Before OSError: it is one.) Python's
        # own flush at exit would fail again on the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except ArbiterError as exc:
        print(f"arbiter: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"arbiter: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
