"""JsonlCallLog: schema-valid lines, redaction, truncation, rotation, concurrency, crashes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from returns.result import Failure, Result, Success

from toolrail import (
    AgentToolTable,
    Complete,
    ExecutionContext,
    ExecutionFailed,
    Executor,
    ToolCall,
    ToolError,
    ToolRegistry,
    tool,
)
from toolrail.cli import main as cli
from toolrail.recording.jsonl import JsonlCallLog
from toolrail.recording.logreader import read_entries, read_file, stats

pytestmark = pytest.mark.anyio
SCHEMA = json.loads(
    (Path(__file__).parent.parent / "schemas" / "tool-call-log-entry.schema.json").read_text()
)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


class Secretive(BaseModel):
    query: str
    api_key: str = ""


@tool
async def search(args: Secretive, ctx: ExecutionContext) -> Result[dict[str, object], ToolError]:
    """Search with a key."""
    return Success({"hits": [args.query], "echo_token": "Bearer abcdefghijklmnop"})


@tool
def huge(n: int) -> str:
    """Return n characters."""
    return "x" * n


@tool(timeout_s=0.01)
async def slow() -> str:
    """Too slow."""
    await asyncio.sleep(5)
    return ""


@tool
def broken() -> str:
    """Raise."""
    raise ValueError("nope")


@tool
def done() -> Complete:
    """Finish."""
    return Complete(summary="all done", data={"n": 1})


@tool
def not_json() -> object:
    """Return something JSON cannot hold."""
    return {1, 2, object()}


@tool
def fixable() -> Result[str, ToolError]:
    """Fail in a way the model can fix."""
    return Failure(ExecutionFailed(message="bad path", model_can_fix=True))


TOOLS = ToolRegistry([search, huge, slow, broken, done, not_json, fixable])


def lines(directory: Path) -> list[dict[str, Any]]:
    return [
        orjson.loads(line)
        for path in sorted(directory.glob("*.jsonl"))
        for line in path.read_bytes().splitlines()
    ]


async def test_every_line_the_executor_writes_is_schema_valid(tmp_path: Path) -> None:
    """Successes and every kind of failure produce lines valid against the published schema."""
    call_log = JsonlCallLog(tmp_path)
    executor = Executor(TOOLS, agents=AgentToolTable({"a": ["*", "!fixable"]}), sinks=[call_log])
    ctx = ExecutionContext(agent="a", phase="research", request_id="r1", trace_id="t1")
    calls = [
        ToolCall(
            name="search", arguments='{"query": "q", "api_key": "sk-abcdefghijklmnopqrstuvw"}'
        ),
        ToolCall(name="search", arguments='{"query": 1}'),
        ToolCall(name="search", arguments="{not json"),
        ToolCall(name="nope"),
        ToolCall(name="fixable"),
        ToolCall(name="slow"),
        ToolCall(name="broken"),
        ToolCall(name="done"),
        ToolCall(name="not_json"),
        ToolCall(name="huge", arguments={"n": 100_000}),
    ]
    await executor.run_many(calls, ctx)
    call_log.close()
    written = lines(tmp_path)
    assert len(written) == len(calls)
    for entry in written:
        VALIDATOR.validate(entry)
    by_call = {entry["call_id"]: entry for entry in written}
    kinds = [by_call[c.id].get("error", {}).get("kind") for c in calls]
    assert kinds == [
        None,
        "invalid_arguments",
        "invalid_arguments",
        "unknown_tool",
        "not_allowed",
        "timed_out",
        "execution_failed",
        None,
        None,
        None,
    ]
    first = by_call[calls[0].id]
    assert (first["agent"], first["phase"], first["request_id"]) == ("a", "research", "r1")
    assert first["trace"]["trace_id"] == "t1"
    assert first["trace"]["batch_id"]
    assert by_call[calls[7].id]["output"] == {
        "summary": "all done",
        "data": {"n": 1},
        "next_agent": None,
    }
    assert by_call[calls[7].id]["output_type"] == "Complete"


async def test_secrets_are_redacted(tmp_path: Path) -> None:
    """Secret-named keys and token-looking values never reach the file."""
    call_log = JsonlCallLog(tmp_path)
    executor = Executor(TOOLS, sinks=[call_log])
    secret = "sk-abcdefghijklmnopqrstuvwxyz123"
    await executor.run(
        ToolCall(name="search", arguments={"query": f"use {secret}", "api_key": "hunter2"}),
        ExecutionContext(),
    )
    call_log.flush()
    raw = call_log.current_path.read_text()
    assert secret not in raw
    assert "hunter2" not in raw
    assert "abcdefghijklmnop" not in raw
    [entry] = lines(tmp_path)
    assert entry["args"] == {"query": "use [REDACTED]", "api_key": "[REDACTED]"}


async def test_large_outputs_are_cut_with_a_marker(tmp_path: Path) -> None:
    """An output over the cap becomes a marker with the original size and a preview."""
    call_log = JsonlCallLog(tmp_path, max_output_bytes=1000)
    await Executor(TOOLS, sinks=[call_log]).run(
        ToolCall(name="huge", arguments={"n": 50_000}), ExecutionContext()
    )
    call_log.flush()
    [entry] = lines(tmp_path)
    output = entry["output"]
    assert isinstance(output, dict)
    assert output["truncated"] is True
    assert output["original_bytes"] == 50_002
    assert len(orjson.dumps(entry)) < 2000
    VALIDATOR.validate(entry)


async def test_rotation_at_utc_midnight(tmp_path: Path) -> None:
    """Lines go to the file of the UTC day they are written on."""
    now = [datetime(2026, 3, 1, 23, 59, 59, tzinfo=UTC)]
    call_log = JsonlCallLog(tmp_path, clock=lambda: now[0])
    executor = Executor(TOOLS, sinks=[call_log])
    await executor.run(ToolCall(name="huge", arguments={"n": 1}), ExecutionContext())
    now[0] += timedelta(seconds=2)
    await executor.run(ToolCall(name="huge", arguments={"n": 2}), ExecutionContext())
    call_log.close()
    files = sorted(os.listdir(tmp_path))
    assert files == ["tool-calls-2026-03-01.jsonl", "tool-calls-2026-03-02.jsonl"]
    assert [e["output"] for e in read_entries(tmp_path)] == ["x", "xx"]


async def test_concurrent_tasks_and_threads_never_interleave(tmp_path: Path) -> None:
    """Many tasks and threads writing at once: every line whole, none lost."""
    call_log = JsonlCallLog(tmp_path)
    executor = Executor(TOOLS, sinks=[call_log])
    calls = [ToolCall(name="huge", arguments={"n": 3000 + i}) for i in range(200)]

    def thread_writer(start: int) -> None:
        for i in range(100):
            call_log.write({"thread": start, "i": i, "pad": "y" * 5000})

    threads = [threading.Thread(target=thread_writer, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    await executor.run_many(calls, ExecutionContext(), max_concurrency=50)
    for thread in threads:
        thread.join()
    call_log.flush()
    written = lines(tmp_path)
    assert len(written) == 200 + 400
    assert sorted(len(str(e["output"])) for e in written if "output" in e) == list(
        range(3000, 3200)
    )


WRITER = textwrap.dedent(
    """
    import sys
    from toolrail.recording.jsonl import JsonlCallLog
    log = JsonlCallLog(sys.argv[1])
    for i in range(int(sys.argv[3])):
        log.write({"writer": sys.argv[2], "i": i, "pad": "z" * 20000})
    print("done", flush=True)
    """
)


def test_separate_processes_appending_lose_nothing(tmp_path: Path) -> None:
    """Four processes append 20 kB lines to one file at once; every line is whole."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path), str(n), "300"], stdout=subprocess.DEVNULL
        )
        for n in range(4)
    ]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    written = lines(tmp_path)
    assert len(written) == 1200
    for n in range(4):
        assert sorted(e["i"] for e in written if e["writer"] == str(n)) == list(range(300))


def test_a_killed_writer_leaves_a_readable_file(tmp_path: Path) -> None:
    """kill -9 mid-stream: the reader gets every whole line, skipping at most a partial one."""
    endless = WRITER.replace("int(sys.argv[3])", "10**9").replace('print("done", flush=True)', "")
    proc = subprocess.Popen([sys.executable, "-c", endless, str(tmp_path), "k", "0"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        files = list(tmp_path.glob("*.jsonl"))
        if files and files[0].stat().st_size > 2_000_000:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    [path] = list(tmp_path.glob("*.jsonl"))
    raw = path.read_bytes()
    whole = raw.count(b"\n")
    entries = list(read_file(path))
    assert len(entries) == whole
    assert [e["i"] for e in entries] == list(range(whole))
    # a torn last line, if any, is skipped rather than raised
    path.write_bytes(raw + b'{"writer": "k", "i": ')
    assert len(list(read_file(path))) == whole


def test_write_errors_are_values(tmp_path: Path) -> None:
    """A log directory that cannot be created gives a Failure, not an exception."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = JsonlCallLog(blocker / "logs").write({"a": 1})
    assert isinstance(result, Failure)
    assert isinstance(result.failure(), OSError)


async def test_logs_cli_and_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`toolrail logs tail|show|stats` read what the executor wrote."""
    call_log = JsonlCallLog(tmp_path)
    executor = Executor(TOOLS, sinks=[call_log])
    for n in range(3):
        await executor.run(ToolCall(name="huge", arguments={"n": n}), ExecutionContext())
    await executor.run(ToolCall(name="broken"), ExecutionContext())
    await call_log.aclose()
    [huge_stats, broken_stats] = stats(read_entries(tmp_path))
    assert (huge_stats.tool, huge_stats.calls, huge_stats.failures) == ("huge", 3, 0)
    assert broken_stats.errors == {"execution_failed": 1}
    assert broken_stats.error_rate == 1.0

    assert cli(["logs", "stats", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "huge" in out
    assert "execution_failed×1" in out
    assert "last failure per tool:" in out
    assert "broken: " in out
    assert broken_stats.last_failure is not None
    assert broken_stats.last_failure.endswith("ValueError: nope")
    assert cli(["logs", "tail", "-n", "1", "--dir", str(tmp_path)]) == 0
    assert "broken" in capsys.readouterr().out
    assert cli(["logs", "show", "--status", "failure", "--json", "--dir", str(tmp_path)]) == 0
    [shown] = capsys.readouterr().out.splitlines()
    assert orjson.loads(shown)["error"]["message"] == "ValueError: nope"


ODD_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=10)
    | st.binary(max_size=10)
    | st.datetimes()
    | st.just(object())
    | st.builds(set, st.lists(st.integers(), max_size=3)),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=6) | st.integers(), children, max_size=3)
        | st.tuples(children, children)
    ),
    max_leaves=10,
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(output=ODD_VALUES, arguments=ODD_VALUES)
def test_any_output_or_arguments_make_a_valid_line(
    tmp_path: Path, output: Any, arguments: Any
) -> None:
    """Whatever a tool returns and whatever arguments arrived, the line is written and valid."""

    @tool
    def odd() -> object:
        """Return the odd value."""
        return output

    call_log = JsonlCallLog(tmp_path / str(uuid.uuid4()))
    executor = Executor(ToolRegistry([odd]), sinks=[call_log])
    asyncio.run(executor.run(ToolCall(name="odd", arguments=arguments), ExecutionContext()))
    call_log.close()
    [entry] = lines(call_log.directory)
    VALIDATOR.validate(entry)


async def test_lines_and_current_path_agree_on_the_utc_day(tmp_path: Path) -> None:
    """A clock in another zone (or a naive one, taken as UTC) files lines under the same
    UTC day that `current_path` names."""
    from datetime import timezone

    east = timezone(timedelta(hours=10))
    for moment in (datetime(2026, 1, 2, 8, 0, tzinfo=east), datetime(2026, 1, 1, 22, 30)):
        directory = tmp_path / moment.isoformat().replace(":", "-")
        call_log = JsonlCallLog(directory, clock=_fixed(moment))
        await Executor(TOOLS, sinks=[call_log]).run(
            ToolCall(name="huge", arguments={"n": 1}), ExecutionContext()
        )
        call_log.close()
        assert os.listdir(directory) == [call_log.current_path.name]
        assert call_log.current_path.name == "tool-calls-2026-01-01.jsonl"


def _fixed(moment: datetime) -> Callable[[], datetime]:
    return lambda: moment
