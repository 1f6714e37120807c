"""A round of many simulated tables reporting to one director: how fast it takes their events in,
and how soon after a table's verdict the director holds it. On SQLite and on PostgreSQL, side by side.

The director is `arbiter director` in its own process, as at a club. The tables are simulated in
this process: each has its own SQLite record store and outbox (`arbiter.outbox`), exactly as
`arbiter run --director` writes and sends, and plays a Wari game whose every move captures the
most; no camera, since judging is not what is measured here.

- backlog: every table has recorded its whole game while the director was away; all senders
  start at once. Printed: events, seconds until the director holds them all, events per second.
- live: every table records one move every `--interval` seconds (tables spread over the
  interval). Printed, from each verdict's commit at the table (median, p99, max): to the
  director's transaction storing it ("received"), and to the table holding the director's
  acknowledgement ("acknowledged": by then the director had committed it, so its page and API
  show it). What the page then adds is its refresh (2 s) and one GET /api/tables, timed here too
  (median over 20, with every table's board drawn).

    python3 benchmarks/bench_director.py [--tables 64] [--interval 1.0] [--moves 12]
                                         [--stores sqlite,postgresql]

PostgreSQL: $ARBITER_BENCH_POSTGRES_URL (an empty database), else a throwaway server is started
from the machine's initdb/pg_ctl (Debian's `postgresql` package).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arbiter.director_store import DirectorStore  # noqa: E402
from arbiter.outbox import Outbox  # noqa: E402
from arbiter.store import Store  # noqa: E402
from engines import load_rules  # noqa: E402
from tests.director.postgres import free_port, postgres_binaries, throwaway_server  # noqa: E402
from tests.director.tables import greedy_wari_game  # noqa: E402

WARI = load_rules({"game": "wari"})


class TimedOutbox(Outbox):
    """The outbox, noting when the director acknowledged each event (it had committed it then)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.acknowledged_at: dict[int, float] = {}

    def _acknowledged(self, acked: int) -> None:
        before = self.acked
        super()._acknowledged(acked)
        now = time.time()
        for seq in range(before + 1, acked + 1):
            self.acknowledged_at.setdefault(seq, now)


class SimulatedTable:
    """One table: its record store, its outbox, its game."""

    def __init__(self, folder: Path, name: str, seed: int, url: str, token: str):
        self.name = name
        self.store = Store(folder / f"{name}.sqlite3")
        players = [self.store.add_player(f"{name}-{side}") for side in ("S", "N")]
        self.game_id = self.store.new_game(self.store.new_match(WARI.to_json(), players, table=name))
        self.states = greedy_wari_game(seed)
        self.played = 0
        self.outbox = TimedOutbox(self.store.path, name, url, token)
        self.outbox.attach(self.store)
        self.committed: dict[int, float] = {}  # seq -> when the table committed it

    def step(self) -> bool:
        """Record the next position (the start, a move, then the result); False when done."""
        if self.played >= len(self.states):
            return False
        state = self.states[self.played]
        if self.played == 0:
            self.store.log(self.game_id, "start", state.to_json())
        else:
            move = next(m for m in WARI.legal_moves(self.states[self.played - 1])
                        if WARI.apply(self.states[self.played - 1], m) == state)
            self.store.log(self.game_id, "move", state.to_json(), move=move.to_json())
        self.committed[self.outbox.last_seq()] = time.time()
        self.played += 1
        if WARI.is_over(state):
            self.store.log(self.game_id, "over", state.to_json())
            self.store.finish_game(self.game_id, WARI.outcome(state).to_json())
        self.outbox.wake()
        return True

    def close(self) -> None:
        self.outbox.stop()
        self.store.close()


@contextlib.contextmanager
def director_process(db: str, port: int, log: Path):
    with open(log, "ab") as out:
        process = subprocess.Popen([sys.executable, "-m", "arbiter", "director", "--db", db, "--port", str(port)],
                                   cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/standings", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise SystemExit(f"the director did not start: {log.read_text()}")
                time.sleep(0.1)
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)


def make_tables(folder: Path, db: str, url: str, prefix: str, count: int, first_seed: int) -> list[SimulatedTable]:
    with DirectorStore(db) as store:
        tokens = [store.new_token(f"{prefix}{number:02d}") for number in range(count)]
    return [SimulatedTable(folder, f"{prefix}{number:02d}", first_seed + number, url, tokens[number])
            for number in range(count)]


def held(db: str, tables: list[SimulatedTable]) -> int:
    with DirectorStore(db, create=False) as store:
        return sum(row["acked"] for row in store.tables() if row["table"] in {t.name for t in tables})


def backlog(folder: Path, db: str, url: str, count: int) -> dict:
    tables = make_tables(folder, db, url, "B", count, 1000)
    for table in tables:
        while table.step():
            pass
    total = sum(table.outbox.last_seq() for table in tables)
    began = time.perf_counter()
    for table in tables:
        table.outbox.start()
    for table in tables:
        table.outbox.drain(120)
    seconds = time.perf_counter() - began
    assert held(db, tables) == total, "the director does not hold every event"
    for table in tables:
        table.close()
    return {"events": total, "seconds": seconds, "per_s": total / seconds}


def live(folder: Path, db: str, url: str, count: int, interval: float, moves: int) -> dict:
    tables = make_tables(folder, db, url, "L", count, 2000)
    for table in tables:
        table.outbox.start()
    stop_at = [time.monotonic() + interval * moves]

    def play(table: SimulatedTable, offset: float) -> None:
        time.sleep(offset)
        while time.monotonic() < stop_at[0] and table.step():
            time.sleep(interval)

    threads = [threading.Thread(target=play, args=(table, interval * number / count))
               for number, table in enumerate(tables)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for table in tables:
        table.outbox.drain(60)
    delays, acknowledged = [], []
    with DirectorStore(db, create=False) as store:
        for table in tables:
            received = store.event_times(table.name)
            delays += [received[seq] - at for seq, at in table.committed.items()]
            acknowledged += [table.outbox.acknowledged_at[seq] - at for seq, at in table.committed.items()]
    page = []
    for _ in range(20):
        began = time.perf_counter()
        urllib.request.urlopen(f"{url}/api/tables", timeout=10).read()
        page.append(time.perf_counter() - began)
    for table in tables:
        table.close()
    return {"events": len(delays), "received": spread(delays), "acknowledged": spread(acknowledged),
            "page_ms": 1000 * statistics.median(page)}


def spread(seconds: list[float]) -> tuple[float, float, float]:
    """(median, p99, max) in milliseconds."""
    ordered = sorted(seconds)
    return (1000 * statistics.median(ordered), 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
            1000 * ordered[-1])


def run_store(kind: str, db: str, args, folder: Path) -> dict:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    DirectorStore(db).close()
    with director_process(db, port, folder / f"director-{kind}.log"):
        return {"backlog": backlog(folder, db, url, args.tables),
                "live": live(folder, db, url, args.tables, args.interval, args.moves)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=64)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between a table's moves")
    parser.add_argument("--moves", type=int, default=12, help="moves each table plays in the live round")
    parser.add_argument("--stores", default="sqlite,postgresql")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-director-") as work, contextlib.ExitStack() as stack:
        for kind in args.stores.split(","):
            folder = Path(work) / kind
            folder.mkdir()
            if kind == "sqlite":
                db = str(folder / "director.sqlite3")
            else:
                db = os.environ.get("ARBITER_BENCH_POSTGRES_URL")
                if not db:
                    binaries = postgres_binaries()
                    if binaries is None:
                        raise SystemExit("no PostgreSQL: install Debian's postgresql or set ARBITER_BENCH_POSTGRES_URL")
                    db = stack.enter_context(throwaway_server(binaries))
            results[kind] = run_store(kind, db, args, folder)
    print(f"{args.tables} tables; live round: a move every {args.interval:g} s per table, {args.moves} moves")
    print(f"{'store':<11}{'backlog events':>15}{'s':>7}{'events/s':>10}{'live events':>13}"
          f"{'received ms (median/p99/max)':>31}{'acknowledged ms':>24}{'GET /api/tables ms':>20}")
    for kind, result in results.items():
        b, v = result["backlog"], result["live"]
        received = "/".join(f"{ms:.1f}" for ms in v["received"])
        acknowledged = "/".join(f"{ms:.1f}" for ms in v["acknowledged"])
        print(f"{kind:<11}{b['events']:>15}{b['seconds']:>7.2f}{b['per_s']:>10.0f}{v['events']:>13}"
              f"{received:>31}{acknowledged:>24}{v['page_ms']:>20.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
