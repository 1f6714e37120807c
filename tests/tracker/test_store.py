"""The record store keeps everything committed, refuses to rewrite history and fails clearly."""
from __future__ import annotations

import csv
import io
import sqlite3
from pathlib import Path

import cv2
import numpy as np
import pytest

from arbiter.store import Store, StoreError

RULES = {"game": "wari", "variant": "pbmserv"}


def board(n: int) -> dict:
    return {"game": "wari", "pits": [n] * 12, "stores": [0, 0], "to_move": "south"}


def test_players_tournaments_matches_and_games(store):
    alice, bob = store.add_player("Alice"), store.add_player(" Bob ")
    with pytest.raises(StoreError, match="already exists"):
        store.add_player("Alice")
    tournament = store.add_tournament("Spring open")
    match = store.new_match(RULES, [alice, bob], tournament)
    first, second = store.new_game(match), store.new_game(match)
    assert [p["name"] for p in store.players()] == ["Alice", "Bob"]
    assert store.tournaments()[0]["name"] == "Spring open"
    assert store.match(match)["players"] == [{"seat": 0, "id": alice, "name": "Alice"},
                                             {"seat": 1, "id": bob, "name": "Bob"}]
    assert [g["number"] for g in store.games(match)] == [1, 2]
    assert store.unfinished_game("wari") == second
    store.finish_game(second, {"over": True, "winner": "south", "scores": {"south": 25, "north": 23}})
    assert store.unfinished_game("wari") == first
    assert store.matches(tournament)[0]["id"] == match


def test_unknown_ids_and_players_are_refused(store):
    with pytest.raises(StoreError, match="no game with id 7"):
        store.log(7, "move", board(4))
    with pytest.raises(StoreError, match="unknown player"):
        store.new_match(RULES, [42])
    with pytest.raises(StoreError, match="unknown verdict"):
        store.log(store.new_game(store.new_match(RULES)), "cheat", board(4))


def test_history_follows_moves_undos_and_overrides(store):
    game = store.new_game(store.new_match(RULES))
    for verdict, n in [("start", 3), ("start", 4), ("move", 5), ("move", 6), ("illegal", 9), ("undo", 5),
                       ("move", 7), ("override", 8), ("restored", 8)]:
        store.log(game, verdict, board(n))
    assert [s["pits"][0] for s in store.game_history(game)] == [4, 5, 7, 8]


def test_the_move_log_is_append_only(store):
    game = store.new_game(store.new_match(RULES))
    store.log(game, "start", board(4))
    raw = sqlite3.connect(store.path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute("UPDATE moves SET verdict='move'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute("DELETE FROM moves")
    raw.close()


def test_illegal_snapshots_are_saved_beside_the_database(store):
    game = store.new_game(store.new_match(RULES))
    before = np.zeros((30, 40, 3), np.uint8)
    after = np.full((30, 40, 3), 200, np.uint8)
    record = store.log(game, "illegal", board(4), reason="not your turn", snapshots=(before, after))
    assert record.snapshot_before.startswith(str(store.snapshot_dir))
    assert store.moves(game)[-1] == record
    assert cv2.imread(record.snapshot_after).mean() > 150


def test_everything_survives_reopening(tmp_path):
    path = tmp_path / "a.sqlite3"
    with Store(path) as first:
        game = first.new_game(first.new_match(RULES))
        first.log(game, "start", board(4))
    with Store(path) as second:
        assert second.game_history(game) == [board(4)]
        assert second.unfinished_game("wari") == game


def test_export_json_and_csv(store):
    match = store.new_match(RULES, [store.add_player("Ann")])
    game = store.new_game(match)
    store.log(game, "start", board(4))
    store.log(game, "move", board(5), move={"player": "south", "pit": "a"})
    exported = store.export_json(match)
    assert exported["games"][0]["moves"][1]["move"] == {"player": "south", "pit": "a"}
    rows = list(csv.DictReader(io.StringIO(store.export_csv(match))))
    assert [r["verdict"] for r in rows] == ["start", "move"]
    assert '"pit":"a"' in rows[1]["move"]


def test_a_corrupt_database_is_reported_in_one_line(tmp_path):
    path = tmp_path / "broken.sqlite3"
    path.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(StoreError, match="not an Arbiter database or the file is corrupt") as error:
        Store(path)
    assert "\n" not in str(error.value)


def test_a_full_disk_is_reported_and_nothing_half_written(store):
    game = store.new_game(store.new_match(RULES))
    store.log(game, "start", board(4))
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages}")  # the disk is now full
    with pytest.raises(StoreError, match="disk is full.*NOT saved"):
        for n in range(500):
            store.log(game, "move", board(4), reason="x" * 4000)
    assert store.game_history(game)[0] == board(4)


def test_an_unwritable_location_is_reported(tmp_path):
    with pytest.raises(StoreError, match="database error|unable to open"):
        Store(tmp_path / "missing-folder" / "a.sqlite3")


def _open_games_and_log(path: str, match: int, games: int) -> list[int]:
    """A second process's work on the same record file: new games, each with a start row."""
    with Store(path) as other:
        created = []
        for _ in range(games):
            created.append(other.new_game(match))
            other.log(created[-1], "start", board(4))
        return created


def test_two_processes_writing_one_record_file_lose_nothing(tmp_path):
    # A tournament director's laptop may read or add to the file a table's Arbiter is writing.
    import multiprocessing

    path = tmp_path / "shared.sqlite3"
    with Store(path) as first:
        match = first.new_match(RULES)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        batches = pool.starmap(_open_games_and_log, [(str(path), match, 25)] * 2)
    with Store(path) as reopened:
        games = reopened.games(match)
        assert sorted(g["id"] for g in games) == sorted(batches[0] + batches[1])
        assert sorted(g["number"] for g in games) == list(range(1, 51))
        assert all(reopened.game_history(g["id"]) == [board(4)] for g in games)


def test_threads_opening_games_at_once_number_them_in_turn(store):
    from concurrent.futures import ThreadPoolExecutor

    match = store.new_match(RULES)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: store.new_game(match), range(40)))
    assert sorted(g["number"] for g in store.games(match)) == list(range(1, 41))


def test_two_named_tables_sharing_a_store_each_resume_their_own_game(tmp_path):
    from arbiter.matches import open_game
    from engines import load_rules

    rules = load_rules({"game": "wari"})
    with Store(tmp_path / "club.sqlite3") as store:
        first = open_game(store, rules, table="Table 1")
        store.log(first, "start", rules.start().to_json())
        second = open_game(store, rules, table="Table 2")
        store.log(second, "start", rules.start().to_json())
        assert first != second
        # Restarts: each table finds its own game, never the other's.
        assert open_game(store, rules, table="Table 1") == first
        assert open_game(store, rules, table="Table 2") == second
        assert store.match(store.game(second)["match_id"])["table"] == "Table 2"


def test_a_store_of_the_first_schema_is_upgraded_in_place(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite3"
    with Store(path) as store:
        store.new_match({"game": "wari"})
    with sqlite3.connect(path) as db:  # as the first schema left it: no table names, no pairing systems
        db.execute("ALTER TABLE matches DROP COLUMN table_name")
        db.execute("ALTER TABLE tournaments DROP COLUMN system")
        db.execute("ALTER TABLE players DROP COLUMN rating")
        db.execute("ALTER TABLE matches DROP COLUMN round")
        db.execute("DROP TABLE withdrawals")
        db.execute("ALTER TABLE moves DROP COLUMN mover")
        db.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    with Store(path) as store:
        assert store.match(1)["table"] is None
        assert store.new_match({"game": "wari"}, table="Table 1") == 2
        assert store.add_tournament("Spring open") == 1 and store.tournaments()[0]["system"] is None


def _as_second_schema(db) -> None:
    """Turn a current store back into what the second schema left: no pairing systems, ratings,
    rounds, withdrawals or movers."""
    db.execute("ALTER TABLE tournaments DROP COLUMN system")
    db.execute("ALTER TABLE players DROP COLUMN rating")
    db.execute("ALTER TABLE matches DROP COLUMN round")
    db.execute("DROP TABLE withdrawals")
    db.execute("ALTER TABLE moves DROP COLUMN mover")
    db.execute("UPDATE meta SET value='2' WHERE key='schema_version'")


def _second_schema_store(tmp_path, fill) -> Path:
    """A store filled by `fill(store)`, then put back as the second schema left it."""
    path = tmp_path / "v2.sqlite3"
    with Store(path) as store:
        fill(store)
    with sqlite3.connect(path) as db:
        _as_second_schema(db)
    return path


def test_a_store_of_the_second_schema_keeps_its_tournaments_and_learns_their_systems(tmp_path):
    path = _second_schema_store(tmp_path, lambda store: store.add_tournament("Club night"))
    with Store(path) as store:
        assert store.tournaments()[0]["name"] == "Club night" and store.tournaments()[0]["system"] is None
        store.set_tournament_system(1, "swiss")
        store.set_tournament_system(1, "round_robin")  # the first round's choice stays
        assert store.tournaments()[0]["system"] == "swiss"
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == "3"


def test_a_player_entered_before_ratings_were_kept_can_be_rated_after_the_upgrade(tmp_path):
    path = _second_schema_store(tmp_path, lambda store: store.add_player("Ama"))
    with Store(path) as store:
        assert store.players()[0]["rating"] is None
        store.set_rating("Ama", 1850)
        assert store.players()[0]["rating"] == 1850
        store.set_rating("Ama", None)
        assert store.players()[0]["rating"] is None
        for bad in (-1, 10_000, float("nan"), True, "1800"):
            with pytest.raises(StoreError, match="from 0 to 9999"):
                store.set_rating("Ama", bad)
        with pytest.raises(StoreError, match="no player named 'Kofi'"):
            store.set_rating("Kofi", 1500)


def _open_at_once(args) -> str | None:
    path, barrier = args
    barrier.wait()
    try:
        Store(path).close()
    except StoreError as exc:
        return str(exc)
    return None


def test_processes_opening_a_new_record_file_at_once_all_succeed(tmp_path):
    import multiprocessing

    context = multiprocessing.get_context("fork")
    failures = []
    with context.Manager() as manager, context.Pool(4) as pool:
        for trial in range(12):
            barrier = manager.Barrier(4)
            failures += [f for f in pool.map(_open_at_once, [(tmp_path / f"new{trial}.sqlite3", barrier)] * 4) if f]
    assert failures == []
