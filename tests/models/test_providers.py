"""Provider models through the official SDKs, against a local fake HTTP transport that
replays recorded response bodies (plain and streamed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import orjson
import pytest
from returns.result import Failure, Success

from toolrail import Agent, InvalidArguments, Orchestrator, ToolRegistry, tool
from toolrail.models.providers import (
    AnthropicModel,
    GeminiModel,
    OpenAIChatModel,
    OpenAIResponsesModel,
)
from toolrail.recording.events import ToolCallRequested, ToolEvent

pytestmark = pytest.mark.anyio
RECORDED = Path(__file__).parent.parent / "fixtures" / "providers"


@tool
def lookup(city: str) -> str:
    """Weather for a city."""
    return f"{city}: 4°C"


class Replay:
    """A fake provider: answers each request with the next recorded body, keeps requests."""

    def __init__(self, *files: str) -> None:
        self.files = list(files)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(orjson.loads(request.content))
        name = self.files.pop(0)
        body = (RECORDED / name).read_bytes()
        if name.endswith(".sse"):
            return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, content=body, headers={"content-type": "application/json"})

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))


async def converse(model: Any, *, stream: bool = False) -> tuple[Any, list[ToolEvent]]:
    events: list[ToolEvent] = []
    orchestrator = Orchestrator(
        [Agent(name="a", instructions="Be brief.", model=model, tools=("lookup",))],
        ToolRegistry([lookup]),
        sinks=[events.append],
        stream=stream,
    )
    return await orchestrator.run("Weather in Oslo?"), events


def openai_client(replay: Replay) -> Any:
    from openai import AsyncOpenAI

    return AsyncOpenAI(
        api_key="test", base_url="http://fake/v1", http_client=replay.client(), max_retries=0
    )


async def test_openai_chat_completions() -> None:
    """Two tool calls (one with truncated JSON), results sent back as tool messages."""
    replay = Replay("openai_chat_tool_calls.json", "openai_chat_text.json")
    result, _ = await converse(OpenAIChatModel(openai_client(replay), "gpt-4o"))
    assert result.final_message == "It is 4°C in Oslo."
    assert result.outcomes[0].call.id == "call_CYF7T6AUaW0oSxUGdIFLPwbL"
    assert result.outcomes[0].result == Success("Oslo: 4°C")
    assert isinstance(result.outcomes[1].result, Failure)
    assert isinstance(result.outcomes[1].result.failure(), InvalidArguments)
    first, second = replay.requests
    assert first["model"] == "gpt-4o"
    assert first["tools"][0]["function"]["name"] == "lookup"
    tool_messages = [m for m in second["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [
        "call_CYF7T6AUaW0oSxUGdIFLPwbL",
        "call_QmF2bD0tLpo9yN7ceXv1VNkZ",
    ]
    assert tool_messages[1]["content"].startswith("Error (invalid_arguments)")


async def test_openai_chat_streamed() -> None:
    """A streamed tool call is announced before its arguments are complete."""
    replay = Replay("openai_chat_stream.sse", "openai_chat_text.json")
    result, events = await converse(OpenAIChatModel(openai_client(replay), "gpt-4o"), stream=True)
    assert result.outcomes[0].result == Success("Oslo: 4°C")
    announced = [e for e in events if isinstance(e, ToolCallRequested)]
    assert [(e.call_id, e.tool) for e in announced] == [("call_DdmO9pD3xa9XTPNJ32zg2hcA", "lookup")]
    assert replay.requests[0]["stream"] is True


@pytest.mark.parametrize("stream", [False, True])
async def test_openai_responses(stream: bool) -> None:
    """Responses API: function_call items in, function_call_output items back; streamed,
    the call is announced from its first event."""
    replay = (
        Replay("openai_responses_stream.sse", "openai_responses_text_stream.sse")
        if stream
        else Replay("openai_responses_tool_call.json", "openai_responses_text.json")
    )
    result, events = await converse(
        OpenAIResponsesModel(openai_client(replay), "gpt-4.1"), stream=stream
    )
    assert result.final_message == "It is 4°C in Oslo."
    call_id = "call_Pl4bVvHfA1Sz8lZm0CJd7Qqq" if stream else "call_unLAR8MvFNptuiZK6K6HCy5k"
    assert result.outcomes[0].call.id == call_id
    announced = [e.call_id for e in events if isinstance(e, ToolCallRequested)]
    assert announced == ([call_id] if stream else [])
    sent = replay.requests[1]["input"]
    assert {"type": "function_call_output", "call_id": call_id, "output": "Oslo: 4°C"} in sent
    assert replay.requests[0]["tools"][0]["name"] == "lookup"


def anthropic_client(replay: Replay) -> Any:
    from anthropic import AsyncAnthropic

    return AsyncAnthropic(
        api_key="test", base_url="http://fake", http_client=replay.client(), max_retries=0
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_anthropic_messages(stream: bool) -> None:
    """tool_use blocks in, tool_result blocks (with is_error) back; streamed or not."""
    replay = (
        Replay("anthropic_stream.sse", "anthropic_text_stream.sse")
        if stream
        else Replay("anthropic_tool_use.json", "anthropic_text.json")
    )
    result, events = await converse(
        AnthropicModel(anthropic_client(replay), "claude-opus-4-6"), stream=stream
    )
    assert result.final_message == "It is 4°C in Oslo."
    assert result.outcomes[0].result == Success("Oslo: 4°C")
    request = replay.requests[1]
    assert request["system"] == "Be brief."
    assert replay.requests[0]["tools"][0]["input_schema"]["required"] == ["city"]
    [tool_result] = [
        b
        for m in request["messages"]
        if m["role"] == "user"
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    assert tool_result["is_error"] is False
    assert tool_result["tool_use_id"] == result.outcomes[0].call.id
    assert any(isinstance(e, ToolCallRequested) for e in events) is stream


@pytest.mark.parametrize("stream", [False, True])
async def test_gemini_generate_content(stream: bool) -> None:
    """functionCall parts in (no id: one is made), functionResponse parts back; streamed,
    the call is announced under the id it then runs with."""
    from google import genai
    from google.genai import types

    replay = (
        Replay("gemini_stream.sse", "gemini_text_stream.sse")
        if stream
        else Replay("gemini_function_call.json", "gemini_text.json")
    )
    client = genai.Client(
        api_key="test",
        http_options=types.HttpOptions(base_url="http://fake/", httpx_async_client=replay.client()),
    )
    result, events = await converse(GeminiModel(client, "gemini-2.5-flash"), stream=stream)
    assert result.final_message == "It is 4°C in Oslo."
    assert result.outcomes[0].result == Success("Oslo: 4°C")
    announced = [e.call_id for e in events if isinstance(e, ToolCallRequested)]
    assert announced == ([result.outcomes[0].call.id] if stream else [])
    second = replay.requests[1]
    declared = replay.requests[0]["tools"][0]["functionDeclarations"][0]
    assert declared["name"] == "lookup"
    parts = [p for c in second["contents"] for p in c["parts"]]
    [response] = [p["functionResponse"] for p in parts if "functionResponse" in p]
    assert response["response"] == {"output": "Oslo: 4°C"}
