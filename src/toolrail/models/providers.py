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


class OpenAIChatModel:
    """Chat Completions through `openai.AsyncOpenAI`."""

    def __init__(self, client: Any, model: str, **options: Any) -> None:
        self.client, self.model, self.options = client, model, options

    @property
    def dialect(self) -> Dialect:
        return openai.chat

    async def respond(self, request: ModelRequest) -> object:
        body = _without_empty_tools(request.body)
        return await self.client.chat.completions.create(model=self.model, **body, **self.options)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        body = _without_empty_tools(request.body)
        announced: dict[int, str] = {}
        async with self.client.chat.completions.stream(
            model=self.model, **body, **self.options
        ) as stream:
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


class OpenAIResponsesModel:
    """The Responses API through `openai.AsyncOpenAI`."""

    def __init__(self, client: Any, model: str, **options: Any) -> None:
        self.client, self.model, self.options = client, model, options

    @property
    def dialect(self) -> Dialect:
        return openai.responses

    async def respond(self, request: ModelRequest) -> object:
        body = _without_empty_tools(request.body)
        return await self.client.responses.create(model=self.model, **body, **self.options)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        body = _without_empty_tools(request.body)
        calls: dict[str, str] = {}  # output item id → call id
        async with self.client.responses.stream(model=self.model, **body, **self.options) as s:
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


class AnthropicModel:
    """Messages through `anthropic.AsyncAnthropic`."""

    def __init__(self, client: Any, model: str, *, max_tokens: int = 4096, **options: Any) -> None:
        self.client, self.model = client, model
        self.options = {"max_tokens": max_tokens, **options}

    @property
    def dialect(self) -> Dialect:
        return anthropic.dialect

    async def respond(self, request: ModelRequest) -> object:
        body = _without_empty_tools(request.body)
        return await self.client.messages.create(model=self.model, **body, **self.options)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        body = _without_empty_tools(request.body)
        blocks: dict[int, str] = {}
        async with self.client.messages.stream(model=self.model, **body, **self.options) as s:
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


class GeminiModel:
    """generateContent through `google.genai.Client` (its async `aio` side)."""

    def __init__(self, client: Any, model: str, **config: Any) -> None:
        self.client, self.model, self.config = client, model, config

    @property
    def dialect(self) -> Dialect:
        return gemini.dialect

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
                    call.setdefault("id", None)
                    call["id"] = (
                        call["id"] or f"gemini_{uuid.uuid4().hex[:16]}"
                    )  # Gemini may omit it
                    yield CallAnnounced(call["id"], str(call.get("name") or ""))
                parts.append(part)
        yield TurnDone({"candidates": [{"content": {"role": "model", "parts": parts}}]})

    def _arguments(self, request: ModelRequest) -> dict[str, Any]:
        body = request.body
        config: dict[str, Any] = {"system_instruction": body["system_instruction"], **self.config}
        if body["tools"]:
            config["tools"] = body["tools"]
            # toolrail runs the tools itself
            config["automatic_function_calling"] = {"disable": True}
        return {"model": self.model, "contents": body["contents"], "config": config}


def _without_empty_tools(body: dict[str, Any]) -> dict[str, Any]:
    """Providers reject an empty tool list; leave the key out instead."""
    return {k: v for k, v in body.items() if not (k == "tools" and not v)}
