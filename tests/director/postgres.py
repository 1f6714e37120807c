"""A throwaway PostgreSQL server from the machine's own binaries (Debian's `postgresql` package:
`initdb`, `pg_ctl`), for the director's tests and benchmark: a temporary folder, a free loopback
port, trust authentication, no fsync; stopped and removed afterwards.
"""
from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def postgres_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl: on PATH, else Debian's /usr/lib/postgresql/N/bin."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    return Path(candidates[0]).parent if candidates else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_user() -> str | None:
    """PostgreSQL refuses to run as root: as root, it runs as `postgres` (or `nobody`)."""
    if os.geteuid() != 0:
        return None
    for user in ("postgres", "nobody"):
        try:
            pwd.getpwnam(user)
            return user
        except KeyError:
            continue
    raise RuntimeError("running as root with no postgres or nobody user to run PostgreSQL as")


def _as(user: str | None, command: list[str]) -> list[str]:
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"  # sbin is not on every root's PATH
    return command if user is None else [runuser, "-u", user, "--", *command]


def _run(command: list[str]) -> None:
    """Run a PostgreSQL tool; its own words on failure."""
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as exc:
        raise RuntimeError(f"{command[0]}: {exc}") from None
    if done.returncode:
        raise RuntimeError(f"{' '.join(command)} failed: {(done.stderr or done.stdout).strip()[-500:]}")


@contextlib.contextmanager
def throwaway_server(binaries: Path):
    """A running server's URL (`postgresql://postgres@127.0.0.1:PORT/postgres`)."""
    user = server_user()
    # The server's own user must reach the folder: /tmp, whatever TMPDIR says, when it is not us.
    folder = Path(tempfile.mkdtemp(prefix="arbiter-pg-", dir="/tmp" if user is not None else None))
    if user is not None:
        shutil.chown(folder, user)
    data, port = folder / "data", free_port()
    pg_ctl = str(binaries / "pg_ctl")
    try:
        _run(_as(user, [str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync",
                        "-E", "UTF8"]))
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        _run(_as(user, [pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start"]))
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(_as(user, [pg_ctl, "-D", str(data), "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
