"""Provider models over the official SDKs (extras `openai`, `anthropic`, `gemini`).

Each takes a configured SDK client, so base URL, keys, retries and HTTP transport stay the
SDK's business, and sends the request body its dialect built. Streaming models announce
tool calls as their first chunk arrives.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from toolrail.dialects import anthropic, gemini, openai
from toolrail.dialects.base import Dialect
from toolrail.models.base import ArgumentsDelta, CallAnnounced, ModelRequest, StreamEvent, TurnDone

ALLOW_PROVIDER_CALLS = True
"""Switched off by `toolrail.models.testing.block_provider_calls()` in tests."""


class ProviderCallsBlocked(RuntimeError):
    """A provider model was asked to send a request while provider calls are blocked."""


class _SdkModel:
    """What the SDK-backed models share: a client, a model id and extra request options."""

    dialect: Dialect

    def __init__(self, client: Any, model: str, **options: Any) -> None:
        self.client, self.model, self.options = client, model, options

    def _arguments(self, request: ModelRequest) -> dict[str, Any]:
        """The model id, the dialect's request body and the extra options; providers reject
        an empty tool list, so it is left out."""
        if not ALLOW_PROVIDER_CALLS:
            raise ProviderCallsBlocked(
                f"{type(self).__name__} would call {self.model!r}, but provider calls are "
                "blocked here; use ScriptedModel or TestModel"
            )
        body = {k: v for k, v in request.body.items() if not (k == "tools" and not v)}
        return {"model": self.model, **body, **self.options}


class OpenAIChatModel(_SdkModel):
    """Chat Completions through `openai.AsyncOpenAI`."""

    dialect = openai.chat

    async def respond(self, request: ModelRequest) -> object:
        return await self.client.chat.completions.create(**self._arguments(request))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        announced: dict[int, str] = {}
        async with self.client.chat.completions.stream(**self._arguments(request)) as stream:
            async for event in stream:
                if event.type != "chunk":
                    continue
                for choice in event.chunk.choices:
                    for delta in choice.delta.tool_calls or ():
                        if delta.index not in announced and delta.id and delta.function:
                            announced[delta.index] = delta.id
                            yield CallAnnounced(delta.id, delta.function.name or "")
                        arguments = delta.function.arguments if delta.function else None
                        if arguments and delta.index in announced:
                            yield ArgumentsDelta(announced[delta.index], arguments)
            yield TurnDone(await stream.get_final_completion())


class OpenAIResponsesModel(_SdkModel):
    """The Responses API through `openai.AsyncOpenAI`."""

    dialect = openai.responses

    async def respond(self, request: ModelRequest) -> object:
        return await self.client.responses.create(**self._arguments(request))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        calls: dict[str, str] = {}  # output item id → call id
        async with self.client.responses.stream(**self._arguments(request)) as s:
            async for event in s:
                if (
                    event.type == "response.output_item.added"
                    and event.item.type == "function_call"
                ):
                    calls[event.item.id or ""] = event.item.call_id
                    yield CallAnnounced(event.item.call_id, event.item.name)
                elif event.type == "response.function_call_arguments.delta" and (
                    event.item_id in calls
                ):
                    yield ArgumentsDelta(calls[event.item_id], event.delta)
            yield TurnDone(await s.get_final_response())


class AnthropicModel(_SdkModel):
    """Messages through `anthropic.AsyncAnthropic`."""

    dialect = anthropic.dialect

    def __init__(self, client: Any, model: str, *, max_tokens: int = 4096, **options: Any) -> None:
        super().__init__(client, model, max_tokens=max_tokens, **options)

    async def respond(self, request: ModelRequest) -> object:
        return await self.client.messages.create(**self._arguments(request))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        blocks: dict[int, str] = {}
        async with self.client.messages.stream(**self._arguments(request)) as s:
            async for event in s:
                if event.type == "content_block_start" and event.content_block.type == "tool_use":
                    blocks[event.index] = event.content_block.id
                    yield CallAnnounced(event.content_block.id, event.content_block.name)
                elif (
                    event.type == "content_block_delta"
                    and event.index in blocks
                    and event.delta.type == "input_json_delta"
                ):
                    yield ArgumentsDelta(blocks[event.index], event.delta.partial_json)
            yield TurnDone(await s.get_final_message())


class GeminiModel(_SdkModel):
    """generateContent through `google.genai.Client` (its async `aio` side); the extra
    options go into the request's `config`."""

    dialect = gemini.dialect

    async def respond(self, request: ModelRequest) -> object:
        return await self.client.aio.models.generate_content(**self._arguments(request))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Gemini streams whole parts; the turn is their concatenation in order."""
        parts: list[Any] = []
        chunks = await self.client.aio.models.generate_content_stream(**self._arguments(request))
        async for chunk in chunks:
            for part in gemini.dialect.parts_of(chunk):
                call = part.get("function_call")
                if isinstance(call, dict):
                    # Gemini may omit ids: give one now, so announcement and call agree
                    call["id"] = call.get("id") or f"gemini_{uuid.uuid4().hex[:16]}"
                    yield CallAnnounced(call["id"], str(call.get("name") or ""))
                parts.append(part)
        yield TurnDone({"candidates": [{"content": {"role": "model", "parts": parts}}]})

    def _arguments(self, request: ModelRequest) -> dict[str, Any]:
        body = request.body
        config: dict[str, Any] = {"system_instruction": body["system_instruction"], **self.options}
        if body["tools"]:
            config["tools"] = body["tools"]
            # toolrail runs the tools itself
            config["automatic_function_calling"] = {"disable": True}
        return {"model": self.model, "contents": body["contents"], "config": config}
