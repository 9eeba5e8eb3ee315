"""Read call logs back: entries in time order, and per-tool statistics.

A line that is not a JSON object (the partial last line of a crashed writer) is skipped
with a warning, never raised.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from toolrail.diagnostics import get_logger
from toolrail.jsonl import FILE_PREFIX
from toolrail.resilience import percentile

log = get_logger("toolrail.logreader")

Entry = dict[str, Any]


def log_files(directory: str | Path) -> list[Path]:
    """The call-log files of a directory, oldest day first."""
    return sorted(Path(directory).glob(f"{FILE_PREFIX}*.jsonl"))


def read_entries(directory: str | Path) -> Iterator[Entry]:
    """Every readable entry of every log file, oldest first."""
    for path in log_files(directory):
        yield from read_file(path)


def read_file(path: Path) -> Iterator[Entry]:
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                entry = orjson.loads(line)
            except orjson.JSONDecodeError:
                log.warning(
                    "skipping unreadable log line",
                    file=str(path),
                    line=number,
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
    """A duration as written, or 0 for a line some other writer got wrong."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0


def format_stats(rows: list[ToolStats]) -> str:
    lines = [f"{'tool':32} {'calls':>6} {'errors':>7} {'p50 ms':>9} {'p95 ms':>9}  error kinds"]
    for row in rows:
        kinds = ", ".join(f"{k}×{n}" for k, n in sorted(row.errors.items()))
        lines.append(
            f"{row.tool:32} {row.calls:6d} {row.error_rate:7.0%} {row.p50_ms:9.1f} "
            f"{row.p95_ms:9.1f}  {kinds}"
        )
    failures = [f"  {row.tool}: {row.last_failure}" for row in rows if row.last_failure]
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
    return (
        f"{entry.get('timestamp', '?')} {mark} {entry.get('agent', '?')}/"
        f"{entry.get('tool', '?')} {_number(entry.get('duration_ms')):.1f}ms  {detail}"
    )
