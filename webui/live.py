"""Fan-out of live updates to browsers: Server-Sent Events and the latest camera frame.

Producers (the table loop) never block on a slow phone: each subscriber has a bounded queue,
and one that falls too far behind is dropped (its EventSource reconnects and gets a snapshot).
"""
from __future__ import annotations

import json
import queue
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

# Far more than one table produces between two reads; a queue this full means a dead client.
_SUBSCRIBER_BACKLOG = 256
# A comment line this often keeps proxies and phones from closing an idle stream.
KEEPALIVE_SECONDS = 15.0


def sse_message(event: str, data: dict, event_id: int | None = None) -> str:
    """One Server-Sent Event; JSON has no raw newlines, so one data line is enough."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class EventHub:
    """Publish (event, data) pairs to every current subscriber."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: set[queue.Queue] = set()
        self._next_id = 1

    def publish(self, event: str, data: dict) -> None:
        with self._lock:
            message = sse_message(event, data, self._next_id)
            self._next_id += 1
            for subscriber in list(self._subscribers):
                try:
                    subscriber.put_nowait(message)
                except queue.Full:
                    self._drop(subscriber)

    def _drop(self, subscriber: queue.Queue) -> None:
        """Empty a stuck queue and leave only the end marker, so its stream closes and reconnects."""
        self._subscribers.discard(subscriber)
        while not subscriber.empty():
            subscriber.get_nowait()
        subscriber.put_nowait(None)

    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def stream(self, snapshot: Callable[[], list[str]], keepalive: float = KEEPALIVE_SECONDS) -> Iterator[str]:
        """The text of one browser's event stream: the `snapshot()` messages, then every publication.

        The subscription is registered before `snapshot()` runs, so nothing published in between is
        lost (at worst it arrives twice).
        """
        subscriber: queue.Queue = queue.Queue(maxsize=_SUBSCRIBER_BACKLOG)
        with self._lock:
            self._subscribers.add(subscriber)
        try:
            yield from snapshot()
            while True:
                try:
                    message = subscriber.get(timeout=keepalive)
                except queue.Empty:
                    yield ": keepalive\n\n"
                    continue
                if message is None:
                    return
                yield message
        finally:
            with self._lock:
                self._subscribers.discard(subscriber)


class FrameBuffer:
    """The newest JPEG of the camera view; readers wait for a frame newer than the one they sent.

    `render_latest()` encodes the camera's latest picture (None before the first one). Frames are
    encoded only while somebody watches, so a viewer who arrives after the camera has stopped (a
    recorded or simulated game at its end, a camera that froze) would otherwise wait for a frame
    that never comes: joining puts the latest picture first.
    """

    def __init__(self, render_latest: Callable[[], bytes | None] | None = None) -> None:
        self._condition = threading.Condition()
        self._jpeg: bytes | None = None
        self._number = 0
        self._render_latest = render_latest
        self.viewers = 0

    @contextmanager
    def watching(self):
        """Count a live-view client while it streams, so frames are encoded only when watched."""
        with self._condition:
            self.viewers += 1
        try:
            jpeg = self._render_latest() if self._render_latest is not None else None
            if jpeg is not None:
                self.put(jpeg)
            yield self
        finally:
            with self._condition:
                self.viewers -= 1

    def put(self, jpeg: bytes) -> None:
        with self._condition:
            self._jpeg = jpeg
            self._number += 1
            self._condition.notify_all()

    def latest(self) -> tuple[int, bytes | None]:
        with self._condition:
            return self._number, self._jpeg

    def wait_newer(self, seen: int, timeout: float) -> tuple[int, bytes | None]:
        """The next frame after number `seen`, or the current one again after `timeout` seconds."""
        with self._condition:
            self._condition.wait_for(lambda: self._number > seen, timeout=timeout)
            return self._number, self._jpeg
