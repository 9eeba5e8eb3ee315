"""Arguments are recorded as the executor read them: JSON text that pydantic accepts but
strict JSON does not (`NaN`, `Infinity`, `1e400`) is data in the log and in event JSON,
redacted as data; text no reader accepts is kept as text, and its secrets still go."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from toolrail import (
    ExecutionContext,
    Executor,
    JsonlCallLog,
    ToolCall,
    ToolEvent,
    ToolRegistry,
    ToolStreamHandler,
    tool,
)
from toolrail._jsonish import dumps
from toolrail.recording.logreader import read_entries

SECRET = "Hunter2isMyPass"


@tool
def deploy(argv: list[str], ratio: float = 0, note: str = "") -> str:
    """Run a deployment command."""
    return "deployed"


@pytest.mark.parametrize(
    ("extra", "ran"),
    [
        ('"ratio": NaN', True),
        ('"ratio": Infinity', True),
        ('"ratio": -Infinity', True),
        ('"ratio": 1e400', True),
        ('"note": "\\ud800"', False),  # a lone surrogate: not JSON to any reader
        ('"note": "cut off', False),
    ],
)
def test_no_secret_of_arguments_strict_json_refuses_is_recorded(
    tmp_path: Path, extra: str, ran: bool
) -> None:
    events: list[ToolEvent] = []
    lines: list[str] = []
    log = JsonlCallLog(tmp_path)
    stream = ToolStreamHandler(on_update=lambda update: lines.append(update.text))
    executor = Executor(ToolRegistry([deploy]), sinks=[log, events.append, stream])
    raw = '{"argv": ["deploy", "--password", "%s"], %s}' % (SECRET, extra)  # noqa: UP031

    outcome = asyncio.run(executor.run(ToolCall(name="deploy", arguments=raw), ExecutionContext()))
    log.close()

    assert (outcome.result.value_or(None) == "deployed") is ran
    written = "".join(path.read_text() for path in tmp_path.glob("*.jsonl"))
    assert written
    assert SECRET not in written
    [entry] = list(read_entries(tmp_path))
    if ran:  # data, not text: the flag's value redacted in place
        assert entry["args"]["argv"] == ["deploy", "--password", "[REDACTED]"]
    for event in events:
        assert SECRET not in dumps(event).decode()
    assert lines
    assert not any(SECRET in line for line in lines)


@tool
def transfer(account: int, cents: int) -> str:
    """Move money."""
    return f"{account}:{cents}"


def test_an_integer_past_64_bits_is_logged_exactly(tmp_path: Path) -> None:
    """The executor reads 18446744073709551616 exactly; so does the log (as its digits),
    not as the float strict JSON readers make of it."""
    log = JsonlCallLog(tmp_path)
    executor = Executor(ToolRegistry([transfer]), sinks=[log])
    raw = '{"account": 18446744073709551616, "cents": 5}'
    outcome = asyncio.run(
        executor.run(ToolCall(name="transfer", arguments=raw), ExecutionContext())
    )
    log.close()
    assert outcome.result.value_or(None) == "18446744073709551616:5"
    [entry] = list(read_entries(tmp_path))
    assert entry["args"] == {"account": "18446744073709551616", "cents": 5}
