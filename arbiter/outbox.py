"""A table's outbox to the director: every record the table writes, sent in order until acknowledged.

Offline first. The table keeps judging into its own SQLite store as it always does; each move-log
row, game result and match result it writes also becomes an event in the `director_outbox` table
of the same database, in the same transaction (`Store.add_journal`), numbered 1, 2, 3... per table
(`seq`). A sender thread posts the events not yet acknowledged, oldest first, in batches, and
retries with a doubling wait while the director cannot be reached. The director stores each event
once and answers the highest seq it holds without a gap; the table keeps that number
(`director_sent`) and sends on from there. A power cut loses nothing committed (the event commits
with its move), a lost acknowledgement only makes the director see a duplicate it ignores, and a
restarted table numbers its next event after the last one in its outbox.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable

from arbiter.store import now_iso

OUTBOX_SCHEMA = """
CREATE TABLE IF NOT EXISTS director_outbox (
    table_name TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (table_name, seq));
CREATE TABLE IF NOT EXISTS director_sent (table_name TEXT PRIMARY KEY, acked INTEGER NOT NULL);
"""
# Events one request carries (the director takes up to 200).
BATCH = 100
# The wait after a failed post, doubling up to the longest: a director back after an outage hears
# from every table within the longest wait.
RETRY_S = 0.5
RETRY_MAX_S = 4.0
# How long one post may take before it counts as failed and is retried.
POST_TIMEOUT_S = 10.0
# How often the sender looks for new events when nothing woke it (writes from other threads).
POLL_S = 1.0
# The path tables post to on the director's server.
EVENTS_PATH = "/api/events"


class Outbox:
    """The outbox of table `table` in the SQLite record store `db_path`, sending to `director_url`."""

    def __init__(self, db_path: str | Path, table: str, director_url: str, token: str,
                 on_status: Callable[[dict], None] | None = None, retry: float = RETRY_S,
                 retry_max: float = RETRY_MAX_S, batch: int = BATCH):
        self.db_path = str(db_path)
        self.table = table
        self.url = director_url.rstrip("/") + EVENTS_PATH
        self.token = token
        self.on_status = on_status or (lambda event: None)
        self.retry, self.retry_max, self.batch = retry, retry_max, batch
        # The sender's own connection (the store's is busy with judging), shared with `drain`.
        self._db = sqlite3.connect(self.db_path, timeout=30, isolation_level=None, check_same_thread=False)
        self._db_lock = threading.Lock()
        self._db.executescript(OUTBOX_SCHEMA)
        sent = self._query("SELECT acked FROM director_sent WHERE table_name=?", (table,))
        self.acked = sent[0][0] if sent else 0
        self.status: str | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    # Writing: inside the record store's transactions --------------------------------------------
    def attach(self, store) -> None:
        """Journal every record `store` writes for this table from now on."""
        store.add_journal(self._journal)

    def _journal(self, db: sqlite3.Connection, kind: str, payload) -> None:
        if kind == "match_result":
            match_id, game = payload[0], None
        else:
            game_id = payload.game_id if kind == "log" else payload[0]
            match_id, number = db.execute("SELECT match_id, number FROM games WHERE id=?", (game_id,)).fetchone()
            game = {"id": game_id, "number": number}
        rules, table, round_number = db.execute("SELECT rules, table_name, round FROM matches WHERE id=?",
                                                (match_id,)).fetchone()
        if table != self.table:
            return  # another table's match in a shared store: that table reports it
        players = [name for (name,) in db.execute(
            "SELECT p.name FROM match_players mp JOIN players p ON p.id = mp.player_id WHERE mp.match_id=? "
            "ORDER BY mp.seat", (match_id,))]
        event = {"kind": kind, "match": {"id": match_id, "rules": json.loads(rules), "players": players,
                                         "round": round_number}}
        if game is not None:
            event["game"] = game
        if kind == "log":
            record = payload
            event["row"] = {"id": record.id, "at": record.at, "verdict": record.verdict, "move": record.move,
                            "reason": record.reason, "state": record.state, "recognised": record.recognised,
                            "mover": record.mover}
        else:
            event["result"], event["at"] = payload[1], now_iso()
        seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM director_outbox WHERE table_name=?",
                         (self.table,)).fetchone()[0]
        event["seq"] = seq
        db.execute("INSERT INTO director_outbox VALUES (?, ?, ?)",
                   (self.table, seq, json.dumps(event, separators=(",", ":"))))

    # Sending ------------------------------------------------------------------------------------
    def _query(self, sql: str, params: tuple) -> list[tuple]:
        with self._db_lock:
            return self._db.execute(sql, params).fetchall()

    def last_seq(self) -> int:
        return self._query("SELECT COALESCE(MAX(seq), 0) FROM director_outbox WHERE table_name=?", (self.table,))[0][0]

    def pending(self) -> int:
        """Events written but not yet acknowledged by the director."""
        return max(0, self.last_seq() - self.acked)

    def wake(self, *_event) -> None:
        """New events were committed: send them now (a tracker subscriber)."""
        self._wake.set()

    def start(self) -> threading.Thread:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="arbiter-outbox", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        with self._db_lock:
            self._db.close()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until the director holds every event written so far; False if `timeout` passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self._wake.set()
        with self._changed:
            while self.acked < self.last_seq():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._changed.wait(0.2 if left is None else min(0.2, left))
        return True

    def _run(self) -> None:
        delay = self.retry
        while not self._stop.is_set():
            try:
                rows = self._query("SELECT body FROM director_outbox WHERE table_name=? AND seq > ? ORDER BY seq "
                                   "LIMIT ?", (self.table, self.acked, self.batch))
                if not rows:
                    self._wake.wait(POLL_S)
                    self._wake.clear()
                    continue
                status, acked, message = self._post([json.loads(body) for (body,) in rows])
                if acked is not None:
                    self._acknowledged(acked)
            except sqlite3.Error as exc:
                if self._stop.is_set():
                    return  # closed while a post was on its way: the next start sends it again
                # The record store is busy past its timeout, or failing: the events stay where they
                # are and are read again after the wait.
                status, message = "failed", f"{self.db_path}: {exc}"
            self._report(status, message)
            if status == "delivered":
                delay = self.retry
            else:
                self._stop.wait(delay)
                delay = min(2 * delay, self.retry_max)

    def _post(self, events: list[dict]) -> tuple[str, int | None, str | None]:
        """(status, acked or None, message) of one batch: "delivered", "unreachable" or "refused"
        (the other status, "failed", is the table's own store failing)."""
        body = json.dumps({"table": self.table, "events": events}, separators=(",", ":")).encode()
        request = urllib.request.Request(self.url, data=body, method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=POST_TIMEOUT_S) as response:
                return "delivered", int(json.loads(response.read())["acked"]), None
        except urllib.error.HTTPError as exc:
            try:
                answer = json.loads(exc.read() or b"{}")
            except ValueError:
                answer = {}
            message = answer.get("error") or f"HTTP {exc.code}"
            if exc.code == 409 and isinstance(answer.get("acked"), int):
                # A gap: the director holds less than this table thought (its store was restored
                # from an older copy); send again from what it holds.
                return "delivered", answer["acked"], None
            return ("unreachable" if exc.code >= 500 else "refused"), None, message
        except (urllib.error.URLError, OSError, ValueError, KeyError) as exc:
            return "unreachable", None, str(getattr(exc, "reason", exc))

    def _acknowledged(self, acked: int) -> None:
        with self._changed:
            self.acked = acked
            self._query("INSERT INTO director_sent VALUES (?, ?) ON CONFLICT (table_name) DO UPDATE "
                        "SET acked=excluded.acked", (self.table, acked))
            self._changed.notify_all()

    def _report(self, status: str, message: str | None) -> None:
        if status == self.status:
            return
        self.status = status
        event = {"type": "director", "status": status, "acked": self.acked}
        if message:
            event["message"] = message
        self.on_status(event)
