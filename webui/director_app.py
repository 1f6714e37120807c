"""The director's server: every table at a glance, live standings, and the door tables report through.

Tables post their events to `/api/events` with their own token (`Authorization: Bearer TOKEN`);
the page and its JSON are for the director, behind the director's PIN when the server listens on
the club's network. The app is handed an `arbiter.director_store.DirectorStore`.
"""
from __future__ import annotations

import json
import secrets
import time

from flask import Flask, abort, jsonify, redirect, render_template, request, session, url_for
from werkzeug.exceptions import HTTPException

from arbiter.director_events import EventError, check_batch, check_table_name
from arbiter.director_store import DirectorStoreError, SequenceConflict, SequenceGap, TokenRefused
from engines import load_rules
from engines.errors import ArbiterError
from webui import security
from webui.games import board_svg, web_game

# A batch of MAX_BATCH events with the largest positions of any game stays well under this.
MAX_BATCH_BYTES = 4 * 1024 * 1024
# How often the page asks for the tables again (milliseconds).
REFRESH_MS = 2000
INGEST_PATH = "/api/events"
# A table still playing that has reported nothing for this long is marked on the page: its
# network or its Pi may be down (its outbox keeps what it judges meanwhile).
QUIET_S = 120


def create_director_app(store, *, pin: str | None = None, bind_host: str = "127.0.0.1",
                        refresh_ms: int = REFRESH_MS) -> Flask:
    """The director's app on `store`; `pin` guards the page (tables post with their tokens);
    the page asks for the tables again every `refresh_ms`."""
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BATCH_BYTES
    app.config["SECRET_KEY"] = secrets.token_bytes(32)
    app.config["SESSION_COOKIE_SAMESITE"] = "Strict"
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    gate = security.PinGate(pin)
    if pin is None or security.is_loopback(bind_host):
        app.before_request(security.check_host)
    app.after_request(security.add_security_headers)
    app.jinja_env.globals["csrf_token"] = security.csrf_token

    @app.before_request
    def director_only():
        if request.path == INGEST_PATH or request.path.startswith("/static/") or request.endpoint == "unlock":
            return None
        if request.method in security.UNSAFE_METHODS:
            security.check_csrf()
        if pin is not None and not session.get("director"):
            if request.path.startswith("/api/"):
                abort(403, description="the director's page needs the director's PIN: unlock it first")
            return redirect(url_for("unlock"), code=303)
        return None

    @app.route("/unlock", methods=["GET", "POST"])
    def unlock():
        if pin is None:
            return redirect(url_for("page"), code=303)
        if request.method == "POST":
            security.check_csrf()
            if gate.check(request.form.get("pin"), request.remote_addr or ""):
                session["director"] = True
                return redirect(url_for("page"), code=303)
            return render_template("director_unlock.html", wrong=True), 403
        return render_template("director_unlock.html", wrong=False)

    @app.get("/")
    def page():
        return render_template("director.html", tables=[with_board(t) for t in store.tables()],
                               standings=store.standings(), refresh_ms=refresh_ms)

    @app.get("/tables/<name>")
    def table_page(name: str):
        check_table_name(name)
        log = store.game_log(name)
        shown = next((with_board(t) for t in store.tables() if t["table"] == name), None)
        return render_template("director_table.html", t=shown, log=log)

    @app.get("/api/tables")
    def api_tables():
        return jsonify([with_board(t) for t in store.tables()])

    @app.get("/api/standings")
    def api_standings():
        return jsonify(store.standings())

    @app.get("/api/tables/<name>/record")
    def api_record(name: str):
        return jsonify(store.record(check_table_name(name)))

    @app.post(INGEST_PATH)
    def ingest():
        body = read_json_body()
        table, events = check_batch(body)
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ").strip() if auth.startswith("Bearer ") else None
        return jsonify({"table": table, "acked": store.ingest(table, token, events)})

    @app.errorhandler(SequenceGap)
    def gap(exc: SequenceGap):
        return jsonify({"error": str(exc), "acked": exc.acked}), 409

    @app.errorhandler(SequenceConflict)
    def conflict(exc: SequenceConflict):
        return answer(409, str(exc))

    @app.errorhandler(TokenRefused)
    def refused(exc: TokenRefused):
        return answer(403, str(exc))

    @app.errorhandler(DirectorStoreError)
    def unavailable(exc: DirectorStoreError):
        return answer(503, str(exc))

    @app.errorhandler(ArbiterError)
    def bad_input(exc: ArbiterError):
        return answer(404 if "no table named" in str(exc) else 400, str(exc))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return answer(exc.code or 500, exc.description or exc.name)

    return app


def answer(status: int, message: str):
    """An error: `{"error": message}` to the API, the error page to a browser."""
    if request.path.startswith("/api/"):
        return jsonify({"error": message}), status
    return render_template("director_error.html", status=status, message=message), status


def read_json_body():
    """The request's JSON, or a 400 naming what is wrong (not JSON, nested past any event)."""
    if not request.is_json:
        abort(400, description="send the events as application/json")
    raw = request.get_data(cache=False)
    try:
        return json.loads(raw)
    except RecursionError:
        raise EventError("the JSON is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise EventError(f"the body is not JSON: {exc}") from None


def with_board(table: dict) -> dict:
    """A table as the page shows it, with its board drawn small where its game has a drawing."""
    drawn = None
    if table["position"] and web_game(table["game"]) is not None:
        try:
            sides = load_rules({"game": table["game"]}).sides
            drawn = board_svg(table["position"], None, dict(zip(sides, table["players"])))
        except (ArbiterError, KeyError, TypeError, ValueError, IndexError):
            drawn = None  # a position the drawing cannot take: the summary still shows
    parts = [table["game"] or "no game yet"]
    if table["game_number"]:
        parts.append(f"game {table['game_number']}")
    parts.append(f"{table['acked']} events")
    quiet = None
    if table["updated_at"] is not None:
        quiet = max(0, int(time.time() - table["updated_at"]))
        parts.append(f"last report {quiet} s ago" if quiet < 120 else f"last report {quiet // 60} min ago")
    return {**table, "board_svg": drawn, "summary": " · ".join(parts), "quiet_s": quiet,
            "quiet": quiet is not None and quiet >= QUIET_S and not table["result"]}

