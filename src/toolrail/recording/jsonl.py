"""`JsonlCallLog`: one JSON line per finished call, in `tool-calls-YYYY-MM-DD.jsonl` (UTC).

Each line is valid against `schemas/tool-call-log-entry.schema.json`. Recording is off the
call path: the sink only queues the finished call's parts, as they are when it ends (an
output, arguments or metadata that could still change is made JSON text then, a caller or
tool changing it later changes nothing recorded: about 0.3 µs for a small output, 0.3 ms for
one at the executor's output cap, 50 ms for a million entries with the cap off); a writer
thread builds, redacts and serialises the records once calls pause (2 ms with none ending;
at most 20 ms after the first) and appends them in batches, each batch with one `write(2)`
under an exclusive `flock`, so threads, tasks and separate processes appending to the same
file never interleave, and a lock held by another process never stalls the event loop. If a
write fails half-way, the part written is cut off again, so a line is there whole or not at
all. `flush()` waits for what was queued; `close()` / `aclose()` (or `with` / `async with`)
flush and stop, and whatever is still queued at interpreter exit is written then.

A process killed with `kill -9` loses the lines still queued (those of calls ended in the
last 20 ms, more while the writer is behind a burst), never a line already begun. With
`durable=True` each line is written on the call path instead, before the call returns, so
such a process loses at most the partial line it was writing (a `write`, not an `fsync`:
what the kernel holds survives the process, not a power cut). A child made by `os.fork`
opens the file anew, with its own lock.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple, Self

import orjson
from returns.result import Failure, Result, Success

from toolrail._batches import BackgroundBatches
from toolrail._diagnostics import get_logger
from toolrail._jsonish import (
    SETTLED,
    arguments_as_they_are,
    arguments_copied,
    as_it_is,
    json_safe,
    taken,
    to_json_value,
)
from toolrail.core.call import RawArguments
from toolrail.core.errors import ToolError
from toolrail.core.hidden import NOTHING, hidden_in, hidden_texts, read_arguments
from toolrail.core.redact import cut, shown_name
from toolrail.recording.eventjson import shown_ended_tool
from toolrail.recording.events import ToolCompleted, ToolEvent, ToolFailed

log = get_logger("toolrail.recording.jsonl")

SCHEMA_VERSION = 1
FILE_PREFIX = "tool-calls-"
_LINGER_S = 0.002
"""The writer builds and writes once calls pause this long: a burst becomes one write,
made after the burst rather than taking the GIL from it."""


_FINISHED = (ToolCompleted, ToolFailed)


class _Ended(NamedTuple):
    """What a finished call's line is made of, taken from its event on the call path. The
    queue holds these values, not the event: an event keeps its call's context, progress
    reporter, outcome and call alive, and a queue of those (the writer behind a burst)
    reaches the garbage collector's oldest generation, whose full collections walk the
    whole heap. A queued call keeps one tuple, and its arguments, output and metadata as
    they were when it ended (`as_it_is`): a caller changing its arguments dict, a tool its
    output, after the call returned, changes nothing the line shows or hides."""

    day: date
    """The UTC day of the file the line goes to."""
    at: datetime
    started_at: datetime
    call_id: str
    tool: str
    source: str
    error: ToolError | None
    """None: the call succeeded, with `output`."""
    output: object
    output_type: str
    arguments: RawArguments
    metadata: Mapping[str, object] | None
    """What the tool attached (`ctx.attach`) and a person's edits (`asked_arguments`)."""
    duration_ms: float
    attempts: int
    request_id: str | None
    conversation_id: str
    agent: str
    phase: str | None
    call_stack: tuple[str, ...]
    batch_id: str | None
    trace_id: str | None


_tuple_new = tuple.__new__


def _ended(event: ToolCompleted | ToolFailed, day: date) -> _Ended:
    outcome, ctx = event.outcome, event.context
    error, output = (
        (event.error, None)
        if isinstance(event, ToolFailed)
        else (None, outcome.result.value_or(None))
    )
    attached, arguments = outcome.metadata, outcome.call.arguments
    parts = (
        day,
        event.at,
        outcome.started_at,
        event.call_id,
        event.tool,
        event.source,
        error,
        output if type(output) in SETTLED else as_it_is(output),  # (a call fewer, mostly)
        type(output).__name__,
        arguments if type(arguments) is str else arguments_as_they_are(arguments),
        # the executor's own `source` alone, or all of it as it is now
        None if len(attached) == 1 and "source" in attached else _metadata(attached),
        outcome.duration_ms,
        outcome.attempts,
        ctx.request_id,
        ctx.conversation_id,
        ctx.agent,
        ctx.phase,
        ctx.call_stack,
        ctx.batch_id,
        ctx.trace_id,
    )
    ended: _Ended = _tuple_new(_Ended, parts)  # not `_Ended(...)`: its __new__ is Python's
    return ended


def _metadata(attached: Mapping[str, object]) -> dict[str, object]:
    """A call's metadata as it is now (`as_it_is`), a person's edit of its arguments in
    their own shape (`arguments_copied`), without the `source` every line has."""
    return {
        key: arguments_copied(value) if key == "asked_arguments" else as_it_is(value)
        for key, value in attached.items()
        if key != "source"
    }


class JsonlCallLog:
    """A sink that records every finished call; `directory` defaults to `logs/`.

    `durable`: write each call's line before the call returns (on the call path: about
    25 µs for a small call, up to a millisecond for a 16 KB output, and a lock held by
    another process holds the call), so `kill -9` loses no finished call; by default lines
    are written off the call path (see the module)."""

    def __init__(
        self,
        directory: str | Path = "logs",
        *,
        max_output_bytes: int = 16_384,
        max_args_bytes: int = 65_536,
        redact_secrets: bool = True,
        clock: Callable[[], datetime] | None = None,
        durable: bool = False,
    ) -> None:
        self.directory = Path(directory)
        self.durable = durable
        self.max_output_bytes = max_output_bytes
        self.max_args_bytes = max_args_bytes
        self.redact_secrets = redact_secrets
        self._clock = clock
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._day: date | None = None
        self._writer = BackgroundBatches(
            self._write_batch,
            name="toolrail-call-log",
            linger=_LINGER_S,
            forked=self._forked,
        )

    def __call__(self, event: ToolEvent) -> None:
        """Queue a finished call for the writer thread (no I/O and no record building here),
        or, `durable`, write its line now."""
        if isinstance(event, _FINISHED):
            day = _utc_day(event.at if self._clock is None else self._clock())
            if self.durable:
                self._write_batch([_ended(event, day)])
            else:
                self._writer.put(_ended(event, day))

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every call queued so far is written; False if `timeout` passed first."""
        return self._writer.flush(timeout)

    def close(self, timeout: float | None = None) -> bool:
        """Write what is queued, then close the file (a later call opens it again). False if
        `timeout` passed first (a hung disk): the file stays open for the writer, which is
        still writing to it, and nothing queued is lost."""
        if not self.flush(timeout):
            log.warning("call log not closed: lines still being written", timeout_s=timeout)
            return False
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd, self._day = None, None
        return True

    async def aclose(self) -> bool:
        """`close()` without blocking the event loop (to bound the wait, `asyncio.timeout`:
        cancelled, the close goes on in its thread and ends once the writer is done)."""
        return await asyncio.to_thread(self.close)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        _type: type[BaseException] | None,
        _error: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _forked(self) -> None:
        """In a forked child: the parent's descriptor shares its `flock`; open a new one."""
        self._lock = threading.Lock()
        if self._fd is not None:
            os.close(self._fd)
            self._fd, self._day = None, None

    def _write_batch(self, batch: list[_Ended]) -> None:
        """Build the batch's lines and append them, one write a day (on the writer thread,
        or, `durable`, on the call's)."""
        lines: dict[date, bytearray] = {}
        for ended in batch:
            try:
                line = _line(self._record(ended))
            except KeyboardInterrupt:
                raise
            except BaseException:  # not even its minimal line (an id that is not text)
                log.exception("call log line could not be built, left out")
                continue  # the batch's other lines are written
            day = lines.get(ended.day)
            if day is None:
                day = lines[ended.day] = bytearray()
            # appended at once, not kept in a list to join: orjson's next buffer then
            # reuses this one's memory (a list of 200 lines made each dumps 8x slower)
            day += line
        self._append(lines)

    def _record(self, ended: _Ended) -> Mapping[str, Any]:
        try:
            return self._entry(ended)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # what a tool made defeated the record: keep the call
            return self._minimal(ended, error)

    def _append(self, lines: Mapping[date, bytearray]) -> None:
        for day, batch in lines.items():
            with self._lock:
                try:
                    append_whole(self._fd_for(day), batch)
                except OSError as error:
                    log.error(
                        "could not write call log lines",
                        error=str(error),
                        lines=batch.count(b"\n"),
                        directory=str(self.directory),
                    )

    def _today(self) -> date:
        return _utc_day(self._clock() if self._clock is not None else datetime.now(UTC))

    def path_for(self, day: date) -> Path:
        return self.directory / f"{FILE_PREFIX}{day.isoformat()}.jsonl"

    @property
    def current_path(self) -> Path:
        return self.path_for(self._today())

    def entry(self, event: ToolCompleted | ToolFailed) -> dict[str, Any]:
        """The log record for a finished call, redacted and cut to size."""
        return self._entry(_ended(event, _utc_day(event.at)))

    def _entry(self, ended: _Ended) -> dict[str, Any]:
        record = _common(ended)
        arguments = read_arguments(ended.arguments)  # read once, for both uses below
        record["args"] = self._clean(to_json_value(arguments), self.max_args_bytes)
        # the tool's words about its call (its output, what it attached) may quote what
        # the call's arguments hide; the executor took it out of the error already
        metadata = ended.metadata
        asked = metadata.get("asked_arguments") if metadata else None  # the model's own
        hidden = hidden_in(arguments) | hidden_texts(asked) if self.redact_secrets else NOTHING
        if metadata:  # what the tool attached (ctx.attach), and a person's edits
            attached = {  # the values `_metadata` took; a person's edit, arguments as they were
                key: value if key == "asked_arguments" else taken(value)
                for key, value in metadata.items()
            }
            metadata_data = hidden.without_in(to_json_value(attached))
            record["metadata"] = self._clean(metadata_data, self.max_output_bytes)
        if ended.error is not None:
            record["error"] = self._error(ended.error)
        else:
            record["output_type"] = ended.output_type
            output_data = hidden.without_in(taken(ended.output))
            record["output"] = self._clean(output_data, self.max_output_bytes)
        return record

    def _minimal(self, ended: _Ended, error: BaseException) -> dict[str, Any]:
        """The fields every line has, when the full record could not be built."""
        record = _common(ended)
        record["record_error"] = f"{type(error).__name__}: the full record could not be built"
        if ended.error is None:
            record |= {"output_type": "unrecorded", "output": None}
        else:
            record["error"] = {
                "kind": ended.error.kind,
                "message": "(not recorded)",
                "model_can_fix": ended.error.model_can_fix,
            }
        return record

    def write(self, record: Mapping[str, Any]) -> Result[None, OSError]:
        """Append one record as one line; a failure is returned, never raised. Text that is
        not valid UTF-8 (lone surrogates) is written with replacement characters."""
        line = _line(record)
        with self._lock:
            try:
                append_whole(self._fd_for(self._today()), line)
            except OSError as error:
                return Failure(error)
        return Success(None)

    def _moved(self) -> bool:
        """Whether the open file is no longer the one at its path."""
        assert self._fd is not None
        assert self._day is not None
        try:
            at_path = os.stat(self.path_for(self._day))
        except FileNotFoundError:
            return True
        return at_path.st_ino != os.fstat(self._fd).st_ino

    def _fd_for(self, day: date) -> int:
        if self._fd is not None and self._moved():  # renamed away (logrotate): a new file
            os.close(self._fd)
            self._fd = None
        if self._fd is None or day != self._day:  # first line, or past UTC midnight
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            self.directory.mkdir(parents=True, exist_ok=True)
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
            self._fd, self._day = os.open(self.path_for(day), flags, 0o644), day
        return self._fd

    def _clean(self, value: object, max_bytes: int) -> object:
        return cut(value, max_bytes, redact_secrets=self.redact_secrets)

    def _error(self, error: ToolError) -> dict[str, object]:
        """kind, message and model_can_fix always; the case's other fields when they fit."""
        fields = to_json_value(error)
        assert isinstance(fields, dict)
        message = str(self._clean(error.message, self.max_output_bytes))
        record: dict[str, object] = {
            "kind": error.kind,
            "message": message,
            "model_can_fix": error.model_can_fix,
        }
        details = {k: v for k, v in fields.items() if k not in record}
        if details:
            record["details"] = self._clean(details, self.max_output_bytes)
        return record


def _common(ended: _Ended) -> dict[str, Any]:
    """The fields of every line, taken from the event alone (nothing a tool made)."""
    return {
        "v": SCHEMA_VERSION,
        "timestamp": _iso(ended.started_at),
        "finished_at": _iso(ended.at),
        "call_id": shown_name(ended.call_id),  # a model wrote it: as its tool name
        "request_id": ended.request_id,
        "conversation_id": ended.conversation_id,
        "agent": ended.agent,
        "phase": ended.phase,
        # a name no tool answers to is what a model wrote
        "tool": shown_ended_tool(ended.tool, ended.source, ended.error),
        "source": ended.source,
        "args": None,
        "status": "success" if ended.error is None else "failure",
        "duration_ms": round(ended.duration_ms, 3),
        "attempts": ended.attempts,
        "trace": {
            "call_stack": [shown_name(call_id) for call_id in ended.call_stack]
            if ended.call_stack
            else [],
            "batch_id": ended.batch_id,
            "trace_id": ended.trace_id,
        },
    }


def _line(record: Mapping[str, Any]) -> bytes:
    """One record as one line; text that is not valid UTF-8 gets replacement characters."""
    try:
        return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
    except (TypeError, orjson.JSONEncodeError):
        return orjson.dumps(json_safe(record), option=orjson.OPT_APPEND_NEWLINE)


def append_whole(fd: int, line: bytes | bytearray) -> None:
    """Write `line` at the end of the file, or nothing: undo a partial write. A partial
    line left by a writer that was killed is ended first, so this line stays whole."""
    fcntl.flock(fd, fcntl.LOCK_EX)
    written = 0
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        view = memoryview(line)
        while written < len(view):
            written += os.write(fd, view[written:])
    except OSError:
        if written:
            os.ftruncate(fd, os.fstat(fd).st_size - written)
        raise
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _utc_day(moment: datetime) -> date:
    """The UTC day of `moment`; a naive time is taken to be UTC already."""
    if moment.tzinfo is UTC or moment.tzinfo is None:
        return moment.date()
    return moment.astimezone(UTC).date()


def _iso(moment: datetime) -> str:
    if moment.tzinfo is UTC:  # as events are stamped: the minute's text made once
        minute = (moment.year, moment.month, moment.day, moment.hour, moment.minute)
        start = _MINUTES.get(minute)
        if start is None:
            if len(_MINUTES) >= 64:
                _MINUTES.clear()
            start = _MINUTES[minute] = moment.isoformat(timespec="minutes")[:-6]
        return f"{start}:{moment.second:02d}.{moment.microsecond:06d}Z"
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


_MINUTES: dict[tuple[int, int, int, int, int], str] = {}
"""`YYYY-MM-DDTHH:MM` of the latest minutes stamped; shared by every log's writer thread
(each entry is the same whoever makes it, so a race only makes one twice)."""
