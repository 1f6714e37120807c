"""Serving one table's companion, or the director's pages, over HTTP: a threaded WSGI server, so the
event and video streams of several phones never block each other, stopped cleanly on Ctrl-C or
SIGTERM.

What is served (a real table or the demo) is put together by `arbiter.serving`.
"""
from __future__ import annotations

import logging
import signal
import threading
from dataclasses import dataclass
from typing import Callable

from werkzeug.serving import make_server

from webui.app import create_app
from webui.companion import Companion
from webui.director_app import create_director_app
from webui.security import check_bind


@dataclass
class Running:
    """An app being served: stop() ends the server, then closes what it serves (`close`)."""

    server: object
    thread: threading.Thread
    close: Callable[[], None]

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(5)
        self.close()


def _server(app, host: str, port: int):
    """A threaded WSGI server for `app`, not yet serving."""
    # One line per request (every frame of a live view) would bury the server's own messages.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    # A port in use: werkzeug says so in one line and exits (SystemExit), which callers clean up after.
    server = make_server(host, port, app, threaded=True)
    # Streams end with the process: a browser tab left open must not keep the server alive.
    server.daemon_threads = True
    return server


def _serve(server, close: Callable[[], None], name: str) -> Running:
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    return Running(server, thread, close)


def start_serving(companion: Companion, host: str, port: int, pin: str | None,
                  profile_path: str | None = None, cleanup=None, calibrator=None) -> Running:
    """Start the tracker and a threaded HTTP server in the background (port 0: any free port)."""
    check_bind(host, pin)
    server = _server(create_app(companion, pin=pin, bind_host=host, profile_path=profile_path, calibrator=calibrator),
                     host, port)
    companion.start()

    def close() -> None:
        companion.stop()
        companion.store.close()
        if cleanup is not None:
            cleanup()

    return _serve(server, close, "arbiter-web")


def start_director(store, host: str, port: int, pin: str | None) -> Running:
    """The director's server in the background, closing its store when stopped."""
    check_bind(host, pin)
    return _serve(_server(create_director_app(store, pin=pin, bind_host=host), host, port), store.close,
                  "arbiter-director")


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
