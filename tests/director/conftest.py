"""The director's stores the tests run on: a SQLite file, and a PostgreSQL server.

PostgreSQL comes from $ARBITER_TEST_POSTGRES_URL where it is set (a server whose user may create
and drop databases: each test gets a fresh one); otherwise the fixture starts a throwaway server of its own from the machine's
PostgreSQL binaries (`initdb`, `pg_ctl`: Debian's `postgresql` package), in a temporary folder, on
a free loopback port, and stops it at the end. A machine with neither fails these tests: the
director must be shown to work on PostgreSQL, not skipped.
"""
from __future__ import annotations

import os

import pytest
import sqlalchemy as sa

from tests.director.postgres import postgres_binaries, throwaway_server

URL_VARIABLE = "ARBITER_TEST_POSTGRES_URL"


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server URL for the whole test run (a server started here is shut down after it)."""
    url = os.environ.get(URL_VARIABLE)
    if url:
        yield url
        return
    binaries = postgres_binaries()
    if binaries is None:
        pytest.fail(f"no PostgreSQL: install Debian's postgresql package (initdb, pg_ctl) or set {URL_VARIABLE}")
    with throwaway_server(binaries) as started:
        yield started


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
