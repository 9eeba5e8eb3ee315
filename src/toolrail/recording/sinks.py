"""Fan events out to sinks without letting a sink break or stall a tool call."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Iterable

from toolrail._diagnostics import callable_name, get_logger
from toolrail.recording.events import Sink, ToolEvent

log = get_logger("toolrail.recording.sinks")


class Fanout:
    """Calls each sink with each event; owns the background tasks of async sinks."""

    def __init__(self, sinks: Iterable[Sink] = (), *, timeout_s: float = 5.0) -> None:
        self.sinks: tuple[Sink, ...] = tuple(sinks)
        self.timeout_s = timeout_s
        self._pending: set[asyncio.Task[None]] = set()

    def emit(self, event: ToolEvent, sinks: Iterable[Sink] | None = None) -> None:
        """Send `event` to every sink (or to those of them in `sinks`)."""
        for sink in self.sinks if sinks is None else sinks:
            try:
                returned = sink(event)
            except KeyboardInterrupt:
                raise
            except BaseException as error:  # a sink's failure of any kind never breaks a call
                if isinstance(error, asyncio.CancelledError) and _being_cancelled():
                    raise  # not the sink's: the call's own task, let it stop
                log.exception(
                    "sink failed", sink=callable_name(sink), event_type=type(event).__name__
                )
                continue
            if returned is not None and inspect.isawaitable(returned):
                self._background(returned, sink)

    def _background(self, awaitable: Awaitable[None], sink: Sink) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # called from sync code: there is nothing to run it on
            if inspect.iscoroutine(awaitable):
                awaitable.close()
            log.warning("async sink called outside an event loop", sink=callable_name(sink))
            return
        task = asyncio.ensure_future(self._bounded(awaitable, sink))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _bounded(self, awaitable: Awaitable[None], sink: Sink) -> None:
        try:
            await asyncio.wait_for(awaitable, self.timeout_s)
        except TimeoutError:
            log.warning(
                "sink too slow, event dropped", sink=callable_name(sink), timeout_s=self.timeout_s
            )
        except Exception:
            log.exception("sink failed", sink=callable_name(sink))

    async def drain(self) -> None:
        """Wait for async sinks still handling events (each bounded by `timeout_s`)."""
        while self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)


def _being_cancelled() -> bool:
    """Whether the task running now is being cancelled: a sink's `CancelledError` is then
    that cancellation; otherwise the sink's own (a future of its own it read), a failure."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no loop running
        return False
    return task is not None and task.cancelling() > 0
