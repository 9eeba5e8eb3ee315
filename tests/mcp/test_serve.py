"""`toolrail serve` against real MCP clients: toolrail's own `McpHub` and the SDK's `Client`,
with the server as a subprocess over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from returns.result import Failure, Success

from toolrail import ExecutionContext, Executor, McpToolServer, ToolCall, ToolRegistry
from toolrail._definitions import tool_definition
from toolrail.cli import main
from toolrail.config import Config, ServeSection
from toolrail.mcp import McpHub, McpServerConfig
from toolrail.resilience import BreakerSettings, Resilience
from toolrail.serve.listing import ERROR_META_KEY

from .serve_support import (
    TOOLS,
    http_server,
    hub_config,
    log_entries,
    served,
    stdio_params,
    wait_for,
    with_upstream,
    write_config,
)
from .serve_tools import add, fail, greet

pytestmark = pytest.mark.anyio
Observed = tuple[dict[str, Any], list[tuple[str, object]]]
"""Tool definitions by name, and the results of CALLS."""
HUB_CTX = ExecutionContext(agent="t", permissions=frozenset({"mcp:connect"}))
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("greet", {"name": "ada"}),
    ("add", {"a": 2, "b": 3}),
    ("weather", {"city": "Oslo"}),
    ("fail", {"reason": "on purpose"}),
]


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def local_results(config_file: Path) -> Observed:
    """What the registry gives when called in-process, as the served agent."""
    config = Config.load(config_file).unwrap()
    registry = config.registry().unwrap()
    executor = Executor(registry, agents=config.agent_table())
    ctx = ExecutionContext(agent="client", permissions=frozenset({"mcp:connect"}))
    definitions = {t.name: tool_definition(t) for t in executor.visible("client", ctx.permissions)}
    results = [
        _comparable((await executor.run(ToolCall(name=n, arguments=a), ctx)).result)
        for n, a in CALLS
    ]
    return definitions, results


async def served_results(
    server: McpServerConfig,
) -> Observed:
    """The same, through `toolrail serve` and back into toolrail through `McpHub`."""
    async with McpHub([server]) as hub:
        executor = Executor(hub.registry)
        definitions = {}
        for tool in hub.tools():
            origin = hub.origin(tool.name)
            assert origin is not None
            definitions[origin.tool] = {**tool_definition(tool), "name": origin.tool}
        results = []
        for name, arguments in CALLS:
            call = ToolCall(name=f"mcp__{server.name}__{name}", arguments=arguments)
            results.append(_comparable((await executor.run(call, HUB_CTX)).result))
    return definitions, results


def _comparable(result: object) -> tuple[str, object]:
    match result:
        case Success(value):
            return ("ok", value)
        case Failure(error):
            return ("error", error.message)
        case _:
            raise AssertionError(result)


def _same_definitions(local: dict[str, Any], served: dict[str, Any]) -> None:
    assert set(served) == set(local)
    for name, definition in local.items():
        for key in ("description", "input_schema", "annotations"):
            assert served[name][key] == definition[key], (name, key)


async def test_hub_round_trip_over_stdio(tmp_path: Path) -> None:
    """McpHub ← toolrail serve (stdio): the served names, definitions and results (values and
    error messages) are the local ones; whoami, lacking a permission, is not served."""
    config = write_config(tmp_path)
    local_defs, local = await local_results(config)
    served_defs, served = await served_results(hub_config(config))
    assert "whoami" not in served_defs
    _same_definitions(local_defs, served_defs)
    assert served == local
    assert local[1] == ("ok", 5)  # a typed output survives: structuredContent, unwrapped
    assert local[2] == ("ok", {"city": "Oslo", "celsius": 21.5})
    assert local[3][0] == "error"


async def test_hub_round_trip_over_http(tmp_path: Path) -> None:
    """The same round trip over streamable HTTP."""
    config = write_config(tmp_path)
    local_defs, local = await local_results(config)
    with http_server(config) as url:
        server = McpServerConfig(name="toolrail", url=url, trusted=True, timeout_s=20)
        served_defs, served = await served_results(server)
    _same_definitions(local_defs, served_defs)
    assert served == local


async def test_every_call_is_logged_as_the_configured_agent(tmp_path: Path) -> None:
    """A refused call too, with its true reason: whoami, lacking a permission, is hidden,
    and the client is told only what it would be told of a name no tool has."""
    config = write_config(tmp_path)
    async with Client(stdio_params(config)) as client:
        await client.call_tool("greet", {"name": "ada"})
        with pytest.raises(MCPError, match="Unknown tool: whoami"):
            await client.call_tool("whoami", {})
    entries = log_entries(tmp_path)
    assert [(e["tool"], e["agent"], e["status"]) for e in entries] == [
        ("greet", "client", "success"),
        ("whoami", "client", "failure"),
    ]
    assert entries[1]["error"]["kind"] == "permission_denied"


async def test_fidelity_of_definitions_and_results(tmp_path: Path) -> None:
    """Annotations become MCP hints; a typed output has an outputSchema and comes back as
    structuredContent with a text fallback; a failure is isError with the message."""
    async with Client(stdio_params(write_config(tmp_path)), mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        greet, add = tools["greet"], tools["add"]
        assert greet.title == "Greeter"
        assert greet.annotations is not None
        assert greet.annotations.read_only_hint is True
        assert greet.annotations.destructive_hint is False
        assert greet.annotations.idempotent_hint is True
        assert greet.annotations.open_world_hint is False  # unsaid, and read-only
        assert add.annotations is not None
        assert add.annotations.open_world_hint is False
        assert add.output_schema == {
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
        }
        assert greet.output_schema is None
        summed = await client.call_tool("add", {"a": 1, "b": 2})
        assert summed.structured_content == {"result": 3}
        assert text(summed) == "3"
        failed = await client.call_tool("fail", {"reason": "no"})
        assert failed.is_error
        assert "failed: no" in text(failed)
        assert failed.meta is not None
        assert failed.meta[ERROR_META_KEY]["kind"] == "execution_failed"
        invalid = await client.call_tool("add", {"a": "x"})
        assert invalid.is_error  # a tool error the model can fix, not a protocol error
        assert "b" in text(invalid)


async def test_an_unknown_tool_is_a_protocol_error(tmp_path: Path) -> None:
    async with Client(stdio_params(write_config(tmp_path)), mode="legacy") as client:
        with pytest.raises(Exception, match="Unknown tool: nope"):
            await client.call_tool("nope", {})


async def test_error_text_is_redacted(tmp_path: Path) -> None:
    secret = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3"
    async with Client(stdio_params(write_config(tmp_path)), mode="legacy") as client:
        failed = await client.call_tool("fail", {"reason": f"key {secret}"})
    assert failed.is_error
    assert secret not in text(failed)
    assert "[REDACTED]" in text(failed)


async def test_dynamic_mode_lists_two_meta_tools(tmp_path: Path) -> None:
    """find_relevant_tools returns names, descriptions and schemas; execute_tool runs one
    through the executor (errors included)."""
    async with Client(stdio_params(write_config(tmp_path), "--mode", "dynamic")) as client:
        listed = [t.name for t in (await client.list_tools()).tools]
        assert listed == ["find_relevant_tools", "execute_tool"]
        found = await client.call_tool("find_relevant_tools", {"query": "weather in a city"})
        assert found.structured_content is not None
        first = found.structured_content["tools"][0]
        assert first["name"] == "weather"
        assert first["input_schema"]["required"] == ["city"]
        names = [t["name"] for t in found.structured_content["tools"]]
        assert "whoami" not in names
        ran = await client.call_tool(
            "execute_tool", {"tool_name": "weather", "arguments": {"city": "Rome"}}
        )
        assert ran.structured_content == {"city": "Rome", "celsius": 21.5}
        wrong = await client.call_tool("execute_tool", {"tool_name": "wether", "arguments": {}})
        assert wrong.is_error
        assert "weather" in text(wrong)  # "did you mean"
        one = await client.call_tool("find_relevant_tools", {"query": "city", "limit": 1})
        assert one.structured_content is not None
        assert len(one.structured_content["tools"]) == 1
        zero = await client.call_tool("find_relevant_tools", {"query": "city", "limit": 0})
        assert zero.is_error
        assert "limit" in text(zero)
        missing = await client.call_tool("execute_tool", {"arguments": {}})
        assert missing.is_error
        assert "tool_name" in text(missing)
    assert [e["tool"] for e in log_entries(tmp_path)] == ["weather", "wether"]


async def test_hybrid_mode_lists_pinned_and_frequent_tools(tmp_path: Path) -> None:
    config = write_config(tmp_path, 'mode = "hybrid"\npinned = ["greet"]\nfrequent = 3')
    changed = asyncio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with Client(stdio_params(config), mode="legacy", message_handler=on_message) as client:
        listed = [t.name for t in (await client.list_tools()).tools]
        assert listed == ["greet", "find_relevant_tools", "execute_tool"]
        for _ in range(2):
            await client.call_tool("execute_tool", {"tool_name": "add", "arguments": {"a": 1}})
            await client.call_tool("add", {"a": 1, "b": 1})
        await asyncio.wait_for(changed.wait(), 15)
        listed = [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]
        assert listed == ["greet", "add", "find_relevant_tools", "execute_tool"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_progress_reaches_the_client(tmp_path: Path, transport: str, mode: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    config = write_config(tmp_path)
    with served(config, transport) as target:
        async with Client(target, mode=mode) as client:
            result = await client.call_tool("steps", {"count": 3}, progress_callback=on_progress)
    assert text(result) == "3 steps"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


async def test_progress_flag_narrates_calls_on_stderr(tmp_path: Path) -> None:
    """`toolrail serve --progress`: the stream handler's lines go to the operator's stderr,
    never into the protocol on stdout."""
    narrated = tmp_path / "serve.stderr"
    served = hub_config(write_config(tmp_path), "--progress").model_copy(
        update={"stderr": str(narrated)}
    )
    async with McpHub([served]) as hub:
        executor = Executor(hub.registry)
        outcome = await executor.run(
            ToolCall(name="mcp__toolrail__steps", arguments={"count": 2}),
            ExecutionContext(permissions=frozenset({"mcp:connect"})),
        )
        assert outcome.result == Success("2 steps")
    lines = narrated.read_text().splitlines()
    assert any("step 2" in line for line in lines), lines
    assert any(line.startswith("✔") for line in lines), lines


async def test_a_clients_cancellation_cancels_the_call(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    async with Client(stdio_params(write_config(tmp_path)), mode="legacy") as client:
        call = asyncio.ensure_future(client.call_tool("hang", {"marker": str(marker)}))
        await asyncio.to_thread(wait_for, marker.exists)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

        def cancelled_logged() -> bool:
            return any(
                e["tool"] == "hang" and e.get("error", {}).get("kind") == "cancelled"
                for e in log_entries(tmp_path)
            )

        await asyncio.to_thread(wait_for, cancelled_logged)
        # the server still serves after the cancellation
        assert text(await client.call_tool("greet", {"name": "ok"})) == "hello ok"


# --- approvals by elicitation -------------------------------------------------------------


def elicitation(answer: types.ElicitResult, asked: list[str], note: Path | None = None) -> Any:
    """An elicitation callback giving `answer`; it checks that nothing ran before it."""

    async def callback(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        assert note is None or not note.exists()
        return answer

    return callback


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_approval_by_elicitation_approve(tmp_path: Path, mode: str) -> None:
    """Handshake era: an elicitation request; 2026-07-28: an InputRequiredResult round trip."""
    note = tmp_path / "note.txt"
    asked: list[str] = []
    yes = types.ElicitResult(action="accept", content={"approve": True})
    async with Client(
        stdio_params(write_config(tmp_path)),
        mode=mode,
        elicitation_callback=elicitation(yes, asked, note),
    ) as client:
        result = await client.call_tool("write_note", {"path": str(note), "text": "hi"})
    assert not result.is_error, text(result)
    assert note.read_text() == "hi"
    assert len(asked) == 1
    assert "write_note" in asked[0]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_approval_by_elicitation_deny_with_reason(tmp_path: Path, mode: str) -> None:
    note = tmp_path / "note.txt"
    asked: list[str] = []
    no = types.ElicitResult(action="accept", content={"approve": False, "reason": "not today"})
    params = stdio_params(write_config(tmp_path))
    callback = elicitation(no, asked, note)
    async with Client(params, mode=mode, elicitation_callback=callback) as client:
        result = await client.call_tool("write_note", {"path": str(note), "text": "hi"})
    assert result.is_error
    assert "not today" in text(result)
    assert not note.exists()  # nothing ran
    assert log_entries(tmp_path)[-1]["error"]["kind"] == "permission_denied"


async def test_without_elicitation_approval_required_says_how_to_grant(tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    async with Client(stdio_params(write_config(tmp_path)), mode="legacy") as client:
        result = await client.call_tool("write_note", {"path": str(note), "text": "hi"})
    assert result.is_error
    assert "approval" in text(result)
    assert "client that supports elicitation" in text(result)  # how to grant it
    assert "`ask`" in text(result)
    assert result.meta is not None
    assert result.meta[ERROR_META_KEY]["kind"] == "approval_required"
    assert not note.exists()


# --- list_changed ---------------------------------------------------------------------------


async def test_list_changed_when_an_upstream_servers_list_changes(tmp_path: Path) -> None:
    """The upstream server grows a tool: the hub inside `toolrail serve` re-lists, and the
    client (handshake era) is told the served list changed."""
    changed = asyncio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    config = with_upstream(tmp_path)
    async with Client(stdio_params(config), mode="legacy", message_handler=on_message) as client:
        before = {t.name for t in (await client.list_tools()).tools}
        assert "mcp__test__add" in before  # upstream tools are served under the registry name
        assert "mcp__test__grown" not in before
        await client.call_tool("mcp__test__grow", {})
        await asyncio.wait_for(changed.wait(), 15)
        after = {t.name for t in (await client.list_tools(cache_mode="bypass")).tools}
        assert "mcp__test__grown" in after


async def test_list_changed_reaches_a_hub_on_the_2026_protocol(tmp_path: Path) -> None:
    """McpHub follows `subscriptions/listen`; the grown tool appears in its registry."""
    async with McpHub([hub_config(with_upstream(tmp_path), name="gw")]) as hub:
        executor = Executor(hub.registry)
        grown = "mcp__gw__mcp__test__grown"
        assert grown not in hub.registry
        grow = ToolCall(name="mcp__gw__mcp__test__grow", arguments={})
        assert (await executor.run(grow, HUB_CTX)).result == Success("grew")
        for _ in range(300):
            if grown in hub.registry:
                break
            await asyncio.sleep(0.05)
        assert grown in hub.registry


async def test_list_changed_when_a_circuit_opens(tmp_path: Path) -> None:
    changed = asyncio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    config = write_config(tmp_path)
    async with Client(stdio_params(config), mode="legacy", message_handler=on_message) as client:
        assert "fail" in {t.name for t in (await client.list_tools()).tools}
        for _ in range(5):  # the default breaker opens after five breakages in a row
            await client.call_tool("fail", {"reason": "boom"})
        await asyncio.wait_for(changed.wait(), 15)
        assert "fail" not in {t.name for t in (await client.list_tools()).tools}


async def test_list_changed_when_the_registry_changes() -> None:
    """In-process: a tool registered while serving reaches a listening client."""
    registry = ToolRegistry([greet])
    gateway = McpToolServer(
        registry, context=ExecutionContext(agent="t"), settings=ServeSection(list_poll_s=0.05)
    )
    watcher = asyncio.create_task(gateway.watch())
    try:
        async with Client(gateway.server) as client:
            assert [t.name for t in (await client.list_tools()).tools] == ["greet"]
            async with client.listen(tools_list_changed=True) as subscription:
                registry.register(add)
                await asyncio.wait_for(anext(aiter(subscription)), 15)
            listed = [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]
            assert listed == ["greet", "add"]
    finally:
        watcher.cancel()


async def test_list_changed_over_http_on_the_handshake_protocol(tmp_path: Path) -> None:
    changed = asyncio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    with http_server(with_upstream(tmp_path)) as url:
        async with Client(url, mode="legacy", message_handler=on_message) as client:
            await client.call_tool("mcp__test__grow", {})
            await asyncio.wait_for(changed.wait(), 15)
            listed = {t.name for t in (await client.list_tools(cache_mode="bypass")).tools}
            assert "mcp__test__grown" in listed


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_approval_by_elicitation_over_http(tmp_path: Path, mode: str) -> None:
    note = tmp_path / "note.txt"
    asked: list[str] = []
    yes = types.ElicitResult(action="accept", content={"approve": True})
    with http_server(write_config(tmp_path)) as url:
        callback = elicitation(yes, asked, note)
        async with Client(url, mode=mode, elicitation_callback=callback) as client:
            result = await client.call_tool("write_note", {"path": str(note), "text": "hi"})
    assert not result.is_error, text(result)
    assert note.read_text() == "hi"
    assert len(asked) == 1


async def test_serving_a_module_without_a_config(tmp_path: Path) -> None:
    """`toolrail serve --module tools.py`: the operator, who may call every tool."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolrail.cli", "serve", "--module", str(TOOLS)],
        cwd=str(tmp_path),
    )
    async with Client(params, mode="legacy") as client:
        assert "whoami" in {t.name for t in (await client.list_tools()).tools}
        assert not (await client.call_tool("whoami", {})).is_error
    assert [e["agent"] for e in log_entries(tmp_path)] == ["operator"]


def test_an_unknown_mode_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--mode", "everything"])
    assert exit_info.value.code == 2
    assert "static" in capsys.readouterr().err


async def test_list_changed_when_a_circuit_opens_and_closes_again() -> None:
    """In-process: the failing tool leaves the list when its circuit opens and comes back
    when the cool-down ends (noticed by the watcher, with no call in between)."""
    now = [0.0]  # the breakers' clock, moved by hand
    resilience = Resilience(
        breakers=BreakerSettings(consecutive_failures=1, cooldown_s=30), clock=lambda: now[0]
    )
    gateway = McpToolServer(
        ToolRegistry([greet, fail]),
        context=ExecutionContext(agent="t"),
        resilience=resilience,
        settings=ServeSection(list_poll_s=0.05),
    )
    watcher = asyncio.create_task(gateway.watch())

    async def names(client: Client) -> set[str]:
        return {t.name for t in (await client.list_tools(cache_mode="bypass")).tools}

    try:
        async with (
            Client(gateway.server) as client,
            client.listen(tools_list_changed=True) as subscription,
        ):
            events = aiter(subscription)
            assert (await client.call_tool("fail", {"reason": "x"})).is_error
            await asyncio.wait_for(anext(events), 15)
            assert await names(client) == {"greet"}
            now[0] += 31  # the cool-down is over
            await asyncio.wait_for(anext(events), 15)
            assert await names(client) == {"greet", "fail"}
    finally:
        watcher.cancel()


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_text_that_is_not_utf8_reaches_the_client_and_the_server_lives(
    tmp_path: Path, transport: str
) -> None:
    """A lone surrogate (a non-UTF-8 file name) in a result, an error or a progress message
    is sent as U+FFFD; the SDK's writer cannot send it at all (the stdio server died). A
    progress message is redacted as every other text the client receives."""
    seen: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message)

    config = write_config(tmp_path)
    with served(config, transport) as target:
        async with Client(target, mode="legacy") as client:
            call = client.call_tool

            result = await asyncio.wait_for(call("odd_text", {"where": "result"}), 15)
            failed = await asyncio.wait_for(call("odd_text", {"where": "error"}), 15)
            reported = await asyncio.wait_for(
                call("odd_text", {"where": "progress"}, progress_callback=on_progress), 15
            )
            after = await asyncio.wait_for(call("greet", {"name": "after"}), 15)
    assert text(result) == "files: r\ufffdsum\ufffd.txt"
    assert failed.is_error
    assert "r\ufffdsum\ufffd.txt" in text(failed)
    assert not reported.is_error
    assert seen
    assert all(m is not None and "\ufffd" in m for m in seen)
    assert all("a1B2c3D4" not in str(m) for m in seen)
    assert text(after) == "hello after"


async def test_serving_local_tools_reports_no_failed_sink(caplog: pytest.LogCaptureFixture) -> None:
    """Made with a registry of local tools, the server's own sink hears their `registered`
    events while it is being made (it failed on each, as a warning on every start)."""
    with caplog.at_level("WARNING"):
        gateway = McpToolServer(ToolRegistry([greet, add]), context=ExecutionContext(agent="t"))
        gateway.registry.register(fail)
    assert [record.getMessage() for record in caplog.records] == []
