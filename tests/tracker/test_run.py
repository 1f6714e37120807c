"""`arbiter run` turns bad input into one clear line and exit status 2."""
from __future__ import annotations

import argparse
import json

import pytest

from arbiter.cli import main
from arbiter.run import export_results
from device.simulated import scripted_positions
from arbiter.store import Store
from engines import ArbiterError, load_rules


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["run", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(tmp_path, name, obj) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return str(path)


def one_line_error(code, err, fragment) -> None:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arbiter: error: ") and fragment in lines[0], err


def test_a_profile_of_another_game(capsys, tmp_path):
    profile = write(tmp_path, "p.json", {"game": "varanasi"})
    code, _, err = run(capsys, "--game", "wari", "--camera", "usb:0", "--profile", profile)
    one_line_error(code, err, "a calibration profile for varanasi, but --game is wari")


def test_rules_of_another_game(capsys, tmp_path):
    profile = write(tmp_path, "p.json", {"game": "wari"})
    rules = write(tmp_path, "r.json", {"game": "varanasi"})
    code, _, err = run(capsys, "--game", "wari", "--camera", "usb:0", "--profile", profile, "--rules", rules)
    one_line_error(code, err, "rules of varanasi, but --game is wari")


@pytest.mark.parametrize("camera, fragment", [
    ("usb:first", "expected usb:N"),
    ("sim:varanasi", "simulates varanasi, but the game is wari"),
    ("sim:wari:x", "the seed must be a whole number"),
    ("warp:9", "unknown camera 'warp:9'"),
])
def test_bad_camera_specs(capsys, tmp_path, camera, fragment):
    profile = write(tmp_path, "p.json", {"game": "wari"})
    code, _, err = run(capsys, "--game", "wari", "--camera", camera, "--profile", profile)
    one_line_error(code, err, fragment)


def test_a_corrupt_database(capsys, tmp_path):
    profile = write(tmp_path, "p.json", {"game": "wari"})
    db = tmp_path / "bad.sqlite3"
    db.write_bytes(b"\x00garbage" * 1000)
    code, _, err = run(capsys, "--game", "wari", "--camera", "usb:0", "--profile", profile, "--db", str(db))
    one_line_error(code, err, "not an Arbiter database or the file is corrupt")


def test_a_missing_video_file(capsys, tmp_path):
    profile = write(tmp_path, "p.json", {"game": "wari"})
    code, _, err = run(capsys, "--game", "wari", "--camera", f"file:{tmp_path / 'none.mp4'}", "--profile", profile,
                       "--db", str(tmp_path / "a.sqlite3"))
    one_line_error(code, err, "no such video file")


def test_a_scripted_game_is_legal_and_stops_at_the_end():
    rules = load_rules({"game": "varanasi"})
    start = rules.state_from_json({"game": "varanasi", "stacks": [["4red", "2blue"], ["3green"]]})
    states = scripted_positions(rules, start, 50, seed=1)
    assert rules.is_over(states[-1]) and len(states) < 50
    for before, after in zip(states, states[1:]):
        assert rules.explain(before, after).legal


def test_export_prints_the_latest_match_as_json_or_csv(capsys, tmp_path):
    db = tmp_path / "a.sqlite3"
    with Store(db) as store:
        game = store.new_game(store.new_match({"game": "wari"}))
        store.log(game, "start", {"game": "wari", "pits": [4] * 12, "stores": [0, 0], "to_move": "south"})
    assert export_results(argparse.Namespace(db=str(db), match=None, format="json")) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["games"][0]["moves"][0]["verdict"] == "start"
    export_results(argparse.Namespace(db=str(db), match=None, format="csv"))
    assert capsys.readouterr().out.splitlines()[1].startswith("1,1,1,")


def test_export_of_a_missing_database_does_not_create_one(tmp_path):
    with pytest.raises(ArbiterError, match="no such record database"):
        export_results(argparse.Namespace(db=str(tmp_path / "none.sqlite3"), match=None, format="json"))
    assert not (tmp_path / "none.sqlite3").exists()
