"""Streamed and plain responses end the same way, cut-off and malformed ones included; and
provider-opaque content (thinking blocks, thought signatures) goes back unchanged.

Every body is a recorded provider response replayed through the official SDK."""

from __future__ import annotations

from typing import Any

import pytest
from returns.result import Failure, Success

from toolrail import Agent, ExecutionContext, Executor, Orchestrator, ToolRegistry
from toolrail.core.messages import UserMessage
from toolrail.dialects.base import Dialect
from toolrail.models.base import ModelRequest, TurnDone
from toolrail.models.providers import (
    AnthropicModel,
    GeminiModel,
    OpenAIChatModel,
    OpenAIResponsesModel,
)

from .test_providers import Replay, anthropic_client, lookup, openai_client

pytestmark = pytest.mark.anyio


def gemini_client(replay: Replay) -> Any:
    from google import genai
    from google.genai import types

    return genai.Client(
        api_key="test",
        http_options=types.HttpOptions(base_url="http://fake/", httpx_async_client=replay.client()),
    )


MODELS: dict[str, Any] = {
    "chat": lambda r: OpenAIChatModel(openai_client(r), "gpt-4o"),
    "responses": lambda r: OpenAIResponsesModel(openai_client(r), "gpt-4.1"),
    "anthropic": lambda r: AnthropicModel(anthropic_client(r), "claude-opus-4-6"),
    "gemini": lambda r: GeminiModel(gemini_client(r), "gemini-3-pro-preview"),
}


async def turn(model: Any, dialect: Dialect, *, stream: bool, strict: bool) -> list[Any]:
    """One model turn, parsed against its export and run: (call id, name, result) each."""
    export = dialect.export_tools([lookup], strict=strict)
    messages = (UserMessage(text="Weather in Oslo?"),)
    body = dialect.build_request("Be brief.", messages, export)
    request = ModelRequest(
        agent="a", instructions="Be brief.", messages=messages, export=export, body=body
    )
    if stream:
        events = [e async for e in model.stream(request)]
        [done] = [e for e in events if isinstance(e, TurnDone)]
        response = done.response
    else:
        response = await model.respond(request)
    executor = Executor(ToolRegistry([lookup]))
    message = dialect.parse_turn(response, agent="a", export=export)
    outcomes = [await executor.run(c, ExecutionContext()) for c in message.calls]
    return [(o.call.id, o.call.name, _kind(o.result)) for o in outcomes] + [message.text]


def _kind(result: Any) -> object:
    match result:
        case Success(value):
            return value
        case Failure(error):
            return error.kind
        case _:
            return None


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(
    ("model", "body", "expected"),
    [
        ("chat", "openai_chat_length", ["Oslo: 4°C", "invalid_arguments"]),
        ("chat", "openai_chat_malformed", ["invalid_arguments"]),
        ("responses", "openai_responses_incomplete", ["Oslo: 4°C", "invalid_arguments"]),
        ("responses", "openai_responses_malformed", ["invalid_arguments"]),
        ("anthropic", "anthropic_max_tokens", ["invalid_arguments"]),
        ("anthropic", "anthropic_thinking", ["Oslo: 4°C"]),
        ("gemini", "gemini_max_tokens", ["invalid_arguments"]),
        ("gemini", "gemini_thought_signature", ["Oslo: 4°C"]),
    ],
)
async def test_streamed_and_plain_end_the_same(
    model: str, body: str, expected: list[str], strict: bool
) -> None:
    """Defects 6 and 7: a length/max_tokens stop, an incomplete response, malformed strict
    arguments, a first chunk without `function`: streamed exactly as plain, a cut-off or
    malformed call goes back as InvalidArguments and never runs."""
    plain = Replay(f"{body}.json")
    streamed = Replay(f"{body}_stream.sse")
    make = MODELS[model]
    dialect = make(plain).dialect
    once = await turn(make(plain), dialect, stream=False, strict=strict)
    again = await turn(make(streamed), dialect, stream=True, strict=strict)
    assert once == again
    assert [kind for _, _, kind in once[:-1]] == expected


async def test_anthropic_thinking_goes_back_unchanged() -> None:
    """Defect 5: with extended thinking, the signed thinking (and redacted thinking) blocks
    go back unchanged before the tool_use block; the request fits the SDK's own types."""
    from anthropic.types import MessageParam
    from pydantic import TypeAdapter

    for first, then in (
        ("anthropic_thinking.json", "anthropic_text.json"),
        ("anthropic_thinking_stream.sse", "anthropic_text_stream.sse"),
    ):
        replay = Replay(first, then)
        model = AnthropicModel(anthropic_client(replay), "claude-opus-4-6")
        result = await _converse(model, stream=first.endswith(".sse"))
        assert result.final_message == "It is 4°C in Oslo."
        sent = replay.requests[1]["messages"]
        [assistant] = [m for m in sent if m["role"] == "assistant"]
        assert assistant["content"] == _recorded_content("anthropic_thinking.json")
        for message in sent:
            TypeAdapter(MessageParam).validate_python(message)


async def test_gemini_thought_signatures_go_back_unchanged() -> None:
    """Defect 5: the part with the function call keeps its thought signature (Gemini 3
    answers 4xx without it), thought parts are not part of the answer, and the contents
    sent fit google-genai's own types."""
    from google.genai import types

    for first, then in (
        ("gemini_thought_signature.json", "gemini_text.json"),
        ("gemini_thought_signature_stream.sse", "gemini_text_stream.sse"),
    ):
        replay = Replay(first, then)
        result = await _converse(
            GeminiModel(gemini_client(replay), "gemini-3-pro-preview"),
            stream=first.endswith(".sse"),
        )
        assert result.final_message == "It is 4°C in Oslo."
        assert result.transcript[1].text == ""  # the thought is not text
        contents = replay.requests[1]["contents"]
        [model_turn] = [c for c in contents if c["role"] == "model"]
        assert model_turn["parts"] == [
            {"text": "Considering the city...", "thought": True},
            {
                "functionCall": {"name": "lookup", "args": {"city": "Oslo"}},
                "thoughtSignature": "CiQBVKhc7vB0ZrI3oQ5o8yq8VJ0YwIhB1E0C3Zl1bV0yXzDk1w==",
            },
        ]
        for content in contents:
            types.Content.model_validate(content)


async def test_gemini_thoughts_stay_out_of_the_answer() -> None:
    """Defect 5: a thought summary is not part of the final text."""
    from toolrail.dialects import gemini

    response = {
        "candidates": [
            {"content": {"parts": [{"text": "hmm", "thought": True}, {"text": "Four degrees."}]}}
        ]
    }
    assert gemini.dialect.parse_text(response) == "Four degrees."


async def _converse(model: Any, *, stream: bool) -> Any:
    orchestrator = Orchestrator(
        [Agent(name="a", instructions="Be brief.", model=model, tools=("lookup",))],
        ToolRegistry([lookup]),
        stream=stream,
    )
    return await orchestrator.run("Weather in Oslo?")


def _recorded_content(name: str) -> list[dict[str, Any]]:
    import orjson

    from .test_providers import RECORDED

    content: list[dict[str, Any]] = orjson.loads((RECORDED / name).read_bytes())["content"]
    return content
