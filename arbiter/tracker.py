"""Live judging: camera frames -> motion gate -> recogniser -> Judge -> store + events.

`Tracker` runs `arbiter.judge.Judge` over a camera behind the motion gate (`vision.motion`),
records every verdict in the store (`arbiter.store`) and publishes events. Judging itself lives in
`arbiter.judge`, match policy in `arbiter.matches`.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Callable

from arbiter.judge import ILLEGAL, MOVES, OPENING, SAME, TWO_MOVES, UNDO, Judge, Verdict
from arbiter.matches import game_to_play, match_standing, open_game
from arbiter.store import StoreError, now_iso
from engines.errors import ArbiterError
from vision.motion import MOVING, STABLE, MotionGate

__all__ = ["CAMERA_ENDED", "CAMERA_LOST", "MIN_CONFIDENCE", "NO_BOARD", "NO_BOARD_RETRY_S", "NO_BOARD_TIMEOUT_S", "PAUSED",
           "ProfileMismatch", "Tracker"]


# The gate's statuses (moving / hand / stable), and the tracker's own: the picture shows no board,
# the camera went away (being reopened), the camera has no more frames (a recording played through),
# the record store cannot be written (judging waits and tries again).
NO_BOARD = "no_board"
CAMERA_LOST = "camera_lost"
CAMERA_ENDED = "camera_ended"
PAUSED = "paused"

# A store that cannot be written (locked by another process, a full disk) is tried again after this
# many seconds, doubling up to the longest wait: a table's verdict is never dropped.
STORE_RETRY_S = 1.0
STORE_RETRY_MAX_S = 30.0

# Below this recogniser confidence the picture is not a view of the board (covered, wrong profile).
MIN_CONFIDENCE = 0.2

# A profile that finds no board for this long does not match the camera.
NO_BOARD_TIMEOUT_S = 60.0
# While a still table shows no board, it is looked at again this often.
NO_BOARD_RETRY_S = 1.0


class ProfileMismatch(ArbiterError):
    """The camera has shown no board the profile recognises for too long."""


@dataclass
class _Stable:
    """The last stable picture judged: its label, image and reading (the "before" of an illegal snapshot)."""

    label: str
    frame: object
    observation: object = None


class Tracker:
    """Live judging: camera frames -> motion gate -> recogniser -> Judge -> store + events.

    Events are dicts with a "type": "status" (status changes: moving / hand / stable / no_board /
    camera_lost / camera_ended / paused),
    "transition" (a judged move: the replay transition object), "illegal" (the transition plus
    `snapshot_before` / `snapshot_after` paths), "override", "accept", "restored", "over" (a
    game's result), "match" (a Varanasi match's standing), "game" (the next game begins),
    "camera" (lost / reopened), "store" (failed with a message, retried / resumed) and "error"
    (message). Subscribers are called on the tracker's
    thread; keep them short (put the event on a queue). docs/tracker.md lists their keys.
    """

    def __init__(self, rules, profile: dict, store, game_id: int, *, gate=None,
                 recognize: Callable | None = None, no_board_timeout: float = NO_BOARD_TIMEOUT_S,
                 mark: Callable | None = None):
        """`mark(image, observation) -> image` draws a reading on the pictures of an illegal move
        (the recogniser's overlay: each pit's count), so that players see what the camera read
        where the reason points; None keeps them as taken."""
        if recognize is None:
            from vision import recognize
        self.rules = rules
        self.profile = profile
        self.store = store
        self.game_id = game_id
        self.gate = gate or MotionGate()
        self._recognize = recognize
        self._mark = mark
        self._no_board_timeout = no_board_timeout
        self.judge = self._judge_of(game_id)
        self._lock = threading.RLock()
        self._status_lock = threading.Lock()
        self._subscribers: list[Callable[[dict], None]] = []
        self._status = MOVING
        self._last_stable: _Stable | None = None
        self._pending_illegal: Verdict | None = None
        self._board_seen_at: float | None = None
        self._retry_at: float | None = None
        self._unjudged: tuple | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        if store.game(game_id)["finished_at"] is None:
            self._finish_if_over()  # the process stopped between a game's last move and its result

    # Subscribers ------------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[dict], None]) -> Callable[[], None]:
        """Call `callback(event)` for every event from now on; returns the unsubscribe function."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def _publish(self, event: dict) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            callback(event)

    @property
    def status(self) -> str:
        return self._status

    def snapshot(self) -> dict:
        """The current state for a page that has just connected."""
        with self._lock:
            state = self.judge.state
            return {
                "status": self._status,
                "game_id": self.game_id,
                "position": state.to_json() if state is not None else None,
                "over": self.judge.over,
                "illegal": self._pending_illegal.recognised if self._pending_illegal else None,
            }

    # One frame --------------------------------------------------------------------------------
    def feed(self, frame, now: float, label: str | None = None) -> None:
        """Process one camera frame taken at `now` (seconds); judges it once the table has settled.

        `label` names the picture in transitions ("from"/"to"); by default, the time it was judged.
        """
        if self._board_seen_at is None:
            self._board_seen_at = now
        gate = self.gate.update(frame, now)
        waiting_for_board = gate.status == STABLE and self._retry_at is not None
        if not gate.settled and not (waiting_for_board and now >= self._retry_at):
            if not waiting_for_board:
                self._retry_at = None
                self._set_status(gate.status)
            return
        observation = self._recognize(frame, self.profile)
        if observation.confidence < MIN_CONFIDENCE:
            self._set_status(NO_BOARD)
            if now - self._board_seen_at > self._no_board_timeout:
                raise ProfileMismatch(
                    f"no board found for {self._no_board_timeout:.0f} s: the calibration profile does not "
                    "match this camera (recalibrate, or check the camera points at the table)")
            # A still table shows no board: look again now and then, not on every frame.
            self._retry_at = now + NO_BOARD_RETRY_S
            return
        self._retry_at = None
        self._board_seen_at = now
        self._set_status(STABLE)
        # Kept until the store has recorded the verdict, so that it can be judged again (`run`).
        self._unjudged = (observation, frame, label or now_iso())
        with self._lock:
            self._judge_stable(*self._unjudged)
        self._unjudged = None

    def _set_status(self, status: str) -> None:
        with self._status_lock:  # a live camera's reader sets "camera_lost" from its own thread
            if status == self._status:
                return
            self._status = status
        self._publish({"type": "status", "status": status})

    def _judge_stable(self, observation, frame, label: str) -> None:
        if self.judge.over:
            # A finished game stays on the table until the players clear it for the next one.
            still = self.judge.judge(observation)
            if still.kind == SAME and not still.waited:
                return
            self._next_game()
        verdict = self.judge.judge(observation)
        observation = verdict.observation or observation  # what the recogniser read on a second look
        source = self._last_stable.label if self._last_stable else label
        if verdict.kind == SAME:
            self.judge.apply(verdict)
            if verdict.waited:
                return  # a misread picture: the next one decides, and stays compared with the last
            if self._pending_illegal is not None:
                self._pending_illegal = None
                self.store.log(self.game_id, "restored", verdict.state.to_json(), recognised=verdict.recognised)
                self._publish({"type": "restored", "position": verdict.state.to_json()})
            self._last_stable = _Stable(label, frame, observation)
            return
        transition = verdict.transition(source, label)
        if not verdict.legal:
            if self._pending_illegal is not None and self._pending_illegal.recognised == verdict.recognised:
                return  # the same wrong table seen again after a hand came and went: alerted already
            last_legal = self.judge.state.to_json() if self.judge.state is not None else None
            before = (self._marked(self._last_stable.frame, self._last_stable.observation, last_legal)
                      if self._last_stable else None)
            record_state = verdict.state.to_json() if verdict.state is not None else verdict.recognised
            record = self.store.log(self.game_id, ILLEGAL, record_state, move=transition["moves"] or None,
                                    reason=verdict.reason, recognised=verdict.recognised,
                                    snapshots=(before, self._marked(frame, observation, verdict.expected)))
            self.judge.apply(verdict)
            self._pending_illegal = verdict
            self._publish({"type": "illegal", **transition, "snapshot_before": record.snapshot_before,
                           "snapshot_after": record.snapshot_after})
            return
        if self.judge.state is None and verdict.kind != OPENING:
            # The game's first moves, its start never read right (`Judge.judge`): its record opens
            # at the start all the same, so that the game's history holds every position.
            self.store.log(self.game_id, "start", self.judge.standard_start().to_json())
        if verdict.rebased is not None:
            # The pictures since the set-up showed it misread (`Judge._on_rival_line`): the record
            # goes on from the position as corrected, as after the players' own correction.
            self.store.log(self.game_id, "override", verdict.rebased.history[-1].to_json(), reason=verdict.note)
        store_verdict = {OPENING: "start", UNDO: "undo"}.get(verdict.kind, "move")
        mover = self.judge.state.to_json().get("to_move") if verdict.moves and self.judge.state is not None else None
        # A move's note (taken in doubt, or several since the last picture) is kept as its reason:
        # the page shows it beside the move.
        self.store.log(self.game_id, store_verdict, verdict.state.to_json(),
                       move=transition["moves"] if len(verdict.moves) > 1 else transition["move"],
                       reason=verdict.note, recognised=verdict.recognised, mover=mover)
        self.judge.apply(verdict)
        self._pending_illegal = None
        self._last_stable = _Stable(label, frame, observation)
        self._publish({"type": "transition", **transition, "mover": mover})
        self._finish_if_over()

    def _marked(self, frame, observation, expected: dict | None):
        """The picture with its reading drawn on it (`mark`), where it differs from the `expected`
        position (JSON) marked, or the picture as taken."""
        if self._mark is None or frame is None or observation is None:
            return frame
        return self._mark(frame, observation, expected)

    def _finish_if_over(self) -> None:
        if not self.judge.over:
            return
        state = self.judge.state
        result = self.rules.outcome(state).to_json()
        self.store.log(self.game_id, "over", state.to_json())
        self.store.finish_game(self.game_id, result)
        self._publish({"type": "over", "game_id": self.game_id, "result": result})
        match_id = self.store.game(self.game_id)["match_id"]
        standing = match_standing(self.rules, [g["result"] for g in self.store.games(match_id) if g["result"]])
        if standing is not None:
            if standing["over"]:
                self.store.finish_match(match_id, standing)
            self._publish({"type": "match", "match_id": match_id, "standing": standing})

    def _judge_of(self, game_id: int) -> Judge:
        history = [self.rules.state_from_json(s) for s in self.store.game_history(game_id)]
        return Judge(self.rules, history, setup_until_first_move=True)

    def _switch_to(self, game_id: int) -> None:
        self.game_id = game_id
        self.judge = self._judge_of(game_id)
        self._pending_illegal = None
        self._last_stable = None
        self._publish({"type": "game", "game_id": game_id})

    def _next_game(self) -> None:
        match = self.store.match(self.store.game(self.game_id)["match_id"])
        if match["finished_at"] is None:
            self._switch_to(self.store.new_game(match["id"]))
        else:
            # Play that goes on after a tournament pairing is decided is not another pairing.
            self._switch_to(open_game(self.store, self.rules, [p["id"] for p in match["players"]],
                                      table=match["table"]))

    def play_match(self, match_id: int) -> None:
        """Judge a stored match here from now on (a tournament pairing seated at this table).

        The game the table was playing stays in the store, unfinished, to be resumed the same way.
        """
        with self._lock:
            match = self.store.match(match_id)
            if match["rules"] != self.rules.to_json():
                raise ArbiterError(f"match {match_id} is {match['game']} under rules "
                                   f"{json.dumps(match['rules'])}; this table judges {json.dumps(self.rules.to_json())}")
            if match["finished_at"] is not None:
                raise ArbiterError(f"match {match_id} is already decided")
            # The pairing is this table's now: a restart of this table resumes it.
            self.store.seat_match(match_id, self.store.match(self.store.game(self.game_id)["match_id"])["table"])
            self._switch_to(game_to_play(self.store, match_id))

    # Player corrections -------------------------------------------------------------------------
    def set_position(self, state_json: dict) -> None:
        """Players state the true position (the camera misread it); recorded as an override."""
        with self._lock:
            state = self.rules.state_from_json(state_json)
            self.store.log(self.game_id, "override", state.to_json())
            self.judge.override(state)
            self._pending_illegal = None
            self._publish({"type": "override", "position": state.to_json()})
            self._finish_if_over()

    def accept_table(self) -> None:
        """After an alert, the players keep the table as it is; recorded as an accept.

        After two moves the engine's position after both is kept (it knows whose turn it is);
        otherwise the reading, with the turn passed on as a move would pass it.
        """
        with self._lock:
            pending = self._pending_illegal
            if pending is None:
                raise ArbiterError("there is no illegal move to accept")
            if pending.kind in (TWO_MOVES, MOVES):
                state = pending.state
            else:
                state = self.rules.state_from_json(self.judge.as_next_turn(pending.recognised))
            self.store.log(self.game_id, "accept", state.to_json(),
                           move=[m.to_json() for m in pending.moves] or None,
                           reason=pending.reason, recognised=pending.recognised)
            self.judge.override(state)
            self._pending_illegal = None
            self._publish({"type": "accept", "position": state.to_json()})
            self._finish_if_over()

    # Running on a camera ------------------------------------------------------------------------
    def run(self, camera, stop: threading.Event | None = None, reopen_delay: float = 1.0,
            store_retry: float = STORE_RETRY_S) -> None:
        """Feed frames until the camera ends or `stop` is set; a lost camera is reopened, and a
        verdict the store could not record is recorded once it can be."""
        stop = stop or self._stop
        camera.open()
        # A live camera is read on a thread of its own, so that its frames (and the live view
        # they feed) keep coming while a picture is recognised and judged; the judging takes the
        # newest. A recording is judged frame by frame: none may be skipped.
        frames = _LiveFrames(self, camera, stop, reopen_delay) if getattr(camera, "live", False) else None
        try:
            while not stop.is_set():
                frame = frames.take() if frames is not None else self._read(camera, stop, reopen_delay)
                if frame is _LOST:
                    continue
                if frame is None:
                    if stop.is_set():
                        return
                    # What the table last showed stays judged; a page opened now must not claim it is live.
                    self._set_status(CAMERA_ENDED)
                    return
                try:
                    self.feed(frame.image, frame.at, frame.label)
                except StoreError as exc:
                    self._wait_for_store(exc, stop, store_retry)
        finally:
            if frames is not None:
                frames.close()
            camera.close()

    def _read(self, camera, stop: threading.Event, reopen_delay: float):
        """The camera's next frame, None when it has no more, or _LOST once it is reopened."""
        from device.cameras import CameraLost

        try:
            return camera.read()
        except CameraLost as exc:
            self._set_status(CAMERA_LOST)
            self._publish({"type": "camera", "status": "lost", "message": str(exc)})
            self._reopen(camera, stop, reopen_delay)
            return _LOST

    def _wait_for_store(self, error: StoreError, stop: threading.Event, delay: float) -> None:
        """Judging paused: the picture the store could not record is judged again until it is."""
        unjudged = self._unjudged
        self._set_status(PAUSED)
        self._publish({"type": "store", "status": "failed", "message": str(error)})
        while unjudged is not None and not stop.wait(delay):
            try:
                with self._lock:
                    self._judge_stable(*unjudged)
            except StoreError as exc:
                delay = min(2 * delay, STORE_RETRY_MAX_S)
                self._publish({"type": "store", "status": "failed", "message": str(exc)})
                continue
            self._publish({"type": "store", "status": "resumed"})
            self._finish_if_over()
            break
        self._unjudged = None
        self._set_status(STABLE)

    def _reopen(self, camera, stop: threading.Event, delay: float) -> None:
        from device.cameras import CameraLost

        while not stop.wait(delay):
            try:
                camera.close()
                camera.open()
            except CameraLost:
                continue
            self._publish({"type": "camera", "status": "reopened"})
            return

    def start(self, camera) -> threading.Thread:
        """Run on a background thread; errors end it with an "error" event."""
        def target() -> None:
            try:
                self.run(camera, self._stop)
            except ArbiterError as exc:
                self._publish({"type": "error", "message": str(exc)})

        self._stop.clear()
        self._thread = threading.Thread(target=target, name="arbiter-tracker", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self, timeout: float | None = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)


# What `Tracker._read` returns for a camera that was lost and has been reopened.
_LOST = object()


class _LiveFrames:
    """A live camera read on its own thread; the tracker takes the newest frame, and frames that
    came while it judged are dropped (a table shows a position for seconds, a verdict takes
    milliseconds). A lost camera is reopened on the reader's thread."""

    def __init__(self, tracker: Tracker, camera, stop: threading.Event, reopen_delay: float):
        self._ready = threading.Condition()
        self._frame = None
        self._ended = False
        self._closed = threading.Event()
        self._stop = stop
        self._thread = threading.Thread(target=self._read_all, args=(tracker, camera, reopen_delay),
                                        name="arbiter-camera", daemon=True)
        self._thread.start()

    def _read_all(self, tracker: Tracker, camera, reopen_delay: float) -> None:
        try:
            while not (self._stop.is_set() or self._closed.is_set()):
                frame = tracker._read(camera, self._stop, reopen_delay)
                if frame is _LOST:
                    continue
                with self._ready:
                    if frame is None:
                        self._ended = True
                    else:
                        self._frame = frame
                    self._ready.notify()
                if frame is None:
                    return
        except Exception as exc:  # handed to the tracker's thread, where errors are reported
            with self._ready:
                self._frame, self._ended = exc, True
                self._ready.notify()

    def take(self):
        """The newest frame not yet taken, waiting for one; None once the camera has no more (or
        judging stops)."""
        with self._ready:
            while self._frame is None and not self._ended and not self._stop.is_set():
                self._ready.wait(0.1)
            frame, self._frame = self._frame, None
        if isinstance(frame, Exception):
            raise frame
        return frame

    def close(self) -> None:
        self._closed.set()
        self._thread.join(2.0)
