"""Outputs that steer the agent loop: a tool returns `Success(Complete(...))` to hand control
back, or `Success(EndConversation(...))` to end the conversation. The executor passes them
through untouched; the orchestrator acts on them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, kw_only=True)
class Complete:
    """This agent's task is done; `next_agent` may name who should take over."""

    summary: str
    data: Mapping[str, object] = field(default_factory=dict)
    next_agent: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class EndConversation:
    """The whole conversation is over; `final_message` is what the user should see."""

    reason: str
    final_message: str | None = None


Terminator = Complete | EndConversation
