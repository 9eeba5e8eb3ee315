"""Which tools failed in which conversation: the router's memory for its failure penalty."""

from __future__ import annotations

from collections import OrderedDict

from toolrail.core.errors import CircuitOpen, ExecutionFailed, TimedOut, TransportError
from toolrail.recording.events import ToolCompleted, ToolEvent, ToolFailed

TOOL_FAULTS = (ExecutionFailed, TimedOut, TransportError, CircuitOpen)
"""Failures that say the tool itself broke; a refused or malformed call says nothing of it."""
MAX_CONVERSATIONS = 1024
"""Conversations remembered at once; the least recently active is forgotten first."""


class ConversationFailures:
    """Per conversation, the tools whose last call failed by their own fault."""

    def __init__(self) -> None:
        self._failed: OrderedDict[str, set[str]] = OrderedDict()

    def observe(self, event: ToolEvent) -> None:
        """A sink: a tool's own failure is remembered, its next success forgets it."""
        if isinstance(event, ToolFailed) and isinstance(event.error, TOOL_FAULTS):
            self._failed.setdefault(event.conversation_id, set()).add(event.tool)
            self._failed.move_to_end(event.conversation_id)
            if len(self._failed) > MAX_CONVERSATIONS:
                self._failed.popitem(last=False)
        elif isinstance(event, ToolCompleted):
            failed = self._failed.get(event.conversation_id)
            if failed is not None:
                failed.discard(event.tool)

    def of(self, conversation_id: str) -> frozenset[str]:
        """The tools that failed in `conversation_id` and have not succeeded since."""
        return frozenset(self._failed.get(conversation_id, ()))
