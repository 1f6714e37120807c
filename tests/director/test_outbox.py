"""A table's outbox: each record commits with its event, events reach the director in order,
once, through an outage, a lost acknowledgement and a restart."""
from __future__ import annotations

import sqlite3
import threading

import pytest
from werkzeug.serving import make_server

from arbiter.director_store import DirectorStore
from arbiter.outbox import Outbox
from arbiter.store import Store, StoreError
from engines import load_rules
from tests.director.postgres import free_port
from webui.director_app import create_director_app

WARI = load_rules({"game": "wari"})


class Director:
    """The director's server on a loopback port, started and stopped by the test."""

    def __init__(self, db: str, port: int):
        self.store = DirectorStore(db)
        self.port = port
        self.server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "Director":
        self.server = make_server("127.0.0.1", self.port, create_director_app(self.store), threaded=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def director(tmp_path):
    running = Director(str(tmp_path / "director.sqlite3"), free_port())
    yield running
    if running.server is not None:
        running.stop()
    running.store.close()


def table_game(store: Store, table: str = "A") -> int:
    players = [store.add_player(name) for name in (f"{table}1", f"{table}2")]
    return store.new_game(store.new_match(WARI.to_json(), players, table=table))


def play(store: Store, game_id: int, plies: int) -> None:
    history = store.game_history(game_id)
    state = WARI.state_from_json(history[-1]) if history else None
    if state is None:
        state = WARI.start()
        store.log(game_id, "start", state.to_json())
    for _ in range(plies):
        move = WARI.legal_moves(state)[0]
        state = WARI.apply(state, move)
        store.log(game_id, "move", state.to_json(), move=move.to_json())


def outbox_events(db) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT table_name, seq FROM director_outbox ORDER BY table_name, seq").fetchall()


def test_each_record_commits_with_its_event_or_not_at_all(tmp_path):
    db = tmp_path / "table.sqlite3"
    with Store(db) as store:
        outbox = Outbox(db, "A", "http://127.0.0.1:9", "token")
        outbox.attach(store)
        game = table_game(store)
        other = table_game(store, "B")  # another table sharing the store reports its own games
        play(store, game, 2)
        play(store, other, 1)
        store.finish_game(game, {"over": True, "winner": "south", "scores": {"south": 25, "north": 3}})
        assert outbox_events(db) == [("A", 1), ("A", 2), ("A", 3), ("A", 4)]
        with sqlite3.connect(db) as conn:
            conn.execute("DROP TABLE director_outbox")
        with pytest.raises(StoreError):
            play(store, game, 1)
        assert len(store.moves(game)) == 3  # the move whose event could not be written is not recorded
        outbox.stop()


def test_events_reach_the_director_once_in_order_through_an_outage(tmp_path, director):
    db = tmp_path / "table.sqlite3"
    token = director.store.new_token("A")
    statuses = []
    with Store(db) as store:
        outbox = Outbox(db, "A", director.url, token, on_status=statuses.append, retry=0.05, retry_max=0.2)
        outbox.attach(store)
        outbox.start()
        game = table_game(store)
        play(store, game, 3)  # the director is down: the events wait in the outbox
        assert not outbox.drain(timeout=0.5)
        assert statuses[-1]["status"] == "unreachable" and outbox.pending() == 4
        director.start()
        assert outbox.drain(timeout=10)
        play(store, game, 2)
        outbox.wake()
        assert outbox.drain(timeout=10)
        # Told once when sending resumed (statuses are reported as they change).
        assert [s["status"] for s in statuses] == ["unreachable", "delivered"] and outbox.acked == 6
        outbox.stop()
    held = director.store.events("A")
    assert [event["seq"] for event in held] == list(range(1, 7))
    with Store(db) as store:
        assert [event["row"]["id"] for event in held] == [record.id for record in store.moves(game)]


def test_a_restarted_table_numbers_on_and_a_lost_acknowledgement_sends_no_duplicate(tmp_path, director):
    db = tmp_path / "table.sqlite3"
    token = director.store.new_token("A")
    director.start()
    with Store(db) as store:
        outbox = Outbox(db, "A", director.url, token, retry=0.05, retry_max=0.2)
        outbox.attach(store)
        outbox.start()
        game = table_game(store)
        play(store, game, 3)
        assert outbox.drain(timeout=10)
        outbox.stop()
    # The power went before the table wrote down the last acknowledgement.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE director_sent SET acked = 2")
    with Store(db) as store:
        outbox = Outbox(db, "A", director.url, token, retry=0.05, retry_max=0.2)
        assert outbox.acked == 2 and outbox.pending() == 2
        outbox.attach(store)
        outbox.start()
        play(store, game, 1)
        assert outbox.drain(timeout=10)
        assert outbox.acked == 5
        outbox.stop()
    assert [event["seq"] for event in director.store.events("A")] == [1, 2, 3, 4, 5]


def test_a_wrong_token_is_reported_and_nothing_is_lost(tmp_path, director):
    db = tmp_path / "table.sqlite3"
    director.store.new_token("A")
    director.start()
    statuses = []
    with Store(db) as store:
        outbox = Outbox(db, "A", director.url, "not-the-token", on_status=statuses.append, retry=0.05, retry_max=0.1)
        outbox.attach(store)
        outbox.start()
        play(store, table_game(store), 1)
        assert not outbox.drain(timeout=0.5)
        outbox.stop()
    assert statuses[0]["status"] == "refused" and "does not belong to table 'A'" in statuses[0]["message"]
    assert outbox_events(db) == [("A", 1), ("A", 2)]


def test_another_store_reporting_as_the_same_table_is_refused(tmp_path, director):
    token = director.store.new_token("A")
    director.start()
    for folder, plies in (("first", 2), ("second", 3)):
        db = tmp_path / f"{folder}.sqlite3"
        statuses = []
        with Store(db) as store:
            outbox = Outbox(db, "A", director.url, token, on_status=statuses.append, retry=0.05, retry_max=0.1)
            outbox.attach(store)
            outbox.start()
            play(store, table_game(store), plies)
            delivered = outbox.drain(timeout=1 if folder == "second" else 10)
            outbox.stop()
    assert not delivered and statuses[0]["status"] == "refused" and "another record store" in statuses[0]["message"]
    assert len(director.store.events("A")) == 3


def test_a_failing_record_store_is_reported_and_the_sender_carries_on(tmp_path):
    db = tmp_path / "table.sqlite3"
    statuses = []
    with Store(db):  # the record store first: the outbox's tables go into an Arbiter database
        outbox = Outbox(db, "A", "http://127.0.0.1:9", "token", on_status=statuses.append, retry=0.05, retry_max=0.1)
        thread = outbox.start()
        with sqlite3.connect(db) as conn:
            conn.execute("ALTER TABLE director_outbox RENAME TO director_outbox_moved")
        outbox.wake()
        deadline = threading.Event()
        for _ in range(100):
            if statuses:
                break
            deadline.wait(0.02)
        assert statuses[0]["status"] == "failed" and "no such table" in statuses[0]["message"]
        assert thread.is_alive()
        outbox.stop()
    assert not thread.is_alive()
