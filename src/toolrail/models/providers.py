"""Provider models over the official SDKs (extras `openai`, `anthropic`, `gemini`).

Each takes a configured SDK client, so base URL, keys, retries and HTTP transport stay the
SDK's business, and sends the request body its dialect built. Streaming models announce
tool calls as their first chunk arrives, from the raw stream: a streamed turn ends as the
same response a plain request would have given, cut off or malformed ones included.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from toolrail.dialects import anthropic, gemini, openai
from toolrail.dialects.base import Dialect
from toolrail.models.base import ModelRequest, StreamEvent, TurnDone
from toolrail.models.streams import AnthropicTurn, ChatTurn, GeminiTurn, ResponsesTurn, event_data

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
        """Raw chunks, put together here: the SDK's stream helper raises on a length stop
        and on malformed strict arguments, where a plain response would not."""
        turn = ChatTurn()
        chunks = await self.client.chat.completions.create(**self._arguments(request), stream=True)
        async for chunk in chunks:
            for event in turn.add(event_data(chunk)):
                yield event
        yield TurnDone(turn.response())


class OpenAIResponsesModel(_SdkModel):
    """The Responses API through `openai.AsyncOpenAI`."""

    dialect = openai.responses

    async def respond(self, request: ModelRequest) -> object:
        return await self.client.responses.create(**self._arguments(request))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Raw events; the turn is the response the last one carries (complete or not)."""
        turn = ResponsesTurn()
        events = await self.client.responses.create(**self._arguments(request), stream=True)
        async for event in events:
            for announced in turn.add(event_data(event)):
                yield announced
        yield TurnDone(turn.response())


class AnthropicModel(_SdkModel):
    """Messages through `anthropic.AsyncAnthropic`."""

    dialect = anthropic.dialect

    def __init__(self, client: Any, model: str, *, max_tokens: int = 4096, **options: Any) -> None:
        super().__init__(client, model, max_tokens=max_tokens, **options)

    async def respond(self, request: ModelRequest) -> object:
        return await self.client.messages.create(**self._arguments(request))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Raw events: the SDK's helper completes a cut-off tool input from its prefix."""
        turn = AnthropicTurn()
        events = await self.client.messages.create(**self._arguments(request), stream=True)
        async for event in events:
            for announced in turn.add(event_data(event)):
                yield announced
        yield TurnDone(turn.response())


class GeminiModel(_SdkModel):
    """generateContent through `google.genai.Client` (its async `aio` side); the extra
    options go into the request's `config`."""

    dialect = gemini.dialect

    async def respond(self, request: ModelRequest) -> object:
        return await self.client.aio.models.generate_content(**self._arguments(request))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Gemini streams whole parts; the turn is their concatenation in order."""
        turn = GeminiTurn()
        chunks = await self.client.aio.models.generate_content_stream(**self._arguments(request))
        async for chunk in chunks:
            for event in turn.add(event_data(chunk)):
                yield event
        yield TurnDone(turn.response())

    def _arguments(self, request: ModelRequest) -> dict[str, Any]:
        body = request.body
        config: dict[str, Any] = {"system_instruction": body["system_instruction"], **self.options}
        if body["tools"]:
            config["tools"] = body["tools"]
            # toolrail runs the tools itself
            config["automatic_function_calling"] = {"disable": True}
        return {"model": self.model, "contents": body["contents"], "config": config}
