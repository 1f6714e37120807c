"""One table as the web pages see it: the tracker on its camera, fanned out to browsers.

The companion owns no game logic. It starts `arbiter.tracker.Tracker` on a camera it taps for the
live view, turns each tracker event into a Server-Sent Event (adding the clean SVG drawing and the
move's notation so a phone needs no game code), and passes players' corrections to the tracker.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import cv2

from arbiter.scoring import match_summary, seat_names
from engines import game_info
from engines.errors import ArbiterError
from vision import overlay_drawer
from vision.motion import HAND, MOVING
from webui.games import board_svg
from webui.live import EventHub, FrameBuffer, sse_message
from webui.scoreboard import match_line, result_text, result_words, score_line, side_label

# The live view is for eyes, not for recognition: a phone-sized JPEG a few times a second keeps a
# Raspberry Pi's CPU for the recogniser.
LIVE_VIEW_WIDTH = 640
LIVE_VIEW_FPS = 8.0
LIVE_VIEW_QUALITY = 70

# The move log a page shows: the latest entries of a game (a page can list a long game's
# thousands of entries, but nobody scrolls them at the table).
LOG_SHOWN = 200

# The tracker's status once its camera has no more frames (`arbiter.tracker.CAMERA_ENDED`, named
# here: the tracker module reaches the camera drivers, which the web layer must not import).
CAMERA_ENDED = "camera_ended"

# Tracker events that carry a position to redraw, and where in the event it is.
_POSITION_KEYS = ("state", "position")


def encode_jpeg(image, width: int = LIVE_VIEW_WIDTH, quality: int = LIVE_VIEW_QUALITY) -> bytes:
    height = round(image.shape[0] * width / image.shape[1])
    small = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ArbiterError("cannot encode the camera picture as JPEG")
    return data.tobytes()


class LatestObservation:
    """The recogniser, remembering its latest reading so the live view can draw it over the picture."""

    def __init__(self, recognize: Callable | None = None):
        if recognize is None:
            from vision import recognize
        self._recognize = recognize
        self.latest = None

    def __call__(self, image, profile):
        self.latest = self._recognize(image, profile)
        return self.latest


class TappedCamera:
    """The table's camera, passing every frame to the tracker and a throttled copy to the page."""

    def __init__(self, camera, on_frame: Callable):
        self.camera = camera
        self.name = getattr(camera, "name", "camera")
        self.live = getattr(camera, "live", False)  # the tracker reads a live camera on a thread of its own
        self._on_frame = on_frame

    def open(self) -> None:
        self.camera.open()

    def read(self):
        frame = self.camera.read()
        if frame is not None:
            self._on_frame(getattr(frame, "image", frame))
        return frame

    def close(self) -> None:
        self.camera.close()


class Companion:
    """The live table behind the pages: tracker, store, camera view and event fan-out."""

    def __init__(self, tracker, camera=None, *, pieceset: dict | None = None, seat_names: dict | None = None,
                 observations: LatestObservation | None = None):
        self.tracker = tracker
        self.store = tracker.store
        self.rules = tracker.rules
        self.game = tracker.rules.game
        self.pieceset = pieceset
        self.seat_names = dict(seat_names or {})
        self.hub = EventHub()
        self.frames = FrameBuffer(self._live_view)
        self.camera = TappedCamera(camera, self.show_frame) if camera is not None else None
        self._draw_overlay = overlay_drawer(self.game)
        self.observations = observations
        self._last_image = None
        self._frame_at: float | None = None
        self._next_view_at = 0.0
        self.director: dict | None = None  # the latest word from this table's outbox, when it reports
        tracker.subscribe(self._relay)

    # Recognition and the live view -------------------------------------------------------------
    def show_frame(self, image) -> None:
        self._last_image = image
        self._frame_at = time.time()
        now = time.monotonic()
        if self.frames.viewers == 0 or now < self._next_view_at:
            return
        self._next_view_at = now + 1 / LIVE_VIEW_FPS
        self.frames.put(self._live_view())

    def _live_view(self) -> bytes | None:
        """The latest picture as the page shows it (with the latest reading drawn over it), or None.

        While the table moves the reading is of an earlier picture: drawn over this one, its rings
        and counts would sit where pieces were, not where they are.
        """
        image = self._last_image
        if image is None:
            return None
        latest = self.observations.latest if self.observations is not None else None
        if self._draw_overlay is not None and latest is not None and self.tracker.status not in (MOVING, HAND):
            image = self._draw_overlay(image, latest)
        return encode_jpeg(image)

    def still_picture(self):
        """The camera's latest full-size picture (for calibration), or None before the first frame."""
        return self._last_image

    # Events ------------------------------------------------------------------------------------
    def _relay(self, event: dict) -> None:
        """Called on the tracker's thread: enrich and publish, never block."""
        if event.get("type") == "game":
            # Another match may now be played here (a tournament pairing): its players' names.
            self.seat_names = seat_names(self.store.match(self.store.game(event["game_id"])["match_id"]))
        data = self.describe(event)
        # A recording is judged on the thread that reads it, so the newest frame is the one this
        # event is about: its time lets a page (or the benchmark) see the end-to-end delay. (A live
        # camera is read on a thread of its own: its newest frame may be a few frames later.)
        data["frame_at"] = self._frame_at
        self.hub.publish(event.get("type", "message"), data)

    def director_status(self, event: dict) -> None:
        """How the table's reporting to the director stands ("delivered", "unreachable", "refused",
        "failed"): kept for a page that connects later, and sent to the pages open now."""
        self.director = {"status": event.get("status"), "message": event.get("message")}
        self.hub.publish("director", self.director)

    def describe(self, event: dict) -> dict:
        """The event as the page needs it: board drawing, move notation, snapshot URLs, turn."""
        data = {k: v for k, v in event.items() if k != "type"}
        position = next((event[k] for k in _POSITION_KEYS if isinstance(event.get(k), dict)), None)
        if position is not None:
            data["board_svg"] = self.drawing(position)
            data["turn"] = self.turn_line(position)
            data["score"] = self.score(position)
        if event.get("type") == "status" and event.get("status") == CAMERA_ENDED:
            # The page's heading must stop saying whose move it is as if play went on.
            current = self.tracker.snapshot()["position"]
            if self.final_result(current) is None:
                data["turn"] = self.turn_line(current)
        if event.get("type") == "transition" and event.get("moves"):
            data["number"] = len(self.tracker.judge.history) - 1
        if event.get("note") and not event.get("reason"):
            data["reason"] = event["note"]  # shown beside the move, as the stored log shows it
        if isinstance(event.get("result"), dict) and event.get("type") == "over":
            data["over_text"] = result_text(self.rules, self.seat_names, event["result"])
            data["final_text"] = self.final_text(event["result"])
        if event.get("type") in ("over", "match"):
            data["match_text"] = self.match_text()
        if event.get("mover") is not None and event.get("move") is not None:
            # The mover's name beside a single move: "Kofi: North c" (several alternate).
            data["by"] = self.seat_names.get(event["mover"]) or self.rules.side_name(event["mover"])
        if event.get("move") is not None:
            data["notation"] = self.notation(event["move"])
        elif event.get("moves"):
            data["notation"] = " then ".join(self.notation(move) for move in event["moves"])
        for side in ("snapshot_before", "snapshot_after"):
            if event.get(side):
                data[side + "_url"] = "/snapshots/" + Path(event[side]).name
        return data

    def drawing(self, position: dict) -> str:
        try:
            return board_svg(position, self.pieceset, self.seat_names)
        except ArbiterError:
            return ""

    def notation(self, move_json) -> str:
        try:
            return self.rules.notation(self.rules.move_from_json(move_json))
        except ArbiterError:
            return str(move_json)

    def turn_label(self, position: dict) -> str:
        mover = position.get("to_move")
        if mover is None:
            return ""
        return f"{side_label(self.rules, self.seat_names, mover)} to move"

    def turn_line(self, position: dict | None) -> str:
        """The page's heading: whose move it is; once the camera has stopped (a recording or the
        demo played through) with the game unfinished, that it was left there, claiming no result."""
        if self.tracker.status != CAMERA_ENDED:
            return self.turn_label(position) if position else ""
        if position is None:
            return "Camera stopped before the opening position was seen"
        mover = position.get("to_move")
        if self.final_result(position) is not None or mover is None:
            return self.turn_label(position)
        return f"Camera stopped — game not finished; {side_label(self.rules, self.seat_names, mover)} was to move"

    def players_line(self) -> str:
        """"Ama (South) v Kofi (North)"."""
        return " v ".join(side_label(self.rules, self.seat_names, side) for side in self.rules.sides)

    def score(self, position: dict) -> str:
        """The game's running score where it keeps one (Wari: the seeds each side captured); a
        game scored only when it ends (a Varanasi set) shows its match score instead."""
        if game_info(self.game).match_standing is not None:
            return ""
        try:
            outcome = self.rules.outcome(self.rules.state_from_json(position))
        except ArbiterError:
            return ""
        return score_line(self.rules, self.seat_names, outcome.scores)

    def match_text(self) -> str:
        """The match standing, once a game of it is finished or where its length is fixed."""
        match = self.store.match(self.store.game(self.tracker.game_id)["match_id"])
        summary = match_summary(self.store, match)
        if not summary["games"] and game_info(self.game).match_standing is None:
            return ""
        return match_line(summary)

    def final_result(self, position: dict | None) -> dict | None:
        """The result of a finished game's position (JSON), or None while it goes on."""
        if position is None:
            return None
        try:
            state = self.rules.state_from_json(position)
        except ArbiterError:
            return None
        if not self.rules.is_over(state):
            return None
        return self.rules.outcome(state).to_json()

    def over_text(self, position: dict | None) -> str:
        """The result in names, for a page opened after the game ended."""
        result = self.final_result(position)
        return result_text(self.rules, self.seat_names, result) if result is not None else ""

    def final_text(self, result: dict | None) -> str:
        """The words under the final position's drawing: who won and the final score. The drawing
        alone may say little (a Varanasi table with every disc taken)."""
        return f"Final position: {result_words(self.rules, self.seat_names, result)}" if result else ""

    def log_entries(self) -> list[dict]:
        """The current game's move log, oldest first, in the shape of the live events.

        Entries leave out the positions: a long Wari game's states carry the positions seen since
        the last capture, and the page draws only the current one.
        """
        entries, number = [], 0
        records = self.store.move_log(self.tracker.game_id)
        for index, record in enumerate(records):
            if record.verdict == "move":
                number += len(record.move) if isinstance(record.move, list) else 1
            # Moves are numbered from the game's start; only the latest entries are described.
            if index < len(records) - LOG_SHOWN:
                continue
            event = {"type": record.verdict, "move": record.move, "mover": record.mover,
                     "reason": record.reason, "legal": record.verdict != "illegal",
                     "snapshot_before": record.snapshot_before, "snapshot_after": record.snapshot_after,
                     "id": record.id, "at": record.at}
            if isinstance(record.move, list):
                event["moves"], event["move"] = record.move, None
            entry = {"type": record.verdict, **self.describe(event)}
            if record.verdict == "move":
                entry["number"] = number
            entries.append(entry)
        return entries

    def view(self) -> dict:
        """Everything the table page shows, for the first render and for a reconnecting page."""
        snapshot = self.tracker.snapshot()
        position = snapshot.get("position")
        log = self.log_entries()
        pending_illegal = snapshot.get("illegal") is not None
        return {
            "game": self.game,
            "status": snapshot.get("status"),
            "game_id": snapshot.get("game_id"),
            "over": snapshot.get("over"),
            "position": position,
            "board_svg": self.drawing(position) if position else "",
            "turn": self.turn_line(position),
            "players": self.players_line(),
            "score": self.score(position) if position else "",
            "match_text": self.match_text(),
            "over_text": self.over_text(position),
            "final_text": self.final_text(self.final_result(position)),
            "last_move": next((e for e in reversed(log) if e.get("number")), None),
            "alert": next((e for e in reversed(log) if not e["legal"]), None) if pending_illegal else None,
            "log": log,
            "director": self.director,
        }

    def snapshot_messages(self) -> list[str]:
        return [sse_message("snapshot", self.view())]

    def snapshot_path(self, name: str) -> Path:
        """A stored before/after picture by file name, never a path outside the snapshot folder."""
        folder = Path(self.store.snapshot_dir)
        path = folder / Path(name).name
        if Path(name).name != name or not path.is_file():
            raise ArbiterError(f"no snapshot named {name!r}")
        return path

    # Players' actions --------------------------------------------------------------------------
    def correct(self, state_json) -> None:
        """Players fix the position (recorded by the tracker as an override)."""
        if not isinstance(state_json, dict) or state_json.get("game") != self.game:
            raise ArbiterError(f"a correction must be a {self.game} position, e.g. {{\"game\": \"{self.game}\", ...}}")
        self.tracker.set_position(state_json)

    def accept(self) -> None:
        self.tracker.accept_table()

    # Running -----------------------------------------------------------------------------------
    def start(self) -> None:
        if self.camera is not None:
            self.tracker.start(self.camera)

    def stop(self) -> None:
        self.tracker.stop()
