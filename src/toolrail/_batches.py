"""`BackgroundBatches`: work handed off the call path to a daemon thread, done in batches.

`put(item)` only appends and wakes the thread (starting it if there is none): the caller
pays for no I/O and no building. The thread waits for a pause (`linger` with nothing put)
so that a burst of items becomes one batch, handled after the burst rather than taking the
GIL from it; it hands each batch to `handle` and, once nothing has come for `_IDLE_S`,
ends; the next `put` starts another. `flush()` waits until every item put so far has been
handled; whatever is still queued at interpreter exit is handled then. A `handle` that
raises is reported through the library diagnostics; the items after it are handled as usual.

Bounded: with `max_queued` items waiting while the thread has taken or finished no batch
for `stall_s` (stuck on a hung disk or exporter), or ten times that many however it goes, a
`put` drops its item, counted in `dropped` and reported, rather than hold memory without
end; a burst that merely outruns a working `handle` for a while loses nothing. A child made
by `os.fork` starts with an empty queue and no thread (the parent's thread is not there,
and the parent handles what it had queued).
"""

from __future__ import annotations

import atexit
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from toolrail._diagnostics import get_logger

__all__ = ["BackgroundBatches", "flush_at_exit_first"]

log = get_logger("toolrail.batches")

T = TypeVar("T")

_IDLE_S = 2.0
"""A thread with nothing to handle for this long ends; the next `put` starts one."""
_QUIET_MAX_S = 0.02
"""The longest the thread waits for a pause before it handles what is queued: how much a
process killed with `kill -9` may lose while items never pause."""
_EXIT_TIMEOUT_S = 10.0
"""How long the exit flush waits for each instance."""
MAX_QUEUED = 10_000
"""Items waiting, past which a `put` drops its item if the thread is stalled (ten times as
many: in any case). Each may hold a call's whole output: 10,000 outputs of 20 KB, 200 MB."""
STALL_S = 2.0
"""A thread that has finished no batch for this long is stalled."""
_LIVE: weakref.WeakSet[BackgroundBatches[Any]] = weakref.WeakSet()


class _Flushed(threading.Event):
    """A flush's marker in the queue: set once everything before it is handled."""


class BackgroundBatches(Generic[T]):
    """A queue drained in batches by one daemon thread, started on demand.

    `linger`: once woken, the thread waits until this long passes with no item put (or
    `_QUIET_MAX_S` after it woke, or a flush). Meanwhile a `put` only appends (it sets no
    event) and the thread takes no GIL from a burst of calls still running: their items are
    handled once the burst pauses, in one batch.
    """

    def __init__(
        self,
        handle: Callable[[list[T]], None],
        *,
        name: str,
        linger: float,
        max_queued: int = MAX_QUEUED,
        stall_s: float = STALL_S,
        forked: Callable[[], None] | None = None,
    ) -> None:
        """`forked`: called in a child made by `os.fork`, after the queue is emptied (what
        `handle` writes to may need opening anew there)."""
        self._handle = handle
        self._forked = forked
        self._name = name
        self._linger = linger
        self._max_queued = max_queued
        self._stall_s = stall_s
        self._handled_at = time.monotonic()  # when the thread last finished a batch
        self.dropped = 0
        """Items `put` dropped because `max_queued` were waiting."""
        self._fresh()
        _LIVE.add(self)

    def _fresh(self) -> None:
        """An empty queue, no thread (at start, and in a forked child)."""
        self._queue: deque[T | _Flushed] = deque()
        self._wake = threading.Event()
        self._hurry = threading.Event()
        self._thread: threading.Thread | None = None
        self._thread_lock = threading.Lock()

    def put(self, item: T) -> None:
        """Queue `item` for the thread: append and wake it, nothing more."""
        if len(self._queue) >= self._max_queued and self._stalled():
            self._drop()
            return
        self._queue.append(item)
        if not self._wake.is_set():
            self._wake.set()
        if self._thread is None:
            self._start()

    def _stalled(self) -> bool:
        if len(self._queue) >= 10 * self._max_queued:
            return True
        return time.monotonic() - self._handled_at > self._stall_s

    def _drop(self) -> None:
        self.dropped += 1
        if self.dropped & (self.dropped - 1) == 0:  # the 1st, 2nd, 4th, 8th, ...: not a flood
            log.warning(
                "background queue full, item dropped",
                thread=self._name,
                queued=self._max_queued,
                dropped=self.dropped,
            )

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every item put so far is handled; False if `timeout` passed first."""
        if self._thread is None and not self._queue:
            return True  # no thread: nothing is in flight
        done = _Flushed()
        self._queue.append(done)
        self._wake.set()
        self._hurry.set()
        self._start()
        return done.wait(timeout)

    def close(self) -> None:
        """`flush()`; a later `put` starts the thread again."""
        self.flush()

    def _start(self) -> None:
        with self._thread_lock:
            if self._thread is None:
                self._handled_at = time.monotonic()  # a new thread has not stalled yet
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()

    def _run(self) -> None:
        """The thread: handle the queue in batches until it stays empty a while."""
        while True:
            if not self._wake.wait(_IDLE_S):
                with self._thread_lock:
                    if not self._queue:
                        self._thread = None
                        break
            self._until_quiet()
            self._drain()
        if self._queue:  # put in as this thread ended, seeing it still there: carry on
            self._start()

    def _until_quiet(self) -> None:
        """Wait until `linger` passes with nothing put, `_QUIET_MAX_S` passes, or a flush
        comes. `wake` stays set meanwhile, so a put only appends."""
        deadline = time.monotonic() + _QUIET_MAX_S
        seen = len(self._queue)
        while not self._hurry.wait(min(self._linger, max(deadline - time.monotonic(), 0))):
            queued = len(self._queue)
            if queued == seen or time.monotonic() >= deadline:
                break
            seen = queued
        self._hurry.clear()
        self._wake.clear()

    def _drain(self) -> None:
        """Hand what is queued to `handle`, a batch up to each flush marker, then release
        the flushes waiting."""
        batch: list[T] = []
        waiting: list[_Flushed] = []
        self._handled_at = time.monotonic()  # taking items is progress too
        while self._queue:
            item = self._queue.popleft()
            if isinstance(item, _Flushed):
                self._call(batch)
                batch = []
                waiting.append(item)
            else:
                batch.append(item)
        self._call(batch)
        for done in waiting:
            done.set()

    def _call(self, batch: list[T]) -> None:
        if not batch:
            return
        try:
            self._handle(batch)
        except BaseException:  # of any kind (a `SystemExit` from a value's code): the
            # thread lives on, for the items after these and the flushes waiting for them
            log.exception("a background batch failed", thread=self._name, items=len(batch))
        self._handled_at = time.monotonic()


def flush_at_exit_first() -> None:
    """Make the exit flush run before every `atexit` hook registered until now (the latest
    registration runs first): an OTel sink's spans are built before its provider, made
    earlier, shuts down."""
    atexit.unregister(_flush_at_exit)
    atexit.register(_flush_at_exit)


def _after_fork_in_child() -> None:
    for batches in list(_LIVE):
        batches._fresh()
        if batches._forked is not None:
            batches._forked()


os.register_at_fork(after_in_child=_after_fork_in_child)


@atexit.register
def _flush_at_exit() -> None:
    """Whatever the threads still hold is handled before the interpreter ends."""
    for batches in list(_LIVE):
        batches.flush(timeout=_EXIT_TIMEOUT_S)
