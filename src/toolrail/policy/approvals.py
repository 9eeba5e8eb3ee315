"""Human in the loop: a call that needs approval becomes a pending, serializable request;
nothing runs until someone approves it (possibly with edited arguments) or denies it."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalRequest:
    """What a person is asked to decide; `to_json()` is what a UI receives."""

    id: str = field(default_factory=lambda: f"apr_{uuid.uuid4().hex[:16]}")
    tool: str
    arguments: Mapping[str, Any]
    reason: str
    agent: str
    conversation_id: str
    call_id: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tool": self.tool,
            "arguments": dict(self.arguments),
            "reason": self.reason,
            "agent": self.agent,
            "conversation_id": self.conversation_id,
            "call_id": self.call_id,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Approve:
    """Run it — with `arguments` instead of the model's, if given; `always` is a rule
    pattern (e.g. "shell(git *)") allowed without asking for the rest of the conversation."""

    arguments: Mapping[str, Any] | None = None
    always: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Deny:
    """Do not run it; `message` goes to the model."""

    message: str = "a person declined this call"


Decision = Approve | Deny
Approver = Callable[[ApprovalRequest], Awaitable[Decision]]
"""Decides inline, e.g. by asking in a terminal; the call waits for it."""
