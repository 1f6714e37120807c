"""kill -9 in mid-game loses nothing committed: a restart resumes the game where it stood."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from arbiter.store import Store
from engines import load_rules
from tests.tracker.fakes import random_varanasi_game

ROOT = Path(__file__).resolve().parents[2]

# A real process judging a scripted table: the real store, tracker, gate and engine; only the
# recogniser is scripted. Frames come 100 per second so the test stays short.
DRIVER = """
import json, sys, time
from arbiter.store import Store
from arbiter.matches import open_game
from arbiter.tracker import Tracker
from device.cameras import SimulatedCamera
from engines import load_rules
from tests.tracker.fakes import ScriptedRecogniser, position_frame

states, first, db = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
rules = load_rules({"game": "varanasi"})
store = Store(db)
tracker = Tracker(rules, {"game": "varanasi"}, store, open_game(store, rules), recognize=ScriptedRecogniser(states))
tracker.subscribe(lambda e: print(json.dumps(e), flush=True) if e["type"] == "transition" else None)
camera = SimulatedCamera([position_frame(i) for i in range(first, len(states))])
camera.open()
while (frame := camera.read()) is not None:
    tracker.feed(frame.image, frame.at)
    time.sleep(0.01)
"""


def start_driver(tmp_path: Path, first: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path / "states.json"), str(first),
                             str(tmp_path / "game.sqlite3")], cwd=ROOT, stdout=subprocess.PIPE, text=True)


def test_kill_minus_nine_mid_game_then_restart(tmp_path):
    states = random_varanasi_game(load_rules({"game": "varanasi"}), 11, plies=7, discs=12)
    assert len(states) == 8
    (tmp_path / "states.json").write_text(json.dumps([s.to_json() for s in states]))

    driver = start_driver(tmp_path, 0)
    for _ in range(4):  # the opening and three moves judged...
        assert json.loads(driver.stdout.readline())["legal"]
    os.kill(driver.pid, signal.SIGKILL)  # ...then the power goes, whatever it was doing
    driver.wait(10)
    driver.stdout.close()

    with Store(tmp_path / "game.sqlite3") as store:
        game_id = store.unfinished_game("varanasi")
        history = store.game_history(game_id)
    assert len(history) >= 4 and history == [s.to_json() for s in states[:len(history)]]

    # While the process was down the players made one more move: the table shows the next position.
    restarted = start_driver(tmp_path, len(history))
    output, _ = restarted.communicate(timeout=60)
    assert restarted.returncode == 0
    transitions = [json.loads(line) for line in output.splitlines()]
    assert [t["verdict"] for t in transitions] == ["move"] * (len(states) - len(history))

    with Store(tmp_path / "game.sqlite3") as store:
        assert store.unfinished_game("varanasi") == game_id
        assert store.game_history(game_id) == [s.to_json() for s in states]
        assert [m.verdict for m in store.moves(game_id)] == ["start"] + ["move"] * (len(states) - 1)
