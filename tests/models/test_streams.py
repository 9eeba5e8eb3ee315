"""Streamed turns put back together: the same calls, ids and content as a plain response."""

from __future__ import annotations

from typing import Any

import pytest

from toolrail.dialects import gemini
from toolrail.models.base import CallAnnounced
from toolrail.models.streams import GeminiTurn

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
