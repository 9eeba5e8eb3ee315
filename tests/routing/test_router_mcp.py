"""The router follows an MCP server's tools: `tools/list_changed` reaches the index."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from toolrail import ExecutionContext, Executor, Router, ToolCall
from toolrail.mcp import McpHub, McpServerConfig
from toolrail.recording.events import ToolEvent, ToolRegistered

pytestmark = pytest.mark.anyio
SERVER = str(Path(__file__).parents[1] / "mcp" / "server.py")


async def test_list_changed_reaches_the_index() -> None:
    """A tool the server adds mid-session is found by the next search, with no rebuild."""
    config = McpServerConfig(
        name="test",
        command=sys.executable,
        args=(SERVER,),
        timeout_s=5,
        stderr="discard",
        on_change="accept",
    )
    grown = asyncio.Event()

    def sink(event: ToolEvent) -> None:
        if isinstance(event, ToolRegistered) and event.tool == "mcp__test__grown":
            grown.set()

    async with McpHub([config], sinks=[sink]) as hub:
        router = Router(hub.registry)
        assert "mcp__test__add" in [m.tool.name for m in router.search("add two integers")]
        before = [m.tool.name for m in router.search("a tool that appeared later")]
        assert "mcp__test__grown" not in before
        ctx = ExecutionContext(agent="t", permissions=frozenset({"mcp:connect"}))
        await Executor(hub.registry).run(ToolCall(name="mcp__test__grow"), ctx)
        await asyncio.wait_for(grown.wait(), 10)
        found = router.search("a tool that appeared later", k=3)
        assert found[0].tool.name == "mcp__test__grown"
        assert "appear" in found[0].explain["matched"]  # type: ignore[operator]
