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
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, assert_never

from returns.result import Failure, Success

from toolrail._diagnostics import get_logger
from toolrail.core.call import RawArguments, ToolOutcome
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


@dataclass(frozen=True, kw_only=True)  # not slots: the handler fills a line's dict at once
class ProgressUpdate:
    """The current line for one call; a UI replaces the call's previous line with `text`.

    `text` is redacted by construction: no line a UI shows can carry a secret from
    arguments or errors. The handler's own lines make their text (describe the call,
    redact it) when it is first read, not when the event arrives: a UI drawing at its own
    pace pays for the lines it draws, and a tool call pays for none."""

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
    _render: Callable[[], str] | None = field(default=None, repr=False, compare=False)
    """A handler's line: makes `text`, once, at its first read (then let go)."""

    def __post_init__(self) -> None:
        # by construction: no line a UI shows can carry a secret from arguments or errors
        object.__setattr__(self, "text", redact_text(self.text))

    if not TYPE_CHECKING:  # to a type checker, `text` is a plain field

        def __getattr__(self, name: str) -> str:
            """Reached only for a name not set: a handler's line's text, not made yet."""
            render = self._render if name == "text" else None
            if render is None:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            text = render()  # a benign race: two readers make the same text
            fields = self.__dict__
            fields["text"] = text
            fields["_render"] = None  # what it read (events, the start line) is let go
            return text

    @property
    def finished(self) -> bool:
        return self.status in ("completed", "failed")


def _line(
    render: Callable[[], str],
    *,
    call_id: str,
    tool: str,
    agent: str,
    status: Status,
    at: datetime | None,
    progress: float | None = None,
    total: float | None = None,
    health: Health | None = None,
) -> ProgressUpdate:
    """One of the handler's lines (a start, progress): `render` makes its redacted text
    when it is first read."""
    update = _new(ProgressUpdate)
    _set(
        update,
        "__dict__",
        {
            "call_id": call_id,
            "tool": tool,
            "agent": agent,
            "status": status,
            "progress": progress,
            "total": total,
            "duration_ms": None,
            "error_kind": None,
            "timed_out": False,
            "terminator": None,
            "at": at,
            "health": health,
            "_render": render,
        },
    )
    return update


def _last_line(
    begun: ProgressUpdate,
    render: Callable[[], str],
    *,
    status: Status,
    duration_ms: float,
    error_kind: str | None,
    timed_out: bool,
    terminator: Terminator | None,
    health: Health | None,
) -> ProgressUpdate:
    """A call's final line: its first line's fields and how it ended."""
    fields = begun.__dict__.copy()
    fields.pop("text", None)  # `render` makes this line's own
    fields["status"] = status
    fields["duration_ms"] = duration_ms
    fields["error_kind"] = error_kind
    fields["timed_out"] = timed_out
    fields["terminator"] = terminator
    if health is not None:
        fields["health"] = health
    fields["_render"] = render
    update = _new(ProgressUpdate)
    _set(update, "__dict__", fields)
    return update


_new = object.__new__
_set = object.__setattr__


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
        self._finished: dict[str, weakref.ref[ExecutionContext]] = {}  # oldest first
        self._health = health

    def __call__(self, event: ToolEvent) -> None:
        # by the event's exact type: a chain of isinstance checks (a `match`) on every
        # event would cost a tool call more than the rest of this
        take = _TAKES.get(type(event))
        if take is None:
            take = _take_by_kind(event)
        take(self, event)

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

    def _started(self, event: ToolStarted) -> None:
        current = self._active.get(event.call_id)
        if self._ended(event) or (current and current.status == "running"):
            return
        render = partial(_started_text, event)
        self._begin(event.call_id, event.tool, event.agent, "running", render, event.at)

    def _finished_call(self, event: ToolCompleted | ToolFailed) -> None:
        if self._ended(event):
            return
        self._ensure_started(event)
        timed_out = type(event) is ToolFailed and event.timed_out
        health = self._health.health(event.tool) if self._health is not None else None
        self._publish(self._end(event, timed_out, health))

    def _progressed(self, event: ToolProgress) -> None:
        if self._ended(event):
            return
        self._ensure_started(event)
        base = self._active[event.call_id]
        self._active[event.call_id] = _progressed(base, event, partial(_text_of, base))
        self._publish(_progressed(base, event, partial(_progress_text, base, event)))

    def _requested(self, event: ToolCallRequested) -> None:
        if event.call_id in self._active or self._ended(event):
            return
        tool = shown_tool(event)  # the model is still writing it: untrusted text
        render = partial(redact_text, f"💭 Preparing {tool}")
        self._begin(event.call_id, tool, event.agent, "requested", render, event.at)

    def _begin(
        self,
        call_id: str,
        tool: str,
        agent: str,
        status: Status,
        render: Callable[[], str],
        at: datetime,
    ) -> None:
        """The first line of a call; later lines of the call build on its text."""
        update = _line(render, call_id=call_id, tool=tool, agent=agent, status=status, at=at)
        self._active[call_id] = update
        self._publish(update)

    def _ensure_started(self, event: ToolCompleted | ToolFailed | ToolProgress) -> None:
        """A call we never saw start gets its start reconstructed from what we know now."""
        current = self._active.get(event.call_id)
        if current is not None and current.status == "running":
            return
        tool = shown_tool(event)  # a name no tool answers to is the model's text
        arguments = None if isinstance(event, ToolProgress) else event.outcome.call.arguments
        render = partial(_reconstructed_text, tool, arguments)
        self._begin(event.call_id, tool, event.agent, "running", render, event.at)

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
            del self._finished[next(iter(self._finished))]
        status: Status = "completed"
        terminator: Terminator | None = None
        error_kind: str | None = None
        result = outcome.result
        # `type(...) is`, not `match Success(...)`: Success and Failure are final classes
        # under an ABC, where each class pattern is a slow isinstance
        if type(result) is Success:
            value = result.unwrap()
            if isinstance(value, Complete):
                terminator = "complete"
            elif isinstance(value, EndConversation):
                terminator = "end_conversation"
        elif type(result) is Failure:
            error: ToolError = result.failure()
            status, error_kind = "failed", error.kind
        else:
            status = "failed"
        return _last_line(
            begun,
            partial(_finished_text, begun, outcome),
            status=status,
            duration_ms=outcome.duration_ms,
            error_kind=error_kind,
            timed_out=timed_out,
            terminator=terminator,
            health=health,
        )

    def _publish(self, update: ProgressUpdate) -> None:
        for callback in self._callbacks:
            try:
                callback(update)
            except Exception:
                log.exception("progress callback failed", call_id=update.call_id)
        for queue in self._queues:
            _put(queue, update, force=update.finished)


_Take = Callable[[ToolStreamHandler, Any], None]
_TAKES: dict[type, _Take] = {}


def _take_by_kind(event: ToolEvent) -> _Take:
    """How an event of `event`'s type is taken: found by its kind once a type."""
    take: _Take
    match event:
        case ToolStarted():
            take = ToolStreamHandler._started
        case ToolCompleted() | ToolFailed():
            take = ToolStreamHandler._finished_call
        case ToolProgress():
            take = ToolStreamHandler._progressed
        case ToolCallRequested():
            take = ToolStreamHandler._requested
        case (
            ToolRegistered()
            | ToolUnregistered()
            | ToolDefinitionChanged()
            | McpServerStateChanged()
            | CircuitStateChanged()
        ):
            take = _ignore
        case _:
            assert_never(event)
    _TAKES[type(event)] = take
    return take


def _ignore(handler: ToolStreamHandler, event: ToolEvent) -> None:
    """No line: the event is about tools or servers, not a call."""


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


# --- the texts, made when a line is first read -------------------------------------------


def _started_text(event: ToolStarted) -> str:
    return redact_text(
        event.description
        or describe_call(
            event.tool, event.arguments, read_only=event.read_only, source=event.source
        )
    )


def _reconstructed_text(tool: str, arguments: RawArguments) -> str:
    return redact_text(describe_call(tool, arguments))


def _progress_text(base: ProgressUpdate, event: ToolProgress) -> str:
    return redact_text(_with_progress(base.text, event))  # its message is new


def _progressed(
    base: ProgressUpdate, event: ToolProgress, render: Callable[[], str]
) -> ProgressUpdate:
    return _line(
        render,
        call_id=base.call_id,
        tool=base.tool,
        agent=base.agent,
        status=base.status,
        progress=event.progress,
        total=event.total,
        at=event.at,
        health=base.health,
    )


def _text_of(update: ProgressUpdate) -> str:
    return update.text


def _finished_text(begun: ProgressUpdate, outcome: ToolOutcome) -> str:
    seconds = _duration(outcome.duration_ms)
    if outcome.attempts > 1:
        seconds = f"{outcome.attempts} attempts, {seconds}"
    result = outcome.result
    if type(result) is Success:
        value = result.unwrap()
        if isinstance(value, Complete):
            text = f"✅ Completed: {_first_line(value.summary)}"
            return redact_text(hidden_of(outcome).without(text))
        if isinstance(value, EndConversation):
            text = f"🏁 Conversation ended: {_first_line(value.reason)}"
            return redact_text(hidden_of(outcome).without(text))
        # only the redacted start line and our own figures: nothing new to redact
        return f"✔ {begun.text} ({seconds})"
    if type(result) is Failure:
        error: ToolError = result.failure()
        # redacted whole: the error's text may be what completes a secret in the line
        return redact_text(f"✖ {begun.text} — {describe_error(error)} ({seconds})")
    return f"✖ {begun.text}"


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
