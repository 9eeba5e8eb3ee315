"""`toolrail serve`: a call the client cancels is recorded as cancelled, even when the tool
swallows its cancellation and would finish anyway (its result never reaches the client)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp import Client

from .serve_support import TOOLS, log_entries, stdio_params, wait_for, write_config

pytestmark = pytest.mark.anyio
MORE = Path(__file__).with_name("serve_tools_more.py")


def config(directory: Path) -> Path:
    return write_config(directory, 'mode = "hybrid"', modules=(TOOLS, MORE))


@pytest.mark.parametrize("via", ["direct", "execute_tool"])
async def test_a_cancelled_call_whose_tool_swallows_it_is_logged_cancelled(
    tmp_path: Path, via: str
) -> None:
    marker = tmp_path / "started"
    arguments = {"marker": str(marker)}
    async with Client(stdio_params(config(tmp_path)), mode="legacy") as client:
        if via == "direct":
            call = asyncio.ensure_future(client.call_tool("stubborn", arguments))
        else:
            request = {"tool_name": "stubborn", "arguments": arguments}
            call = asyncio.ensure_future(client.call_tool("execute_tool", request))
        await asyncio.to_thread(wait_for, marker.exists)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

        def logged() -> bool:
            return any(e["tool"] == "stubborn" for e in log_entries(tmp_path))

        await asyncio.to_thread(wait_for, logged)
        assert text_of(await client.call_tool("greet", {"name": "ok"})) == "hello ok"
    [entry] = [e for e in log_entries(tmp_path) if e["tool"] == "stubborn"]
    assert entry["status"] == "failure", entry
    assert entry["error"]["kind"] == "cancelled"


def text_of(result: object) -> str:
    content = getattr(result, "content", [])
    return "\n".join(getattr(block, "text", "") for block in content)
