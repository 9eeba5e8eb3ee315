"""`toolrail serve`: to a client, a tool it may not see and a name no tool has look the same.

Hidden here: `add` (outside the agent's table), `whoami` (needs a permission the agent lacks)
and `weather` (denied by name). The JSONL log, which the operator reads, keeps the true reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from toolrail.serve.listing import ERROR_META_KEY

from .serve_support import log_entries, stdio_params, write_config

pytestmark = pytest.mark.anyio
HIDDEN = ("add", "whoami", "weather")
NOWHERE = "no_such_tool"


def hiding_config(directory: Path, mode: str) -> Path:
    return write_config(
        directory,
        f"mode = {mode!r}",
        tools='["*", "!add"]',
        permissions="[]",
        policy='deny = ["weather"]',
    )


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def seen(result: types.CallToolResult, name: str) -> tuple[Any, str]:
    """What a client learns from a refusal: its error kind, and its text with the name out."""
    assert result.is_error
    assert result.meta is not None
    return result.meta[ERROR_META_KEY], text(result).replace(repr(name), "<name>")


async def test_execute_tool_answers_a_hidden_tool_as_an_unknown_one(tmp_path: Path) -> None:
    async with Client(stdio_params(hiding_config(tmp_path, "dynamic")), mode="legacy") as client:

        async def execute(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
            return await client.call_tool(
                "execute_tool", {"tool_name": name, "arguments": arguments}
            )

        unknown = seen(await execute(NOWHERE, {}), NOWHERE)
        assert unknown[0]["kind"] == "unknown_tool"
        for name in HIDDEN:
            for arguments in ({}, {"city": 5, "a": "x"}):
                assert seen(await execute(name, arguments), name) == unknown, name
        for typo in ("ad", "whoam", "weathe"):  # no "did you mean" names a hidden tool
            answer = text(await execute(typo, {}))
            assert not any(h in answer for h in HIDDEN), answer
    reasons = {e["tool"]: e["error"]["kind"] for e in log_entries(tmp_path)}
    assert reasons["add"] == "not_allowed"  # the operator's log says why
    assert reasons["whoami"] == "permission_denied"
    assert reasons["weather"] == "permission_denied"


async def test_a_hidden_tool_called_by_name_is_an_unknown_tool(tmp_path: Path) -> None:
    """Static mode: the protocol error an unknown name gets, the same words."""
    async with Client(stdio_params(hiding_config(tmp_path, "static")), mode="legacy") as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert not listed & set(HIDDEN)
        with pytest.raises(MCPError) as nowhere:
            await client.call_tool(NOWHERE, {})
        for name in HIDDEN:
            with pytest.raises(MCPError) as hidden:
                await client.call_tool(name, {"city": "Oslo"})
            assert hidden.value.error.code == nowhere.value.error.code
            assert hidden.value.error.message.replace(name, NOWHERE) == nowhere.value.error.message
        assert text(await client.call_tool("greet", {"name": "ada"})) == "hello ada"
