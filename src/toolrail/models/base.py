"""The `Model` protocol: the conversation in a provider's format in, its raw response out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from toolrail.core.messages import Message
from toolrail.dialects.base import Dialect, Export


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRequest:
    """One model turn: the agent, its instructions, the conversation and its visible tools,
    with `body` already in the model's dialect (what goes over the wire, minus the model id)."""

    agent: str
    instructions: str
    messages: tuple[Message, ...]
    export: Export
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CallAnnounced:
    """A streamed tool call began; its arguments are still arriving."""

    call_id: str
    name: str


@dataclass(frozen=True, slots=True)
class ArgumentsDelta:
    call_id: str
    text: str


@dataclass(frozen=True, slots=True)
class TurnDone:
    """The stream ended; `response` is the whole response in the provider's shape."""

    response: object


StreamEvent = CallAnnounced | ArgumentsDelta | TurnDone


class Model(Protocol):
    """Anything that answers a turn; the orchestrator parses the answer with `dialect`."""

    @property
    def dialect(self) -> Dialect: ...

    async def respond(self, request: ModelRequest) -> object: ...


@runtime_checkable
class StreamingModel(Protocol):
    """A model that can also stream its turn, announcing tool calls as they begin."""

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...
