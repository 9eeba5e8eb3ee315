"""Read call logs back: entries in time order, per-tool statistics, and the health and
circuits a new process starts from (`recorded_resilience`: the tail of the newest files only).

A line that is not a JSON object (the partial last line of a crashed writer) is skipped
with a warning, never raised.
"""

from __future__ import annotations

import os
import stat
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

import orjson
from returns.result import Success

from toolrail._diagnostics import get_logger
from toolrail.core.redact import printable
from toolrail.mcp.naming import sanitize
from toolrail.recording.jsonl import FILE_PREFIX
from toolrail.resilience import BreakerSettings, Resilience, percentile

log = get_logger("toolrail.recording.logreader")

Entry = dict[str, Any]


def log_files(directory: str | Path) -> list[Path]:
    """The call-log files of a directory, oldest day first: regular files only (a FIFO
    named like one takes no place among the newest; reading checks again)."""
    return sorted(p for p in Path(directory).glob(f"{FILE_PREFIX}*.jsonl") if p.is_file())


def read_entries(directory: str | Path) -> Iterator[Entry]:
    """Every readable entry of every log file, oldest first."""
    for path in log_files(directory):
        yield from read_file(path)


def read_file(path: Path) -> Iterator[Entry]:
    handle = _open_regular(path)
    if handle is None:
        return
    with handle:
        yield from _parse(path, handle)


def _open_regular(path: Path) -> BinaryIO | None:
    """`path` open for reading, or None if it is not a regular file: a FIFO or a device
    named like a log file would block a plain open, or a read, for ever. Opened without
    blocking, then checked, so a file swapped in between cannot block either."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):  # (O_NONBLOCK means nothing to one)
            return os.fdopen(fd, "rb")
    except OSError:
        os.close(fd)
        raise
    os.close(fd)
    log.warning("skipping a log file that is not a regular file", file=str(path))
    return None


def recent_entries(
    directory: str | Path,
    *,
    max_entries: int = 2_000,
    max_bytes: int = 32 << 20,
    max_files: int = 2,
) -> list[Entry]:
    """The last `max_entries` entries of the newest log files, oldest first, read backwards
    from the end: a few large lines (big outputs) cannot hide the calls before them, and
    no more than `max_bytes` is read in all (never a month of logs)."""
    newest_first: list[list[Entry]] = []
    wanted, budget = max_entries, max_bytes
    for path in reversed(log_files(directory)[-max_files:]):
        if wanted <= 0 or budget <= 0:
            break
        entries, read = _tail(path, wanted, budget)
        newest_first.append(entries)
        wanted, budget = wanted - len(entries), budget - read
    return [entry for entries in reversed(newest_first) for entry in entries]


_CHUNK = 1 << 20


def _tail(path: Path, wanted: int, budget: int) -> tuple[list[Entry], int]:
    """The last `wanted` entries of `path` (oldest first), reading it backwards a chunk at a
    time and at most `budget` bytes; and how many bytes were read."""
    try:
        handle = _open_regular(path)
        if handle is None:
            return [], 0
        with handle:
            position = handle.seek(0, 2)
            read, partial = 0, b""
            chunks: list[list[Entry]] = []  # newest first
            found = 0
            while position > 0 and read < budget and found < wanted:
                size = min(_CHUNK, position, budget - read)
                position -= size
                handle.seek(position)
                data = handle.read(size) + partial
                read += size
                if position == 0:  # the file's first line: whole
                    partial, whole = b"", data
                else:  # the first line may have begun before this chunk: kept for the next
                    start = data.find(b"\n") + 1
                    partial, whole = (data[:start], data[start:]) if start else (data, b"")
                entries = list(_parse(path, _lines(whole), numbered=False))
                chunks.append(entries)
                found += len(entries)
    except OSError:
        return [], 0
    entries = [entry for chunk in reversed(chunks) for entry in chunk]
    return entries[-wanted:], read


_REFUSALS = frozenset(
    {
        "unknown_tool",
        "not_allowed",
        "permission_denied",
        "approval_required",
        "invalid_arguments",
        "circuit_open",
        "budget_exceeded",
    }
)
"""Failures of calls that never ran: they say nothing of a tool's health."""


def recorded_resilience(
    entries: Iterable[Entry],
    *,
    breakers: BreakerSettings | None = None,
    servers: Iterable[str] = (),
) -> Resilience:
    """A `Resilience` whose health and circuits are replayed from logged calls, each at the
    time it finished: what `toolrail tools explain` and a router read in a new process.
    Calls refused before they ran are left out, as the executor leaves them out; a
    cancelled call counts for neither health nor a circuit, as live (the log does not say
    who cancelled it, and neither kind judges the tool). `servers`:
    the MCP servers' names, so that their tools' calls count for `mcp:<server>` too."""
    clock = _ReplayClock()
    now = time.time()
    resilience = Resilience(breakers=breakers, clock=clock)
    prefixes = {f"mcp__{sanitize(name)}__": name for name in servers}
    for entry in entries:
        ok = entry.get("status") == "success"
        error = _error(entry)
        kind = str(error.get("kind", "?"))
        if not ok and kind in _REFUSALS:
            continue
        tool = str(entry.get("tool", "?"))
        clock.at = _epoch(entry.get("finished_at"), now)
        cancelled = kind == "cancelled"  # stopped, not judged: no health, the probe given back
        if not cancelled:
            message = " ".join(str(error.get("message", "")).split())
            failure = None if ok else f"{entry.get('timestamp', '?')} {kind}: {message}"
            resilience.health.record(tool, ok, _number(entry.get("duration_ms")), failure)
        for key in _circuits(tool, entry.get("source"), prefixes):
            breaker = resilience.breaker(key)
            if not isinstance(breaker.allow(), Success):  # live, it would not have run
                continue
            if cancelled:
                breaker.release()
            else:
                breaker.record(ok or not _breakage(kind, error))
    clock.at = None
    return resilience


def _circuits(tool: str, source: object, prefixes: dict[str, str]) -> tuple[str, ...]:
    """The breakers a call fed live (`Resilience.breakers_for`): its tool's, and for an MCP
    tool its server's, the server whose `mcp__<name>__` prefix its name has (the longest:
    a server's name may hold "__" itself)."""
    if source != "mcp":
        return (tool,)
    owners = [prefix for prefix in prefixes if tool.startswith(prefix)]
    if not owners:
        return (tool,)
    return (tool, f"mcp:{prefixes[max(owners, key=len)]}")


class _ReplayClock:
    """The time of the call being replayed, then the wall clock."""

    def __init__(self) -> None:
        self.at: float | None = None

    def __call__(self) -> float:
        return self.at if self.at is not None else time.time()


def _epoch(value: object, now: float) -> float | None:
    """A line's time, never later than `now`: a line stamped ahead (a writer's clock was
    wrong, an edited line) cannot keep a circuit open past its cooldown from now."""
    try:
        return min(datetime.fromisoformat(str(value)).timestamp(), now)
    except (ValueError, OverflowError, OSError):
        return None


def _breakage(kind: str, error: dict[str, Any]) -> bool:
    """`resilience.is_breakage`, from a logged error."""
    if kind in ("timed_out", "transport_error", "internal_error"):
        return True
    return kind == "execution_failed" and not error.get("model_can_fix", False)


def _lines(data: bytes) -> list[bytes]:
    """`data`'s lines, each with its `\\n`: only `\\n` ends one, as when a file is read by
    lines (not `splitlines`, which also splits at a `\\r` a line may hold)."""
    lines = data.split(b"\n")
    last = lines.pop()
    return [line + b"\n" for line in lines] + ([last] if last else [])


def _parse(path: Path, lines: Iterable[bytes], *, numbered: bool = True) -> Iterator[Entry]:
    """The entries of `lines`, numbered from 1 (`numbered`: they begin the file)."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            log.warning(
                "skipping unreadable log line",
                file=str(path),
                line=number if numbered else None,
                partial=not line.endswith(b"\n"),
            )
            continue
        if isinstance(entry, dict):
            yield entry


@dataclass(frozen=True, slots=True)
class ToolStats:
    tool: str
    calls: int
    failures: int
    p50_ms: float
    p95_ms: float
    errors: dict[str, int]
    last_failure: str | None = None

    @property
    def error_rate(self) -> float:
        return self.failures / self.calls if self.calls else 0.0


def stats(entries: Iterable[Entry]) -> list[ToolStats]:
    """Calls, failures, error kinds and duration percentiles per tool, busiest first."""
    durations: dict[str, list[float]] = defaultdict(list)
    failures: dict[str, int] = defaultdict(int)
    errors: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    last_failure: dict[str, str] = {}
    for entry in entries:
        tool = str(entry.get("tool", "?"))
        durations[tool].append(_number(entry.get("duration_ms")))
        if entry.get("status") == "failure":
            failures[tool] += 1
            error = _error(entry)
            errors[tool][str(error.get("kind", "?"))] += 1
            message = " ".join(str(error.get("message", "")).split())
            last_failure[tool] = f"{entry.get('timestamp', '?')} {message}"
    result = [
        ToolStats(
            tool,
            len(values),
            failures[tool],
            percentile(values, 50),
            percentile(values, 95),
            dict(errors[tool]),
            last_failure.get(tool),
        )
        for tool, values in durations.items()
    ]
    return sorted(result, key=lambda s: (-s.calls, s.tool))


def _error(entry: Entry) -> dict[str, Any]:
    error = entry.get("error")
    return error if isinstance(error, dict) else {}


def _number(value: object) -> float:
    """A duration as written, or 0 for a line some other writer got wrong (not a number,
    negative, or longer than any call: past 100 days, or not finite)."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return number if 0 <= number <= _LONGEST_MS else 0.0


_LONGEST_MS = 100 * 86_400_000.0


def format_stats(rows: list[ToolStats]) -> str:
    lines = [f"{'tool':32} {'calls':>6} {'errors':>7} {'p50 ms':>9} {'p95 ms':>9}  error kinds"]
    for row in rows:
        kinds = ", ".join(f"{k}×{n}" for k, n in sorted(row.errors.items()))
        # what the log holds, for a terminal
        tool, kinds = printable(row.tool, one_line=True), printable(kinds, one_line=True)
        lines.append(
            f"{tool:32} {row.calls:6d} {row.error_rate:7.0%} {row.p50_ms:9.1f} "
            f"{row.p95_ms:9.1f}  {kinds}"
        )
    failures = [
        printable(f"  {row.tool}: {row.last_failure}", one_line=True)
        for row in rows
        if row.last_failure
    ]
    if failures:
        lines += ["", "last failure per tool:", *failures]
    return "\n".join(lines)


def format_entry(entry: Entry) -> str:
    """One line per entry for `toolrail logs tail|show`."""
    if entry.get("status") == "success":
        mark, detail = "✔", orjson.dumps(entry.get("output")).decode()
        if len(detail) > 100:
            detail = detail[:99] + "…"
    else:  # the whole failure: the issue a message leads up to is often on a later line
        error = _error(entry)
        message = " ".join(str(error.get("message", "")).split())
        mark, detail = "✖", f"{error.get('kind', '?')}: {message}"
    return printable(  # what the log holds (a model's names, a tool's words), for a terminal
        f"{entry.get('timestamp', '?')} {mark} {entry.get('agent', '?')}/"
        f"{entry.get('tool', '?')} {_number(entry.get('duration_ms')):.1f}ms  {detail}",
        one_line=True,
    )
