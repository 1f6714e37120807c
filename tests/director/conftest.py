"""The director's stores the tests run on: a SQLite file, and a PostgreSQL server.

PostgreSQL comes from $ARBITER_TEST_POSTGRES_URL where it is set (a database the tests may fill
and empty); otherwise the fixture starts a throwaway server of its own from the machine's
PostgreSQL binaries (`initdb`, `pg_ctl`: Debian's `postgresql` package), in a temporary folder, on
a free loopback port, and stops it at the end. A machine with neither fails these tests: the
director must be shown to work on PostgreSQL, not skipped.
"""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
import sqlalchemy as sa

URL_VARIABLE = "ARBITER_TEST_POSTGRES_URL"


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


def as_server_user(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run it as the `postgres` user (or `nobody`)."""
    if os.geteuid() != 0:
        return command
    import pwd

    for user in ("postgres", "nobody"):
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        return ["runuser", "-u", user, "--", *command]
    raise RuntimeError("running as root with no postgres or nobody user to run PostgreSQL as")


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server URL for the session (the server, when started here, is stopped after)."""
    url = os.environ.get(URL_VARIABLE)
    if url:
        yield url
        return
    binaries = postgres_binaries()
    if binaries is None:
        pytest.fail(f"no PostgreSQL: install Debian's postgresql package (initdb, pg_ctl) or set {URL_VARIABLE}")
    folder = Path(tempfile.mkdtemp(prefix="arbiter-pg-"))
    if os.geteuid() == 0:
        import pwd

        user = "postgres"
        try:
            pwd.getpwnam(user)
        except KeyError:
            user = "nobody"
        shutil.chown(folder, user)
    data, port = folder / "data", free_port()
    subprocess.run(as_server_user([str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                                   "--no-sync", "-E", "UTF8"]), check=True, capture_output=True)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    subprocess.run(as_server_user([str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                                   str(folder / "log"), "-w", "start"]), check=True, capture_output=True)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(as_server_user([str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


_databases = iter(range(1, 10_000))


@pytest.fixture
def postgres_url(postgres_server):
    """A fresh, empty database on the server for one test."""
    name = f"arbiter_test_{os.getpid()}_{next(_databases)}"
    admin = sa.create_engine(postgres_server.replace("postgresql://", "postgresql+psycopg://", 1),
                             isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    base = postgres_server.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def director_db(request, tmp_path):
    """`--db` of a fresh director's store, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "director.sqlite3")
    return request.getfixturevalue("postgres_url")
