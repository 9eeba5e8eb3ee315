"""Tools for the demo and CLI examples (see examples/toolrail.toml)."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from toolrail import (
    ExecutionContext,
    ExecutionFailed,
    Failure,
    Result,
    Success,
    ToolAnnotations,
    ToolError,
    tool,
)

DOCS = {
    "retries": "Retries apply only to idempotent or read-only tools, with backoff and jitter.",
    "agents": "Each agent sees only the tools its table allows; others fail as NotAllowed.",
    "results": "Every call ends in Success(output) or Failure(ToolError); nothing is raised.",
    "mcp": "MCP servers' tools are named mcp__<server>__<tool> and validated before sending.",
}


class SearchArgs(BaseModel):
    query: str = Field(description="words to look for in the docs", min_length=2)
    limit: int = Field(3, ge=1, le=10, description="how many hits to return at most")


@tool(
    annotations=ToolAnnotations(read_only=True),
    tags=["docs"],
    describe=lambda args: f"🔎 Searching docs for {args.query!r}",
)
async def search_docs(args: SearchArgs, ctx: ExecutionContext) -> Result[list[str], ToolError]:
    """Search the project documentation; returns matching paragraphs."""
    words = args.query.lower().split()
    hits = [
        text for topic, text in DOCS.items() if any(w in topic or w in text.lower() for w in words)
    ]
    if not hits:
        return Success([])
    return Success(hits[: args.limit])


@tool(annotations=ToolAnnotations(read_only=True, idempotent=True), tags=["text"])
def word_count(text: str) -> int:
    """Count the words in a text.

    Args:
        text: the text to count
    """
    return len(text.split())


@tool(timeout_s=0.3, describe=lambda args: f"📊 Building the {args.topic} report")
async def slow_report(topic: str, ctx: ExecutionContext) -> str:
    """Build a long report on a topic, reporting progress as it goes.

    Args:
        topic: what the report is about
    """
    for step in range(1, 11):
        ctx.report_progress(step, 10, f"section {step} of 10")
        await asyncio.sleep(0.1)
    return f"report on {topic}"


@tool(permissions=["fs:write"], annotations=ToolAnnotations(destructive=False))
def save_note(title: str, body: str) -> str:
    """Save a short note for the user.

    Args:
        title: a few words
        body: the note itself
    """
    return f"saved note {title!r} ({len(body)} characters)"


@tool(annotations=ToolAnnotations(read_only=True, open_world=True))
async def fetch_status(service: str) -> Result[str, ToolError]:
    """Ask a service whether it is up.

    Args:
        service: the service name
    """
    if service != "docs":  # a failure the model can correct: say so, don't raise
        return Failure(
            ExecutionFailed(
                message=f"no service called {service!r}; known: docs", model_can_fix=True
            )
        )
    return Success("docs: up")


@tool(
    annotations=ToolAnnotations(read_only=True, idempotent=True),
    describe=lambda args: f"🗂 Indexing {args.section} docs",
)
async def index_docs(section: str, ctx: ExecutionContext) -> int:
    """Index a section of the docs, reporting progress; returns the number of pages.

    Args:
        section: which section to index
    """
    pages = 8
    for page in range(1, pages + 1):
        await asyncio.sleep(0.08)
        ctx.report_progress(page, pages, f"page {page}/{pages}")
    return pages


@tool(annotations=ToolAnnotations(read_only=True), describe=lambda args: "💳 Asking billing")
def billing_status() -> str:
    """Ask the billing service whether it is up (in this demo, it never is)."""
    raise ConnectionError("billing.internal refused the connection")
