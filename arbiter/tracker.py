"""From stable pictures of the table to judged moves, for any game with a Rules engine.

`Judge` is the game-agnostic core: it keeps the positions the game went through and, for each new
observation, picks the explanation the recogniser's evidence supports best (no change, one legal
move, going back to an earlier position), or flags the change: two legal moves since the last
picture (a missed picture, or one player moved twice), or an illegal move with the engine's
reason. `replay` runs it over photos (contract `arbiter replay`); `Tracker` runs it live over a
camera behind a motion gate, records every verdict in the store and publishes events.
"""
from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from arbiter.store import now_iso
from engines.base import Outcome
from engines.errors import ArbiterError
from vision.motion import MOVING, STABLE, MotionGate

# A candidate position "fits" the picture when the recogniser finds it at most this many times less
# likely than its own best reading: a likelihood-ratio test at odds of 1:100 (log 100 = 4.6 nats).
# One uncertain disc or one miscounted pile costs less than that; a real difference of one move
# (a disc moved, a pit emptied) costs far more on the recognisers' graded likelihoods.
FIT_ODDS = 100.0
FIT_MARGIN = math.log(FIT_ODDS)

# How many positions back the table may be put when players take moves back (the position
# "went back"); going further back is a correction the players make explicitly (an override).
UNDO_DEPTH = 4

# Several moves since the last legal position are searched level by level, expanding only the
# positions nearest to the picture, this many: every move of a Wari position (at most 6), and in
# Varanasi, where moves that do not show in the picture score far lower, the few that do.
MOVES_BEAM = 6
# At most this many moves are looked for between two judged positions.
MAX_MOVES_BETWEEN = 4

# Verdict kinds, also the `verdict` key of a transition; MOVES is three or more moves.
OPENING, SAME, MOVE, TWO_MOVES, MOVES, UNDO, ILLEGAL = (
    "start", "same", "move", "two_moves", "moves", "undo", "illegal")


@dataclass(frozen=True)
class Verdict:
    """What one stable picture means for the game.

    `state` is the engine position after the verdict (unchanged for same / illegal; None while a
    game with a standard start waits for it); `recognised` is the recogniser's reading.
    """

    kind: str
    state: object
    recognised: dict
    moves: tuple = ()
    reason: str | None = None
    result: dict | None = None

    @property
    def legal(self) -> bool:
        """False for an illegal change and for two moves flagged as such (the reason says why)."""
        return self.kind != ILLEGAL and self.reason is None

    def transition(self, source: str, target: str) -> dict:
        """The contract's replay transition, extended with `verdict`, `moves` and `result`."""
        shown = self.state.to_json() if self.kind != ILLEGAL and self.state is not None else self.recognised
        transition = {
            "from": source,
            "to": target,
            "legal": self.legal,
            "move": self.moves[0].to_json() if len(self.moves) == 1 else None,
            "reason": self.reason,
            "state": shown,
            "verdict": self.kind,
            "moves": [m.to_json() for m in self.moves],
        }
        if self.result is not None:
            transition["result"] = self.result
        return transition


class Judge:
    """Engine-guided judging of successive observations of one game."""

    def __init__(self, rules, history: Iterable = (), setup_until_first_move: bool = False):
        self.rules = rules
        self.history = list(history)
        # Live, a camera watches players build a free set-up (Varanasi towers) piece by piece; until
        # the first move every new still picture of it is the set-up so far. Photos for `replay`
        # start once set-up is done, so there a change no move explains is flagged from the start.
        self.setup_until_first_move = setup_until_first_move and self.standard_start() is None
        # Pictures flagged since the last legal one. Each may have shown one more move (misread, or
        # put right by the players), so after k of them, up to k + 1 legal moves are judged legal.
        self.alerts = 0

    @property
    def state(self):
        return self.history[-1] if self.history else None

    @property
    def over(self) -> bool:
        return self.state is not None and self.rules.is_over(self.state)

    def standard_start(self):
        """The game's fixed opening position, or None where players set up freely (Varanasi)."""
        try:
            return self.rules.start()
        except ArbiterError:
            return None

    def judge(self, observation) -> Verdict:
        """The verdict on one stable picture; the judge's position changes only through `apply`."""
        reading = observation.to_json()["state"]
        scores: dict = {}

        def score(state) -> float:
            if state not in scores:
                scores[state] = observation.log_likelihood(state.to_json())
            return scores[state]

        # Candidates are measured against the picture's best reading of a position the game can be
        # in (for Wari: holding its seeds), not against a reading that lost a seed under a pile.
        followed = self.state if self.history else self.standard_start()
        threshold = observation.best_log_likelihood(followed.to_json() if followed is not None else None) - FIT_MARGIN

        def best_fit(candidates: list[tuple]) -> Verdict | None:
            """The best-scoring fitting (kind, state, moves); max() keeps the first of equals."""
            fitting = [c for c in candidates if score(c[1]) >= threshold]
            if not fitting:
                return None
            kind, state, moves = max(fitting, key=lambda c: score(c[1]))
            reason = None
            if len(moves) > self.alerts + 1:
                played = " then ".join(self.rules.notation(move) for move in moves)
                reason = f"two moves since the last picture ({played}): a picture was missed or a player moved twice"
            return self._verdict(kind, state, reading, moves, reason)

        if self.history:
            current = self.state
        else:
            opened = self._open(reading, best_fit)
            start = self.standard_start()
            # A game with a standard start opens there whether or not its picture was read right:
            # once a picture has been flagged while waiting for it (the start misread, or missed),
            # play from the start is judged as from any legal position, so that a misread start
            # does not flag every later move of the game.
            if opened.legal or start is None or not self.alerts:
                return opened
            current = start
        successors = self._successors(current, ())
        verdict = best_fit([(SAME, current, ())] + [(MOVE, state, moves) for state, moves in successors])
        if verdict is not None:
            return verdict
        # Each earlier move of a sequence leaves its trace in the picture, so the positions on the
        # way are among those nearest to it: expanding only those keeps the search small.
        sequences, level = [], successors
        for length in range(2, max(2, min(self.alerts + 1, MAX_MOVES_BETWEEN)) + 1):
            nearest = sorted(level, key=lambda candidate: -score(candidate[0]))[:MOVES_BEAM]
            level = [after for before, moves in nearest if not self.rules.is_over(before)
                     for after in self._successors(before, moves)]
            sequences += [(TWO_MOVES if length == 2 else MOVES, state, moves) for state, moves in level]
        earlier = [(UNDO, state, ()) for state in reversed(self.history[-1 - UNDO_DEPTH:-1])]
        # Moves come first so that, should both fit equally, play going on wins over a take-back.
        verdict = best_fit(sequences + earlier)
        if verdict is not None:
            return verdict
        if self.setup_until_first_move and len(self.history) == 1:
            setup = self._open(reading, best_fit)
            if setup.legal:
                return setup
        if not self.history:
            return opened
        return Verdict(ILLEGAL, current, reading, reason=self._illegal_reason(current, reading))

    def _successors(self, state, moves: tuple) -> list[tuple]:
        """(position, moves so far) after each legal move from `state`, reached by `moves`."""
        return [(self.rules.apply(state, move), moves + (move,)) for move in self.rules.legal_moves(state)]

    def _verdict(self, kind: str, state, reading: dict, moves: tuple, reason: str | None) -> Verdict:
        changed = kind in (MOVE, TWO_MOVES, MOVES)
        result = self.rules.outcome(state).to_json() if changed and self.rules.is_over(state) else None
        return Verdict(kind, state, reading, moves, reason, result)

    def _open(self, reading: dict, best_fit) -> Verdict:
        start = self.standard_start()
        if start is None:
            try:
                return Verdict(OPENING, self.rules.state_from_json(reading), reading)
            except ArbiterError as exc:
                return Verdict(ILLEGAL, None, reading, reason=f"the set-up is not a valid position: {exc}")
        if best_fit([(OPENING, start, ())]) is not None:
            return Verdict(OPENING, start, reading)
        return Verdict(ILLEGAL, None, reading, reason="the table does not show the standard start position")

    def _illegal_reason(self, current, reading: dict) -> str:
        try:
            explanation = self.rules.explain(current, self.rules.state_from_json(self.as_next_turn(reading)))
        except ArbiterError as exc:
            return str(exc)
        return explanation.reason or "no legal move explains the change on the table"

    def as_next_turn(self, reading: dict) -> dict:
        """The reading with the turn passed on as a move would pass it (recognisers cannot see turns).

        The mover after any legal move of the current position is the mover after this one; with no
        legal move (or no position yet) the reading keeps the engine's default.
        """
        current = self.state
        moves = self.rules.legal_moves(current) if current is not None else []
        if not moves:
            return reading
        mover = self.rules.apply(current, moves[0]).to_json().get("to_move")
        return reading if mover is None else {**reading, "to_move": mover}

    def apply(self, verdict: Verdict) -> None:
        """Take a verdict into account: a legal one's position becomes the current one (an undo
        drops the positions after it); a flagged one leaves the position where it was."""
        self.alerts = 0 if verdict.legal else self.alerts + 1
        if not verdict.legal:
            return
        if verdict.kind == UNDO:
            while self.history and self.history[-1] != verdict.state:
                self.history.pop()
        elif verdict.kind == OPENING:
            self.history = [verdict.state]
        elif verdict.kind in (MOVE, TWO_MOVES, MOVES):
            if not self.history:  # the game's first moves, its start never read right (`judge`)
                self.history = [self.standard_start()]
            self.history.append(verdict.state)

    def override(self, state) -> None:
        """Players set the position explicitly: it becomes the current one."""
        self.history.append(state)
        self.alerts = 0


def replay(profile: dict, rules, image_paths: Iterable[str]) -> Iterator[dict]:
    """Contract `arbiter replay`: one transition per pair of consecutive stable photos."""
    from vision import recognize
    from vision.io import read_image

    judge = Judge(rules)
    previous, flagged = None, None
    for path in image_paths:
        observation = recognize(read_image(path), profile)
        verdict = judge.judge(observation)
        if not verdict.legal and flagged is not None:
            judge, verdict = played_on(judge, flagged, observation) or (judge, verdict)
        judge.apply(verdict)
        flagged = None if verdict.legal else verdict
        if previous is not None:
            yield verdict.transition(previous, path)
        previous = path


def played_on(judge: Judge, flagged: Verdict, observation) -> tuple[Judge, Verdict] | None:
    """A judge that takes the flagged table as it stood, if a legal move from it explains this photo.

    Live, players answer an alert by restoring the table or accepting it. Photos cannot answer,
    but play that goes on from the flagged table shows it was kept (or was read wrong before,
    as a misread opening), so `replay` carries on from it rather than flag every later photo.
    """
    try:
        kept = judge.rules.state_from_json(judge.as_next_turn(flagged.recognised))
    except ArbiterError:
        return None
    resumed = Judge(judge.rules, [kept])
    verdict = resumed.judge(observation)
    return (resumed, verdict) if verdict.kind == MOVE else None


# ---------------------------------------------------------------------------------------------
# Live tracking

# The gate's statuses (moving / hand / stable), and the tracker's own: the picture shows no board,
# the camera went away (being reopened), the camera has no more frames (a recording played through).
NO_BOARD = "no_board"
CAMERA_LOST = "camera_lost"
CAMERA_ENDED = "camera_ended"

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
    """The last stable picture judged: its label and image (the "before" of an illegal snapshot)."""

    label: str
    frame: object


class Tracker:
    """Live judging: camera frames -> motion gate -> recogniser -> Judge -> store + events.

    Events are dicts with a "type": "status" (status changes: moving / hand / stable / no_board /
    camera_lost / camera_ended),
    "transition" (a judged move: the replay transition object), "illegal" (the transition plus
    `snapshot_before` / `snapshot_after` paths), "override", "accept", "restored", "over" (a
    game's result), "match" (a Varanasi match's standing), "game" (the next game begins),
    "camera" (lost / reopened) and "error" (message). Subscribers are called on the tracker's
    thread; keep them short (put the event on a queue). docs/tracker.md lists their keys.
    """

    def __init__(self, rules, profile: dict, store, game_id: int, *, gate=None,
                 recognize: Callable | None = None, no_board_timeout: float = NO_BOARD_TIMEOUT_S):
        if recognize is None:
            from vision import recognize
        self.rules = rules
        self.profile = profile
        self.store = store
        self.game_id = game_id
        self.gate = gate or MotionGate()
        self._recognize = recognize
        self._no_board_timeout = no_board_timeout
        self.judge = self._judge_of(game_id)
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[dict], None]] = []
        self._status = MOVING
        self._last_stable: _Stable | None = None
        self._pending_illegal: Verdict | None = None
        self._board_seen_at: float | None = None
        self._retry_at: float | None = None
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
        with self._lock:
            self._judge_stable(observation, frame, label or now_iso())

    def _set_status(self, status: str) -> None:
        if status != self._status:
            self._status = status
            self._publish({"type": "status", "status": status})

    def _judge_stable(self, observation, frame, label: str) -> None:
        if self.judge.over:
            # A finished game stays on the table until the players clear it for the next one.
            if self.judge.judge(observation).kind == SAME:
                return
            self._next_game()
        verdict = self.judge.judge(observation)
        source = self._last_stable.label if self._last_stable else label
        if verdict.kind == SAME:
            self.judge.apply(verdict)
            if self._pending_illegal is not None:
                self._pending_illegal = None
                self.store.log(self.game_id, "restored", verdict.state.to_json(), recognised=verdict.recognised)
                self._publish({"type": "restored", "position": verdict.state.to_json()})
            self._last_stable = _Stable(label, frame)
            return
        transition = verdict.transition(source, label)
        if not verdict.legal:
            if self._pending_illegal is not None and self._pending_illegal.recognised == verdict.recognised:
                return  # the same wrong table seen again after a hand came and went: alerted already
            before = self._last_stable.frame if self._last_stable else None
            record_state = verdict.state.to_json() if verdict.state is not None else verdict.recognised
            record = self.store.log(self.game_id, ILLEGAL, record_state, move=transition["moves"] or None,
                                    reason=verdict.reason, recognised=verdict.recognised,
                                    snapshots=(before, frame))
            self.judge.apply(verdict)
            self._pending_illegal = verdict
            self._publish({"type": "illegal", **transition, "snapshot_before": record.snapshot_before,
                           "snapshot_after": record.snapshot_after})
            return
        if self.judge.state is None and verdict.kind != OPENING:
            # The game's first moves, its start never read right (`Judge.judge`): its record opens
            # at the start all the same, so that the game's history holds every position.
            self.store.log(self.game_id, "start", self.judge.standard_start().to_json())
        store_verdict = {OPENING: "start", UNDO: "undo"}.get(verdict.kind, "move")
        self.store.log(self.game_id, store_verdict, verdict.state.to_json(),
                       move=transition["moves"] if len(verdict.moves) > 1 else transition["move"],
                       recognised=verdict.recognised)
        self.judge.apply(verdict)
        self._pending_illegal = None
        self._last_stable = _Stable(label, frame)
        self._publish({"type": "transition", **transition})
        self._finish_if_over()

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
            self._switch_to(open_game(self.store, self.rules, [p["id"] for p in match["players"]]))

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
    def run(self, camera, stop: threading.Event | None = None, reopen_delay: float = 1.0) -> None:
        """Feed frames until the camera ends or `stop` is set; a lost camera is reopened."""
        from device.cameras import CameraLost

        stop = stop or self._stop
        camera.open()
        try:
            while not stop.is_set():
                try:
                    frame = camera.read()
                except CameraLost as exc:
                    self._set_status(CAMERA_LOST)
                    self._publish({"type": "camera", "status": "lost", "message": str(exc)})
                    self._reopen(camera, stop, reopen_delay)
                    continue
                if frame is None:
                    # What the table last showed stays judged; a page opened now must not claim it is live.
                    self._set_status(CAMERA_ENDED)
                    return
                self.feed(frame.image, frame.at, frame.label)
        finally:
            camera.close()

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


def match_standing(rules, results: list[dict]) -> dict | None:
    """The match score after its finished games, where the rules say how long a match is.

    Varanasi rules carry the match length ("target" points or a number of "sets"), scored by
    `engines.varanasi_match`. A Wari or Nanku series length is the organiser's choice, not a rule,
    so their matches end when the tournament ends them (`Store.finish_match`). A set whose winner
    the engine cannot name (the table was set by hand to empty) scores nothing.
    """
    if rules.game != "varanasi":
        return None
    from engines.varanasi_match import VaranasiMatch

    match = VaranasiMatch(rules)
    for result in results:
        if result["winner"] is not None:
            match = match.record_set(Outcome(result["over"], result["winner"], result["scores"]))
    return match.to_json()


def open_game(store, rules, player_ids=(), tournament_id: int | None = None) -> int:
    """The game a run continues, so that a restart resumes where the table stood.

    The latest unfinished match of the same rules (and players, when given) goes on: its
    unfinished game, or its next game if the last one has ended. Otherwise a new match begins.
    """
    match_id = store.unfinished_match(rules.game)
    if match_id is not None:
        match = store.match(match_id)
        seated = [p["id"] for p in match["players"]]
        if match["rules"] == rules.to_json() and (not player_ids or seated == list(player_ids)):
            return game_to_play(store, match_id)
    return store.new_game(store.new_match(rules.to_json(), player_ids, tournament_id))


def game_to_play(store, match_id: int) -> int:
    """The match's unfinished game, or its next game if the last one has ended."""
    unfinished = [g["id"] for g in store.games(match_id) if g["finished_at"] is None]
    return unfinished[-1] if unfinished else store.new_game(match_id)
