"""The table page: live camera view, clean drawing, move log and verdicts, corrections."""
from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request, send_file

from engines.errors import ArbiterError
from engines.json_input import parse_json
from engines import load_rules
from webui.games import board_svg, drawn_game
from webui.security import director_required

bp = Blueprint("table", __name__)

MJPEG_BOUNDARY = "frame"
# A position, even a long Wari game's with its history, is a few KB of JSON.
MAX_JSON_BYTES = 256 * 1024
# A reader waits this long for a new frame before re-sending the last one (keeps the stream alive).
MJPEG_WAIT_SECONDS = 2.0


def companion():
    return current_app.extensions["arbiter_companion"]


def json_body() -> dict:
    """The request's JSON object, or ArbiterError naming what is wrong with it."""
    if not request.is_json:
        raise ArbiterError("expected a JSON object body (Content-Type: application/json)")
    if (request.content_length or 0) > MAX_JSON_BYTES:
        abort(413, description=f"a JSON body is at most {MAX_JSON_BYTES // 1024} KB")
    body = parse_json(request.get_data(cache=False), "the request body")
    if not isinstance(body, dict):
        raise ArbiterError("expected a JSON object body (Content-Type: application/json)")
    return body


@bp.get("/table")
def page():
    return render_template("table.html", view=companion().view())


@bp.get("/correct")
def correct_page():
    table = companion()
    view = table.view()
    if view["position"] is None:
        abort(409, description="there is no position to correct yet: wait for the opening position")
    movers = [(side, table.turn_label({"to_move": side}).removesuffix(" to move")) for side in table.rules.sides]
    return render_template("correct.html", view=view, pieceset=table.pieceset, movers=movers)


@bp.get("/api/table")
def table_json():
    return jsonify(companion().view())


@bp.get("/events")
def events():
    table = companion()
    stream = table.hub.stream(table.snapshot_messages)
    return Response(stream, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@bp.get("/video.mjpg")
def video():
    frames = companion().frames

    def stream():
        with frames.watching():
            seen = 0
            while True:
                seen, jpeg = frames.wait_newer(seen, MJPEG_WAIT_SECONDS)
                if jpeg is None:
                    continue
                yield (f"--{MJPEG_BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                       f"Content-Length: {len(jpeg)}\r\n\r\n").encode() + jpeg + b"\r\n"

    return Response(stream(), mimetype=f"multipart/x-mixed-replace; boundary={MJPEG_BOUNDARY}",
                    headers={"Cache-Control": "no-cache"})


@bp.get("/snapshots/<name>")
def snapshot(name: str):
    try:
        path = companion().snapshot_path(name)
    except ArbiterError as exc:
        abort(404, description=str(exc))
    return send_file(path, mimetype="image/jpeg")


@bp.post("/api/correct")
@director_required
def correct():
    body = json_body()
    if "state" not in body:
        raise ArbiterError("a correction is {\"state\": POSITION}")
    companion().correct(body["state"])
    return jsonify({"ok": True, "view": companion().view()})


@bp.post("/api/accept")
@director_required
def accept():
    companion().accept()
    return jsonify({"ok": True})


@bp.post("/api/board")
def draw_board():
    """The clean drawing of a draft position (the correction editor redraws as players tap).

    Only of a position the game's engine accepts: the drawing then holds what a real table can
    (a set's discs, 48 seeds), however big or odd the request, and draws numbers it can trust."""
    body = json_body()
    if not isinstance(body.get("state"), dict):
        raise ArbiterError("expected {\"state\": POSITION}")
    table = companion()
    game = drawn_game(body["state"])
    if game == table.game:
        rules, names = table.rules, table.seat_names
    else:
        rules, names = load_rules({"game": game}), {}
    return jsonify({"svg": board_svg(rules.state_from_json(body["state"]).to_json(), table.pieceset, names)})
