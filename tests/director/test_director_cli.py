"""The director's commands: tokens, tables that report, exports from the director's store."""
from __future__ import annotations

import json

import pytest

from arbiter.cli import main
from arbiter.director_store import DirectorStore
from engines import check_record, load_rules
from tests.director.events import wari_game_events


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_token_is_printed_once_and_stored_as_a_hash(capsys, director_db):
    code, out, _ = run_cli(capsys, "director", "token", "--db", director_db, "--table", "Table 3")
    token = out.strip()
    assert code == 0 and len(token) >= 32
    with DirectorStore(director_db) as store:
        assert store.ingest("Table 3", token, wari_game_events(1)) == 2
        from arbiter.director_store import tables
        hashes = store._read(tables.select())
    assert token not in repr(hashes)


def test_export_gives_a_tables_current_game_as_a_record(capsys, director_db):
    with DirectorStore(director_db) as store:
        store.ingest("A", store.new_token("A"), wari_game_events(4))
    code, out, _ = run_cli(capsys, "export", "--db", director_db, "--table", "A", "--format", "record")
    record = json.loads(out)
    rules = load_rules(record["rules"])
    assert code == 0 and record["players"] == ["Ama", "Kofi"] and len(record["moves"]) == 4
    assert check_record(rules, rules.state_from_json(record["start"]),
                        [rules.move_from_json(m) for m in record["moves"]])["legal"]
    code, out, _ = run_cli(capsys, "export", "--db", director_db, "--table", "A", "--format", "moves")
    assert out.splitlines()[0].startswith("1. South ")
    code, _, err = run_cli(capsys, "export", "--db", director_db, "--table", "B", "--format", "record")
    assert code == 2 and "no table named 'B'" in err


@pytest.mark.parametrize("extra, fragment", [
    (["--director", "http://127.0.0.1:9"], "--director needs --table"),
    (["--director", "http://127.0.0.1:9", "--table", "A"], "--director needs the table's token"),
    (["--director", "10.0.0.2:8100", "--table", "A", "--token", "t"], "expected the director's address"),
])
@pytest.mark.parametrize("command", ["run", "serve"])
def test_a_table_that_cannot_report(capsys, tmp_path, monkeypatch, extra, fragment, command):
    monkeypatch.delenv("ARBITER_DIRECTOR_TOKEN", raising=False)
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps({"game": "wari"}))
    code, _, err = run_cli(capsys, command, "--game", "wari", "--camera", "usb:0", "--profile", str(profile),
                           "--db", str(tmp_path / "t.sqlite3"), *extra)
    assert code == 2 and err.count("\n") == 1 and fragment in err


def test_export_from_a_tables_own_store_picks_that_tables_latest_match(capsys, tmp_path):
    from arbiter.store import Store

    db = tmp_path / "shared.sqlite3"
    rules = load_rules({"game": "wari"})
    with Store(db) as store:
        for table, players in (("A", ("Ama", "Kofi")), ("B", ("Esi", "Yaw"))):
            ids = [store.add_player(name) for name in players]
            game = store.new_game(store.new_match(rules.to_json(), ids, table=table))
            store.log(game, "start", rules.start().to_json())
    code, out, _ = run_cli(capsys, "export", "--db", str(db), "--table", "A", "--format", "record")
    assert code == 0 and json.loads(out)["players"] == ["Ama", "Kofi"]
    code, _, err = run_cli(capsys, "export", "--db", str(db), "--table", "C", "--format", "record")
    assert code == 2 and "table 'C' has played no match" in err


def test_a_tables_own_store_or_a_damaged_file_is_not_taken_for_a_directors(capsys, tmp_path):
    from arbiter.store import Store

    table_store = tmp_path / "table.sqlite3"
    Store(table_store).close()
    code, _, err = run_cli(capsys, "director", "token", "--db", str(table_store), "--table", "A")
    assert code == 2 and "not a director's store (it holds other tables: games" in err
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"\x00garbage" * 1000)
    code, _, err = run_cli(capsys, "director", "token", "--db", str(damaged), "--table", "A")
    assert code == 2 and err.startswith("arbiter: error: director database") and err.count("\n") == 1
    code, _, err = run_cli(capsys, "director", "token", "--db", "mysql://x@y/z", "--table", "A")
    assert code == 2 and "expected a SQLite path or a postgresql:// URL" in err
