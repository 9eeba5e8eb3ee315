"""Sync tool bodies run on daemon worker threads, never on the event loop.

Not `asyncio.to_thread`: its pool is small (min(32, cores + 4) threads) and joined at
interpreter exit, so a few sync tools stuck past their deadline would starve every later
sync call and keep the process from exiting. Here a worker is reused when one is idle and
a new one is started when none is — a stuck worker holds only itself — and workers are
daemon threads, so exit never waits for them. A child made by `os.fork` starts with none.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_IDLE_SECONDS = 60.0
_Job = Callable[[], None]


class _Workers:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[_Job | None]] = []

    def submit(self, job: _Job) -> None:
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = queue.SimpleQueue()
            threading.Thread(
                target=self._work, args=(inbox,), name="toolrail-sync-tool", daemon=True
            ).start()
        inbox.put(job)

    def _work(self, inbox: queue.SimpleQueue[_Job | None]) -> None:
        while True:
            try:
                job = inbox.get(timeout=_IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if inbox in self._idle:  # nobody is about to hand us a job: retire
                        self._idle.remove(inbox)
                        return
                continue
            if job is None:
                return
            job()
            with self._lock:
                self._idle.append(inbox)


_workers = _Workers()


def _after_fork_in_child() -> None:
    global _workers
    _workers = _Workers()  # the parent's idle workers are not threads of this process


os.register_at_fork(after_in_child=_after_fork_in_child)


async def run_sync(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run `fn(*args, **kwargs)` on a daemon worker thread, in a copy of the current
    context (as `asyncio.to_thread` does); cancelling the await abandons the thread's
    result, it does not stop the thread."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def job() -> None:
        value: object = None
        ok = True
        try:
            value = call()
        except BaseException as error:  # handed to the awaiting task, whatever it is
            ok, value = False, error
        # a RuntimeError: the loop closed while we worked, and nobody is waiting
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, ok, value)

    _workers.submit(job)
    return await future
