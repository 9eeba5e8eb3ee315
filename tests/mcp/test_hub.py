"""McpHub against real MCP servers over stdio: our test server and PyPI's mcp-server-time."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

import pytest
from returns.result import Failure, Success

from toolrail import (
    ApprovalRequired,
    ExecutionContext,
    ExecutionFailed,
    Executor,
    InvalidArguments,
    TimedOut,
    ToolCall,
    TransportError,
)
from toolrail.mcp import McpHub, McpServerConfig, load_mcp_json, namespaced
from toolrail.mcp.naming import MAX_NAME
from toolrail.recording.events import (
    McpServerStateChanged,
    ToolDefinitionChanged,
    ToolEvent,
    ToolProgress,
    ToolRegistered,
)

from .conftest import SERVER

pytestmark = pytest.mark.anyio
CTX = ExecutionContext(agent="t", permissions=frozenset({"mcp:connect"}))


async def call(executor: Executor, name: str, arguments: object = None) -> object:
    return (await executor.run(ToolCall(name=name, arguments=arguments), CTX)).result  # type: ignore[arg-type]


class Waiter:
    """A sink that sets an event once `condition` holds for an event it receives."""

    def __init__(self, condition: Callable[[ToolEvent], bool]) -> None:
        self.condition = condition
        self.seen: list[ToolEvent] = []
        self.done = asyncio.Event()

    def __call__(self, event: ToolEvent) -> None:
        self.seen.append(event)
        if self.condition(event):
            self.done.set()

    async def wait(self) -> None:
        await asyncio.wait_for(self.done.wait(), 10)


async def test_discovery_names_and_calls(test_server: McpServerConfig) -> None:
    """Tools appear as mcp__test__*, validate before sending, and return Results."""
    async with McpHub([test_server]) as hub:
        names = set(hub.registry.names())
        assert {"mcp__test__add", "mcp__test__refuse", "mcp__test__progress"} <= names
        assert hub.origin("mcp__test__add") is not None
        assert hub.origin("mcp__test__add").tool == "add"  # type: ignore[union-attr]
        tool = hub.registry.find("mcp__test__add")
        assert tool is not None
        assert tool.source == "mcp"
        assert tool.input_schema()["required"] == ["a", "b"]
        assert tool.output_schema is not None
        assert not tool.annotations.read_only  # untrusted server: hints are not believed
        executor = Executor(hub.registry)
        assert await call(executor, "mcp__test__add", {"a": 2, "b": 3}) == Success(5)
        invalid = await call(executor, "mcp__test__add", '{"a": "x"}')
        assert isinstance(invalid, Failure)
        assert isinstance(invalid.failure(), InvalidArguments)
        assert [i.path for i in invalid.failure().issues] == ["$", "$.a"]
        refused = await call(executor, "mcp__test__refuse", {"reason": "no"})
        assert isinstance(refused, Failure)
        assert isinstance(refused.failure(), ExecutionFailed)
        assert refused.failure().model_can_fix
        assert refused.failure().message.endswith("refused: no")  # the server's own words


async def test_a_server_that_lies_about_its_output(test_server: McpServerConfig) -> None:
    """Output that breaks the tool's own outputSchema fails the call, not the session."""
    async with McpHub([test_server]) as hub:
        executor = Executor(hub.registry)
        pid = (await call(executor, "mcp__test__pid")).unwrap()  # type: ignore[attr-defined]
        lied = await call(executor, "mcp__test__liar")
        assert isinstance(lied, Failure)
        assert isinstance(lied.failure(), ExecutionFailed)
        assert "answered liar wrongly" in lied.failure().message
        assert hub.status()[0].state == "ready"
        assert await call(executor, "mcp__test__pid") == Success(pid)  # same process


async def test_malformed_tool_is_skipped_not_the_server(test_server: McpServerConfig) -> None:
    """A tool with an unusable schema is reported and skipped; the rest work."""
    async with McpHub([test_server]) as hub:
        [status] = hub.status()
        assert status.state == "ready"
        assert "mcp__test__broken_schema" not in hub.registry
        assert any(s.startswith("broken_schema:") for s in status.skipped)
        assert "mcp__test__add" in status.tools


async def test_progress_reaches_sinks_and_extends_the_deadline(
    test_server: McpServerConfig,
) -> None:
    """Progress arrives as events, and keeps a call alive past its idle deadline."""
    config = test_server.model_copy(update={"timeout_s": 1.0})
    events: list[ToolEvent] = []
    async with McpHub([config]) as hub:
        executor = Executor(hub.registry, sinks=[events.append])
        # 6 steps of 0.3 s: 1.8 s in all, past the 1 s idle deadline, kept alive by progress
        result = await call(executor, "mcp__test__progress", {"steps": 6, "delay": 0.3})
    assert result == Success("finished 6 steps")
    progress = [e for e in events if isinstance(e, ToolProgress)]
    assert [(p.progress, p.total, p.message) for p in progress] == [
        (n, 6, f"step {n}") for n in range(1, 7)
    ]


async def test_idle_deadline_and_hard_cap(test_server: McpServerConfig) -> None:
    """A silent call times out at the idle deadline; a chatty one at the hard cap."""
    config = test_server.model_copy(update={"timeout_s": 0.5, "max_timeout_s": 1.2})
    async with McpHub([config]) as hub:
        executor = Executor(hub.registry)
        start = time.monotonic()
        silent = await call(executor, "mcp__test__hang")
        assert isinstance(silent, Failure)
        assert isinstance(silent.failure(), TimedOut)
        assert time.monotonic() - start < 10  # bounded: no hang
        start = time.monotonic()
        chatty = await call(executor, "mcp__test__progress", {"steps": 50, "delay": 0.1})
        assert isinstance(chatty.failure(), TimedOut)  # type: ignore[attr-defined]
        assert 0.5 < time.monotonic() - start < 10  # past the idle deadline, then capped
        # the session survived both: the server was told to cancel, not killed
        assert await call(executor, "mcp__test__add", {"a": 1, "b": 1}) == Success(2)
        assert await call(executor, "mcp__test__cancellations") == Success(1)


async def test_crash_mid_call_then_automatic_restart(test_server: McpServerConfig) -> None:
    """A server dying mid-call gives TransportError at once; the next call restarts it."""
    events: list[ToolEvent] = []
    async with McpHub([test_server], sinks=[events.append]) as hub:
        executor = Executor(hub.registry)
        first_pid = (await call(executor, "mcp__test__pid")).unwrap()  # type: ignore[attr-defined]
        start = time.monotonic()
        crashed = await call(executor, "mcp__test__crash")
        assert isinstance(crashed, Failure)
        assert isinstance(crashed.failure(), TransportError)
        assert crashed.failure().server == "test"
        assert time.monotonic() - start < 10  # promptly, not at a read timeout
        again = await call(executor, "mcp__test__pid")
        assert isinstance(again, Success)
        assert again.unwrap() != first_pid
    states = [e.state for e in events if isinstance(e, McpServerStateChanged)]
    assert states == ["starting", "ready", "broken", "starting", "ready", "closed"]
    restarting = [e for e in events if isinstance(e, McpServerStateChanged)][3]
    assert "restarting" in restarting.detail


async def test_server_that_never_starts_fails_in_bounded_time() -> None:
    """A server hanging on start, or a missing command, fails clearly and promptly."""
    hanging = McpServerConfig(
        name="hangs",
        command=sys.executable,
        args=(SERVER, "--hang-on-start"),
        startup_timeout_s=1,
        stderr="discard",
    )
    missing = McpServerConfig(
        name="missing", command="/nonexistent/mcp-server", startup_timeout_s=5
    )
    start = time.monotonic()
    hub = McpHub([hanging, missing])
    try:
        results = await hub.connect()
    finally:
        await hub.close()
    assert time.monotonic() - start < 20  # bounded by the start-up timeouts
    for name in ("hangs", "missing"):
        result = results[name]
        assert isinstance(result, Failure)
        assert isinstance(result.failure(), TransportError)
    assert "did not start within 1s" in results["hangs"].failure().message
    assert "could not start" in results["missing"].failure().message


async def test_concurrent_calls_share_one_session(test_server: McpServerConfig) -> None:
    """Twenty calls at once go through one server process."""
    async with McpHub([test_server]) as hub:
        executor = Executor(hub.registry)
        calls = [ToolCall(name="mcp__test__pid") for _ in range(20)]
        outcomes = await executor.run_many(calls, CTX, max_concurrency=20)
        pids = {o.result.unwrap() for o in outcomes}
        assert len(pids) == 1


async def test_close_leaves_no_orphan_process(test_server: McpServerConfig) -> None:
    """After the hub closes, the server process is gone."""
    async with McpHub([test_server]) as hub:
        pid = (await call(Executor(hub.registry), "mcp__test__pid")).unwrap()  # type: ignore[attr-defined]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"server process {pid} still running")


async def test_list_changed_adds_tools(test_server: McpServerConfig) -> None:
    """`tools/list_changed` refreshes the list: with `on_change = "accept"`, a new tool
    becomes callable."""
    config = test_server.model_copy(update={"on_change": "accept"})
    waiter = Waiter(lambda e: isinstance(e, ToolRegistered) and e.tool == "mcp__test__grown")
    async with McpHub([config], sinks=[waiter]) as hub:
        executor = Executor(hub.registry)
        assert await call(executor, "mcp__test__grow") == Success("grew")
        await waiter.wait()
        assert await call(executor, "mcp__test__grown") == Success("grown")


async def test_a_tool_added_mid_session_is_not_trusted_silently(
    test_server: McpServerConfig,
) -> None:
    """(a) A tool that appears after the first listing is held back like a changed one."""
    waiter = Waiter(lambda e: isinstance(e, ToolDefinitionChanged))
    async with McpHub([test_server], sinks=[waiter]) as hub:
        executor = Executor(hub.registry)
        assert await call(executor, "mcp__test__grow") == Success("grew")
        await waiter.wait()
        [added] = [e for e in waiter.seen if isinstance(e, ToolDefinitionChanged)]
        assert (added.tool, added.action, added.old_hash) == ("mcp__test__grown", "disabled", "")
        assert "mcp__test__grown" not in hub.registry
        assert hub.pending_changes() == ("mcp__test__grown",)
        assert "added after" in (hub.held_reason("mcp__test__grown") or "")
        assert hub.accept_change("mcp__test__grown")
        assert await call(executor, "mcp__test__grown") == Success("grown")


@pytest.mark.parametrize("policy", ["disable", "approve"])
async def test_rug_pull_is_flagged(
    test_server: McpServerConfig, policy: str, tmp_path: Path
) -> None:
    """A changed definition is flagged; disabled or held for approval until accepted."""
    config = test_server.model_copy(update={"on_change": policy})
    waiter = Waiter(lambda e: isinstance(e, ToolDefinitionChanged))
    pins = tmp_path / "pins.json"
    async with McpHub([config], sinks=[waiter], pins=pins) as hub:
        executor = Executor(hub.registry)
        assert await call(executor, "mcp__test__mutate") == Success("mutated")
        await waiter.wait()
        assert hub.pending_changes() == ("mcp__test__add",)
        [changed] = [e for e in waiter.seen if isinstance(e, ToolDefinitionChanged)]
        assert changed.tool == "mcp__test__add"
        assert changed.old_hash != changed.new_hash
        if policy == "disable":
            assert changed.action == "disabled"
            assert "mcp__test__add" not in hub.registry
        else:
            assert changed.action == "needs_approval"
            held = await call(executor, "mcp__test__add", {"a": 1, "b": 2})
            assert isinstance(held.failure(), ApprovalRequired)  # type: ignore[attr-defined]
        assert hub.accept_change("mcp__test__add")
        assert await call(executor, "mcp__test__add", {"a": 1, "b": 2}) == Success(3)
        assert "keys" in hub.registry.find("mcp__test__add").description  # type: ignore[union-attr]
    assert "mcp__test__add" in pins.read_text()


async def test_name_clash_is_skipped_with_a_fix(test_server: McpServerConfig) -> None:
    """Two tools mapping to one name are both left out, each with a hint to rename; the
    hub does not raise and the server's other tools work."""
    config = test_server.model_copy(update={"rename": {"add": "refuse"}})
    async with McpHub([config]) as hub:
        [status] = hub.status()
        clashes = [s for s in status.skipped if "all become 'mcp__test__refuse'" in s]
        assert len(clashes) == 2
        assert all("rename = {" in s for s in clashes)
        assert "mcp__test__refuse" not in hub.registry
        assert await call(Executor(hub.registry), "mcp__test__pid") != Success(None)


def test_long_names_are_shortened_stably() -> None:
    """Names stay within 64 characters, distinct, and the same every time."""
    a = namespaced("a-very-long-server-name", "an.extremely.long.tool.name.that.goes.on.and.on")
    b = namespaced("a-very-long-server-name", "an.extremely.long.tool.name.that.goes.on.and.ON")
    assert len(a) == len(b) == MAX_NAME
    assert a != b
    assert a == namespaced(
        "a-very-long-server-name", "an.extremely.long.tool.name.that.goes.on.and.on"
    )


async def test_mcp_json_with_env_expansion(tmp_path: Path) -> None:
    """`.mcp.json` servers start with `${VAR}`-expanded settings."""
    config_file = tmp_path / ".mcp.json"
    config_file.write_text(
        '{"mcpServers": {"test": {"command": "${PY}", "args": ["${SERVER}"],'
        ' "env": {"GREETING": "${HELLO:-fallback}"}, "stderr": "discard"}}}'
    )
    [server] = load_mcp_json(config_file, environ={"PY": sys.executable, "SERVER": SERVER}).unwrap()
    assert server.env == {"GREETING": "fallback"}
    async with McpHub([server]) as hub:
        result = await call(Executor(hub.registry), "mcp__test__echo_env", {"name": "GREETING"})
    assert result == Success("fallback")
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {"x": {"args": []}}}')
    assert "exactly one of `command` or `url`" in str(load_mcp_json(bad).failure())


async def test_third_party_time_server(time_server: McpServerConfig) -> None:
    """PyPI's mcp-server-time: trusted annotations carried over, real answers, real errors."""
    async with McpHub([time_server]) as hub:
        tool = hub.registry.find("mcp__time__get_current_time")
        assert tool is not None
        assert tool.annotations.read_only
        executor = Executor(hub.registry)
        now = await call(executor, "mcp__time__get_current_time", {"timezone": "Europe/Oslo"})
        assert isinstance(now, Success)
        assert now.unwrap()["timezone"] == "Europe/Oslo"
        wrong = await call(executor, "mcp__time__get_current_time", {"timezone": "Mars/Base"})
        assert isinstance(wrong.failure(), ExecutionFailed)  # type: ignore[attr-defined]
        assert wrong.failure().model_can_fix  # type: ignore[attr-defined]


async def test_in_process_server_for_fast_tests() -> None:
    """An MCPServer object can be reached in-process, with the same Results."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("calc")

    @server.tool()
    def double(n: int) -> int:
        """Double a number."""
        return n * 2

    async with McpHub([], in_process={"calc": server}) as hub:
        executor = Executor(hub.registry)
        assert await call(executor, "mcp__calc__double", {"n": 21}) == Success(42)
        assert isinstance(
            (await call(executor, "mcp__calc__double", {"n": "x"})).failure(),  # type: ignore[attr-defined]
            InvalidArguments,
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def serve(transport: str, port: int) -> subprocess.Popen[str]:
    """The test server over HTTP or SSE in a subprocess, returned once uvicorn listens."""
    process = subprocess.Popen(
        [sys.executable, SERVER, f"--{transport}", str(port)], stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    deadline = time.monotonic() + 30
    for line in process.stderr:
        if "Uvicorn running" in line or time.monotonic() > deadline:
            break
    # keep reading its log, so a full pipe can never stall the server; close it at EOF
    threading.Thread(target=drain, args=(process.stderr,), daemon=True).start()
    return process


def drain(stream: TextIO) -> None:
    stream.read()
    stream.close()


def stop(process: subprocess.Popen[str]) -> None:
    process.kill()
    process.wait(timeout=10)


@pytest.fixture(params=["http", "sse"])
def http_server(request: pytest.FixtureRequest) -> Iterator[McpServerConfig]:
    """The test server over streamable HTTP or SSE, on a free port."""
    transport, port = request.param, free_port()
    process = serve(transport, port)
    try:
        path = "/mcp" if transport == "http" else "/sse"
        yield McpServerConfig(
            name="web",
            url=f"http://127.0.0.1:{port}{path}",
            transport=transport,
            headers={"X-Client": "toolrail-tests"},
        )
    finally:
        stop(process)


async def test_http_server_death_and_return() -> None:
    """An HTTP server that dies gives TransportError at once; once it is back, the next
    call opens a new session by itself."""
    port = free_port()
    process = serve("http", port)
    config = McpServerConfig(name="web", url=f"http://127.0.0.1:{port}/mcp", timeout_s=5)
    try:
        async with McpHub([config]) as hub:
            executor = Executor(hub.registry)
            assert await call(executor, "mcp__web__add", {"a": 1, "b": 2}) == Success(3)
            stop(process)
            start = time.monotonic()
            lost = await call(executor, "mcp__web__add", {"a": 1, "b": 2})
            assert isinstance(lost.failure(), TransportError)  # type: ignore[attr-defined]
            assert time.monotonic() - start < 10  # promptly, not at a read timeout
            process = serve("http", port)
            assert await call(executor, "mcp__web__add", {"a": 1, "b": 2}) == Success(3)
    finally:
        stop(process)


async def test_remote_transports(http_server: McpServerConfig) -> None:
    """The same tools and Results over streamable HTTP and over SSE."""
    async with McpHub([http_server]) as hub:
        executor = Executor(hub.registry)
        assert await call(executor, "mcp__web__add", {"a": 20, "b": 22}) == Success(42)
        refused = await call(executor, "mcp__web__refuse", {"reason": "remote"})
        assert isinstance(refused.failure(), ExecutionFailed)  # type: ignore[attr-defined]
