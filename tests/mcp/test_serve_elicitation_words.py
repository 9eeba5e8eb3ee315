"""What `toolrail serve` tells a client when an approval cannot be, or was not, given: the
words name the real reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import Client

from toolrail.serve.listing import ERROR_META_KEY

from .serve_support import http_server, stdio_params, write_config

pytestmark = pytest.mark.anyio


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def answering(answer: types.ElicitResult, asked: list[str]) -> Any:
    async def callback(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return answer

    return callback


async def test_stateless_http_says_the_server_cannot_ask_not_that_the_client_cannot(
    tmp_path: Path,
) -> None:
    """A handshake-era client that supports elicitation, on a stateless server: there is no
    session to send the question over. The client is not the one lacking."""
    note = tmp_path / "note.txt"
    asked: list[str] = []
    yes = types.ElicitResult(action="accept", content={"approve": True})
    with http_server(write_config(tmp_path), "--stateless") as url:
        async with Client(url, mode="legacy", elicitation_callback=answering(yes, asked)) as client:
            result = await client.call_tool("write_note", {"path": str(note), "text": "hi"})
    assert result.is_error
    assert result.meta is not None
    assert result.meta[ERROR_META_KEY]["kind"] == "approval_required"
    assert "does not support elicitation" not in text(result)
    assert "stateless" in text(result)
    assert "2026-07-28" in text(result)  # how to be asked: the protocol that asks in-call
    assert not note.exists()
    assert asked == []


@pytest.mark.parametrize(("action", "word"), [("cancel", "cancelled"), ("decline", "declined")])
async def test_a_person_who_cancels_or_declines_is_named_so(
    tmp_path: Path, action: str, word: str
) -> None:
    note = tmp_path / "note.txt"
    asked: list[str] = []
    answer = types.ElicitResult(action=action)  # type: ignore[arg-type]
    params = stdio_params(write_config(tmp_path))
    async with Client(
        params, mode="legacy", elicitation_callback=answering(answer, asked)
    ) as client:
        result = await client.call_tool("write_note", {"path": str(note), "text": "hi"})
    assert result.is_error
    assert f"a person {word} the approval request" in text(result)
    assert not note.exists()
    assert len(asked) == 1
