"""The director's store: every table's events, each table's board, finished games, join tokens.

One schema, written with SQLAlchemy Core, runs on SQLite (a file, the default) and on PostgreSQL
(a `postgresql://` URL, through psycopg 3). A table's events are kept exactly once and in order:
the key (table, seq) is unique, an event already held is acknowledged without being stored again,
and an event that would leave a gap is refused, so the director always holds a table's events
1..acked and tells the table `acked`. Each batch is one transaction, with the table's row locked,
so its events, the table's board and its finished games change together or not at all.

Tokens are stored as SHA-256 hashes only: the token itself is printed once, when it is made.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

from arbiter.director_events import (EventError, board_after, check_table_name, current_game_log,
                                     current_game_record, result_line, standings_of, to_move_of)
from arbiter.store import now_iso
from engines.errors import ArbiterError

SCHEMA_VERSION = 1

metadata = sa.MetaData()
meta = sa.Table("director_meta", metadata,
                sa.Column("key", sa.String(50), primary_key=True),
                sa.Column("value", sa.Text, nullable=False))
tables = sa.Table("director_tables", metadata,
                  sa.Column("name", sa.String(100), primary_key=True),
                  sa.Column("token_hash", sa.String(64), nullable=False),
                  sa.Column("acked", sa.Integer, nullable=False, default=0),
                  sa.Column("joined_at", sa.String(40), nullable=False))
events = sa.Table("director_events", metadata,
                  sa.Column("table_name", sa.String(100), sa.ForeignKey("director_tables.name"), primary_key=True),
                  sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("kind", sa.String(20), nullable=False),
                  sa.Column("received_at", sa.Float, nullable=False),  # seconds since the epoch
                  sa.Column("body", sa.Text, nullable=False))
boards = sa.Table("director_boards", metadata,
                  sa.Column("table_name", sa.String(100), sa.ForeignKey("director_tables.name"), primary_key=True),
                  sa.Column("body", sa.Text, nullable=False),
                  sa.Column("last_seq", sa.Integer, nullable=False),
                  sa.Column("updated_at", sa.Float, nullable=False))
results = sa.Table("director_results", metadata,
                   sa.Column("table_name", sa.String(100), sa.ForeignKey("director_tables.name"), primary_key=True),
                   sa.Column("game_id", sa.Integer, primary_key=True, autoincrement=False),
                   sa.Column("match_id", sa.Integer, nullable=False),
                   sa.Column("round", sa.Integer),
                   sa.Column("rules", sa.Text, nullable=False),
                   sa.Column("players", sa.Text, nullable=False),
                   sa.Column("result", sa.Text, nullable=False))


class SequenceConflict(ArbiterError):
    """Events numbered like ones the director holds but saying something else (HTTP 409): another
    record store reports under this table's name (a table started over on a new store)."""


class DirectorStoreError(ArbiterError):
    """The director's database cannot be opened or written."""


class TokenRefused(ArbiterError):
    """A table posted without a token, or with one that is not its own (HTTP 403)."""


class SequenceGap(ArbiterError):
    """Events that would leave a gap in a table's sequence (HTTP 409): the table resends from
    `acked + 1`."""

    def __init__(self, message: str, acked: int):
        super().__init__(message)
        self.acked = acked


def database_url(db: str) -> str:
    """A SQLAlchemy URL for `--db`: a PostgreSQL URL (driven by psycopg 3) or a SQLite path."""
    if db.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        return "postgresql+psycopg://" + db.split("://", 1)[1]
    if "://" in db:
        raise DirectorStoreError(f"--db {db.split('://', 1)[0]}://...: expected a SQLite path or a postgresql:// URL")
    return f"sqlite:///{Path(db).resolve()}"


def is_director_database(db: str) -> bool:
    """Whether `db` names a director's store (a PostgreSQL URL, or a SQLite file holding one)."""
    if db.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        return True
    if "://" in db or not Path(db).is_file():
        return False
    import sqlite3

    try:
        with sqlite3.connect(f"file:{Path(db).resolve()}?mode=ro", uri=True) as db_file:
            return db_file.execute("SELECT 1 FROM sqlite_master WHERE name='director_events'").fetchone() is not None
    except sqlite3.Error:
        return False


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _describe(db: str, exc: Exception) -> str:
    text = str(getattr(exc, "orig", exc)).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    where = db if "://" not in db else db.split("@")[-1]  # a URL's password stays out of messages
    return f"director database {where}: {text}"


class DirectorStore:
    """A handle on the director's database, shared by the server's threads."""

    def __init__(self, db: str, create: bool = True):
        self.db = db
        url = database_url(db)
        self.is_sqlite = url.startswith("sqlite")
        options = {"connect_args": {"timeout": 30, "check_same_thread": False}} if self.is_sqlite else \
            {"pool_pre_ping": True, "connect_args": {"connect_timeout": 10}}
        try:
            self.engine = sa.create_engine(url, **options)
        except ImportError:
            raise DirectorStoreError("a PostgreSQL store needs psycopg: pip install 'arbiter[director-pg]'") from None
        if self.is_sqlite:
            _refuse_other_sqlite(db)
            _sqlite_transactions(self.engine)
        # SQLite has one writer at a time: threads take turns here rather than spin on its lock.
        self._write_lock = threading.Lock() if self.is_sqlite else None
        try:
            if create:
                metadata.create_all(self.engine)
                with self.engine.begin() as conn:
                    version = conn.execute(sa.select(meta.c.value).where(meta.c.key == "schema_version")).scalar()
                    if version is None:
                        conn.execute(meta.insert().values(key="schema_version", value=str(SCHEMA_VERSION)))
                    elif version != str(SCHEMA_VERSION):
                        raise DirectorStoreError(f"{db}: director schema version {version}, this Arbiter reads "
                                                 f"{SCHEMA_VERSION}")
        except IntegrityError:
            pass  # another process wrote the version first
        except SQLAlchemyError as exc:
            self.engine.dispose()
            raise DirectorStoreError(_describe(db, exc)) from None

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> "DirectorStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _begin(self):
        return self.engine.begin()

    # Tokens ------------------------------------------------------------------------------------
    def new_token(self, table: str) -> str:
        """A new token for `table` (one that replaces its earlier token, which stops working)."""
        table = check_table_name(table)
        token = secrets.token_urlsafe(24)
        try:
            with self._locked(), self._begin() as conn:
                held = conn.execute(sa.select(tables.c.name).where(tables.c.name == table).with_for_update()).first()
                if held is None:
                    conn.execute(tables.insert().values(name=table, token_hash=token_hash(token), acked=0,
                                                        joined_at=now_iso()))
                else:
                    conn.execute(tables.update().where(tables.c.name == table).values(token_hash=token_hash(token)))
        except SQLAlchemyError as exc:
            raise DirectorStoreError(_describe(self.db, exc)) from None
        return token

    def check_token(self, conn, table: str, token: str | None) -> int:
        """The table's acked seq if `token` is the table's own, else TokenRefused."""
        row = conn.execute(sa.select(tables.c.token_hash, tables.c.acked).where(tables.c.name == table)
                           .with_for_update()).first()
        if row is None:
            raise TokenRefused(f"no table named {table!r} has joined: give it a token with "
                               f"`arbiter director token --table {table}`")
        if not token or not hmac.compare_digest(row.token_hash, token_hash(token)):
            raise TokenRefused(f"this token does not belong to table {table!r}")
        return row.acked

    # Ingestion ---------------------------------------------------------------------------------
    def ingest(self, table: str, token: str | None, batch: list[dict]) -> int:
        """Store a table's batch of checked events (in seq order); returns the highest seq held,
        all of 1..acked. Duplicates are acknowledged, not stored again; a gap is SequenceGap."""
        for attempt in range(5):
            try:
                with self._locked(), self._begin() as conn:
                    return self._ingest(conn, table, token, batch)
            except IntegrityError:
                # Another request from the same table stored the same seq first: read what it holds.
                if attempt == 4:
                    raise DirectorStoreError(f"table {table!r}: events stored twice at once; retry") from None
            except OperationalError as exc:
                raise DirectorStoreError(_describe(self.db, exc)) from None
        raise AssertionError("unreachable")

    def _ingest(self, conn, table: str, token: str | None, batch: list[dict]) -> int:
        acked = held = self.check_token(conn, table, token)
        board_row = conn.execute(sa.select(boards.c.body).where(boards.c.table_name == table)).first()
        board = json.loads(board_row.body) if board_row else None
        self._check_duplicates(conn, table, [event for event in batch if event["seq"] <= held])
        now = time.time()
        new_events, new_results = [], []
        for event in batch:
            if event["seq"] <= acked:
                continue  # held already: a resend after a lost acknowledgement
            if event["seq"] != acked + 1:
                break
            acked = event["seq"]
            new_events.append({"table_name": table, "seq": acked, "kind": event["kind"], "received_at": now,
                               "body": json.dumps(event, separators=(",", ":"))})
            board = board_after(board, event)
            if event["kind"] == "game_result":
                new_results.append(event)
        if acked == held:
            if batch[-1]["seq"] > held:
                raise SequenceGap(f"table {table!r}: events from seq {batch[0]['seq']} leave a gap; the director "
                                  f"holds 1 to {held}", held)
            return held
        conn.execute(events.insert(), new_events)
        for event in new_results:
            key = {"table_name": table, "game_id": event["game"]["id"]}
            conn.execute(results.delete().filter_by(**key))
            conn.execute(results.insert().values(
                **key, match_id=event["match"]["id"], round=event["match"].get("round"),
                rules=json.dumps(event["match"]["rules"]), players=json.dumps(event["match"]["players"]),
                result=json.dumps(event["result"])))
        body = json.dumps(board, separators=(",", ":"))
        if board_row is None:
            conn.execute(boards.insert().values(table_name=table, body=body, last_seq=acked, updated_at=now))
        else:
            conn.execute(boards.update().where(boards.c.table_name == table)
                         .values(body=body, last_seq=acked, updated_at=now))
        conn.execute(tables.update().where(tables.c.name == table).values(acked=acked))
        return acked

    def _check_duplicates(self, conn, table: str, resent: list[dict]) -> None:
        """Events sent again must be the ones held: equal numbers with other contents mean another
        store is reporting as this table, whose events would otherwise be dropped as duplicates."""
        if not resent:
            return
        rows = conn.execute(sa.select(events.c.seq, events.c.body).where(
            events.c.table_name == table, events.c.seq.in_([event["seq"] for event in resent])))
        held = {row.seq: json.loads(row.body) for row in rows}
        for event in resent:
            if held.get(event["seq"]) != event:
                raise SequenceConflict(f"table {table!r}: event {event['seq']} differs from the one the director "
                                       "holds: another record store reports as this table (give it a new --table "
                                       "name and token)")

    def _locked(self):
        return self._write_lock if self._write_lock is not None else _NO_LOCK

    # Reading -----------------------------------------------------------------------------------
    def _read(self, statement):
        try:
            with self.engine.connect() as conn:
                return conn.execute(statement).all()
        except SQLAlchemyError as exc:
            raise DirectorStoreError(_describe(self.db, exc)) from None

    def tables(self) -> list[dict]:
        """Every table that joined: its name, events held, and its board (position, whose move,
        alert, result), in name order."""
        rows = self._read(sa.select(tables.c.name, tables.c.acked, boards.c.body, boards.c.updated_at)
                          .select_from(tables.outerjoin(boards, boards.c.table_name == tables.c.name))
                          .order_by(tables.c.name))
        out = []
        for row in rows:
            board = json.loads(row.body) if row.body else {}
            out.append({"table": row.name, "acked": row.acked, "updated_at": row.updated_at,
                        "game": (board.get("rules") or {}).get("game"), "players": board.get("players") or [],
                        "match_id": board.get("match_id"), "game_number": board.get("game_number"),
                        "position": board.get("state"), "verdict": board.get("verdict"),
                        "alert": board.get("alert"), "result": board.get("result"),
                        "result_text": result_line(board) if board else None,
                        "to_move": to_move_of(board) if board else None})
        return out

    def events(self, table: str, after: int = 0) -> list[dict]:
        """A table's events after seq `after`, in order."""
        rows = self._read(sa.select(events.c.body).where(events.c.table_name == table, events.c.seq > after)
                          .order_by(events.c.seq))
        return [json.loads(row.body) for row in rows]

    def event_times(self, table: str) -> dict[int, float]:
        """{seq: when the director stored it (seconds since the epoch)} of a table's events."""
        rows = self._read(sa.select(events.c.seq, events.c.received_at).where(events.c.table_name == table))
        return {row.seq: row.received_at for row in rows}

    def results(self) -> list[dict]:
        rows = self._read(sa.select(results).order_by(results.c.table_name, results.c.game_id))
        return [{"table": row.table_name, "game_id": row.game_id, "match_id": row.match_id, "round": row.round,
                 "rules": json.loads(row.rules), "players": json.loads(row.players), "result": json.loads(row.result)}
                for row in rows]

    def standings(self) -> list[dict]:
        return standings_of(self.results())

    def game_log(self, table: str) -> list[dict]:
        """The log of the table's current game (`director_events.current_game_log`)."""
        self._known(table)
        return current_game_log(self.events(table))

    def _known(self, table: str) -> None:
        if not self._read(sa.select(tables.c.name).where(tables.c.name == table)):
            raise EventError(f"no table named {table!r} has joined this director")

    def record(self, table: str) -> dict:
        """The table's current game as a record `arbiter check` accepts."""
        self._known(table)
        return current_game_record(table, self.events(table))


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NO_LOCK = _NoLock()


def _refuse_other_sqlite(db: str) -> None:
    """A SQLite file holding another program's tables (a table's own record store, say) is not
    written to: the director's tables would be mixed into it."""
    import sqlite3

    if not Path(db).is_file():
        return
    try:
        with sqlite3.connect(f"file:{Path(db).resolve()}?mode=ro", uri=True) as db_file:
            names = {row[0] for row in db_file.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error as exc:
        raise DirectorStoreError(_describe(db, exc)) from None
    if names and "director_meta" not in names:
        raise DirectorStoreError(f"{db}: not a director's store (it holds other tables: "
                                 f"{', '.join(sorted(names)[:5])}); name a new file")


def _sqlite_transactions(engine) -> None:
    """SQLite as SQLAlchemy's documentation recommends for writers: transactions begin IMMEDIATE
    (the write lock taken at BEGIN, not half-way), in WAL mode with full syncs, so that an
    acknowledged event survives a power cut."""

    @sa.event.listens_for(engine, "connect")
    def on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA journal_mode=WAL")
        dbapi_connection.execute("PRAGMA synchronous=FULL")
        dbapi_connection.execute("PRAGMA foreign_keys=ON")

    @sa.event.listens_for(engine, "begin")
    def on_begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")
