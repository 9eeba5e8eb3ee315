"""A child made by `os.fork` (a worker pool, a pre-forking server) records its own calls and
runs sync tools: the parent's writer and worker threads are not in it."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import orjson
from returns.result import Success

from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool


@tool(timeout_s=5)
def add(a: int, b: int) -> int:
    """Add, on a worker thread (a sync tool)."""
    return a + b


@tool
async def double(x: int) -> int:
    """Double."""
    return 2 * x


async def _calls(executor: Executor, prefix: str, n: int) -> list[bool]:
    ctx = ExecutionContext()
    ok = []
    for i in range(n):
        added = await executor.run(
            ToolCall(name="add", arguments={"a": i, "b": 1}, id=f"{prefix}-add-{i}"), ctx
        )
        doubled = await executor.run(
            ToolCall(name="double", arguments={"x": i}, id=f"{prefix}-double-{i}"), ctx
        )
        ok.append(added.result == Success(i + 1) and doubled.result == Success(2 * i))
    return ok


def test_a_forked_child_records_its_calls_and_runs_sync_tools(tmp_path: Path) -> None:
    log = JsonlCallLog(tmp_path)
    executor = Executor(ToolRegistry([add, double]), sinks=[log])
    assert all(asyncio.run(_calls(executor, "parent", 3)))  # its writer and workers started
    log.flush()

    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit status
        status = 1
        try:
            started = time.monotonic()
            ok = all(asyncio.run(_calls(executor, "child", 3)))
            written = log.flush(timeout=5)
            status = 0 if ok and written and time.monotonic() - started < 4 else 2
        finally:
            os._exit(status)
    assert all(asyncio.run(_calls(executor, "parent-after", 3)))
    _, status = os.waitpid(child, 0)
    log.close()

    assert os.waitstatus_to_exitcode(status) == 0
    lines = b"".join(path.read_bytes() for path in tmp_path.glob("*.jsonl")).splitlines()
    ids = sorted(orjson.loads(line)["call_id"] for line in lines)
    expected = sorted(
        f"{who}-{tool}-{i}"
        for who in ("parent", "child", "parent-after")
        for tool in ("add", "double")
        for i in range(3)
    )
    assert ids == expected
