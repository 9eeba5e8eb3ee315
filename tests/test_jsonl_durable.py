"""What the call log's lines survive and hold: with `durable=True`, a process killed with
`kill -9` right after its calls returned has every one of their lines (by default they are
written once calls pause); a line waiting in the queue holds its call's parts, not the call."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest

from tests.held_writers import EndedContexts, hold
from toolrail import (
    ExecutionContext,
    Executor,
    JsonlCallLog,
    ToolCall,
    ToolRegistry,
    tool,
)

_CALLS_THEN_KILLED = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from toolrail import Executor, ExecutionContext, JsonlCallLog, ToolCall, ToolRegistry, tool

    @tool
    async def add(a: int, b: int) -> int:
        '''Add two numbers.'''
        return a + b

    async def main() -> None:
        log = JsonlCallLog(sys.argv[1], durable=sys.argv[2] == "durable")
        executor = Executor(ToolRegistry([add]), sinks=[log])
        for n in range(200):
            call = ToolCall(id=f"c{n}", name="add", arguments={"a": n, "b": 1})
            await executor.run(call, ExecutionContext(agent="a"))
        os.kill(os.getpid(), signal.SIGKILL)  # no flush, no exit handlers

    asyncio.run(main())
    """
)


def _records(directory: Path) -> list[dict[str, object]]:
    return [
        orjson.loads(line)
        for path in sorted(directory.glob("tool-calls-*.jsonl"))
        for line in path.read_bytes().splitlines()
    ]


def test_a_durable_log_keeps_every_call_a_killed_process_finished(tmp_path: Path) -> None:
    process = subprocess.run(
        [sys.executable, "-c", _CALLS_THEN_KILLED, str(tmp_path), "durable"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert process.returncode == -9, process.stderr.decode()
    records = _records(tmp_path)
    assert [record["call_id"] for record in records] == [f"c{n}" for n in range(200)]
    assert [record["output"] for record in records] == [n + 1 for n in range(200)]


@tool
async def echo(text: str, api_key: str = "") -> str:
    """Say `text` back."""
    return f"{text} {api_key}"


def test_durable_lines_are_the_lines_the_writer_thread_makes(tmp_path: Path) -> None:
    """Same records, redacted alike, either way: only when they are written differs."""
    calls = [
        ToolCall(id="c1", name="echo", arguments={"text": "hi", "api_key": "sk-live-4f9a8b7c6d5e"}),
        ToolCall(id="c2", name="echo", arguments='{"text": 3}'),  # refused: not a string
    ]

    async def run(log: JsonlCallLog) -> None:
        executor = Executor(ToolRegistry([echo]), sinks=[log])
        for call in calls:
            await executor.run(call, ExecutionContext(agent="a"))
        assert log.flush(timeout=10)

    def comparable(directory: Path) -> list[dict[str, object]]:
        varying = ("timestamp", "finished_at", "duration_ms", "request_id", "conversation_id")
        records = _records(directory)
        return [{k: v for k, v in record.items() if k not in varying} for record in records]

    for mode in ("durable", "queued"):
        asyncio.run(run(JsonlCallLog(tmp_path / mode, durable=mode == "durable")))
    durable = comparable(tmp_path / "durable")
    assert [record["status"] for record in durable] == ["success", "failure"]
    assert durable == comparable(tmp_path / "queued")
    assert "4f9a8b7c6d5e" not in str(durable)


def test_a_queued_line_keeps_its_parts_not_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a line waits for the writer, the call's context (with its progress reporter)
    and its events are free to go: a queue of whole calls, behind a burst, filled the
    garbage collector's oldest generation, whose full collections walk the whole heap."""
    log = JsonlCallLog(tmp_path)
    hold(log._writer, monkeypatch)
    ended = EndedContexts()
    executor = Executor(ToolRegistry([echo]), sinks=[log, ended])
    call = ToolCall(id="c1", name="echo", arguments={"text": "kept"})
    outcome = asyncio.run(executor.run(call, ExecutionContext(agent="a")))
    assert len(log._writer._queue) == len(ended) == 1  # still waiting to be written
    assert ended.alive() == []
    assert log.flush(timeout=10)
    [record] = _records(tmp_path)
    assert (record["call_id"], record["output"]) == ("c1", outcome.result.unwrap())
