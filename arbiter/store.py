"""The record store: players, tournaments, matches, games and an append-only move log in SQLite.

Durability is the point of this module. The database runs in WAL mode with `synchronous=FULL`,
so a committed move survives kill -9 and power cuts; each judged move is one committed row, so a
crash loses at most the move being judged. Rows of the move log are never updated or deleted
(triggers forbid it): an undo or a correction is a new row, and the game's current position is
whatever the log says when it is replayed (`Store.game_history`).

Snapshots of illegal moves are JPEG files in a folder beside the database (`<db>.snapshots/`).
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import cv2
import numpy as np

from arbiter.spreadsheet import move_log_csv
from engines.errors import ArbiterError

# 2: matches name the table that plays them; 3: tournaments keep their pairing system, players
# their rating, matches their round, moves who made them, and withdrawals are recorded.
SCHEMA_VERSION = 3
# What upgrades a database of each earlier schema version to the next one (tables new in a
# version are made by the schema script itself).
MIGRATIONS = {
    1: ("ALTER TABLE matches ADD COLUMN table_name TEXT",),  # their matches belong to no named table
    2: ("ALTER TABLE tournaments ADD COLUMN system TEXT",  # chosen again when the next round is paired
        "ALTER TABLE players ADD COLUMN rating REAL",  # unrated
        "ALTER TABLE matches ADD COLUMN round INTEGER",  # rounds of earlier matches are inferred
        "ALTER TABLE moves ADD COLUMN mover TEXT"),  # earlier moves are listed without a name
}

# Waits (seconds) before opening the file again when another process holds it locked as it opens.
OPEN_RETRY_S = (0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)

# Verdicts of the move log. The first group sets the position; the others only report.
POSITION_VERDICTS = ("start", "move", "undo", "override", "accept")
REPORT_VERDICTS = ("illegal", "restored", "over")
VERDICTS = POSITION_VERDICTS + REPORT_VERDICTS

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, rating REAL);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL, system TEXT);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, tournament_id INTEGER REFERENCES tournaments(id),
    game TEXT NOT NULL, rules TEXT NOT NULL, created_at TEXT NOT NULL,
    finished_at TEXT, result TEXT, table_name TEXT, round INTEGER);
CREATE TABLE IF NOT EXISTS withdrawals (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    player_id INTEGER NOT NULL REFERENCES players(id), after_round INTEGER NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (tournament_id, player_id));
CREATE TABLE IF NOT EXISTS match_players (
    match_id INTEGER NOT NULL REFERENCES matches(id), seat INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id), PRIMARY KEY (match_id, seat));
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES matches(id),
    number INTEGER NOT NULL, created_at TEXT NOT NULL, finished_at TEXT, result TEXT,
    UNIQUE (match_id, number));
CREATE TABLE IF NOT EXISTS moves (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id),
    at TEXT NOT NULL, verdict TEXT NOT NULL, move TEXT, reason TEXT,
    state TEXT NOT NULL, recognised TEXT, snapshot_before TEXT, snapshot_after TEXT, mover TEXT);
CREATE INDEX IF NOT EXISTS moves_by_game ON moves (game_id, id);
CREATE TRIGGER IF NOT EXISTS moves_no_update BEFORE UPDATE ON moves
    BEGIN SELECT RAISE(ABORT, 'the move log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS moves_no_delete BEFORE DELETE ON moves
    BEGIN SELECT RAISE(ABORT, 'the move log is append-only'); END;
"""


class StoreError(ArbiterError):
    """The database cannot be opened or written (corrupt file, full disk, unknown id)."""


def _check_rating(rating: float | None) -> None:
    """A rating is unset (None) or a number as rating lists print them, from 0 to 9999."""
    if rating is not None and not (isinstance(rating, (int, float)) and not isinstance(rating, bool)
                                   and 0 <= rating < 10_000):
        raise StoreError("a rating is a number from 0 to 9999")


@dataclass(frozen=True)
class MoveRecord:
    """One row of the move log; `state` is the engine position after it (or unchanged)."""

    id: int
    game_id: int
    at: str
    verdict: str
    move: dict | list | None
    reason: str | None
    state: dict
    recognised: dict | None
    snapshot_before: str | None
    snapshot_after: str | None
    mover: object = None  # the side that made a move (JSON: "south", 0), where it was recorded

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "game_id": self.game_id,
            "at": self.at,
            "verdict": self.verdict,
            "move": self.move,
            "reason": self.reason,
            "state": self.state,
            "recognised": self.recognised,
            "snapshot_before": self.snapshot_before,
            "snapshot_after": self.snapshot_after,
            "mover": self.mover,
        }


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _dumps(obj) -> str | None:
    return None if obj is None else json.dumps(obj, separators=(",", ":"))


def _loads(text: str | None):
    return None if text is None else json.loads(text)


def _describe_sqlite_error(path: Path, exc: sqlite3.Error) -> str:
    text = str(exc)
    if "disk is full" in text or "disk I/O error" in text:
        return f"{path}: the disk is full or failing ({text}); the last move was NOT saved"
    if "not a database" in text or "malformed" in text:
        return f"{path}: not an Arbiter database or the file is corrupt ({text}); move it aside and start a new one"
    if "readonly" in text:
        return f"{path}: the database is read-only ({text})"
    return f"{path}: database error: {text}"


class Store:
    """A thread-safe handle on one SQLite record file; every write is committed before returning."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.snapshot_dir = self.path.with_name(self.path.name + ".snapshots")
        self._lock = threading.RLock()
        self._journals: list = []
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(_describe_sqlite_error(self.path, exc)) from None
        for wait in (*OPEN_RETRY_S, None):
            try:
                self._open()
                break
            except sqlite3.OperationalError as exc:
                # Processes opening a new file at once can find it locked where SQLite does not
                # wait (switching to WAL, or a reader's upgrade that could deadlock): try again.
                if wait is None or "locked" not in str(exc):
                    self._db.close()
                    raise StoreError(_describe_sqlite_error(self.path, exc)) from None
                time.sleep(wait)
            except sqlite3.Error as exc:
                self._db.close()
                raise StoreError(_describe_sqlite_error(self.path, exc)) from None

    def _open(self) -> None:
        # Another program's database is refused before anything is written to it.
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "meta" not in tables:
            raise StoreError(f"{self.path}: not an Arbiter record database (it holds other tables: "
                             f"{', '.join(sorted(tables)[:5])})")
        self._db.execute("PRAGMA journal_mode=WAL")
        # FULL (not WAL's usual NORMAL) so a committed move survives a power cut, not just a crash.
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        check = self._db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise sqlite3.DatabaseError(f"database disk image is malformed: {check}")
        self._db.executescript(_SCHEMA)
        row = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:
            # Several processes may open a new database at once: the first to write the version wins.
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        elif row[0] in {str(version) for version in MIGRATIONS}:
            with self._db:
                # Several processes may open an old database at once: the first to lock it upgrades it.
                self._db.execute("BEGIN IMMEDIATE")
                version = int(self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])
                for step in range(version, SCHEMA_VERSION):
                    for statement in MIGRATIONS[step]:
                        self._db.execute(statement)
                self._db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),))
        elif row[0] != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path}: database schema version {row[0]}, this Arbiter reads {SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def add_journal(self, journal) -> None:
        """Call `journal(db, kind, payload)` in the transaction of each move-log row ("log", its
        MoveRecord), game or match result ("game_result"/"match_result", (id, result)): what it
        writes on `db` commits with the record or not at all (`arbiter.outbox`)."""
        self._journals.append(journal)

    def _write(self, sql: str, params: tuple = (), journal: tuple | None = None) -> int:
        # `journal`: (kind, payload(row_id)) for the journals, written in the same transaction.
        with self._lock:
            try:
                with self._db:
                    self._db.execute("BEGIN IMMEDIATE")
                    cursor = self._db.execute(sql, params)
                    for write in self._journals if journal is not None else ():
                        write(self._db, journal[0], journal[1](cursor.lastrowid))
                return cursor.lastrowid
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"{self.path}: {exc}") from None
            except sqlite3.Error as exc:
                raise StoreError(_describe_sqlite_error(self.path, exc)) from None

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(_describe_sqlite_error(self.path, exc)) from None

    def _one(self, what: str, sql: str, params: tuple) -> tuple:
        rows = self._read(sql, params)
        if not rows:
            raise StoreError(f"no {what} with id {params[0]}")
        return rows[0]

    # Players and tournaments ------------------------------------------------------------------
    def add_player(self, name: str, rating: float | None = None) -> int:
        """A player of the roster, with an optional rating (seeding for Swiss pairings)."""
        name = name.strip() if isinstance(name, str) else ""
        if not name:
            raise StoreError("a player needs a non-empty name")
        _check_rating(rating)
        existing = self._read("SELECT id FROM players WHERE name=?", (name,))
        if existing:
            raise StoreError(f"a player named {name!r} already exists")
        return self._write("INSERT INTO players (name, created_at, rating) VALUES (?, ?, ?)", (name, now_iso(), rating))

    def set_rating(self, name: str, rating: float | None) -> None:
        """Set or change a roster player's rating (None: unrated); later Swiss rounds seed by it."""
        _check_rating(rating)
        if not self._read("SELECT id FROM players WHERE name=?", (name,)):
            raise StoreError(f"no player named {name!r} on the roster")
        self._write("UPDATE players SET rating=? WHERE name=?", (rating, name))

    def players(self) -> list[dict]:
        rows = self._read("SELECT id, name, created_at, rating FROM players ORDER BY name")
        return [{"id": r[0], "name": r[1], "created_at": r[2], "rating": r[3]} for r in rows]

    def add_tournament(self, name: str) -> int:
        if not isinstance(name, str) or not name.strip():
            raise StoreError("a tournament needs a non-empty name")
        return self._write("INSERT INTO tournaments (name, created_at) VALUES (?, ?)", (name.strip(), now_iso()))

    def tournaments(self) -> list[dict]:
        """Every tournament: id, name, created_at and its pairing system (None until its first round)."""
        rows = self._read("SELECT id, name, created_at, system FROM tournaments ORDER BY id")
        return [{"id": r[0], "name": r[1], "created_at": r[2], "system": r[3]} for r in rows]

    def withdraw(self, tournament_id: int, player_id: int, after_round: int) -> None:
        """The player leaves the tournament after `after_round`: not paired again, still ranked."""
        self._one("tournament", "SELECT id FROM tournaments WHERE id=?", (tournament_id,))
        self._write("INSERT OR IGNORE INTO withdrawals VALUES (?, ?, ?, ?)", (tournament_id, player_id, after_round, now_iso()))

    def withdrawals(self, tournament_id: int) -> dict[str, int]:
        """{player name: the round after which they withdrew} of a tournament."""
        rows = self._read("SELECT p.name, w.after_round FROM withdrawals w JOIN players p ON p.id = w.player_id "
                          "WHERE w.tournament_id=?", (tournament_id,))
        return dict(rows)

    def set_tournament_system(self, tournament_id: int, system: str) -> None:
        """Keep the pairing system the tournament's first round chose, for every later round."""
        self._one("tournament", "SELECT id FROM tournaments WHERE id=?", (tournament_id,))
        self._write("UPDATE tournaments SET system=? WHERE id=? AND system IS NULL", (system, tournament_id))

    # Matches and games -------------------------------------------------------------------------
    def new_match(self, rules_json: dict, player_ids=(), tournament_id: int | None = None,
                  table: str | None = None, round_number: int | None = None) -> int:
        """A match between seated players (seat = index in player_ids) under one rules object,
        played at the named `table` (None: the one table a database without names serves), in a
        tournament's round `round_number`."""
        game = rules_json.get("game") if isinstance(rules_json, dict) else None
        if not game:
            raise StoreError("a match needs a rules object naming its game")
        with self._lock:
            try:
                with self._db:
                    self._db.execute("BEGIN IMMEDIATE")
                    match_id = self._db.execute(
                        "INSERT INTO matches (tournament_id, game, rules, created_at, table_name, round) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (tournament_id, game, _dumps(rules_json), now_iso(), table, round_number),
                    ).lastrowid
                    self._db.executemany(
                        "INSERT INTO match_players VALUES (?, ?, ?)",
                        [(match_id, seat, pid) for seat, pid in enumerate(player_ids)],
                    )
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"cannot create the match: {exc} (unknown player or tournament id?)") from None
            except sqlite3.Error as exc:
                raise StoreError(_describe_sqlite_error(self.path, exc)) from None
        return match_id

    def match(self, match_id: int) -> dict:
        row = self._one("match", "SELECT id, tournament_id, game, rules, created_at, finished_at, result, table_name, "
                        "round FROM matches WHERE id=?", (match_id,))
        seats = self._read("SELECT mp.seat, p.id, p.name FROM match_players mp JOIN players p "
                           "ON p.id = mp.player_id WHERE mp.match_id=? ORDER BY mp.seat", (match_id,))
        return {
            "id": row[0], "tournament_id": row[1], "game": row[2], "rules": _loads(row[3]),
            "created_at": row[4], "finished_at": row[5], "result": _loads(row[6]), "table": row[7], "round": row[8],
            "players": [{"seat": s, "id": pid, "name": name} for s, pid, name in seats],
        }

    def matches(self, tournament_id: int | None = None) -> list[dict]:
        if tournament_id is None:
            ids = self._read("SELECT id FROM matches ORDER BY id")
        else:
            ids = self._read("SELECT id FROM matches WHERE tournament_id=? ORDER BY id", (tournament_id,))
        return [self.match(r[0]) for r in ids]

    def finish_match(self, match_id: int, result: dict) -> None:
        self._one("match", "SELECT id FROM matches WHERE id=?", (match_id,))
        self._write("UPDATE matches SET finished_at=?, result=? WHERE id=?", (now_iso(), _dumps(result), match_id),
                    journal=("match_result", lambda _: (match_id, result)))

    def reopen_match(self, match_id: int, result: dict) -> None:
        """The match is undecided again; `result` keeps what was withdrawn (the director's record)."""
        self._one("match", "SELECT id FROM matches WHERE id=?", (match_id,))
        self._write("UPDATE matches SET finished_at=NULL, result=? WHERE id=?", (_dumps(result), match_id),
                    journal=("match_result", lambda _: (match_id, result)))

    def new_game(self, match_id: int) -> int:
        """The next game (set) of a match; its position starts with the first `start` row."""
        self._one("match", "SELECT id FROM matches WHERE id=?", (match_id,))
        # Numbered inside the insert's own write transaction: another thread or process adding a
        # game to the same match between a count and the insert would take the same number.
        return self._write("INSERT INTO games (match_id, number, created_at) "
                           "SELECT ?, COUNT(*) + 1, ? FROM games WHERE match_id=?",
                           (match_id, now_iso(), match_id))

    def game(self, game_id: int) -> dict:
        row = self._one("game", "SELECT id, match_id, number, created_at, finished_at, result "
                        "FROM games WHERE id=?", (game_id,))
        return {"id": row[0], "match_id": row[1], "number": row[2], "created_at": row[3],
                "finished_at": row[4], "result": _loads(row[5])}

    def games(self, match_id: int) -> list[dict]:
        ids = self._read("SELECT id FROM games WHERE match_id=? ORDER BY number", (match_id,))
        return [self.game(r[0]) for r in ids]

    def finish_game(self, game_id: int, result: dict) -> None:
        self._one("game", "SELECT id FROM games WHERE id=?", (game_id,))
        self._write("UPDATE games SET finished_at=?, result=? WHERE id=?", (now_iso(), _dumps(result), game_id),
                    journal=("game_result", lambda _: (game_id, result)))

    def unfinished_game(self, game: str) -> int | None:
        """The most recent game of this kind still in play: what a restart resumes."""
        rows = self._read("SELECT g.id FROM games g JOIN matches m ON m.id = g.match_id "
                          "WHERE m.game=? AND g.finished_at IS NULL ORDER BY g.id DESC LIMIT 1", (game,))
        return rows[0][0] if rows else None

    def unfinished_match(self, game: str, table: str | None = None) -> int | None:
        """The unfinished match of this kind that `table` played last (its next game may not exist
        yet). A match without games, such as a tournament pairing not yet seated, is none; another
        table's match is none, so that two tables sharing a database never resume each other's."""
        rows = self._read("SELECT m.id FROM matches m JOIN games g ON g.match_id = m.id "
                          "WHERE m.game=? AND m.finished_at IS NULL AND m.table_name IS ? "
                          "GROUP BY m.id ORDER BY MAX(g.id) DESC LIMIT 1", (game, table))
        return rows[0][0] if rows else None

    def last_logged_match(self) -> int | None:
        """The match of the game whose log grew last, or None before any game was logged."""
        rows = self._read("SELECT g.match_id FROM moves m JOIN games g ON g.id = m.game_id ORDER BY m.id DESC LIMIT 1")
        return rows[0][0] if rows else None

    def seat_match(self, match_id: int, table: str | None) -> None:
        """The match is played at `table` from now on (a tournament pairing seated there)."""
        self._one("match", "SELECT id FROM matches WHERE id=?", (match_id,))
        self._write("UPDATE matches SET table_name=? WHERE id=?", (table, match_id))

    # The move log ------------------------------------------------------------------------------
    def log(self, game_id: int, verdict: str, state: dict, *, move=None, reason: str | None = None,
            recognised: dict | None = None, snapshots: tuple | None = None, mover=None) -> MoveRecord:
        """Append one committed row; snapshots are (before_image, after_image) BGR arrays; `mover`
        the side that made a move (the side to move before it)."""
        if verdict not in VERDICTS:
            raise StoreError(f"unknown verdict {verdict!r}: expected one of {', '.join(VERDICTS)}")
        self._one("game", "SELECT id FROM games WHERE id=?", (game_id,))
        paths = (None, None)
        if snapshots is not None:
            stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%f")
            paths = tuple(self._save_snapshot(image, f"g{game_id}-{stamp}-{side}.jpg")
                          for image, side in zip(snapshots, ("before", "after")))
        at = now_iso()

        def record(row_id: int) -> MoveRecord:
            return MoveRecord(row_id, game_id, at, verdict, move, reason, state, recognised, *paths, mover)
        row_id = self._write(
            "INSERT INTO moves (game_id, at, verdict, move, reason, state, recognised, snapshot_before, "
            "snapshot_after, mover) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, at, verdict, _dumps(move), reason, _dumps(state), _dumps(recognised), *paths, _dumps(mover)),
            journal=("log", record),
        )
        return record(row_id)

    def _save_snapshot(self, image: np.ndarray | None, name: str) -> str | None:
        if image is None:
            return None
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        if not ok:
            raise StoreError(f"cannot encode snapshot {name}")
        target = self.snapshot_dir / name
        tmp = target.with_name(name + ".tmp")
        try:
            self.snapshot_dir.mkdir(exist_ok=True)
            tmp.write_bytes(data.tobytes())
            tmp.replace(target)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise StoreError(f"{target}: cannot save the snapshot: {exc.strerror or exc}; the move was NOT saved") from None
        return str(target)

    def moves(self, game_id: int) -> list[MoveRecord]:
        rows = self._read(
            "SELECT id, game_id, at, verdict, move, reason, state, recognised, snapshot_before, snapshot_after, mover "
            "FROM moves WHERE game_id=? ORDER BY id", (game_id,))
        return [MoveRecord(r[0], r[1], r[2], r[3], _loads(r[4]), r[5], _loads(r[6]), _loads(r[7]), r[8], r[9], _loads(r[10]))
                for r in rows]

    def move_log(self, game_id: int) -> list[MoveRecord]:
        """The game's log as `moves` gives it but without positions (`state` is {}): what a page
        lists, read without parsing every position a long game stored."""
        rows = self._read(
            "SELECT id, game_id, at, verdict, move, reason, snapshot_before, snapshot_after, mover "
            "FROM moves WHERE game_id=? ORDER BY id", (game_id,))
        return [MoveRecord(r[0], r[1], r[2], r[3], _loads(r[4]), r[5], {}, None, r[6], r[7], _loads(r[8])) for r in rows]

    def game_history(self, game_id: int) -> list[dict]:
        """The positions the game went through, oldest first; the last is where it stands now.

        A `start` row begins the history again (players may rebuild a free set-up before the first
        move); an `undo` row names the earlier position the table went back to, so the positions
        after it are dropped; every other position verdict appends.
        """
        history: list[dict] = []
        for record in self.moves(game_id):
            if record.verdict == "start":
                history = [record.state]
            elif record.verdict == "undo":
                while history and history[-1] != record.state:
                    history.pop()
                if not history:
                    history.append(record.state)
            elif record.verdict in POSITION_VERDICTS:
                history.append(record.state)
        return history

    # Export ------------------------------------------------------------------------------------
    def export_json(self, match_id: int) -> dict:
        """A match with its games and full move logs, as one JSON-ready object."""
        match = self.match(match_id)
        match["games"] = [{**g, "moves": [m.to_json() for m in self.moves(g["id"])]}
                          for g in self.games(match_id)]
        return match

    def export_csv(self, match_id: int) -> str:
        """The move log of every game of a match, one row per log entry (`move_log_csv`)."""
        from engines import load_rules

        history_keys = load_rules(self.match(match_id)["rules"]).history_keys
        return move_log_csv(match_id, [(g["number"], self.moves(g["id"])) for g in self.games(match_id)], history_keys)
