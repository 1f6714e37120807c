"""The live tracker: camera frames in, judged moves, alerts and corrections out, all on disk."""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

from arbiter.store import Store
from arbiter.matches import open_game
from arbiter.tracker import ProfileMismatch, Tracker
from device.cameras import CameraLost, Frame, SimulatedCamera
from engines import ArbiterError, load_rules
from tests.tracker.fakes import ScriptedRecogniser, position_frame, random_varanasi_game

RULES = load_rules({"game": "varanasi"})
PROFILE = {"game": "varanasi"}


def game_states(seed: int, plies: int) -> list:
    states = random_varanasi_game(RULES, seed, plies, discs=10)
    assert len(states) == plies + 1  # ten discs last longer than the plies asked for
    return states


def make_tracker(tmp_path, readings: list, **kwargs) -> tuple[Tracker, list]:
    store = Store(tmp_path / "t.sqlite3")
    kwargs.setdefault("recognize", ScriptedRecogniser(readings))
    tracker = Tracker(RULES, PROFILE, store, open_game(store, RULES), **kwargs)
    events = []
    tracker.subscribe(events.append)
    return tracker, events


def show(tracker: Tracker, order: list[int]) -> None:
    tracker.run(SimulatedCamera([position_frame(i) for i in order]))


def of_type(events, kind) -> list:
    return [e for e in events if e["type"] == kind]


def test_a_game_is_judged_move_by_move_and_logged(tmp_path):
    states = game_states(1, 6)
    recogniser = ScriptedRecogniser([s.to_json() for s in states])
    tracker, events = make_tracker(tmp_path, [], recognize=recogniser)
    show(tracker, list(range(len(states))))
    transitions = of_type(events, "transition")
    assert [t["verdict"] for t in transitions] == ["start"] + ["move"] * 6
    assert [t["state"] for t in transitions[1:]] == [s.to_json() for s in states[1:]]
    assert {"hand", "stable"} <= {e["status"] for e in of_type(events, "status")}
    log = tracker.store.moves(tracker.game_id)
    assert [m.verdict for m in log] == ["start"] + ["move"] * 6
    assert log[3].move == transitions[3]["move"]
    assert recogniser.calls == len(states)  # one reading per settled position, none with a hand


def test_an_illegal_move_is_alerted_with_snapshots_then_restored(tmp_path):
    states = game_states(2, 2)
    broken = {"game": "varanasi", "stacks": [list(t) for t in states[1].to_json()["stacks"]] + [["4purple"]]}
    tracker, events = make_tracker(tmp_path, [s.to_json() for s in states] + [broken])
    show(tracker, [0, 1, 3, 3, 1, 2])  # a hand passes over the wrong table before it is put right
    illegal = of_type(events, "illegal")
    assert len(illegal) == 1 and "4purple" in illegal[0]["reason"] and illegal[0]["legal"] is False
    assert Path(illegal[0]["snapshot_before"]).is_file() and Path(illegal[0]["snapshot_after"]).is_file()
    assert len(of_type(events, "restored")) == 1
    assert [t["verdict"] for t in of_type(events, "transition")] == ["start", "move", "move"]
    assert tracker.judge.state == states[2]


def test_the_pictures_of_an_illegal_move_are_saved_with_their_readings_drawn(tmp_path):
    import cv2

    states = game_states(2, 2)
    broken = {"game": "varanasi", "stacks": [list(t) for t in states[1].to_json()["stacks"]] + [["4purple"]]}
    drawn = []

    expected = []

    def mark(image, observation, should):
        """Stands in for the recogniser's overlay: a white square, and which reading it drew."""
        drawn.append(observation.to_json()["state"])
        expected.append(should)
        marked = image.copy()
        marked[:20, :20] = 255
        return marked

    tracker, events = make_tracker(tmp_path, [s.to_json() for s in states] + [broken], mark=mark)
    show(tracker, [0, 1, 3, 3])  # 4purple is not in play: flagged when seen a second time
    illegal = of_type(events, "illegal")[0]
    # The picture before shows the reading of the last legal position, the one after the wrong table's.
    assert [len(d["stacks"]) for d in drawn] == [len(states[1].to_json()["stacks"]), len(broken["stacks"])]
    for side in ("snapshot_before", "snapshot_after"):
        assert (cv2.imread(illegal[side])[:20, :20] > 200).all()
    # Moves judged legal are saved without pictures: nothing else was drawn.
    assert len(drawn) == 2
    # Both are marked against a legal position: the one before, and the nearest one after it.
    assert expected[0]["stacks"] == states[1].to_json()["stacks"]
    assert expected[1] is not None and expected[1]["game"] == "varanasi"


def test_players_accept_the_table_after_an_illegal_move(tmp_path):
    start = {"game": "varanasi", "stacks": [["4red", "2blue"], ["3green"]]}
    green_taken = {"game": "varanasi", "stacks": [["4red", "2blue"]]}
    disc_added = {"game": "varanasi", "stacks": [["4red", "2blue"], ["1yellow"]]}
    tracker, events = make_tracker(tmp_path, [start, green_taken, disc_added])
    with pytest.raises(ArbiterError, match="no illegal move"):
        tracker.accept_table()
    show(tracker, [0, 1, 2, 2])  # a disc not in play: taken as misread once, flagged when seen again
    assert "discs appeared: 1yellow" in of_type(events, "illegal")[0]["reason"]
    tracker.accept_table()
    assert tracker.judge.state.to_json() == {**disc_added, "to_move": 0}
    assert [m.verdict for m in tracker.store.moves(tracker.game_id)] == ["start", "move", "illegal", "accept"]


def test_a_free_set_up_may_change_until_the_first_move(tmp_path):
    building = [{"game": "varanasi", "stacks": [["4red"]]},
                {"game": "varanasi", "stacks": [["4red"], ["3green"]]},
                {"game": "varanasi", "stacks": [["4red", "2blue"], ["3green"]]},
                {"game": "varanasi", "stacks": [["4red", "2blue"]]},
                {"game": "varanasi", "stacks": [["4red", "2blue"], ["1white"]]}]
    tracker, events = make_tracker(tmp_path, building)
    # 1white, not in play, is taken for a misread once; seen again after a hand, it is flagged.
    show(tracker, [0, 1, 2, 3, 4, 4])
    verdicts = [e["verdict"] for e in events if e["type"] in ("transition", "illegal")]
    assert verdicts == ["start", "start", "start", "move", "illegal"]  # after a move, no more building
    assert tracker.store.game_history(tracker.game_id) == [{**building[2], "to_move": 0},
                                                           {**building[3], "to_move": 1}]


def test_two_moves_between_pictures_are_flagged_and_can_be_accepted(tmp_path):
    states = game_states(8, 3)
    tracker, events = make_tracker(tmp_path, [s.to_json() for s in states])
    show(tracker, [0, 1, 3])
    (alert,) = of_type(events, "illegal")
    assert alert["verdict"] == "two_moves" and len(alert["moves"]) == 2
    assert tracker.judge.state == states[1]
    tracker.accept_table()
    assert tracker.judge.state == states[3]
    accepted = tracker.store.moves(tracker.game_id)[-1]
    assert accepted.verdict == "accept" and accepted.move == alert["moves"]


def test_play_going_on_after_a_missed_picture_records_every_move(tmp_path):
    states = game_states(8, 4)
    tracker, events = make_tracker(tmp_path, [s.to_json() for s in states])
    show(tracker, [0, 1, 3, 4])
    assert len(of_type(events, "illegal")) == 1  # asked once, then play went on from the table
    last = of_type(events, "transition")[-1]
    assert last["legal"] and len(last["moves"]) == 3 and "played on" in last["note"]
    assert tracker.judge.history == states
    assert tracker.store.game_history(tracker.game_id)[-1] == states[4].to_json()


def test_a_correction_is_recorded_as_an_override(tmp_path):
    states = game_states(4, 1)
    tracker, events = make_tracker(tmp_path, [s.to_json() for s in states])
    show(tracker, [0])
    tracker.set_position(states[1].to_json())
    assert tracker.judge.state == states[1]
    assert of_type(events, "override")[0]["position"] == states[1].to_json()
    with pytest.raises(ArbiterError):
        tracker.set_position({"game": "varanasi", "stacks": [["2red", "4red"]]})


def test_a_restart_resumes_where_the_game_stood(tmp_path):
    states = game_states(5, 4)
    readings = [s.to_json() for s in states]
    first, _ = make_tracker(tmp_path, readings)
    show(first, [0, 1, 2])
    first.store.close()
    second, events = make_tracker(tmp_path, readings)
    assert second.game_id == first.game_id and second.judge.state == states[2]
    show(second, [2, 3, 4])
    assert [t["verdict"] for t in of_type(events, "transition")] == ["move", "move"]
    assert second.store.game_history(second.game_id)[-1] == states[4].to_json()


def test_the_end_of_a_set_is_scored_and_a_cleared_table_starts_the_next(tmp_path):
    start = {"game": "varanasi", "stacks": [["4red"], ["3blue", "1red"]]}
    after_take = {"game": "varanasi", "stacks": [["3blue"]]}
    empty = {"game": "varanasi", "stacks": []}
    next_set = {"game": "varanasi", "stacks": [["4green", "2blue"], ["3red"]]}
    tracker, events = make_tracker(tmp_path, [start, after_take, empty, next_set])
    first_game = tracker.game_id
    show(tracker, [0, 1, 2, 3])
    over = of_type(events, "over")
    assert len(over) == 1 and over[0]["result"] == {"over": True, "winner": 1, "scores": {0: 0, 1: 1}}
    assert tracker.store.game(first_game)["result"]["winner"] == 1
    assert tracker.game_id != first_game and tracker.judge.state.to_json()["stacks"] == next_set["stacks"]


def test_no_board_for_too_long_means_the_profile_does_not_match(tmp_path):
    recogniser = ScriptedRecogniser([{"game": "varanasi", "stacks": [["4red"]]}])
    tracker, events = make_tracker(tmp_path, [], recognize=recogniser, no_board_timeout=3.0)
    dark = np.zeros_like(position_frame(0))
    with pytest.raises(ProfileMismatch, match="no board found for 3 s"):
        tracker.run(SimulatedCamera([dark], still_frames=60))
    assert of_type(events, "status")[-1]["status"] == "no_board"
    assert recogniser.calls == 4  # settled at 0.7 s, then once a second: 1.7, 2.7, 3.7 s


class FlakyCamera:
    """Loses the connection once, mid-game, then comes back."""

    name = "flaky"

    def __init__(self, frames):
        self.frames = frames
        self.index = 0
        self.opened = 0

    def open(self):
        self.opened += 1

    def read(self):
        if self.index == 25 and self.opened == 1:
            raise CameraLost("camera flaky stopped delivering frames")
        if self.index >= len(self.frames):
            return None
        self.index += 1
        return Frame(self.frames[self.index - 1], self.index / 10)

    def close(self):
        pass


def test_a_lost_camera_is_reported_and_reopened_without_losing_the_game(tmp_path):
    states = game_states(6, 2)
    tracker, events = make_tracker(tmp_path, [s.to_json() for s in states])
    frames = [position_frame(i) for i in (0, 1, 2) for _ in range(20)]
    tracker.run(FlakyCamera(frames), reopen_delay=0.01)
    assert [e["status"] for e in of_type(events, "camera")] == ["lost", "reopened"]
    assert "camera_lost" in [e["status"] for e in of_type(events, "status")]
    assert tracker.judge.state == states[2]


def test_a_camera_that_has_no_more_frames_is_reported_as_ended(tmp_path):
    # A recording played through (or the demo's simulated game at its end): the last position
    # stays judged, and a page opened afterwards is told the camera ended, not that the table is live.
    states = game_states(8, 1)
    tracker, events = make_tracker(tmp_path, [s.to_json() for s in states])
    show(tracker, [0, 1])
    assert of_type(events, "status")[-1]["status"] == "camera_ended"
    snapshot = tracker.snapshot()
    assert snapshot["status"] == "camera_ended" and snapshot["position"] == states[1].to_json()


def test_the_tracker_runs_on_a_background_thread(tmp_path):
    states = game_states(7, 2)
    tracker, _ = make_tracker(tmp_path, [s.to_json() for s in states])
    done = threading.Event()
    tracker.subscribe(lambda e: done.set() if e.get("verdict") == "move" and e["state"] == states[2].to_json()
                      else None)
    tracker.start(SimulatedCamera([position_frame(i) for i in range(3)]))
    assert done.wait(10)
    tracker.stop()
    assert tracker.snapshot()["position"] == states[2].to_json()


class FullDisk:
    """A SQLite connection on a disk that has just filled up: no move row fits, `failures` times
    (for ever when None)."""

    def __init__(self, connection, failures: int | None = None):
        self.connection = connection
        self.failures = failures

    def execute(self, sql, *args):
        if sql.startswith("INSERT INTO moves") and (self.failures is None or self.failures > 0):
            if self.failures is not None:
                self.failures -= 1
            raise sqlite3.OperationalError("database or disk is full")
        return self.connection.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.connection, name)

    def __enter__(self):
        return self.connection.__enter__()

    def __exit__(self, *exc):
        return self.connection.__exit__(*exc)


def test_a_store_that_fails_for_a_while_pauses_judging_and_loses_no_move(tmp_path):
    states = game_states(9, 3)
    tracker, events = make_tracker(tmp_path, [s.to_json() for s in states])
    show(tracker, [0, 1])
    tracker.store._db = FullDisk(tracker.store._db, failures=3)
    tracker.run(SimulatedCamera([position_frame(i) for i in (1, 2, 3)]), store_retry=0.01)
    assert tracker.judge.state == states[3]
    assert tracker.store.game_history(tracker.game_id) == [s.to_json() for s in states]
    failed = [e for e in of_type(events, "store") if e["status"] == "failed"]
    assert len(failed) == 3 and "disk is full" in failed[0]["message"]
    assert of_type(events, "store")[-1]["status"] == "resumed"
    assert "paused" in [e["status"] for e in of_type(events, "status")]


def test_a_store_that_stays_full_keeps_the_tracker_paused_until_stopped(tmp_path):
    states = game_states(9, 3)
    tracker, events = make_tracker(tmp_path, [s.to_json() for s in states])
    show(tracker, [0, 1])
    tracker.store._db = FullDisk(tracker.store._db)
    paused = threading.Event()
    tracker.subscribe(lambda event: paused.set() if event.get("status") == "paused" else None)
    tracker.start(SimulatedCamera([position_frame(i) for i in (1, 2, 3)]))
    assert paused.wait(10) and tracker.snapshot()["status"] == "paused"
    tracker.stop()
    assert tracker.judge.state == states[1]  # the move that could not be saved was not taken either
    tracker.store._db = tracker.store._db.connection
    assert tracker.store.game_history(tracker.game_id) == [s.to_json() for s in states[:2]]


def test_a_restart_after_a_finished_set_continues_the_same_match(tmp_path):
    start = {"game": "varanasi", "stacks": [["4red"], ["3blue", "1red"]]}
    readings = [start, {"game": "varanasi", "stacks": [["3blue"]]}, {"game": "varanasi", "stacks": []}]
    first, _ = make_tracker(tmp_path, readings)
    show(first, [0, 1, 2])
    finished = first.store.game(first.game_id)
    assert finished["result"]["winner"] == 1
    first.store.close()
    second, _ = make_tracker(tmp_path, readings)
    assert second.game_id != first.game_id
    assert second.store.game(second.game_id)["match_id"] == finished["match_id"]


def test_a_game_whose_result_was_not_saved_is_finished_on_restart(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    game_id = open_game(store, RULES)
    store.log(game_id, "start", {"game": "varanasi", "stacks": [["4red"]], "to_move": 0})
    store.log(game_id, "move", RULES.apply(RULES.state_from_json({"game": "varanasi", "stacks": [["4red"]]}),
                                           RULES.move_from_json({"take": "red"})).to_json())
    # The process died here, before the result was written.
    Tracker(RULES, PROFILE, store, game_id, recognize=ScriptedRecogniser([]))
    assert store.game(game_id)["result"] == {"over": True, "winner": 0, "scores": {"0": 1, "1": 0}}


def test_other_players_or_rules_begin_a_new_match(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    ann, bob, cy = (store.add_player(name) for name in ("Ann", "Bob", "Cy"))
    game = open_game(store, RULES, [ann, bob])
    assert open_game(store, RULES, [ann, bob]) == game
    assert open_game(store, RULES) == game  # no players named: the table's current match
    other_players = open_game(store, RULES, [ann, cy])
    wiki = open_game(store, load_rules({"game": "varanasi", "relocation": "wiki"}))
    matches = {store.game(g)["match_id"] for g in (game, other_players, wiki)}
    assert len(matches) == 3


def test_a_match_ends_when_the_engine_says_so_and_the_next_set_begins_a_new_one(tmp_path):
    rules = load_rules({"game": "varanasi", "sets": 1})
    store = Store(tmp_path / "t.sqlite3")
    start = {"game": "varanasi", "stacks": [["4red"], ["3blue", "1red"]]}
    readings = [start, {"game": "varanasi", "stacks": [["3blue"]]}, {"game": "varanasi", "stacks": []},
                {"game": "varanasi", "stacks": [["4green"]]}]
    tracker = Tracker(rules, PROFILE, store, open_game(store, rules), recognize=ScriptedRecogniser(readings))
    events = []
    tracker.subscribe(events.append)
    first_match = store.game(tracker.game_id)["match_id"]
    show(tracker, [0, 1, 2, 3])
    (standing,) = [e["standing"] for e in of_type(events, "match")]
    assert standing["over"] and standing["winners"] == [1] and standing["standings"] == {"0": 0, "1": 1}
    assert store.match(first_match)["result"] == standing
    assert store.game(tracker.game_id)["match_id"] != first_match


def test_a_tournament_pairing_seated_at_the_table_is_judged_into_its_match(tmp_path):
    rules = load_rules({"game": "varanasi", "sets": 1})
    store = Store(tmp_path / "t.sqlite3")
    ann, bob = store.add_player("Ann"), store.add_player("Bob")
    casual_game = open_game(store, rules)
    cup = store.add_tournament("Cup")
    pairing = store.new_match(rules.to_json(), [ann, bob], cup)
    # A restart goes on with the table's own game, not with a pairing it has never played.
    assert open_game(store, rules) == casual_game
    start = {"game": "varanasi", "stacks": [["4red"], ["3blue", "1red"]]}
    readings = [start, {"game": "varanasi", "stacks": [["3blue"]]}, {"game": "varanasi", "stacks": []},
                {"game": "varanasi", "stacks": [["4green"]]}]
    tracker = Tracker(rules, PROFILE, store, casual_game, recognize=ScriptedRecogniser(readings))
    events = []
    tracker.subscribe(events.append)
    tracker.play_match(pairing)
    assert store.game(tracker.game_id)["match_id"] == pairing
    assert of_type(events, "game") == [{"type": "game", "game_id": tracker.game_id}]
    show(tracker, [0, 1, 2, 3])
    assert store.match(pairing)["result"]["winners"] == [1]
    # Play going on after the pairing is decided is not another pairing of the tournament.
    assert [m["id"] for m in store.matches(cup)] == [pairing]
    assert store.game(casual_game)["finished_at"] is None  # kept, to be resumed


def test_only_an_undecided_match_of_the_tables_rules_can_be_seated(tmp_path):
    tracker, _ = make_tracker(tmp_path, [])
    store = tracker.store
    wiki = store.new_match(load_rules({"game": "varanasi", "relocation": "wiki"}).to_json())
    with pytest.raises(ArbiterError, match="this table judges"):
        tracker.play_match(wiki)
    decided = store.new_match(RULES.to_json())
    store.finish_match(decided, {"over": True, "winner": 0})
    with pytest.raises(ArbiterError, match="already decided"):
        tracker.play_match(decided)
    with pytest.raises(ArbiterError):
        tracker.play_match(9999)


def test_a_misread_wari_start_is_recorded_as_the_start_once_play_goes_on_from_it(tmp_path):
    wari = load_rules({"game": "wari"})
    start = wari.start()
    sown = wari.apply(start, wari.legal_moves(start)[0])
    misread = {**start.to_json(), "pits": [4] * 11 + [3]}
    store = Store(tmp_path / "t.sqlite3")
    tracker = Tracker(wari, {"game": "wari"}, store, open_game(store, wari),
                      recognize=ScriptedRecogniser([misread, sown.to_json()]))
    events = []
    tracker.subscribe(events.append)
    show(tracker, [0, 1])
    assert [e["verdict"] for e in of_type(events, "illegal")] == ["illegal"]
    assert [t["verdict"] for t in of_type(events, "transition")] == ["move"]
    assert [m.verdict for m in store.moves(tracker.game_id)] == ["illegal", "start", "move"]
    assert store.game_history(tracker.game_id) == [start.to_json(), sown.to_json()]


class _LiveStandIn:
    """A live camera: a frame every few milliseconds whether or not anyone judges them; a camera
    lost once after `lose_after` frames, and ending after `frames`."""

    live = True
    name = "live stand-in"

    def __init__(self, frames: int, lose_after: int | None = None):
        self.frames, self.lose_after, self.read_count, self.reads_while_judging = frames, lose_after, 0, 0
        self.judging = threading.Event()
        self.opened = 0

    def open(self):
        self.opened += 1

    def close(self):
        pass

    def read(self):
        import time

        time.sleep(0.004)
        self.read_count += 1
        if self.read_count == self.lose_after:
            raise CameraLost("stand-in lost")
        if self.read_count > self.frames:
            return None
        self.reads_while_judging += self.judging.is_set()
        return Frame(position_frame(0), time.monotonic())


def test_a_live_camera_is_read_on_while_a_picture_is_judged(tmp_path):
    import time

    states = game_states(3, 1)
    camera = _LiveStandIn(frames=400, lose_after=5)
    scripted = ScriptedRecogniser([states[0].to_json()])

    def slow_recognise(frame, profile):
        camera.judging.set()
        time.sleep(0.3)  # a verdict that takes a long time
        camera.judging.clear()
        return scripted(frame, profile)

    tracker, events = make_tracker(tmp_path, [], recognize=slow_recognise)
    tracker.run(camera, reopen_delay=0.01)
    # The camera kept delivering during the slow reading (a recording is not read meanwhile:
    # below); it was lost once and reopened, and its end ends the run.
    assert camera.reads_while_judging > 10
    assert camera.opened == 2 and [e["status"] for e in of_type(events, "camera")] == ["lost", "reopened"]
    assert [t["verdict"] for t in of_type(events, "transition")] == ["start"]
    assert tracker.status == "camera_ended"

    recording = _LiveStandIn(frames=40)
    recording.live = False
    (tmp_path / "recording").mkdir()
    tracker, events = make_tracker(tmp_path / "recording", [], recognize=slow_recognise)
    camera = recording  # what slow_recognise marks as being judged
    tracker.run(recording)
    assert recording.reads_while_judging == 0 and recording.read_count == 41


def test_play_after_a_decided_match_stays_at_its_table(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    game_id = open_game(store, RULES, table="Table 3")
    tracker = Tracker(RULES, PROFILE, store, game_id, recognize=ScriptedRecogniser([]))
    match_id = store.game(game_id)["match_id"]
    store.finish_game(game_id, {"over": True})
    store.finish_match(match_id, {"winner": None})
    tracker._next_game()
    following = store.match(store.game(tracker.game_id)["match_id"])
    assert following["id"] != match_id and following["table"] == "Table 3"
