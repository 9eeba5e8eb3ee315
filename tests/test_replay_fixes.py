"""Health and circuits replayed from the call log as the live executor keeps them: for the
router of `toolrail search` and `toolrail serve`, with cancelled calls judged by no breaker,
with an MCP server's own circuit; and a log directory holding a FIFO blocks nothing."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import mcp.types as types
import orjson
import pytest
from mcp import Client

from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool
from toolrail.cli import main
from toolrail.mcp import McpHub, McpServerConfig
from toolrail.recording.logreader import recent_entries, recorded_resilience

from .mcp.serve_support import stdio_params, write_config

UPSTREAM = Path(__file__).parent / "mcp" / "server.py"

TOOLS_PY = '''
from toolrail import tool

@tool
def explode_report() -> str:
    """Build the quarterly sales report."""
    raise RuntimeError("the report service is down")

@tool
def sales_forecast(fail: bool) -> str:
    """Forecast next quarter's sales."""
    if fail:
        raise RuntimeError("the forecast model is down")
    return "up"
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "mytools.py").write_text(TOOLS_PY)
    (tmp_path / "toolrail.toml").write_text(
        '[tools]\nmodules = ["mytools.py"]\n\n[logging]\ndirectory = "logs"\n\n'
        '[agents.analyst]\ntools = ["*"]\n'
    )
    return tmp_path


def toolrail(project: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`toolrail ARGS --config project/toolrail.toml` in a new process."""
    return subprocess.run(
        [sys.executable, "-m", "toolrail.cli", *args, "--config", str(project / "toolrail.toml")],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=timeout,
    )


def test_search_ranks_by_the_health_and_circuits_the_log_shows(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seven failures open explode_report's circuit: `search` hides it, with and without an
    agent; sales_forecast, half its calls failed, is ranked down by its health."""
    config = str(project / "toolrail.toml")
    for _ in range(7):
        assert main(["call", "explode_report", "--config", config]) == 1
    for fail in (True, False) * 3:  # never five failures in a row: its circuit stays closed
        args = orjson.dumps({"fail": fail}).decode()
        main(["call", "sales_forecast", "--args", args, "--config", config])
    capsys.readouterr()

    for agent in ((), ("--agent", "analyst")):
        found = toolrail(
            project, "search", "quarterly sales report and forecast", "--explain", *agent
        )
        assert found.returncode == 0, found.stderr
        assert "explode_report" not in found.stdout
        assert "sales_forecast" in found.stdout
        assert '"health":0.75' in found.stdout


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


@pytest.mark.anyio
async def test_serve_finds_no_tool_whose_circuit_the_log_shows_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`find_relevant_tools` of `toolrail serve` leaves out a tool the log shows broken."""
    config = write_config(tmp_path)
    for _ in range(6):  # (main runs its own event loop: on a thread of its own)
        called = ["call", "fail", "--args", '{"reason": "down"}', "--config", str(config)]
        assert await asyncio.to_thread(main, called) == 1
    capsys.readouterr()
    async with Client(stdio_params(config, "--mode", "dynamic")) as client:
        found = await client.call_tool("find_relevant_tools", {"query": "fail with a reason"})
        greeted = await client.call_tool("find_relevant_tools", {"query": "greet someone"})
    assert "fail" not in [t["name"] for t in (found.structured_content or {}).get("tools", [])]
    assert greeted.structured_content is not None, text(greeted)
    assert greeted.structured_content["tools"][0]["name"] == "greet"


@pytest.mark.anyio
async def test_a_cancelled_call_is_no_verdict_when_replayed(tmp_path: Path) -> None:
    """Live, a call stopped by `Executor.cancel` neither closes nor trips a circuit, nor
    counts for health: five timeouts around it open it. Replayed from the log, the same."""
    started = asyncio.Event()

    @tool(timeout_s=0.05)
    async def fetch_feed() -> str:
        """Fetch the feed (upstream hangs)."""
        started.set()
        await asyncio.sleep(10)
        return "feed"

    registry = ToolRegistry([fetch_feed])
    async with JsonlCallLog(tmp_path) as log:
        live = Executor(registry, sinks=[log])
        ctx = ExecutionContext()
        for _ in range(4):
            await live.run(ToolCall(name="fetch_feed", arguments={}), ctx)
        started.clear()
        stopped = asyncio.create_task(live.run(ToolCall(id="c-stop", name="fetch_feed"), ctx))
        await started.wait()
        assert live.cancel("c-stop")
        assert (await stopped).result.failure().kind == "cancelled"
        await live.run(ToolCall(name="fetch_feed", arguments={}), ctx)
    assert live.resilience.breaker("fetch_feed").state == "open"

    replayed = recorded_resilience(recent_entries(tmp_path))
    assert replayed.breaker("fetch_feed").state == "open"
    live_health, replayed_health = (
        live.health.health("fetch_feed"),
        replayed.health.health("fetch_feed"),
    )
    assert live_health is not None
    assert replayed_health is not None
    assert replayed_health.calls == live_health.calls == 5  # not judged: health skips it too
    assert replayed_health.success_rate == live_health.success_rate == 0.0


@pytest.mark.anyio
async def test_the_mcp_server_circuit_is_replayed(tmp_path: Path) -> None:
    """Five timeouts of one tool of MCP server "test" open its circuit `mcp:test` live; a
    new process's `toolrail tools explain` of another of its tools shows it open too."""
    server = McpServerConfig(
        name="test", command=sys.executable, args=(str(UPSTREAM),), timeout_s=0.3, stderr="discard"
    )
    ctx = ExecutionContext(permissions=frozenset({"mcp:connect"}))
    async with JsonlCallLog(tmp_path / "logs") as log, McpHub([server]) as hub:
        live = Executor(hub.registry, sinks=[log])
        for _ in range(5):
            timed_out = await live.run(ToolCall(name="mcp__test__hang", arguments={}), ctx)
            assert timed_out.result.failure().kind == "timed_out"
        assert live.resilience.breaker("mcp:test").state == "open"
    (tmp_path / "toolrail.toml").write_text(
        '[logging]\ndirectory = "logs"\n\n[mcp.servers.test]\n'
        f"command = {orjson.dumps(sys.executable).decode()}\n"
        f'args = [{orjson.dumps(str(UPSTREAM)).decode()}]\nstderr = "discard"\n'
    )
    explained = toolrail(tmp_path, "tools", "explain", "mcp__test__add")
    assert explained.returncode == 0, explained.stderr
    assert "circuit mcp__test__add: closed" in explained.stdout
    assert "circuit mcp:test: open" in explained.stdout


def test_a_server_name_is_recovered_from_the_sanitized_tool_name() -> None:
    """ "git hub" names its tools mcp__git_hub__...; a local tool of such a name is not its."""

    def entry(tool: str, source: str) -> dict[str, object]:
        return {
            "tool": tool,
            "source": source,
            "status": "failure",
            "duration_ms": 300.0,
            "finished_at": "2026-01-01T00:00:00+00:00",
            "error": {"kind": "timed_out", "message": "slow", "model_can_fix": False},
        }

    calls = [entry(f"mcp__git_hub__tool{i}", "mcp") for i in range(5)]
    replayed = recorded_resilience(calls, servers=["git hub", "git"])
    assert replayed.breaker("mcp:git hub").state == "open"
    assert replayed.breaker("mcp:git").state == "closed"
    local = recorded_resilience([entry("mcp__git__x", "local")] * 5, servers=["git"])
    assert local.breaker("mcp:git").state == "closed"


@pytest.mark.parametrize(
    "command", [("tools", "explain", "sales_forecast"), ("logs", "tail")], ids=str
)
def test_a_fifo_named_like_a_log_file_blocks_nothing(
    project: Path, command: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(project / "toolrail.toml")
    assert main(["call", "sales_forecast", "--args", '{"fail": false}', "--config", config]) == 0
    capsys.readouterr()
    os.mkfifo(project / "logs" / "tool-calls-2099-01-01.jsonl")
    try:
        read = toolrail(project, *command, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`toolrail {' '.join(command)}` blocked on the FIFO")
    assert read.returncode == 0, read.stderr
    judged = "health: not judged before 5 calls, 100% ok over 1 call"
    shown = judged if command[0] == "tools" else "✔"
    assert shown in read.stdout


def test_serve_with_a_busy_metrics_port_says_so(project: Path) -> None:
    """No traceback: the CLI's one-line error, and its exit code for a bad setting (2)."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        served = subprocess.run(
            [sys.executable, "-m", "toolrail.cli", "serve", "--metrics-port", str(port)],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            cwd=project,
            timeout=60,
        )
    assert served.returncode == 2
    assert "Traceback" not in served.stderr
    assert served.stderr.startswith("toolrail: ")
    assert str(port) in served.stderr
