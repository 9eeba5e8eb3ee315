"""`toolrail serve` on the 2026-07-28 protocol: an approval counts only as the answer to a
question the server asked, and only once. A client cannot approve a call in advance by
sending `input_responses` under a key it computed, nor replay an approval it was given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import Client

from toolrail.policy.approvals import ApprovalRequest
from toolrail.serve.exchange import approval_key

from .serve_support import stdio_params, write_config

pytestmark = pytest.mark.anyio
YES = types.ElicitResult(action="accept", content={"approve": True})


def declining(asked: list[str]) -> Any:
    """The person behind the client, who says no."""

    async def callback(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="decline")

    return callback


def seeded_key(arguments: dict[str, Any]) -> str:
    """The key a client can compute without being asked (the one the server once trusted)."""
    request = ApprovalRequest(
        tool="write_note", arguments=arguments, reason="", agent="", conversation_id="", call_id=""
    )
    return approval_key(request)


async def test_an_approval_the_server_did_not_ask_for_runs_nothing(tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    arguments = {"path": str(note), "text": "hi"}
    seeded: types.InputResponses = {seeded_key(arguments): YES}
    asked: list[str] = []
    params = stdio_params(write_config(tmp_path))
    async with Client(params, mode="auto", elicitation_callback=declining(asked)) as client:
        for _ in range(2):
            result = await client.call_tool("write_note", arguments, input_responses=seeded)
            assert result.is_error
            assert not note.exists()
    assert len(asked) == 2  # the person was asked each time, and said no


async def test_an_approval_runs_its_call_once(tmp_path: Path) -> None:
    """The answer to the server's question, sent again with the same state, is not an
    approval again: the server asks anew."""
    note = tmp_path / "note.txt"
    arguments = {"path": str(note), "text": "hi"}
    asked: list[str] = []  # the test answers the server's question itself
    params = stdio_params(write_config(tmp_path))
    async with Client(params, mode="auto", elicitation_callback=declining(asked)) as client:
        session = client.session
        question = await session.call_tool("write_note", arguments, allow_input_required=True)
        assert isinstance(question, types.InputRequiredResult)
        assert question.input_requests
        answers: types.InputResponses = dict.fromkeys(question.input_requests, YES)
        state = question.request_state
        ran = await session.call_tool(
            "write_note",
            arguments,
            input_responses=answers,
            request_state=state,
            allow_input_required=True,
        )
        assert isinstance(ran, types.CallToolResult)
        assert not ran.is_error
        assert note.read_text() == "hi"
        note.unlink()
        again = await session.call_tool(
            "write_note",
            arguments,
            input_responses=answers,
            request_state=state,
            allow_input_required=True,
        )
        assert isinstance(again, types.InputRequiredResult)  # asked again, not run
        assert not note.exists()
    assert asked == []
