"""`complete` hands control back to the orchestrator; `end_conversation` ends it all."""

from __future__ import annotations

from toolrail.core.control import Complete, EndConversation
from toolrail.core.decorator import tool
from toolrail.core.tool import ToolAnnotations

_CONTROL = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False)


@tool(name="complete", annotations=_CONTROL, tags=["control"])
async def complete(summary: str, next_agent: str | None = None) -> Complete:
    """Finish your task and hand control back, saying what you did.

    Args:
        summary: what you did and what the next agent or the user needs to know
        next_agent: the agent who should continue, if you know it
    """
    return Complete(summary=summary, next_agent=next_agent)


@tool(name="end_conversation", annotations=_CONTROL, tags=["control"])
async def end_conversation(reason: str, final_message: str | None = None) -> EndConversation:
    """End the whole conversation.

    Args:
        reason: why the conversation is over
        final_message: what the user should read last
    """
    return EndConversation(reason=reason, final_message=final_message)
