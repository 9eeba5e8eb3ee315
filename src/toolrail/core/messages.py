"""The conversation, provider-neutral: dialects turn it into each provider's messages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolrail.core.call import ToolCall, ToolOutcome


@dataclass(frozen=True, slots=True, kw_only=True)
class UserMessage:
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Native:
    """A model turn's content exactly as its provider sent it (thinking blocks, thought
    signatures and all), to be sent back unchanged to the same provider."""

    provider: str
    content: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessage:
    agent: str
    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    native: Native | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResults:
    agent: str
    outcomes: tuple[ToolOutcome, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Handoff:
    """Control passed between agents; shown to the next agent as context."""

    from_agent: str
    to_agent: str
    summary: str


Message = UserMessage | AssistantMessage | ToolResults | Handoff
