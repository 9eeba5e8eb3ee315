"""Streamed turns put back together: the same calls, ids and content as a plain response."""

from __future__ import annotations

from typing import Any

import pytest

from toolrail.core.messages import UserMessage
from toolrail.dialects import anthropic, gemini
from toolrail.dialects.base import Export
from toolrail.models.base import CallAnnounced
from toolrail.models.streams import AnthropicTurn, GeminiTurn

CALL = {"functionCall": {"name": "t", "args": {"q": "a"}}}


def _chunk(*parts: dict[str, Any], finish: str | None = None, rid: str | None = "r") -> Any:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish:
        candidate["finishReason"] = finish
    chunk: dict[str, Any] = {"candidates": [candidate]}
    if rid is not None:
        chunk["responseId"] = rid
    return chunk


@pytest.mark.parametrize(
    "last",
    [
        {"text": ""},
        {"text": "", "thoughtSignature": "c2ln"},
        {"text": "and then"},
    ],
)
def test_gemini_calls_of_a_max_tokens_turn_never_run(last: dict[str, Any]) -> None:
    """A MAX_TOKENS turn cuts off every call in it, whatever part comes after the call,
    streamed and not."""
    turn = GeminiTurn()
    turn.add(_chunk(CALL, CALL))
    turn.add(_chunk(last, finish="MAX_TOKENS"))
    whole = _chunk(CALL, CALL, last, finish="MAX_TOKENS")
    for response in (turn.response(), whole):
        calls = gemini.parse_tool_calls(response)
        assert len(calls) == 2
        assert all("cut off" in str(c.arguments) for c in calls)


def test_gemini_call_ids_stay_the_same_through_a_stream() -> None:
    """A chunk without a responseId (a last, usage-only one) keeps the first id: the calls
    run under the ids they were announced with."""
    turn = GeminiTurn()
    announced = turn.add(_chunk(CALL, rid="r1"))
    announced += turn.add(_chunk(CALL, rid=None))
    announced += turn.add(_chunk(CALL, rid="r1"))
    turn.add({**_chunk(finish="STOP", rid=None), "usageMetadata": {"totalTokenCount": 5}})
    ran = [c.id for c in gemini.parse_tool_calls(turn.response())]
    assert [e.call_id for e in announced if isinstance(e, CallAnnounced)] == ran
    assert turn.response()["response_id"] == "r1"


def test_anthropic_text_block_without_text_is_not_sent_back() -> None:
    """A streamed text block that opened and got no delta is left out of the turn sent
    back (the API refuses an empty text block)."""
    turn = AnthropicTurn()
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "tu", "name": "t", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": "{}"},
        },
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
    ]
    for event in events:
        turn.add(event)
    message = anthropic.dialect.parse_turn(turn.response(), agent="a", export=Export([]))
    request = anthropic.dialect.build_request("s", [UserMessage(text="hi"), message], Export([]))
    [_, sent] = request["messages"]
    assert sent["content"] == [{"type": "tool_use", "id": "tu", "name": "t", "input": {}}]
