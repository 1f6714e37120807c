"""Who may change records: the director's PIN, cross-site request protection, upload limits,
the browser's own protections.

On the table's Wi-Fi anyone can open the page, so every request that changes records needs the
director's PIN once per browser session (it is then remembered in the signed session cookie),
and every form or JSON POST must carry the page's CSRF token, which another site cannot read.
Wrong PINs lock out the client that sent them, not the director. A companion without a PIN
listens on loopback only. A companion listening on loopback, with a PIN or without, answers only
requests addressed to a loopback name, so that a web page elsewhere cannot reach it through a DNS
name it rebinds to 127.0.0.1 (the PIN guards changes, not the table's records, which anyone may
read). A companion listening on the table's network answers whatever name the phones use for it.
"""
from __future__ import annotations

import functools
import hmac
import ipaddress
import secrets
import threading
import time
from collections import OrderedDict

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, session, url_for
from markupsafe import Markup

from engines.errors import ArbiterError

# A phone photo of the calibration board is a few MB; anything far bigger is a mistake or an attack.
MAX_UPLOAD_BYTES = 8 * 1024 * 1024
# Wrong PINs allowed from one client before its unlock pauses, and for how long (a 4-digit PIN
# would otherwise fall to a script in minutes).
PIN_ATTEMPTS = 5
PIN_LOCKOUT_SECONDS = 30.0
# Clients whose wrong PINs are remembered at once: the oldest is forgotten past this.
PIN_CLIENTS_KEPT = 1024
# Shorter PINs are accepted but a warning suggests at least this many digits.
PIN_SUGGESTED_DIGITS = 6
# The environment variable a PIN is read from (a PIN given as an argument would show in `ps`).
PIN_VARIABLE = "ARBITER_PIN"

SECURITY_HEADERS = {
    # Scripts and styles come from the companion itself; style attributes colour the pieces.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                               "script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")

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
        raise ArbiterError(f"--host {host} opens the companion to the network: add --pin (the director's PIN "
                           f"from ${PIN_VARIABLE} or a prompt)")
    if pin is not None:
        check_pin(pin)


def check_pin(pin: str) -> None:
    """A director's PIN is 4 or more digits."""
    if len(pin) < 4 or not pin.isdigit():
        raise ArbiterError("--pin must be at least 4 digits")


def csrf_token() -> str:
    token = session.get("csrf")
    if token is None:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def form_fields() -> Markup:
    """The hidden fields every form posts: the session's token, and the page the form is on, to
    which the PIN page leads back (browsers send no Referer under this site's referrer policy)."""
    return Markup('<input type="hidden" name="csrf_token" value="{}">'
                  '<input type="hidden" name="back" value="{}">').format(csrf_token(), this_page())


def this_page() -> str:
    """The page being shown, with its query (/tournament?id=3). A page drawn in answer to a form
    (one refused, shown again) is the page that form came from."""
    if request.method == "GET":
        return safe_back(request.full_path.removesuffix("?"))
    return safe_back(request.form.get("back"))


def check_csrf() -> None:
    """before_request hook: unsafe methods need the session's token in the form or a header."""
    if request.method not in UNSAFE_METHODS:
        return
    expected = session.get("csrf")
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token")
    if not expected or not sent or not hmac.compare_digest(expected, sent):
        abort(403, description="missing or stale form token: reload the page and try again")


class PinGate:
    """Counts wrong PINs per client (its address), so a guesser locks out only itself."""

    def __init__(self, pin: str | None):
        self.pin = pin
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, tuple[int, float]] = OrderedDict()  # failures, locked until

    def check(self, attempt: str | None, client: str = "") -> bool:
        with self._lock:
            failures, locked_until = self._clients.get(client, (0, 0.0))
            if time.monotonic() < locked_until:
                abort(429, description="too many wrong PINs from this device: wait half a minute")
            if attempt is not None and hmac.compare_digest(attempt.encode(), self.pin.encode()):
                self._clients.pop(client, None)
                return True
            failures += 1
            if failures >= PIN_ATTEMPTS:
                failures, locked_until = 0, time.monotonic() + PIN_LOCKOUT_SECONDS
            self._clients[client] = (failures, locked_until)
            self._clients.move_to_end(client)
            while len(self._clients) > PIN_CLIENTS_KEPT:
                self._clients.popitem(last=False)
            return False


def director_required(view):
    """Views that change records: open on a PIN-less loopback companion, else need the PIN."""

    @functools.wraps(view)
    def guarded(*args, **kwargs):
        gate: PinGate = current_app.extensions["arbiter_pin"]
        if gate.pin is not None and not session.get("director"):
            attempt = request.headers.get("X-Arbiter-Pin")
            if attempt is None and not request.path.startswith("/api/"):
                # A form sent from a page: lead the director to the PIN, then back to that page.
                flash("That needs the director's PIN: unlock, then send it again.", "error")
                return redirect(url_for("security.unlock", next=safe_back(request.form.get("back"))), code=303)
            if attempt is None:
                abort(403, description="this action needs the director's PIN: unlock the page first")
            if not gate.check(attempt, request.remote_addr or ""):
                abort(403, description="wrong director's PIN")
        return view(*args, **kwargs)

    return guarded


def safe_back(path: str | None) -> str:
    """`path` if it is a path on this site to return to, else the table's.

    Browsers read a backslash as a slash ("/\\evil.example" is another site), and a line break
    would split the Location header: neither belongs in a path of this site."""
    if (not path or not path.startswith("/") or path.startswith("//") or "\\" in path
            or any(ord(c) < 32 or ord(c) == 127 for c in path)):
        return url_for("table.page")
    return path


@bp.route("/unlock", methods=["GET", "POST"])
def unlock():
    gate: PinGate = current_app.extensions["arbiter_pin"]
    back = safe_back(request.values.get("next"))
    if request.method == "GET":
        return render_template("unlock.html", next=back, needs_pin=gate.pin is not None)
    if gate.pin is None or gate.check(request.form.get("pin"), request.remote_addr or ""):
        session["director"] = True
        flash("Director mode: corrections, results and tournament edits are open.")
        return redirect(back, code=303)
    flash("Wrong PIN.", "error")
    return redirect(url_for("security.unlock", next=back), code=303)


@bp.post("/lock")
def lock():
    """End director mode in this browser (a phone handed back to the players)."""
    session.pop("director", None)
    flash("Locked: changes need the director's PIN again.")
    return redirect(safe_back(request.form.get("next")), code=303)


def check_host() -> None:
    """before_request hook of a companion listening on loopback: only requests addressed to it."""
    host = (request.host or "").lower()
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if name not in LOOPBACK_NAMES and not is_loopback(name.removeprefix("[").removesuffix("]")):
        abort(400, description=f"this companion answers only on 127.0.0.1 (localhost), not as {host!r}")


def add_security_headers(response):
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def install(app, pin: str | None, bind_host: str = "127.0.0.1") -> None:
    """`bind_host`: the address the server listens on, which decides which `Host` names it answers."""
    app.config["MAX_CONTENT_LENGTH"] = MAX_UPLOAD_BYTES
    app.config["SECRET_KEY"] = secrets.token_bytes(32)
    app.config["SESSION_COOKIE_SAMESITE"] = "Strict"
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    app.extensions["arbiter_pin"] = PinGate(pin)
    if pin is None or is_loopback(bind_host):
        app.before_request(check_host)
    app.before_request(check_csrf)
    app.after_request(add_security_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["form_fields"] = form_fields
    app.jinja_env.globals["pin_required"] = lambda: pin is not None and not session.get("director")
    app.jinja_env.globals["director_unlocked"] = lambda: pin is not None and bool(session.get("director"))
    app.register_blueprint(bp)
