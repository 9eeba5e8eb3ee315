"""Fan events out to sinks without letting a sink break or stall a tool call."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Iterable
from types import FunctionType, MethodType
from typing import cast

from toolrail._diagnostics import get_logger
from toolrail.recording.events import Sink, ToolEvent

log = get_logger("toolrail.recording.sinks")


class Fanout:
    """Calls each sink with each event; owns the background tasks of async sinks. To
    change the sinks, assign `sinks` anew (it is kept as a tuple)."""

    def __init__(self, sinks: Iterable[Sink] = (), *, timeout_s: float = 5.0) -> None:
        self.sinks: tuple[Sink, ...] = tuple(sinks)
        self.timeout_s = timeout_s
        self._pending: set[asyncio.Task[None]] = set()
        self._bound: tuple[Sink, ...] | None = None  # the sinks `_calls` was made from
        self._calls: tuple[tuple[Sink, Sink], ...] = ()

    def emit(self, event: ToolEvent) -> None:
        if self._bound is not self.sinks:  # first event, or sinks assigned since
            self.sinks = self._bound = tuple(self.sinks)  # a list assigned stays as it was
            self._calls = tuple((sink, _entry(sink)) for sink in self._bound)
        for sink, call in self._calls:
            try:
                returned = call(event)
            except (KeyboardInterrupt, asyncio.CancelledError):
                raise
            except BaseException:  # a sink's failure of any kind never breaks a call
                log.exception("sink failed", sink=_name(sink), event_type=type(event).__name__)
                continue
            if returned is not None and inspect.isawaitable(returned):
                self._background(returned, sink)

    def _background(self, awaitable: Awaitable[None], sink: Sink) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # called from sync code: there is nothing to run it on
            if inspect.iscoroutine(awaitable):
                awaitable.close()
            log.warning("async sink called outside an event loop", sink=_name(sink))
            return
        task = asyncio.ensure_future(self._bounded(awaitable, sink))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _bounded(self, awaitable: Awaitable[None], sink: Sink) -> None:
        try:
            await asyncio.wait_for(awaitable, self.timeout_s)
        except TimeoutError:
            log.warning("sink too slow, event dropped", sink=_name(sink), timeout_s=self.timeout_s)
        except Exception:
            log.exception("sink failed", sink=_name(sink))

    async def drain(self) -> None:
        """Wait for async sinks still handling events (each bounded by `timeout_s`)."""
        while self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)


def _entry(sink: Sink) -> Sink:
    """What to call for `sink`: an object's own `__call__` method, bound once (calling the
    object looks the method up and binds it on every event: a third of a sink's cost)."""
    found = (vars(cls)["__call__"] for cls in type(sink).__mro__ if "__call__" in vars(cls))
    method = next(found, None)
    if isinstance(method, FunctionType):  # a class of Python code
        return cast("Sink", MethodType(method, sink))
    return sink  # a function, a bound method, a builtin: called as it is


def _name(sink: Sink) -> str:
    return getattr(sink, "__qualname__", None) or type(sink).__name__
