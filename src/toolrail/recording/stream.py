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
from dataclasses import dataclass, fields
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Literal

from returns.result import Failure, Success

from toolrail._diagnostics import get_logger
from toolrail.core.call import RawArguments
from toolrail.core.context import ExecutionContext
from toolrail.core.control import Complete, EndConversation
from toolrail.core.errors import ToolError
from toolrail.core.redact import printable, redact_text
from toolrail.recording.eventjson import hidden_of, shown_tool
from toolrail.recording.events import (
    EventRoutes,
    ToolCallRequested,
    ToolCompleted,
    ToolEvent,
    ToolFailed,
    ToolProgress,
    ToolStarted,
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
    arguments or errors, nor a control character a terminal would obey (`printable`).
    The handler's own lines make their text (describe the call, redact it) when it is
    first read, not when the event arrives, so a UI drawing at its own pace pays for the
    lines it draws and a tool call pays for none. They make it from
    what was fixed when the event arrived (JSON text, numbers, a frozen error), never from
    something a caller may still change; reading it never raises."""

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
        object.__setattr__(self, "text", printable(redact_text(self.text)))

    if not TYPE_CHECKING:  # to a type checker, `text` is a plain field

        def __getattr__(self, name: str) -> str:
            """Reached only for a name not set: the text of a handler's line, not made yet."""
            fields = self.__dict__
            render = fields.get("_render") if name == "text" else None
            if render is None:
                if name == "text" and "text" in fields:  # another thread made it just now
                    return fields["text"]
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            text = _made(render, self.tool)
            fields["text"] = text  # first, then let go of what made it: see above
            fields["_render"] = None
            return text

    def __reduce__(self) -> tuple[Callable[..., ProgressUpdate], tuple[object, ...]]:
        """Copies and pickles hold the text, never what makes it."""
        return _rebuilt, tuple(getattr(self, field.name) for field in fields(self))

    @property
    def finished(self) -> bool:
        return self.status in ("completed", "failed")


def _rebuilt(*values: object) -> ProgressUpdate:
    names = (field.name for field in fields(ProgressUpdate))
    return ProgressUpdate(**dict(zip(names, values, strict=True)))  # type: ignore[arg-type]


Render = Callable[[], str]
"""Makes a line's redacted text, from values that cannot change."""


def _made(render: Render, tool: str) -> str:
    try:
        return printable(render())
    except Exception:  # a bug of ours: the line still reads as something, safely
        log.exception("progress text failed", tool=tool)
        return redact_text(f"⚙️ {tool}")


def _line(
    text: Render | str, call_id: str, tool: str, agent: str, status: Status, at: datetime | None
) -> ProgressUpdate:
    """One of the handler's lines (a start, progress): `text` made now (redacted) or when
    first read; the fields it does not set as `_UNSET` has them."""
    fields = _UNSET.copy()  # one copy: cheaper than a dict of thirteen made anew
    # a model wrote it: shown as text (checked here first: one call less on every line)
    fields["call_id"] = (
        call_id
        if call_id.isascii() and call_id.isprintable()
        else printable(call_id, one_line=True)
    )
    fields["tool"] = tool
    fields["agent"] = agent
    fields["status"] = status
    fields["at"] = at
    if type(text) is str:
        fields["text"] = printable(text)
    else:
        fields["_render"] = text
    update = _new(ProgressUpdate)
    _set(update, "__dict__", fields)
    return update


_UNSET: dict[str, object] = {
    "call_id": "",  # the five `_line` sets: a copy holding every key never grows
    "tool": "",
    "agent": "",
    "status": "running",
    "at": None,
    "progress": None,
    "total": None,
    "duration_ms": None,
    "error_kind": None,
    "timed_out": False,
    "terminator": None,
    "health": None,
    "_render": None,
}
"""A fresh line's fields but its text."""


def _last_line(
    latest: ProgressUpdate,
    text: Render | str,
    *,
    status: Status,
    duration_ms: float,
    error_kind: str | None,
    timed_out: bool,
    terminator: Terminator | None,
    health: Health | None,
) -> ProgressUpdate:
    """A call's final line: its latest line's fields and how it ended; `text` made now
    (redacted) or when first read."""
    fields = latest.__dict__.copy()
    fields["status"] = status
    fields["duration_ms"] = duration_ms
    fields["error_kind"] = error_kind
    fields["timed_out"] = timed_out
    fields["terminator"] = terminator
    if health is not None:
        fields["health"] = health
    if type(text) is str:
        fields["text"], fields["_render"] = printable(text), None
    else:
        fields.pop("text", None)
        fields["_render"] = text
    update = _new(ProgressUpdate)
    _set(update, "__dict__", fields)
    return update


_new = object.__new__
_set = object.__setattr__


UpdateCallback = Callable[[ProgressUpdate], None]
_Ended = tuple[weakref.ref[ExecutionContext], ...]
"""The contexts of the latest calls with one id that have ended, oldest first."""
_SAME_ID = 8
"""How many ended calls with one id whose contexts are still held somewhere are told apart (a
model giving every turn's call the same id makes many; one whose context nobody holds can
send no news, and is forgotten): late news of an older one is shown again, as a call of its
own."""
_SEEN_LIMIT = 4096
"""Ids of ended calls remembered (to drop late news of them): at least the latest this many."""


def _and(ended: _Ended, reference: weakref.ref[ExecutionContext]) -> _Ended:
    """The ended calls with one id and one more: those whose context is gone left out (they
    can send no news), the oldest of the rest past `_SAME_ID`."""
    alive = tuple(one for one in ended if one() is not None)
    return (*alive[1 - _SAME_ID :], reference)


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
        self._active: dict[str, ProgressUpdate] = {}  # each running call's latest line
        self._first: dict[str, ProgressUpdate] = {}  # and its first, once they differ
        # ended calls: by id, the contexts of the latest few with it; in two generations,
        # the latest and the one before it, forgotten whole once the latest is full (an
        # OrderedDict forgetting its oldest one by one costs every call 0.15 µs; a dict
        # used so, 2 µs once it has holes to skip)
        self._finished: dict[str, _Ended] = {}
        self._finished_before: dict[str, _Ended] = {}
        self._health = health

    def __call__(self, event: ToolEvent) -> None:
        _ROUTES[type(event)](self, event)

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
        call_id = event.call_id
        # (the ids asked first: most events are of calls not ended, which need no `_ended`)
        if (call_id in self._finished or call_id in self._finished_before) and self._ended(event):
            return
        current = self._active.get(call_id)
        if current is not None and current.status == "running":
            return
        render = (
            partial(redact_text, event.description)
            if event.description
            else _describing(event.tool, event.arguments, event.read_only, event.source)
        )
        self._begin(call_id, event.tool, event.agent, "running", render, event.at)

    def _finished_call(self, event: ToolCompleted | ToolFailed) -> None:
        call_id = event.call_id
        if (call_id in self._finished or call_id in self._finished_before) and self._ended(event):
            return
        latest = self._active.pop(call_id, None)
        if latest is None or latest.status != "running":
            latest = self._ensure_started(event)
            del self._active[call_id]
        timed_out = isinstance(event, ToolFailed) and event.timed_out
        health = self._health.health(event.tool) if self._health is not None else None
        self._publish(self._end(event, latest, timed_out, health))

    def _progressed(self, event: ToolProgress) -> None:
        if self._ended(event):
            return
        self._ensure_started(event)
        call_id = event.call_id
        latest = self._active[call_id]
        first = self._first.setdefault(call_id, latest)  # its first line, until now its latest
        # the call's line stays its first line's text; this one adds the report to it
        self._active[call_id] = _progressed(latest, event, partial(_text_of, first))
        report = _with_progress(event)  # now: a tool may report any object
        self._publish(_progressed(latest, event, partial(_progress_text, first, report)))

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
        text: Render | str,
        at: datetime,
    ) -> ProgressUpdate:
        """The first line of a call; its later lines are made from its text."""
        update = _line(text, call_id, tool, agent, status, at)
        self._active[call_id] = update
        if self._first:
            self._first.pop(call_id, None)  # a line for the call before it started
        self._publish(update)
        return update

    def _ensure_started(self, event: ToolCompleted | ToolFailed | ToolProgress) -> ProgressUpdate:
        """A call we never saw start gets its start reconstructed from what we know now."""
        current = self._active.get(event.call_id)
        if current is not None and current.status == "running":
            return current
        tool = shown_tool(event)  # a name no tool answers to is the model's text
        arguments = None if isinstance(event, ToolProgress) else event.outcome.call.arguments
        render = _describing(tool, arguments)
        return self._begin(event.call_id, tool, event.agent, "running", render, event.at)

    def _ended(
        self, event: ToolStarted | ToolCompleted | ToolFailed | ToolProgress | ToolCallRequested
    ) -> bool:
        """Whether `event` is late news of a call that has ended: the same id *and* the same
        call (its own per-call context). Models reuse ids ("call_1" every turn): a later call
        with an ended call's id is a new call, and late news of either is late news still."""
        call_id, context = event.call_id, event.context
        for finished in (self._finished, self._finished_before):
            for reference in finished.get(call_id, ()):  # a loop, not any(): no generator
                if reference() is context:
                    return True
        return False

    def _end(
        self,
        event: ToolCompleted | ToolFailed,
        latest: ProgressUpdate,
        timed_out: bool,
        health: Health | None,
    ) -> ProgressUpdate:
        """The call's last line, from its `latest` (taken out of the running lines)."""
        outcome = event.outcome
        first = self._first.pop(event.call_id, latest) if self._first else latest
        # weakly: once no event holds the context, no late news of the call can come
        finished = self._finished
        ended = finished.get(event.call_id)
        reference = weakref.ref(event.context)
        finished[event.call_id] = (reference,) if ended is None else _and(ended, reference)
        if len(finished) >= _SEEN_LIMIT:
            self._finished_before, self._finished = finished, {}
        status: Status = "completed"
        terminator: Terminator | None = None
        error_kind: str | None = None
        text: Render | str
        result = outcome.result
        # `type(...) is`, not `match Success(...)`: Success and Failure are final classes
        # under an ABC, where each class pattern is a slow isinstance
        if type(result) is Success:
            value = result.unwrap()
            if isinstance(value, Complete):  # made now: an output is anything a tool made
                summary = f"✅ Completed: {_first_line(value.summary)}"
                text, terminator = redact_text(hidden_of(outcome).without(summary)), "complete"
            elif isinstance(value, EndConversation):
                reason = f"🏁 Conversation ended: {_first_line(value.reason)}"
                text = redact_text(hidden_of(outcome).without(reason))
                terminator = "end_conversation"
            else:
                text = partial(_done_text, first, outcome.duration_ms, outcome.attempts)
        elif type(result) is Failure:
            error: ToolError = result.failure()
            status, error_kind = "failed", error.kind
            text = partial(_failed_text, first, error, outcome.duration_ms, outcome.attempts)
        else:
            status, text = "failed", partial(_unknown_end_text, first)
        return _last_line(
            latest,
            text,
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


_ROUTES: EventRoutes[ToolStreamHandler] = EventRoutes(
    (ToolStarted, ToolStreamHandler._started),
    ((ToolCompleted, ToolFailed), ToolStreamHandler._finished_call),
    (ToolProgress, ToolStreamHandler._progressed),
    (ToolCallRequested, ToolStreamHandler._requested),
)  # other events are about tools or servers, not a call: no line


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


def _describing(
    tool: str, arguments: RawArguments, read_only: bool = False, source: str = "local"
) -> Render | str:
    """The call's description: made when read from JSON text (which cannot change), now
    from anything else (a caller may change its own dict after the call)."""
    if arguments is None or type(arguments) is str:
        return partial(_described, tool, arguments, read_only, source)
    return redact_text(describe_call(tool, arguments, read_only=read_only, source=source))


def _described(tool: str, arguments: str | None, read_only: bool, source: str) -> str:
    return redact_text(describe_call(tool, arguments, read_only=read_only, source=source))


def _text_of(update: ProgressUpdate) -> str:
    return update.text


def _progress_text(first: ProgressUpdate, report: str) -> str:
    return redact_text(first.text + report)  # the tool's message is new


def _progressed(latest: ProgressUpdate, event: ToolProgress, render: Render) -> ProgressUpdate:
    update = _line(render, latest.call_id, latest.tool, latest.agent, latest.status, event.at)
    fields = update.__dict__
    fields["progress"], fields["total"], fields["health"] = (
        event.progress,
        event.total,
        latest.health,
    )
    return update


def _done_text(first: ProgressUpdate, duration_ms: float, attempts: int) -> str:
    # only the redacted first line and our own figures: nothing new to redact
    return f"✔ {first.text} ({_took(duration_ms, attempts)})"


def _failed_text(first: ProgressUpdate, error: ToolError, duration_ms: float, attempts: int) -> str:
    # redacted whole: the error's text may be what completes a secret in the line
    took = _took(duration_ms, attempts)
    return redact_text(f"✖ {first.text} — {describe_error(error)} ({took})")


def _unknown_end_text(first: ProgressUpdate) -> str:
    return f"✖ {first.text}"


def _took(duration_ms: float, attempts: int) -> str:
    seconds = _duration(duration_ms)
    return f"{attempts} attempts, {seconds}" if attempts > 1 else seconds


def _with_progress(event: ToolProgress) -> str:
    try:
        amount = f"{event.progress / event.total:.0%}" if event.total else f"{event.progress:g}"
    except (TypeError, ValueError):  # a tool reported something that is not a number
        amount = str(event.progress)
    detail = f" — {event.message}" if event.message else ""
    return f" [{amount}]{detail}"


def _duration(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""
