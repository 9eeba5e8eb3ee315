"""Every event as JSON: its Result as data, redacted, read back with a plain JSON parser."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any, get_args

import orjson
import pytest
from returns.result import Failure, Success

from toolrail import (
    ExecutionContext,
    Executor,
    InvalidArguments,
    TimedOut,
    ToolCall,
    ToolOutcome,
    ToolRegistry,
    tool,
)
from toolrail._jsonish import dumps
from toolrail.core.errors import ArgumentIssue
from toolrail.recording.eventjson import event_data
from toolrail.recording.events import (
    CircuitStateChanged,
    McpServerStateChanged,
    ToolCallRequested,
    ToolCompleted,
    ToolDefinitionChanged,
    ToolEvent,
    ToolFailed,
    ToolHealthChanged,
    ToolProgress,
    ToolRegistered,
    ToolStarted,
    ToolUnregistered,
)
from toolrail.recording.stream import ProgressUpdate, ToolStreamHandler
from toolrail.resilience import Health

pytestmark = pytest.mark.anyio
SECRET = "sk-abcdefghijklmnopqrstuvwxyz123456"
CTX = ExecutionContext(agent="dev", conversation_id="conv-1", phase="build")
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _outcome(result: Success[object] | Failure[Any]) -> ToolOutcome:
    return ToolOutcome(
        call=ToolCall(id="c1", name="login", arguments={"password": "hunter2"}),
        result=result,
        started_at=NOW,
        duration_ms=1.5,
        metadata={"source": "local", "api_key": "k-123456789"},
    )


SLOW = TimedOut(message="login did not finish", timeout_s=2.0)
BAD = InvalidArguments.of("login", (ArgumentIssue(path="$.user", message="required"),))
EVENTS: list[ToolEvent] = [
    ToolCallRequested(call_id="c1", tool="login", context=CTX, arguments_so_far='{"user": "a'),
    ToolStarted(
        call_id="c1",
        tool="login",
        context=CTX,
        arguments={"user": "ada", "password": "hunter2"},
        description="Logging in",
    ),
    ToolProgress(call_id="c1", tool="login", context=CTX, progress=1, total=2, message="half"),
    ToolCompleted(
        call_id="c1", tool="login", context=CTX, outcome=_outcome(Success({"token": SECRET}))
    ),
    ToolFailed(
        call_id="c1", tool="login", context=CTX, outcome=_outcome(Failure(SLOW)), error=SLOW
    ),
    ToolFailed(call_id="c1", tool="login", context=CTX, outcome=_outcome(Failure(BAD)), error=BAD),
    ToolRegistered(tool="login"),
    ToolUnregistered(tool="login", source="mcp"),
    ToolDefinitionChanged(
        tool="mcp__s__t", server="s", old_hash="a", new_hash="b", action="disabled"
    ),
    McpServerStateChanged(server="s", state="broken", detail=f"exit 1, key {SECRET}"),
    CircuitStateChanged(breaker="login", state="open"),
    ToolHealthChanged(
        tool="login",
        health=Health("login", 7, 3 / 7, 12.0, 80.0, f"refused: api_key={SECRET}", "failing"),
    ),
]


def test_every_event_case_is_covered() -> None:
    """The list above holds every case of the closed union."""
    assert {type(e) for e in EVENTS} == set(get_args(ToolEvent))


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: type(e).__name__)
def test_each_event_serialises_and_reads_back_as_data(event: ToolEvent) -> None:
    """dumps(event) is the event's JSON form; nothing in it is a repr; secrets are gone."""
    text = dumps(event)
    read = orjson.loads(text)
    assert read == event_data(event)
    assert (
        read["type"]
        == {
            "ToolCallRequested": "tool_call_requested",
            "ToolStarted": "tool_started",
            "ToolProgress": "tool_progress",
            "ToolCompleted": "tool_completed",
            "ToolFailed": "tool_failed",
            "ToolRegistered": "tool_registered",
            "ToolUnregistered": "tool_unregistered",
            "ToolDefinitionChanged": "tool_definition_changed",
            "McpServerStateChanged": "mcp_server_state_changed",
            "CircuitStateChanged": "circuit_state_changed",
            "ToolHealthChanged": "tool_health_changed",
        }[type(event).__name__]
    )
    assert datetime.fromisoformat(read["at"]) == event.at
    assert b"<Success" not in text
    assert b"<Failure" not in text
    assert SECRET.encode() not in text
    assert b"hunter2" not in text
    assert b"k-123456789" not in text


def test_results_are_data_with_status_value_and_error() -> None:
    """Success carries its value; Failure its error's kind, message, flag and own fields."""
    done, slow, bad = (orjson.loads(dumps(e)) for e in EVENTS[3:6])
    assert done["result"] == {"status": "success", "value": {"token": "[REDACTED]"}}
    assert done["agent"] == "dev"
    assert done["conversation_id"] == "conv-1"
    assert done["duration_ms"] == 1.5
    assert slow["timed_out"] is True
    assert slow["result"] == {
        "status": "failure",
        "error": {
            "kind": "timed_out",
            "message": "login did not finish",
            "model_can_fix": False,
            "timeout_s": 2.0,
        },
    }
    assert bad["timed_out"] is False
    assert bad["result"]["error"]["kind"] == "invalid_arguments"
    assert bad["result"]["error"]["model_can_fix"] is True
    assert bad["result"]["error"]["issues"] == [{"path": "$.user", "message": "required"}]


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_events_of_a_real_call_serialise() -> None:
    """A real executor's events read back with the output as data."""
    seen: list[ToolEvent] = []
    executor = Executor(ToolRegistry([add]), sinks=[seen.append])
    await executor.run(ToolCall(name="add", arguments={"a": 1, "b": 2}), CTX)
    registered, started, completed = (orjson.loads(dumps(e)) for e in seen)
    assert (registered["type"], registered["tool"]) == ("tool_registered", "add")
    assert started["arguments"] == {"a": 1, "b": 2}
    assert completed["result"] == {"status": "success", "value": 3}
    assert orjson.loads(dumps(Success(3))) == {"status": "success", "value": 3}


@tool(timeout_s=0.05)
async def stuck() -> str:
    """Never finishes."""
    await asyncio.Event().wait()
    return "never"


async def test_a_real_timeout_is_flagged_on_the_event_and_the_progress_line() -> None:
    """ToolFailed.timed_out and ProgressUpdate.timed_out: no string compare on error kinds."""
    seen: list[ToolEvent] = []
    lines: list[ProgressUpdate] = []
    stream = ToolStreamHandler(on_update=lines.append)
    executor = Executor(ToolRegistry([stuck, add]), sinks=[seen.append, stream])
    await executor.run(ToolCall(name="stuck"), CTX)
    await executor.run(ToolCall(name="add", arguments={"a": "x", "b": 1}), CTX)
    failed = [e for e in seen if isinstance(e, ToolFailed)]
    assert [e.timed_out for e in failed] == [True, False]
    assert [u.timed_out for u in lines if u.finished] == [True, False]
