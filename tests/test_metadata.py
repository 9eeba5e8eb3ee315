"""What a tool attaches (`ctx.attach`) reaches the outcome, the finished event and the log."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from returns.result import Failure, Result, Success

from toolrail import (
    ExecutionContext,
    ExecutionFailed,
    Executor,
    JsonlCallLog,
    ToolCall,
    ToolError,
    ToolRegistry,
    tool,
)
from toolrail.recording.events import ToolCompleted, ToolEvent, ToolFailed

pytestmark = pytest.mark.anyio


@tool
def count_rows(table: str, ctx: ExecutionContext) -> int:
    """Count rows (a sync tool: it attaches from a worker thread)."""
    ctx.attach(rows_scanned=1200, cache="miss", api_key="sk-abcdefghijklmnopqrstuvwxyz123456")
    return 42


@tool
async def deploy(target: str, ctx: ExecutionContext) -> Result[str, ToolError]:
    """Deploy; fails, with its exit code attached."""
    ctx.attach(exit_code=2)
    return Failure(ExecutionFailed(message=f"deploy to {target} failed"))


@tool
def plain(x: int) -> int:
    """Attaches nothing."""
    return x


async def test_attached_metadata_reaches_outcome_event_and_log(tmp_path: Path) -> None:
    """Success and failure both carry what the tool attached; the log line is redacted."""
    events: list[ToolEvent] = []
    call_log = JsonlCallLog(tmp_path)
    executor = Executor(ToolRegistry([count_rows, deploy, plain]), sinks=[events.append, call_log])
    ctx = ExecutionContext(agent="dev")
    counted = await executor.run(ToolCall(name="count_rows", arguments={"table": "t"}), ctx)
    failed = await executor.run(ToolCall(name="deploy", arguments={"target": "prod"}), ctx)
    bare = await executor.run(ToolCall(name="plain", arguments={"x": 1}), ctx)
    await call_log.aclose()

    assert counted.result == Success(42)
    assert counted.metadata["rows_scanned"] == 1200
    assert counted.metadata["cache"] == "miss"
    assert counted.metadata["source"] == "local"  # the executor's own keys stay
    assert failed.metadata["exit_code"] == 2
    assert dict(bare.metadata) == {"source": "local"}

    completed = next(e for e in events if isinstance(e, ToolCompleted))
    assert completed.outcome.metadata["rows_scanned"] == 1200
    failure = next(e for e in events if isinstance(e, ToolFailed))
    assert failure.outcome.metadata["exit_code"] == 2

    lines = [orjson.loads(line) for line in call_log.current_path.read_bytes().splitlines()]
    by_tool = {line["tool"]: line for line in lines}
    assert by_tool["count_rows"]["metadata"] == {
        "rows_scanned": 1200,
        "cache": "miss",
        "api_key": "[REDACTED]",
    }
    assert by_tool["deploy"]["metadata"] == {"exit_code": 2}
    assert "metadata" not in by_tool["plain"]


async def test_calls_do_not_share_what_they_attach() -> None:
    """The same context passed to two calls: each outcome has only its own metadata."""
    executor = Executor(ToolRegistry([count_rows, deploy]))
    ctx = ExecutionContext()
    await executor.run(ToolCall(name="count_rows", arguments={"table": "t"}), ctx)
    second = await executor.run(ToolCall(name="deploy", arguments={"target": "x"}), ctx)
    assert "rows_scanned" not in second.metadata
    assert dict(ctx.attached) == {}
