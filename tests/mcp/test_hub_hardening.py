"""McpHub against servers that misbehave: failing starts, huge or stalled messages, hostile
tool lists, notification storms, cancelled start-ups. Real server subprocesses."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Literal

import orjson
import pydantic
import pytest
from returns.result import Failure, Success

from toolrail import (
    ApprovalRequired,
    ExecutionContext,
    Executor,
    InvalidArguments,
    TimedOut,
    ToolCall,
    TransportError,
)
from toolrail.cli import main
from toolrail.mcp import McpHub, McpServerConfig
from toolrail.recording.events import McpServerStateChanged, ToolRegistered

from .conftest import SERVER
from .test_hub import Waiter, free_port, serve, stop

pytestmark = pytest.mark.anyio
CTX = ExecutionContext(agent="t", permissions=frozenset({"mcp:connect"}))


async def call(executor: Executor, name: str, arguments: object = None) -> object:
    return (await executor.run(ToolCall(name=name, arguments=arguments), CTX)).result  # type: ignore[arg-type]


def hostile_server(name: str = "hostile") -> McpServerConfig:
    """The test server with `--hostile` tools, over the 2025-11-25 handshake (where tools
    still declare `execution.taskSupport`), holding suspicious tools for approval."""
    return McpServerConfig(
        name=name,
        command=sys.executable,
        args=(SERVER, "--hostile"),
        stderr="discard",
        handshake="legacy",
        on_change="approve",
    )


async def gone(pid: int) -> bool:
    """Whether process `pid` has ended (waits up to 10 s for it to)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.05)
    return False


async def no_process_with(argument: str, within_s: float) -> bool:
    """Whether no process has `argument` on its command line (waits up to `within_s`; Linux)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not any(argument.encode() in _cmdline(entry) for entry in Path("/proc").iterdir()):
            return True
        await asyncio.sleep(0.05)
    return False


def _cmdline(entry: Path) -> bytes:
    try:
        return (entry / "cmdline").read_bytes() if entry.name.isdigit() else b""
    except OSError:  # ended meanwhile, or not ours to read
        return b""


async def test_a_server_that_fails_to_start_is_named_with_status_and_stderr(
    tmp_path: Path,
) -> None:
    """#8: not an ExceptionGroup riddle: the server, its exit status, its stderr's tail;
    its (pinned) tools answer TransportError naming it, not UnknownTool."""
    pins = tmp_path / "pins.json"
    pins.write_text('{"mcp__gone__fetch": "0"}')
    config = McpServerConfig(
        name="gone", command=sys.executable, args=("-m", "toolrail_no_such_server")
    )
    async with McpHub([config], pins=pins) as hub:
        executor = Executor(hub.registry)
        result = (await hub.connect())["gone"]
        message = result.failure().message
        assert "MCP server 'gone' could not start" in message
        assert "exited with status 1" in message
        assert "No module named toolrail_no_such_server" in message
        assert "ExceptionGroup" not in message
        fetched = await call(executor, "mcp__gone__fetch", {"url": "x"})
        assert isinstance(fetched, Failure)
        assert isinstance(fetched.failure(), TransportError)
        assert fetched.failure().server == "gone"
        assert "No module named" in fetched.failure().message
        other = (await call(executor, "mcp__gone__other")).failure()  # type: ignore[attr-defined]
        assert isinstance(other, TransportError)  # never pinned: still its server's failure
        assert other.server == "gone"


async def test_an_oversized_message_fails_its_call_and_the_session_recovers(
    test_server: McpServerConfig,
) -> None:
    """#6: a message past max_message_bytes fails clearly; the next call works at once."""
    config = test_server.model_copy(update={"max_message_bytes": 1_000_000, "timeout_s": 60})
    async with McpHub([config]) as hub:
        executor = Executor(hub.registry)
        huge = await call(executor, "mcp__test__big", {"chars": 20_000_000})
        assert isinstance(huge, Failure)
        assert isinstance(huge.failure(), TransportError)
        assert "max_message_bytes" in huge.failure().message
        assert await call(executor, "mcp__test__add", {"a": 1, "b": 1}) == Success(2)
        assert await call(executor, "mcp__test__big", {"chars": 10}) == Success("x" * 10)


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_an_oversized_message_over_http_fails_its_call_clearly(
    transport: Literal["http", "sse"],
) -> None:
    """#6 over streamable HTTP and SSE: the same bound, the same clear failure, and the
    next call works."""
    port = free_port()
    process = serve(transport, port)
    try:
        config = McpServerConfig(
            name="web",
            url=f"http://127.0.0.1:{port}/{'mcp' if transport == 'http' else 'sse'}",
            transport=transport,
            max_message_bytes=1_000_000,
            timeout_s=60,
        )
        async with McpHub([config]) as hub:
            executor = Executor(hub.registry)
            huge = await call(executor, "mcp__web__big", {"chars": 20_000_000})
            assert isinstance(huge, Failure)
            assert isinstance(huge.failure(), TransportError)
            assert "max_message_bytes" in huge.failure().message
            assert await call(executor, "mcp__web__add", {"a": 1, "b": 1}) == Success(2)
    finally:
        stop(process)


async def test_a_deadline_mid_message_resets_the_session(test_server: McpServerConfig) -> None:
    """#6: a call that times out while a message is still arriving leaves no poisoned
    session behind: the next call gets a fresh one and its answer."""
    config = test_server.model_copy(update={"timeout_s": 1.0})
    async with McpHub([config]) as hub:
        executor = Executor(hub.registry)
        stalled = await call(executor, "mcp__test__stall_mid_message")
        assert isinstance(stalled, Failure)
        assert isinstance(stalled.failure(), TimedOut)
        assert "session was reset" in stalled.failure().message
        assert await call(executor, "mcp__test__add", {"a": 2, "b": 2}) == Success(4)


async def test_a_big_result_is_capped_by_default(test_server: McpServerConfig) -> None:
    """(f) 10 MB from an MCP tool reaches the model cut to the executor's default cap."""
    async with McpHub([test_server]) as hub:
        result = await call(Executor(hub.registry), "mcp__test__big", {"chars": 10_000_000})
    output = result.unwrap()  # type: ignore[attr-defined]
    assert isinstance(output, dict)
    assert output["truncated"] is True
    assert output["original_chars"] == 10_000_000
    assert len(output["preview"]) < 1_000_000


async def test_a_hostile_tool_list_is_vetted_not_fatal() -> None:
    """(b, d, 7) Clashing names, deep schemas and task-only tools are skipped with reasons;
    hidden instructions and invisible characters are stripped and held for approval; the
    hub does not raise, the rest works, and no process is left behind."""
    async with McpHub([hostile_server()]) as hub:
        executor = Executor(hub.registry)
        [status] = hub.status()
        pid = status.pid
        assert status.state == "ready"
        skipped = "\n".join(status.skipped)
        for original in ("twin", "dot.name", "dot_name"):
            assert f"{original}: " in skipped
        assert "rename = {" in skipped
        assert "deep: input schema nested" in skipped
        assert 'tasks_only: needs MCP tasks (execution.taskSupport = "required")' in skipped
        assert {"mcp__hostile__shadow", "mcp__hostile__smuggler"} <= set(hub.pending_changes())
        assert "suspicious description" in (hub.held_reason("mcp__hostile__shadow") or "")
        assert "a tag" in (hub.held_reason("mcp__hostile__shadow") or "")
        assert "invisible characters" in (hub.held_reason("mcp__hostile__smuggler") or "")
        assert "cut to" in (hub.held_reason("mcp__hostile__smuggler") or "")
        shadow = await call(executor, "mcp__hostile__shadow")
        assert isinstance(shadow.failure(), ApprovalRequired)  # type: ignore[attr-defined]
        smuggler = hub.registry.find("mcp__hostile__smuggler")
        assert smuggler is not None
        text = smuggler.description
        assert len(text) <= 4_097
        assert not any(ch in text for ch in ("\U000e0041", "\u202e", "\x1b"))
        assert await call(executor, "mcp__hostile__add", {"a": 1, "b": 2}) == Success(3)
    assert pid is not None
    assert await gone(pid)


def test_a_pathological_pattern_cannot_stall_validation() -> None:
    """(e) `^(a+)+$` against a long near-match is refused without backtracking for ages."""
    outcome: list[object] = []

    async def check() -> None:
        async with McpHub([hostile_server()]) as hub:
            tool = hub.registry.find("mcp__hostile__redos")
            assert tool is not None
            worker = threading.Thread(
                target=lambda: outcome.append(tool.parameters.check({"s": "a" * 60 + "!"})),
                daemon=True,
            )
            worker.start()
            worker.join(60)  # a no-hang bound; the backtracking engine takes ~forever
            assert tool.parameters.check({"s": "aaa"}) == {"s": "aaa"}

    asyncio.run(check())
    [checked] = outcome
    assert isinstance(checked, InvalidArguments)
    assert "does not match" in checked.issues[0].message


async def test_a_list_changed_storm_is_debounced(test_server: McpServerConfig) -> None:
    """(e) 300 notifications cause a few re-lists, not 300."""
    config = test_server.model_copy(update={"on_change": "accept"})
    waiter = Waiter(lambda e: isinstance(e, ToolRegistered) and e.tool == "mcp__test__spammed")
    async with McpHub([config], sinks=[waiter]) as hub:
        executor = Executor(hub.registry)
        assert await call(executor, "mcp__test__spam", {"times": 300}) == Success("spammed")
        await waiter.wait()
        listings = (await call(executor, "mcp__test__list_calls")).unwrap()  # type: ignore[attr-defined]
    assert 2 <= listings <= 10


async def test_server_names_cannot_make_tool_names_ambiguous() -> None:
    """(c) `x__a` + `b` and `x` + `a__b` cannot both be `mcp__x__a__b`; nor can two names
    that sanitise alike share a prefix."""
    with pytest.raises(pydantic.ValidationError, match="ambiguous"):
        McpServerConfig(name="x__a", command="true")
    with pytest.raises(pydantic.ValidationError, match="ambiguous"):
        McpServerConfig(name="x_", command="true")
    with pytest.raises(ValueError, match="share the tool prefix"):
        McpHub(
            [
                McpServerConfig(name="a b", command="true"),
                McpServerConfig(name="a_b", command="true"),
            ]
        )
    with pytest.raises(ValueError, match="share the tool prefix"):
        McpHub([McpServerConfig(name="a", command="true"), McpServerConfig(name="a", command="x")])


async def test_servers_start_concurrently(tmp_path: Path) -> None:
    """#9: two servers that each wait for the other to have started both connect (one
    after the other, the first would wait for a peer that never starts)."""
    servers = [
        McpServerConfig(
            name=me,
            command=sys.executable,
            args=(SERVER, "--rendezvous", str(tmp_path), me, peer),
            startup_timeout_s=20,
            stderr="discard",
        )
        for me, peer in (("left", "right"), ("right", "left"))
    ]
    async with McpHub(servers) as hub:
        results = await hub.connect()
        assert all(isinstance(r, Success) for r in results.values())
        assert {s.state for s in hub.status()} == {"ready"}


async def test_a_cancelled_start_up_leaves_no_process_and_is_not_swallowed(
    test_server: McpServerConfig,
) -> None:
    """#9: cancelling `async with McpHub(...)` mid-connect stops the servers already
    started, the one still starting too, and the cancellation reaches the caller."""
    marker = f"--marker={uuid.uuid4().hex}"  # finds the hanging server's process
    hanging = McpServerConfig(
        name="hangs",
        command=sys.executable,
        args=(SERVER, "--hang-on-start", marker),
        stderr="discard",
    )
    ready = Waiter(
        lambda e: isinstance(e, McpServerStateChanged) and (e.server, e.state) == ("test", "ready")
    )
    hub = McpHub([test_server, hanging], sinks=[ready])
    entered = asyncio.Event()

    async def use() -> None:
        async with hub:
            entered.set()

    task = asyncio.create_task(use())
    await ready.wait()
    pid = {s.name: s.pid for s in hub.status()}["test"]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not entered.is_set()
    assert pid is not None
    assert await gone(pid)
    assert {s.state for s in hub.status()} == {"closed"}
    # gone with the hub, not seconds later (found by running the suite: it was left behind)
    assert await no_process_with(marker, within_s=1)


async def test_content_blocks_keep_mcp_shapes_and_text(test_server: McpServerConfig) -> None:
    """#10: images keep MCP's wire names (`mimeType`) as blocks a dialect can hand on as
    images, and text beside structured content is kept."""
    async with McpHub([test_server]) as hub:
        executor = Executor(hub.registry)
        picture = (await call(executor, "mcp__test__picture")).unwrap()  # type: ignore[attr-defined]
        noted = (await call(executor, "mcp__test__noted")).unwrap()  # type: ignore[attr-defined]
        plain = await call(executor, "mcp__test__add", {"a": 1, "b": 2})
    [image, caption] = picture["content"]
    assert image["type"] == "image"
    assert image["mimeType"] == "image/png"
    assert "mime_type" not in image
    assert caption == {"type": "text", "text": "a caption"}
    assert noted == {
        "content": [{"type": "text", "text": "3 rows; 2 more were hidden"}],
        "structuredContent": {"rows": 3},
    }
    assert plain == Success(3)  # text that only repeats the structured result adds nothing


def test_mcp_list_shows_held_and_skipped_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(b, 7) `toolrail mcp list` says which tools are held back, and which are not offered
    and why (task-only tools included)."""
    config = tmp_path / "toolrail.toml"
    spec = {
        "command": sys.executable,
        "args": [SERVER, "--hostile"],
        "stderr": "discard",
        "handshake": "legacy",
    }
    (tmp_path / ".mcp.json").write_text(orjson.dumps({"mcpServers": {"hostile": spec}}).decode())
    config.write_text('[mcp]\njson = ".mcp.json"\n')
    assert main(["mcp", "list", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "held back, waiting for acceptance: mcp__hostile__shadow: suspicious" in out
    assert "skipped tasks_only: needs MCP tasks" in out


async def test_an_mcp_tool_refuses_a_huge_argument_briefly(test_server: McpServerConfig) -> None:
    """A real server's tool, validated before sending: the refusal is short."""
    async with McpHub([test_server]) as hub:
        executor = Executor(hub.registry)
        outcome = await executor.run(
            ToolCall(name="mcp__test__add", arguments={"a": "z" * 100_000, "b": 1}),
            ExecutionContext(agent="t", permissions=frozenset({"mcp:connect"})),
        )
        assert isinstance(outcome.result, Failure)
        error = outcome.result.failure()
        assert isinstance(error, InvalidArguments)
        assert len(str(error)) <= 500
        assert "is not of type 'integer'" in error.message
