"""The CLI as players and directors use it: exit codes, version, named seats, records that
`export` writes and `check` reads back."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from arbiter.cli import main
from arbiter.store import Store
from device.simulated import scripted_positions
from engines import load_rules

WARI = {"game": "wari", "variant": "pbmserv"}


def recorded_game(path, plies=30, corrected_at=None, undo_at=None, players=("Ama", "Kofi")) -> list:
    """A Wari game logged as the tracker logs one; returns the positions it went through."""
    rules = load_rules(WARI)
    states = scripted_positions(rules, rules.start(), plies, seed=7)
    with Store(path) as store:
        ids = [store.add_player(name) for name in players]
        game_id = store.new_game(store.new_match(rules.to_json(), ids))
        store.log(game_id, "start", states[0].to_json())
        for index, (before, after) in enumerate(zip(states, states[1:])):
            if index == corrected_at:
                store.log(game_id, "override", before.to_json())
            move = next(m for m in rules.legal_moves(before) if rules.apply(before, m) == after)
            store.log(game_id, "move", after.to_json(), move=move.to_json())
            if index == undo_at:
                store.log(game_id, "undo", before.to_json())
                store.log(game_id, "move", after.to_json(), move=move.to_json())
    return states


def run_cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_exits_1_on_an_illegal_record_and_0_on_a_legal_one(capsys, tmp_path):
    record = {"rules": WARI, "moves": [{"player": "south", "pit": "a"}, {"player": "south", "pit": "b"}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 1 and json.loads(out)["first_illegal"] == 1
    path.write_text(json.dumps({**record, "moves": record["moves"][:1]}))
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and json.loads(out)["legal"] is True


def test_version_is_printed(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0 and capsys.readouterr().out.startswith("arbiter ")


def test_every_argument_of_every_command_has_help_and_shown_defaults():
    import argparse

    from arbiter.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert set(commands) >= {"check", "explain", "calibrate", "recognize", "replay", "run", "export", "serve", "demo"}
    for name, command in commands.items():
        for action in command._actions:
            if not isinstance(action, argparse._HelpAction):
                assert action.help, f"arbiter {name} {action.dest} has no help"
        text = command.format_help()
        for action in command._actions:
            if action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
                assert f"(default: {action.default})" in " ".join(text.split()), (name, action.dest)


@pytest.mark.parametrize("port", ["0", "70000", "http"])
def test_a_port_out_of_range_is_refused_in_one_line(capsys, port):
    with pytest.raises(SystemExit) as stopped:
        main(["demo", "--port", port])
    assert stopped.value.code == 2 and "invalid port value" in capsys.readouterr().err


@pytest.mark.parametrize("players", ["Ama", "Ama,Ama", "Ama,,Kofi", "Ama,Kofi,Esi"])
def test_players_must_name_each_seat_once(capsys, tmp_path, players):
    (tmp_path / "p.json").write_text(json.dumps({"game": "wari"}))
    code, out, err = run_cli(capsys, "run", "--game", "wari", "--camera", "folder:" + str(tmp_path),
                             "--profile", str(tmp_path / "p.json"), "--players", players)
    assert code == 2 and out == "" and "--players needs 2 different names" in err


def test_an_exported_record_is_checked_legal_and_replays_to_the_stored_position(capsys, tmp_path):
    db = tmp_path / "a.sqlite3"
    states = recorded_game(db, corrected_at=10, undo_at=20)
    code, out, _ = run_cli(capsys, "export", "--db", str(db), "--format", "record")
    record = json.loads(out)
    assert code == 0 and record["players"] == ["Ama", "Kofi"]
    # The correction re-starts the record at the position the players stated.
    assert record["start"] == states[10].to_json() and len(record["moves"]) == len(states) - 11
    path = tmp_path / "record.json"
    path.write_text(out)  # as written, players included
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and json.loads(out)["final"] == states[-1].to_json()


@pytest.mark.parametrize("players, fragment", [
    ("Ama,Kofi", "a list of 2 names"),
    (["Ama"], "a list of 2 names"),
    (["Ama", "Kofi", "Efua"], "a list of 2 names"),
    (["Ama", 7], "a list of 2 names"),
    (["Ama", " "], "a list of 2 names"),
])
def test_a_record_naming_players_that_do_not_fit_its_seats_is_refused(capsys, tmp_path, players, fragment):
    path = tmp_path / "record.json"
    path.write_text(json.dumps({"rules": WARI, "moves": [], "players": players}))
    code, out, err = run_cli(capsys, "check", str(path))
    assert code == 2 and out == "" and err.startswith("arbiter: error: ") and fragment in err
    assert len(err.splitlines()) == 1


def test_exported_moves_are_numbered_in_table_notation(capsys, tmp_path):
    db = tmp_path / "a.sqlite3"
    states = recorded_game(db, plies=6)
    code, out, _ = run_cli(capsys, "export", "--db", str(db), "--format", "moves")
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(states) - 1
    assert [line.split(". ")[0] for line in lines] == [str(n) for n in range(1, len(states))]
    assert lines[0].split(". ")[1] in {f"South {pit}" for pit in "abcdef"}


def test_export_into_a_closed_pipe_stops_quietly(tmp_path):
    db = tmp_path / "a.sqlite3"
    recorded_game(db, plies=200)
    with Store(db) as store:  # enough rows to fill the pipe's buffer many times over
        game_id = store.games(store.matches()[-1]["id"])[-1]["id"]
        state = store.moves(game_id)[-1].state
        for _ in range(2000):
            store.log(game_id, "restored", state)
    reader = subprocess.Popen([sys.executable, "-m", "arbiter", "export", "--db", str(db), "--format", "csv"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader.stdout.read(100)
    reader.stdout.close()
    reader.wait(60)
    assert reader.stderr.read() == b"" and reader.returncode in (0, 141)


@pytest.mark.parametrize("output_format", ["json", "record", "moves", "csv"])
def test_export_into_a_pipe_its_reader_closed_stops_quietly_as_killed_by_sigpipe(tmp_path, output_format):
    """`arbiter export | head -c 10` where head is gone before the first write."""
    db = tmp_path / "a.sqlite3"
    recorded_game(db)
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write now fails: the reader went away
    try:
        writer = subprocess.run([sys.executable, "-m", "arbiter", "export", "--db", str(db), "--format", output_format],
                                stdout=write_end, stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(write_end)
    assert writer.stderr == b"" and writer.returncode == 128 + signal.SIGPIPE


def test_recognize_lines_are_valid_input_to_explain(capsys, tmp_path):
    """`arbiter recognize` prints no turn (a camera cannot see it): explain tries each side."""
    rules = load_rules(WARI)
    before = rules.apply(rules.start(), rules.move_from_json({"player": "south", "pit": "c"}))
    after = rules.apply(before, rules.move_from_json({"player": "north", "pit": "a"}))
    paths = []
    for name, state in (("a.json", before), ("b.json", after)):
        seen = {key: value for key, value in state.to_json().items() if key in ("game", "pits", "stores")}
        (tmp_path / name).write_text(json.dumps({"image": name, "state": seen, "confidence": 0.9, "evidence": {}}))
        paths.append(str(tmp_path / name))
    (tmp_path / "rules.json").write_text(json.dumps(WARI))
    code, out, _ = run_cli(capsys, "explain", "--rules", str(tmp_path / "rules.json"), *paths)
    assert code == 0 and json.loads(out) == {"legal": True, "moves": [{"player": "north", "pit": "a"}], "reason": None}


EXAMPLES = sorted((__import__("pathlib").Path(__file__).resolve().parents[1] / "examples").glob("*.json"))


def test_there_is_an_example_record_for_every_game():
    from engines import game_names

    games = {json.loads(path.read_text())["rules"]["game"] for path in EXAMPLES}
    assert games == set(game_names())


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_every_example_is_checked_with_the_exit_status_of_its_verdict(capsys, path):
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == (0 if json.loads(out)["legal"] else 1)
    assert code == (1 if "must-feed" in path.stem else 0)


def test_the_moves_csv_holds_each_position_without_its_history(capsys, tmp_path):
    db = tmp_path / "a.sqlite3"
    recorded_game(db, plies=40)
    code, out, _ = run_cli(capsys, "export", "--db", str(db), "--format", "csv")
    assert code == 0 and '""pits""' in out and "seen" not in out


def test_export_defaults_to_the_match_played_last_not_a_later_pairing(capsys, tmp_path):
    db = tmp_path / "a.sqlite3"
    states = recorded_game(db, plies=6)
    with Store(db) as store:
        tournament = store.add_tournament("Club night")
        store.new_match(WARI, [store.add_player("Esi"), store.add_player("Yaw")], tournament)  # paired, unplayed
    code, out, _ = run_cli(capsys, "export", "--db", str(db), "--format", "record")
    assert code == 0 and json.loads(out)["players"] == ["Ama", "Kofi"] and len(json.loads(out)["moves"]) == len(states) - 1


def test_recognize_refuses_a_profile_whose_board_maps_to_no_area(capsys, tmp_path):
    import cv2

    from device.synthetic_wari import render_board

    photo = tmp_path / "start.png"
    cv2.imwrite(str(photo), render_board([4] * 12))
    (tmp_path / "p.json").write_text(json.dumps({"game": "wari", "board": {
        "homography": [0.0] * 9, "image_size": [1280, 960], "row_spacing": 1.0, "pit_radius": 0.4,
        "store_offset": 1.0, "store_half_length": 1.0, "store_half_width": 0.4}}))
    code, out, _ = run_cli(capsys, "recognize", "--profile", str(tmp_path / "p.json"), str(photo))
    assert code == 1 and "degenerate" in json.loads(out)["error"]
