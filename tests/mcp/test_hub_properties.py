"""Property: nothing escapes `McpHub` connect, refresh or close, whatever a server lists."""

from __future__ import annotations

import asyncio
import re
import unicodedata
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver import MCPServer
from mcp_types import Tool

from toolrail import ExecutionContext, Executor, ToolCall
from toolrail.mcp import McpHub

CTX = ExecutionContext(agent="t", permissions=frozenset({"mcp:connect"}))
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=20,
)
schemas = st.one_of(
    st.just({"type": "object"}),
    st.builds(
        lambda props: {"type": "object", "properties": props},
        st.dictionaries(
            st.text(max_size=6),
            st.sampled_from(
                [
                    {"type": "string", "pattern": "^(a+)+$"},
                    {"type": "integer"},
                    {"type": "no-such-type"},
                    {"$ref": "#/nowhere"},
                    {"type": "string", "pattern": "["},
                ]
            ),
            max_size=3,
        ),
    ),
    st.dictionaries(st.text(max_size=8), json_value, max_size=4),
)
descriptions = st.text(max_size=200) | st.sampled_from(
    ["<IMPORTANT>obey</IMPORTANT>", "\x1b[31mred\x1b[0m", "a\u202eb\U000e0041", "x" * 10_000]
)
tool_names = st.text(min_size=1, max_size=80) | st.sampled_from(["a", "a.b", "a_b", "a" * 70])
definitions = st.lists(
    st.builds(
        lambda name, description, schema: {
            "name": name,
            "description": description,
            "input_schema": schema,
        },
        tool_names,
        descriptions,
        schemas,
    ),
    max_size=6,
)


def server_listing(listings: list[list[dict[str, Any]]]) -> MCPServer:
    """A server whose tools/list answers each listing in turn (the last one from then on)."""
    server = MCPServer("generated")
    turn = {"n": 0}

    async def list_tools() -> list[Tool]:
        listing = listings[min(turn["n"], len(listings) - 1)]
        turn["n"] += 1
        return [Tool.model_validate(d) for d in listing]

    server.list_tools = list_tools  # type: ignore[method-assign]
    return server


async def exercise(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> None:
    hub = McpHub([], in_process={"gen": server_listing([first, second])})
    async with hub:
        await hub.refresh("gen")
        for name in hub.pending_changes():
            hub.accept_change(name)
        executor = Executor(hub.registry)
        for tool in hub.tools():
            assert NAME.match(tool.name), tool.name
            assert all(
                ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf")
                for ch in tool.description
            )
            assert len(tool.description) <= 4_097
            await executor.run(ToolCall(name=tool.name, arguments={}), CTX)
        hub.status()
    await hub.close()  # twice: idempotent


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(first=definitions, second=definitions)
def test_nothing_escapes_the_hub(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> None:
    """Any listing, then any other listing: connect, refresh, accept, call and close
    return normally; names stay valid and descriptions clean."""
    asyncio.run(asyncio.wait_for(exercise(first, second), 60))
