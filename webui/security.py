"""Who may change records: the director's PIN, cross-site request protection, upload limits.

On the table's Wi-Fi anyone can open the page, so every request that changes records needs the
director's PIN once per browser session (it is then remembered in the signed session cookie),
and every form or JSON POST must carry the page's CSRF token, which another site cannot read.
"""
from __future__ import annotations

import functools
import hmac
import ipaddress
import secrets
import threading
import time

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, session, url_for

from engines.errors import ArbiterError

# A phone photo of the calibration board is a few MB; anything far bigger is a mistake or an attack.
MAX_UPLOAD_BYTES = 8 * 1024 * 1024
# Wrong PINs allowed before the director's unlock pauses, and for how long (a 4-digit PIN
# would otherwise fall to a script in minutes).
PIN_ATTEMPTS = 5
PIN_LOCKOUT_SECONDS = 30.0

UNSAFE_METHODS = ("POST", "PUT", "PATCH", "DELETE")

bp = Blueprint("security", __name__)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, pin: str | None) -> None:
    """Refuse to open the companion to the network without a director's PIN."""
    if not is_loopback(host) and not pin:
        raise ArbiterError(f"--host {host} opens the companion to the network: give the director's --pin too")
    if pin is not None and (len(pin) < 4 or not pin.isdigit()):
        raise ArbiterError("--pin must be at least 4 digits")


def csrf_token() -> str:
    token = session.get("csrf")
    if token is None:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def check_csrf() -> None:
    """before_request hook: unsafe methods need the session's token in the form or a header."""
    if request.method not in UNSAFE_METHODS:
        return
    expected = session.get("csrf")
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token")
    if not expected or not sent or not hmac.compare_digest(expected, sent):
        abort(403, description="missing or stale form token: reload the page and try again")


class PinGate:
    """Counts wrong PINs across the whole companion (one director, one table)."""

    def __init__(self, pin: str | None):
        self.pin = pin
        self._lock = threading.Lock()
        self._failures = 0
        self._locked_until = 0.0

    def check(self, attempt: str | None) -> bool:
        with self._lock:
            if time.monotonic() < self._locked_until:
                abort(429, description="too many wrong PINs: wait half a minute")
            if attempt is not None and hmac.compare_digest(attempt.encode(), self.pin.encode()):
                self._failures = 0
                return True
            self._failures += 1
            if self._failures >= PIN_ATTEMPTS:
                self._failures = 0
                self._locked_until = time.monotonic() + PIN_LOCKOUT_SECONDS
            return False


def director_required(view):
    """Views that change records: open on a PIN-less loopback companion, else need the PIN."""

    @functools.wraps(view)
    def guarded(*args, **kwargs):
        gate: PinGate = current_app.extensions["arbiter_pin"]
        if gate.pin is not None and not session.get("director"):
            attempt = request.headers.get("X-Arbiter-Pin")
            if attempt is None:
                abort(403, description="this action needs the director's PIN: unlock the page first")
            if not gate.check(attempt):
                abort(403, description="wrong director's PIN")
        return view(*args, **kwargs)

    return guarded


@bp.route("/unlock", methods=["GET", "POST"])
def unlock():
    gate: PinGate = current_app.extensions["arbiter_pin"]
    back = request.values.get("next") or url_for("table.page")
    if not back.startswith("/") or back.startswith("//"):
        back = url_for("table.page")
    if request.method == "GET":
        return render_template("unlock.html", next=back, needs_pin=gate.pin is not None)
    if gate.pin is None or gate.check(request.form.get("pin")):
        session["director"] = True
        flash("Director mode: corrections, results and tournament edits are open.")
        return redirect(back, code=303)
    flash("Wrong PIN.", "error")
    return redirect(url_for("security.unlock", next=back), code=303)


def install(app, pin: str | None) -> None:
    app.config["MAX_CONTENT_LENGTH"] = MAX_UPLOAD_BYTES
    app.config["SECRET_KEY"] = secrets.token_bytes(32)
    app.config["SESSION_COOKIE_SAMESITE"] = "Strict"
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    app.extensions["arbiter_pin"] = PinGate(pin)
    app.before_request(check_csrf)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["pin_required"] = lambda: pin is not None and not session.get("director")
    app.register_blueprint(bp)
