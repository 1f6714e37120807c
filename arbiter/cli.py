"""The `arbiter` command: one subcommand per contract command (see shared contract.md).

This is the composition root: it puts the layers together and nothing imports it.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from engines.errors import ArbiterError


def _print_json(obj: dict) -> None:
    print(json.dumps(obj), flush=True)


def _load_rules(path: str):
    from calibration.profiles import load_json_file
    from engines import load_rules

    return load_rules(load_json_file(path, "rules file"))


def cmd_check(args) -> int:
    from calibration.profiles import load_json_file
    from engines import MoveError, RulesError, check_record, load_rules

    record = load_json_file(args.record, "game record")
    if not isinstance(record, dict) or "rules" not in record:
        raise ArbiterError(f"{args.record}: a record is an object with \"rules\", optional \"start\" and \"moves\"")
    unknown = set(record) - {"rules", "start", "moves"}
    if unknown:
        raise RulesError(f"{args.record}: unknown record keys: {', '.join(sorted(unknown))}")
    rules = load_rules(record["rules"])
    start = rules.state_from_json(record["start"]) if "start" in record else rules.start()
    moves_json = record.get("moves", [])
    if not isinstance(moves_json, list):
        raise MoveError(f"{args.record}: \"moves\" must be a list")
    moves = [rules.move_from_json(m) for m in moves_json]
    _print_json(check_record(rules, start, moves))
    return 0


def cmd_explain(args) -> int:
    from calibration.profiles import load_json_file
    from engines import Explanation, StateError

    rules = _load_rules(args.rules)
    before = rules.state_from_json(load_json_file(args.before, "state file"))
    try:
        after = rules.state_from_json(load_json_file(args.after, "state file"))
    except StateError as exc:
        # What the camera sees after a move may be impossible (a disc on a smaller one): that is
        # a verdict on the move, not bad input.
        _print_json(Explanation(legal=False, reason=str(exc)).to_json())
        return 0
    _print_json(rules.explain(before, after).to_json())
    return 0


def cmd_calibrate(args) -> int:
    from calibration.profiles import load_json_file, save_profile
    from vision.io import read_image

    from calibration import calibrate

    image = read_image(args.image)
    pieceset = load_json_file(args.pieces, "piece-set file") if args.pieces else None
    profile = calibrate(args.game, image, pieceset)
    save_profile(profile, args.out)
    _print_json({"profile": args.out, "game": args.game, "summary": profile.get("summary", {})})
    return 0


def cmd_recognize(args) -> int:
    from calibration.profiles import load_profile
    from vision import recognize
    from vision.io import read_image

    profile = load_profile(args.profile)
    failed = 0
    for path in args.images:
        try:
            observation = recognize(read_image(path), profile)
        except ArbiterError as exc:
            _print_json({"image": path, "error": str(exc)})
            failed += 1
            continue
        _print_json({"image": path, **observation.to_json()})
    return 1 if failed == len(args.images) else 0


def cmd_replay(args) -> int:
    from calibration.profiles import load_profile
    from arbiter.tracker import replay

    rules = _load_rules(args.rules)
    profile = load_profile(args.profile)
    for transition in replay(profile, rules, args.images):
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


def cmd_demo(args) -> int:
    from arbiter.serving import demo

    return demo(args)


def build_parser() -> argparse.ArgumentParser:
    from arbiter.demo import DEFAULT_DEMO, demo_games
    from calibration import calibrated_games

    camera_games = calibrated_games()  # the games a camera can read: those with a calibrator
    parser = argparse.ArgumentParser(prog="arbiter", description="Camera companion for abstract board games.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="replay a game record and judge every move")
    p.add_argument("record")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("explain", help="every legal move from BEFORE to AFTER, or why none")
    p.add_argument("--rules", required=True)
    p.add_argument("before")
    p.add_argument("after")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("calibrate", help="make a calibration profile from one photo")
    p.add_argument("game", choices=camera_games)
    p.add_argument("--image", required=True)
    p.add_argument("--pieces", help="piece-set JSON (varanasi)")
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("recognize", help="recognise the position in photos")
    p.add_argument("--profile", required=True)
    p.add_argument("images", nargs="+")
    p.set_defaults(func=cmd_recognize)

    p = sub.add_parser("replay", help="judge the moves between consecutive stable photos")
    p.add_argument("--profile", required=True)
    p.add_argument("--rules", required=True)
    p.add_argument("images", nargs="+")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("run", help="judge a live table from a camera into the record store")
    p.add_argument("--game", required=True, choices=camera_games)
    p.add_argument("--camera", required=True, help="picamera2 | usb:N | file:PATH | folder:DIR | rtsp://... | sim:GAME[:SEED]")
    p.add_argument("--profile", required=True)
    p.add_argument("--rules", help="rules JSON (default: the game's defaults)")
    p.add_argument("--db", default="arbiter.sqlite3")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("export", help="print a recorded match as JSON, or its move log as CSV")
    p.add_argument("--db", default="arbiter.sqlite3")
    p.add_argument("--match", type=int, help="match id (default: the latest)")
    p.add_argument("--format", choices=["json", "csv"], default="json")
    p.set_defaults(func=cmd_export)

    for name, func, helptext in (
        ("serve", cmd_serve, "the web companion for a real table"),
        ("demo", cmd_demo, "the web companion with a simulated camera and a bundled game"),
    ):
        p = sub.add_parser(name, help=helptext)
        if name == "demo":
            p.add_argument("--game", choices=demo_games(), default=DEFAULT_DEMO)
        if name == "serve":
            p.add_argument("--game", required=True, choices=camera_games)
            p.add_argument("--camera", required=True)
            p.add_argument("--profile", required=True)
            p.add_argument("--rules")
            p.add_argument("--db", default="arbiter.sqlite3")
        p.add_argument("--host", default="127.0.0.1")
        p.add_argument("--port", type=int, default=8000)
        p.add_argument("--pin", help="director's PIN (required with a non-loopback --host)")
        p.set_defaults(func=func)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
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
