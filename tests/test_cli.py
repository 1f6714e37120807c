"""The CLI turns every kind of bad input into one line on stderr and a non-zero exit."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arbiter.cli import main


def run_cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def assert_one_line_error(code, out, err, *fragments):
    assert code != 0
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("arbiter: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


def test_check_missing_file(capsys, tmp_path):
    assert_one_line_error(*run_cli(capsys, "check", str(tmp_path / "nope.json")), "no such game record")


def test_check_malformed_json(capsys, tmp_path):
    record = write(tmp_path, "bad.json", '{"rules": {"game": "wari"}, "moves": [')
    assert_one_line_error(*run_cli(capsys, "check", record), "malformed JSON", "line 1")


def test_check_unknown_game(capsys, tmp_path):
    record = write(tmp_path, "r.json", {"rules": {"game": "chess"}, "moves": []})
    assert_one_line_error(*run_cli(capsys, "check", record), "unknown game 'chess'")


def test_check_unknown_record_key(capsys, tmp_path):
    record = write(tmp_path, "r.json", {"rules": {"game": "wari"}, "moves": [], "colour": "red"})
    assert_one_line_error(*run_cli(capsys, "check", record), "unknown record keys: colour")


def test_check_record_not_an_object(capsys, tmp_path):
    record = write(tmp_path, "r.json", [1, 2, 3])
    assert_one_line_error(*run_cli(capsys, "check", record), "a record is an object")


def test_recognize_profile_of_unknown_game(capsys, tmp_path):
    profile = write(tmp_path, "p.json", {"game": "chess"})
    image = write(tmp_path, "i.jpg", "not really a jpeg")
    assert_one_line_error(*run_cli(capsys, "recognize", "--profile", profile, image), "not an Arbiter calibration profile")


def test_calibrate_unreadable_image(capsys, tmp_path):
    image = write(tmp_path, "cal.jpg", "garbage")
    code, out, err = run_cli(capsys, "calibrate", "wari", "--image", image, "--out", str(tmp_path / "p.json"))
    assert_one_line_error(code, out, err, "not a readable image")
    assert not (tmp_path / "p.json").exists()


def test_calibrate_empty_image(capsys, tmp_path):
    image = write(tmp_path, "cal.jpg", "")
    assert_one_line_error(
        *run_cli(capsys, "calibrate", "wari", "--image", image, "--out", str(tmp_path / "p.json")), "empty"
    )


def test_console_script_entry_point_reports_errors_without_traceback(tmp_path):
    record = write(tmp_path, "bad.json", "{")
    proc = subprocess.run(
        [sys.executable, "-m", "arbiter", "check", record], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("arbiter: error: ")


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["check"]])
def test_usage_errors_exit_non_zero(argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2



def test_os_errors_are_one_line(capsys, monkeypatch):
    from arbiter import cli

    def refuse(args):
        raise PermissionError(13, "Permission denied", "/root/profile.json")

    monkeypatch.setattr(cli, "cmd_check", refuse)
    assert_one_line_error(*run_cli(capsys, "check", "x.json"), "/root/profile.json: Permission denied")


def test_explain_varanasi_relocation(capsys, tmp_path):
    rules = write(tmp_path, "rules.json", {"game": "varanasi", "players": 2})
    before = write(tmp_path, "b.json", {"game": "varanasi", "stacks": [["4red", "2blue"], ["4green", "3green"]], "to_move": 0})
    after = write(tmp_path, "a.json", {"game": "varanasi", "stacks": [["4red"], ["4green", "3green", "2blue"]], "to_move": 1})
    code, out, err = run_cli(capsys, "explain", "--rules", rules, before, after)
    assert code == 0, err
    verdict = json.loads(out)
    assert verdict == {"legal": True, "moves": [{"move": "2blue", "onto": "3green"}], "reason": None}


def test_explain_varanasi_relocation_that_does_not_rise(capsys, tmp_path):
    rules = write(tmp_path, "rules.json", {"game": "varanasi", "players": 2})
    before = write(tmp_path, "b.json", {"game": "varanasi", "stacks": [["4red", "2blue"], ["3green"]], "to_move": 0})
    after = write(tmp_path, "a.json", {"game": "varanasi", "stacks": [["4red"], ["3green", "2blue"]], "to_move": 1})
    code, out, err = run_cli(capsys, "explain", "--rules", rules, before, after)
    verdict = json.loads(out)
    assert verdict["legal"] is False and "must end higher" in verdict["reason"]


def test_explain_impossible_after_position_is_a_verdict(capsys, tmp_path):
    rules = write(tmp_path, "rules.json", {"game": "varanasi"})
    before = write(tmp_path, "b.json", {"game": "varanasi", "stacks": [["4red", "1blue"], ["2green"]]})
    after = write(tmp_path, "a.json", {"game": "varanasi", "stacks": [["4red"], ["1blue", "2green"]]})
    code, out, err = run_cli(capsys, "explain", "--rules", rules, before, after)
    assert code == 0, err
    verdict = json.loads(out)
    assert verdict["legal"] is False and verdict["moves"] == []
    assert "2green" in verdict["reason"] and "1blue" in verdict["reason"]


def test_explain_impossible_before_position_is_an_error(capsys, tmp_path):
    rules = write(tmp_path, "rules.json", {"game": "varanasi"})
    before = write(tmp_path, "b.json", {"game": "varanasi", "stacks": [["1blue", "2green"]]})
    after = write(tmp_path, "a.json", {"game": "varanasi", "stacks": [["2green"]]})
    assert_one_line_error(*run_cli(capsys, "explain", "--rules", rules, before, after), "2green", "1blue")


def test_check_varanasi_record_stops_at_first_illegal_move(capsys, tmp_path):
    record = write(tmp_path, "r.json", {
        "rules": {"game": "varanasi"},
        "start": {"game": "varanasi", "stacks": [["4red", "2blue"], ["3green", "1red"]], "to_move": 0},
        "moves": [{"take": "red"}, {"take": "red"}, {"take": "blue"}],
    })
    code, out, err = run_cli(capsys, "check", record)
    assert code == 1, err  # the contract: 1 when a move is illegal, 2 on bad input
    report = json.loads(out)
    assert report["legal"] is False and report["first_illegal"] == 1
    assert "red" in report["reason"]
    assert sorted(report["final"]["stacks"]) == [["3green"], ["4red", "2blue"]]
    assert report["result"]["over"] is False


def test_export_of_a_missing_database_is_refused_without_creating_it(capsys, tmp_path):
    db = tmp_path / "records.sqlite3"
    assert_one_line_error(*run_cli(capsys, "export", "--db", str(db)), "no such record database")
    assert not db.exists()
