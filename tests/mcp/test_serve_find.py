"""`find_relevant_tools` takes a query of at most `QUERY_CHARS` characters, the bound the
orchestrator routes on: a longer one is refused, saying so, before any ranking (a few MB of
query would hold the event loop, and every other call, for seconds)."""

from __future__ import annotations

from pathlib import Path

import mcp.types as types
import pytest
from mcp import Client

from toolrail.routing.surfacing import QUERY_CHARS
from toolrail.serve.listing import ERROR_META_KEY

from .serve_support import stdio_params, write_config

pytestmark = pytest.mark.anyio


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def test_a_query_over_the_bound_is_refused_saying_so(tmp_path: Path) -> None:
    async with Client(stdio_params(write_config(tmp_path), "--mode", "dynamic")) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        schema = listed["find_relevant_tools"].input_schema
        assert schema["properties"]["query"]["maxLength"] == QUERY_CHARS
        at_bound = ("weather in a city " * QUERY_CHARS)[:QUERY_CHARS]
        found = await client.call_tool("find_relevant_tools", {"query": at_bound})
        assert not found.is_error, text(found)
        assert found.structured_content is not None
        assert found.structured_content["tools"][0]["name"] == "weather"
        too_long = "weather " + "z" * (3 * QUERY_CHARS)
        refused = await client.call_tool("find_relevant_tools", {"query": too_long})
        assert refused.is_error
        assert refused.meta is not None
        assert refused.meta[ERROR_META_KEY]["kind"] == "invalid_arguments"
        assert f"at most {QUERY_CHARS} characters" in text(refused)
        assert "zzzzzzzzzz" not in text(refused)  # the query is not echoed back
        greeted = await client.call_tool(
            "execute_tool", {"tool_name": "greet", "arguments": {"name": "ada"}}
        )
        assert text(greeted) == "hello ada"
