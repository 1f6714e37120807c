"""The Flask application factory: one companion (table), one record store, the director's PIN."""
from __future__ import annotations

from pathlib import Path

from flask import Flask, jsonify, redirect, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from engines import game_info, game_names
from engines.errors import ArbiterError
from webui import security
from webui.games import web_game


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def error_response(status: int, message: str):
    if wants_json():
        return jsonify({"error": message}), status
    return render_template("error.html", status=status, message=message), status


def create_app(companion, *, pin: str | None = None, bind_host: str = "127.0.0.1",
               profile_path: str | Path | None = None, calibrator=None) -> Flask:
    """The web companion for one table.

    `companion` is a `webui.companion.Companion` (its store also keeps players and tournaments);
    `pin` the director's PIN (None: open, only sensible on loopback); `bind_host` the address the
    server listens on (on loopback it answers only loopback names: `webui.security`);
    `profile_path` where the calibration page saves a confirmed profile; `calibrator` what it
    calibrates with (an object with `calibrate(image) -> profile` and `save(profile, path)`; None
    turns calibration off).
    """
    from webui.routes import calibrate, scores, table, tournament

    app = Flask(__name__)
    app.extensions["arbiter_companion"] = companion
    app.extensions["arbiter_calibrator"] = calibrator
    app.config["ARBITER_PROFILE_PATH"] = str(profile_path) if profile_path else None
    security.install(app, pin, bind_host)
    for blueprint in (table.bp, scores.bp, tournament.bp, calibrate.bp):
        app.register_blueprint(blueprint)
    info = game_info(companion.game)
    app.jinja_env.globals.update(
        game=companion.game, game_title=info.title, game_word=info.game_word, web=web_game(companion.game),
        game_titles=[(name, game_info(name).title) for name in game_names()])

    @app.get("/")
    def index():
        return redirect(url_for("table.page"))

    @app.errorhandler(ArbiterError)
    def bad_input(exc: ArbiterError):
        return error_response(400, str(exc))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return error_response(exc.code or 500, exc.description or exc.name)

    return app
