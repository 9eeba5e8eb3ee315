"""`ToolStreamHandler`: tool events in, one line of progress text per call out, for UIs.

It is a sink (`Executor(registry, sinks=[handler])`) and tolerates the disorder of real
streams: a finish without a start (the start is reconstructed), progress for a call it has
not seen, duplicate events, and parallel calls interleaved. Consumers either register a
callback (`on_update`) or iterate: `async for update in handler.updates(): ...`.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, assert_never

from returns.result import Failure, Success

from toolrail._diagnostics import get_logger
from toolrail.core._slots import constructor
from toolrail.core.context import ExecutionContext
from toolrail.core.control import Complete, EndConversation
from toolrail.core.errors import ToolError
from toolrail.core.redact import redact_text
from toolrail.recording.eventjson import hidden_of, shown_tool
from toolrail.recording.events import (
    CircuitStateChanged,
    McpServerStateChanged,
    ToolCallRequested,
    ToolCompleted,
    ToolDefinitionChanged,
    ToolEvent,
    ToolFailed,
    ToolProgress,
    ToolRegistered,
    ToolStarted,
    ToolUnregistered,
)
from toolrail.recording.narration import describe_call, describe_error
from toolrail.resilience import Health, HealthTracker

log = get_logger("toolrail.recording.stream")

Status = Literal["requested", "running", "completed", "failed"]
Terminator = Literal["complete", "end_conversation"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ProgressUpdate:
    """The current line for one call; a UI replaces the call's previous line with `text`."""

    call_id: str
    tool: str
    agent: str
    status: Status
    text: str
    progress: float | None = None
    total: float | None = None
    duration_ms: float | None = None
    error_kind: str | None = None
    timed_out: bool = False
    """On a failed line: the call ran past its deadline (a UI may offer a longer one)."""
    terminator: Terminator | None = None
    at: datetime | None = None
    health: Health | None = None
    """On finished lines, when the handler was given a health tracker: the tool's recent record."""

    def __post_init__(self) -> None:
        # by construction: no line a UI shows can carry a secret from arguments or errors
        object.__setattr__(self, "text", redact_text(self.text))

    @property
    def finished(self) -> bool:
        return self.status in ("completed", "failed")


_clean_update: Callable[..., ProgressUpdate] = constructor(ProgressUpdate)
"""A `ProgressUpdate` whose `text` is redacted already, made without redacting it again
(the handler redacts each text it makes once); every other way to make one redacts."""


UpdateCallback = Callable[[ProgressUpdate], None]
_SEEN_LIMIT = 4096  # finished calls remembered to drop duplicate events


class ToolStreamHandler:
    """Turns tool events into `ProgressUpdate`s; see the module docstring."""

    def __init__(
        self,
        *,
        on_update: UpdateCallback | None = None,
        queue_size: int = 1024,
        health: HealthTracker | None = None,
    ) -> None:
        self._callbacks: list[UpdateCallback] = [on_update] if on_update else []
        self._queues: list[asyncio.Queue[ProgressUpdate | None]] = []
        self._queue_size = queue_size
        self._active: dict[str, ProgressUpdate] = {}
        self._finished: OrderedDict[str, weakref.ref[ExecutionContext]] = OrderedDict()
        self._health = health

    def __call__(self, event: ToolEvent) -> None:
        for update in self._updates_for(event):
            self._publish(update)

    def on_update(self, callback: UpdateCallback) -> None:
        """Call `callback` with every update, synchronously, as events arrive."""
        self._callbacks.append(callback)

    def active(self) -> list[ProgressUpdate]:
        """The latest line of every call still running, in start order."""
        return list(self._active.values())

    def updates(self) -> AsyncIterator[ProgressUpdate]:
        """Iterate over updates from this call on (not from the first `__anext__`), until
        `close()`."""
        queue: asyncio.Queue[ProgressUpdate | None] = asyncio.Queue(self._queue_size)
        self._queues.append(queue)
        return self._drain(queue)

    async def _drain(
        self, queue: asyncio.Queue[ProgressUpdate | None]
    ) -> AsyncIterator[ProgressUpdate]:
        try:
            while (update := await queue.get()) is not None:
                yield update
        finally:
            if queue in self._queues:
                self._queues.remove(queue)

    def close(self) -> None:
        """End every `updates()` iteration once it has read what is queued."""
        for queue in self._queues:
            _put(queue, None, force=True)
        self._queues.clear()  # an iterator never started holds no place past this

    # --- events → updates --------------------------------------------------------------

    def _updates_for(self, event: ToolEvent) -> list[ProgressUpdate]:
        match event:  # the cases of every call first: each class pattern is an isinstance
            case ToolStarted():
                current = self._active.get(event.call_id)
                if self._ended(event) or (current and current.status == "running"):
                    return []
                text = event.description or describe_call(
                    event.tool, event.arguments, read_only=event.read_only, source=event.source
                )
                return [
                    self._begin(event.call_id, event.tool, event.agent, "running", text, event.at)
                ]
            case ToolCompleted() | ToolFailed():
                if self._ended(event):
                    return []
                started = self._ensure_started(event)
                timed_out = isinstance(event, ToolFailed) and event.timed_out
                health = self._health.health(event.tool) if self._health is not None else None
                return [*started, self._end(event, timed_out, health)]
            case ToolProgress():
                if self._ended(event):
                    return []
                started = self._ensure_started(event)
                base = self._active[event.call_id]
                update = _clean_update(
                    call_id=base.call_id,
                    tool=base.tool,
                    agent=base.agent,
                    status=base.status,
                    text=redact_text(_with_progress(base.text, event)),  # its message is new
                    progress=event.progress,
                    total=event.total,
                    at=event.at,
                    health=base.health,
                )
                self._active[event.call_id] = _clean_update(
                    call_id=base.call_id,
                    tool=base.tool,
                    agent=base.agent,
                    status=base.status,
                    text=base.text,
                    progress=event.progress,
                    total=event.total,
                    at=event.at,
                    health=base.health,
                )
                return [*started, update]
            case ToolCallRequested():
                if event.call_id in self._active or self._ended(event):
                    return []
                tool = shown_tool(event)  # the model is still writing it: untrusted text
                text = f"💭 Preparing {tool}"
                return [self._begin(event.call_id, tool, event.agent, "requested", text, event.at)]
            case (
                ToolRegistered()
                | ToolUnregistered()
                | ToolDefinitionChanged()
                | McpServerStateChanged()
                | CircuitStateChanged()
            ):
                return []
            case _:
                assert_never(event)

    def _begin(
        self, call_id: str, tool: str, agent: str, status: Status, text: str, at: datetime
    ) -> ProgressUpdate:
        """The first line of a call: its text is redacted here, once; later lines of the
        call build on it."""
        update = _clean_update(
            call_id=call_id, tool=tool, agent=agent, status=status, text=redact_text(text), at=at
        )
        self._active[call_id] = update
        return update

    def _ensure_started(
        self, event: ToolCompleted | ToolFailed | ToolProgress
    ) -> list[ProgressUpdate]:
        """A call we never saw start gets its start reconstructed from what we know now."""
        current = self._active.get(event.call_id)
        if current is not None and current.status == "running":
            return []
        tool = shown_tool(event)  # a name no tool answers to is the model's text
        arguments = None if isinstance(event, ToolProgress) else event.outcome.call.arguments
        text = describe_call(tool, arguments)
        return [self._begin(event.call_id, tool, event.agent, "running", text, event.at)]

    def _ended(
        self, event: ToolStarted | ToolCompleted | ToolFailed | ToolProgress | ToolCallRequested
    ) -> bool:
        """Whether `event` is late news of a call that has ended: the same id *and* the same
        call (its own per-call context). Models reuse ids ("call_1" every turn): a later call
        with an ended call's id is a new call."""
        ended = self._finished.get(event.call_id)
        if ended is None:
            return False
        if ended() is event.context:
            return True
        del self._finished[event.call_id]  # the id now names another call
        return False

    def _end(
        self, event: ToolCompleted | ToolFailed, timed_out: bool, health: Health | None
    ) -> ProgressUpdate:
        outcome = event.outcome
        begun = self._active.pop(event.call_id)
        # weakly: once no event holds the context, no late news of the call can come
        self._finished[event.call_id] = weakref.ref(event.context)
        if len(self._finished) > _SEEN_LIMIT:
            self._finished.popitem(last=False)
        seconds = _duration(outcome.duration_ms)
        if outcome.attempts > 1:
            seconds = f"{outcome.attempts} attempts, {seconds}"
        status: Status = "completed"
        terminator: Terminator | None = None
        error_kind: str | None = None
        result = outcome.result
        # `type(...) is`, not `match Success(...)`: Success and Failure are final classes
        # under an ABC, where each class pattern is a slow isinstance
        if type(result) is Success:
            value = result.unwrap()
            if isinstance(value, Complete):
                text, terminator = f"✅ Completed: {_first_line(value.summary)}", "complete"
                text = redact_text(hidden_of(outcome).without(text))
            elif isinstance(value, EndConversation):
                text = f"🏁 Conversation ended: {_first_line(value.reason)}"
                text = redact_text(hidden_of(outcome).without(text))
                terminator = "end_conversation"
            else:  # only the redacted start line and our own figures: nothing new to redact
                text = f"✔ {begun.text} ({seconds})"
        elif type(result) is Failure:
            error: ToolError = result.failure()
            status, error_kind = "failed", error.kind
            # redacted whole: the error's text may be what completes a secret in the line
            text = redact_text(f"✖ {begun.text} — {describe_error(error)} ({seconds})")
        else:
            status, text = "failed", f"✖ {begun.text}"
        return _clean_update(
            call_id=begun.call_id,
            tool=begun.tool,
            agent=begun.agent,
            status=status,
            text=text,
            progress=begun.progress,
            total=begun.total,
            duration_ms=outcome.duration_ms,
            error_kind=error_kind,
            timed_out=timed_out,
            terminator=terminator,
            at=begun.at,
            health=health if health is not None else begun.health,
        )

    def _publish(self, update: ProgressUpdate) -> None:
        for callback in self._callbacks:
            try:
                callback(update)
            except Exception:
                log.exception("progress callback failed", call_id=update.call_id)
        for queue in self._queues:
            _put(queue, update, force=update.finished)


def _put(
    queue: asyncio.Queue[ProgressUpdate | None], item: ProgressUpdate | None, *, force: bool
) -> None:
    """Never block a tool call on a slow reader: drop the oldest line, not the newest."""
    if queue.full():
        if not force:
            return  # an intermediate progress line a slow reader can miss
        with contextlib.suppress(asyncio.QueueEmpty):
            queue.get_nowait()
    queue.put_nowait(item)


def _with_progress(text: str, event: ToolProgress) -> str:
    try:
        amount = f"{event.progress / event.total:.0%}" if event.total else f"{event.progress:g}"
    except (TypeError, ValueError):  # a tool reported something that is not a number
        amount = str(event.progress)
    detail = f" — {event.message}" if event.message else ""
    return f"{text} [{amount}]{detail}"


def _duration(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""
