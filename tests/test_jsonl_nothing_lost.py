"""Every call leaves exactly one valid line, whatever its content, a killed writer or a
rotation (issue 9, 'nothing is lost')."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest
from returns.result import Success

from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool
from toolrail.cli import main
from toolrail.recording.logreader import read_entries

pytestmark = pytest.mark.anyio


@tool
def echo(text: str) -> str:
    """Say it back."""
    return text


class BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


def deep(levels: int) -> object:
    value: object = "bottom"
    for _ in range(levels):
        value = [value]
    return value


OUTPUTS: dict[str, object] = {
    "lone surrogate": "broken \ud800 text",
    "surrogate key": {"\udfff": 1},
    "raising repr": BadRepr(),
    "raising repr inside": {"x": [BadRepr()]},
    "deep nesting": deep(2000),
    "huge int": 2**100,
}


def lines(directory: Path) -> list[dict[str, object]]:
    found = []
    for path in directory.glob("tool-calls-*.jsonl"):
        found += [orjson.loads(line) for line in path.read_bytes().splitlines()]
    return found


async def test_any_output_id_or_name_leaves_one_valid_line(tmp_path: Path) -> None:
    @tool
    def weird(kind: str) -> object:
        """Returns something hard to record."""
        return OUTPUTS[kind]

    log = JsonlCallLog(tmp_path)
    ex = Executor(ToolRegistry([weird]), sinks=[log])
    ctx = ExecutionContext()
    for kind in OUTPUTS:
        outcome = await ex.run(ToolCall(name="weird", arguments={"kind": kind}), ctx)
        assert isinstance(outcome.result, Success)
    await ex.run(ToolCall(id="id-\ud800", name="weird\udc00", arguments="{}"), ctx)
    log.close()
    recorded = lines(tmp_path)
    assert len(recorded) == len(OUTPUTS) + 1
    assert {e["status"] for e in recorded[:-1]} == {"success"}


def test_a_partial_line_from_a_killed_writer_does_not_swallow_the_next(tmp_path: Path) -> None:
    log = JsonlCallLog(tmp_path)
    path = log.current_path
    tmp_path.mkdir(exist_ok=True)
    path.write_bytes(b'{"v": 1, "tool": "killed mid-li')  # what kill -9 leaves behind
    assert isinstance(log.write({"v": 1, "tool": "next"}), Success)
    log.close()
    raw = path.read_bytes().splitlines()
    assert orjson.loads(raw[-1]) == {"v": 1, "tool": "next"}
    assert [e["tool"] for e in read_entries(tmp_path)] == ["next"]  # the partial one skipped


def test_after_an_external_rotation_lines_go_to_the_new_file(tmp_path: Path) -> None:
    log = JsonlCallLog(tmp_path)
    log.write({"v": 1, "n": 1})
    rotated = tmp_path / "rotated.jsonl.1"
    os.rename(log.current_path, rotated)  # what logrotate does
    log.write({"v": 1, "n": 2})
    log.close()
    assert [orjson.loads(x)["n"] for x in rotated.read_bytes().splitlines()] == [1]
    assert [orjson.loads(x)["n"] for x in log.current_path.read_bytes().splitlines()] == [2]


def test_logs_stats_survives_malformed_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tool-calls-2026-01-01.jsonl"
    path.write_bytes(
        b'{"tool": "a", "duration_ms": "not a number", "status": "failure", "error": "x"}\n'
        b"[1, 2]\nnot json at all\n"
        b'{"tool": "a", "duration_ms": 3, "status": "failure", '
        b'"error": {"kind": "invalid_arguments", "message": "bad:\\n- $.n: too big"}}\n'
    )
    assert main(["logs", "stats", "--dir", str(tmp_path)]) == 0
    assert main(["logs", "tail", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "$.n: too big" in out  # the whole failure, not its first line


def test_a_writer_killed_mid_line_in_another_process(tmp_path: Path) -> None:
    program = (
        "import os, sys\n"
        "from toolrail import JsonlCallLog\n"
        "log = JsonlCallLog(sys.argv[1])\n"
        "fd = os.open(log.current_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)\n"
        "os.write(fd, b'{\"half\": ')\n"
        "os.kill(os.getpid(), 9)\n"
    )
    subprocess.run([sys.executable, "-c", program, str(tmp_path)], check=False, timeout=60)
    log = JsonlCallLog(tmp_path)
    log.write({"v": 1, "after": True})
    log.close()
    assert [e.get("after") for e in read_entries(tmp_path)] == [True]


def test_a_minimal_line_is_still_schema_valid(tmp_path: Path) -> None:
    import json

    import jsonschema

    from toolrail.core.call import ToolOutcome
    from toolrail.recording.events import ToolCompleted

    schema = json.loads(
        (Path(__file__).parent.parent / "schemas" / "tool-call-log-entry.schema.json").read_text()
    )
    log = JsonlCallLog(tmp_path)
    ctx = ExecutionContext()
    from datetime import UTC, date, datetime

    from toolrail.recording.jsonl import _ended

    outcome = ToolOutcome(
        call=ToolCall(name="t"), result=Success(1), started_at=datetime.now(UTC), duration_ms=1
    )
    event = ToolCompleted(call_id="c", tool="t", context=ctx, outcome=outcome)
    record = log._minimal(_ended(event, date.today()), ValueError("x"))
    jsonschema.validate(record, schema)


async def test_a_lock_held_by_another_process_never_stalls_the_event_loop(tmp_path: Path) -> None:
    """Calls finish while another holder keeps the log's flock; the lines follow once it lets go."""
    log = JsonlCallLog(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    holder = os.open(log.current_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)  # a separate open file: the same as another process
    released = threading.Event()

    def release() -> None:
        released.set()
        fcntl.flock(holder, fcntl.LOCK_UN)

    timer = threading.Timer(20, release)  # a sink writing on the loop would wait for this
    timer.start()
    ex = Executor(ToolRegistry([echo]), sinks=[log])
    for n in range(20):
        await ex.run(ToolCall(name="echo", arguments={"text": str(n)}), ExecutionContext())
    assert not released.is_set(), "the calls waited for the lock"
    assert lines(tmp_path) == []  # nothing written yet: the writer waits for the lock
    timer.cancel()
    release()
    os.close(holder)
    async with log:
        pass
    assert sorted(int(str(e["output"])) for e in lines(tmp_path)) == list(range(20))


def test_lines_still_queued_at_exit_are_written(tmp_path: Path) -> None:
    """A program that never closes its log loses no line when it ends."""
    program = (
        "import asyncio, sys\n"
        "from toolrail import Executor, ExecutionContext, JsonlCallLog, ToolCall\n"
        "from toolrail import ToolRegistry, tool\n"
        "@tool\n"
        "def echo(text: str) -> str:\n"
        "    '''Say it back.'''\n"
        "    return text\n"
        "ex = Executor(ToolRegistry([echo]), sinks=[JsonlCallLog(sys.argv[1])])\n"
        "async def main():\n"
        "    for n in range(500):\n"
        "        call = ToolCall(name='echo', arguments={'text': str(n)})\n"
        "        await ex.run(call, ExecutionContext())\n"
        "asyncio.run(main())\n"
    )
    subprocess.run([sys.executable, "-c", program, str(tmp_path)], check=True, timeout=120)
    assert sorted(int(str(e["output"])) for e in lines(tmp_path)) == list(range(500))


async def test_a_failure_keeps_a_bounded_traceback_in_its_log_line(tmp_path: Path) -> None:
    """Where a tool raised survives in the record: frames, no locals, no secrets."""

    @tool
    def divide(a: int, b: int) -> float:
        """Divide."""
        password = "hunter2-very-secret"  # a local the traceback must not carry
        return a / b if password else 0.0

    log = JsonlCallLog(tmp_path)
    ex = Executor(ToolRegistry([divide]), sinks=[log])
    await ex.run(ToolCall(name="divide", arguments={"a": 1, "b": 0}), ExecutionContext())
    await log.aclose()
    [entry] = lines(tmp_path)
    error = entry["error"]
    assert isinstance(error, dict)
    frames = error["details"]["traceback"]
    assert 0 < len(frames) <= 8
    assert frames[-1].endswith("in divide")
    assert "hunter2" not in orjson.dumps(entry).decode()


async def test_close_with_a_timeout_returns_on_a_hung_disk_and_loses_nothing(
    tmp_path: Path,
) -> None:
    """A writer stuck (here: on a lock another holds) makes `close(timeout)` say False in
    time; the file stays open for the writer, and its lines follow once it is free."""
    log = JsonlCallLog(tmp_path)
    holder = os.open(log.current_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)
    ex = Executor(ToolRegistry([echo]), sinks=[log])
    for n in range(5):
        await ex.run(ToolCall(name="echo", arguments={"text": str(n)}), ExecutionContext())
    assert log.close(timeout=0.2) is False
    fcntl.flock(holder, fcntl.LOCK_UN)
    os.close(holder)
    assert log.close(timeout=10) is True
    assert sorted(int(str(e["output"])) for e in lines(tmp_path)) == list(range(5))
