"""A cancelled call is stopped, not judged: it counts for neither a tool's health nor its
circuit, live or read back from the call log. Cancelled by `Executor.cancel` or through the
caller's own task, the log says only "cancelled"; the replay must agree with the live
executor either way."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from returns.result import Failure, Success

from toolrail import (
    Cancelled,
    ExecutionContext,
    Executor,
    JsonlCallLog,
    ToolCall,
    ToolRegistry,
    tool,
)
from toolrail.recording.logreader import read_entries, recorded_resilience


@tool
async def wait(seconds: float) -> str:
    """Wait a while."""
    await asyncio.sleep(seconds)
    return "waited"


@pytest.mark.anyio
async def test_live_and_replayed_health_agree_on_cancelled_calls(tmp_path: Path) -> None:
    log = JsonlCallLog(tmp_path)
    executor = Executor(ToolRegistry([wait]), sinks=[log])
    ctx = ExecutionContext()

    def call(call_id: str, seconds: float) -> ToolCall:
        return ToolCall(name="wait", arguments={"seconds": seconds}, id=call_id)

    assert (await executor.run(call("ok-1", 0), ctx)).result == Success("waited")
    # cancelled through the executor: the call ends in Failure(Cancelled)
    running = asyncio.create_task(executor.run(call("c-1", 5), ctx))
    await asyncio.sleep(0.05)
    assert executor.cancel("c-1")
    ended = (await running).result
    assert isinstance(ended, Failure)
    assert isinstance(ended.failure(), Cancelled)
    # cancelled through the caller's task: the error propagates, the log records it
    task = asyncio.create_task(executor.run(call("c-2", 5), ctx))
    await asyncio.sleep(0.05)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert (await executor.run(call("ok-2", 0), ctx)).result == Success("waited")
    await log.aclose()

    entries = list(read_entries(tmp_path))
    assert sorted(e["status"] for e in entries) == ["failure", "failure", "success", "success"]

    live = executor.health.health("wait")
    replayed = recorded_resilience(entries).health.health("wait")
    assert live is not None
    assert replayed is not None
    assert (live.calls, live.success_rate) == (2, 1.0)
    assert (replayed.calls, replayed.success_rate) == (2, 1.0)
    assert live.last_failure is None
    assert replayed.last_failure is None
