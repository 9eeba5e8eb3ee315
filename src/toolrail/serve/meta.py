"""The two meta-tools of dynamic and hybrid mode: `find_relevant_tools(query, limit)` and
`execute_tool(tool_name, arguments)`, so a client lists two tools instead of hundreds."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import mcp_types as types

from toolrail.registry import AnyTool

FIND = "find_relevant_tools"
EXECUTE = "execute_tool"
META_NAMES = frozenset({FIND, EXECUTE})
MAX_LIMIT = 50

FIND_TOOL = types.Tool(
    name=FIND,
    title="Find relevant tools",
    description="Search the tools you may call for the ones that fit a task. Returns their "
    "names, descriptions and input schemas; call one with execute_tool.",
    input_schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what you want to do, in a few words"},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "properties": {
            "tools": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "description": {"type": "string"},
                        "input_schema": {"type": "object"},
                    },
                    "required": ["name", "description", "input_schema"],
                },
            }
        },
        "required": ["tools"],
    },
    annotations=types.ToolAnnotations(
        title="Find relevant tools",
        read_only_hint=True,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=False,
    ),
)

EXECUTE_TOOL = types.Tool(
    name=EXECUTE,
    title="Execute a tool",
    description="Call a tool found with find_relevant_tools: give its exact name and its "
    "arguments as an object matching its input schema.",
    input_schema={
        "type": "object",
        "properties": {
            "tool_name": {"type": "string", "description": "the tool's exact name"},
            "arguments": {"type": "object", "description": "the tool's arguments"},
        },
        "required": ["tool_name"],
        "additionalProperties": False,
    },
    annotations=types.ToolAnnotations(
        title="Execute a tool",
        read_only_hint=False,
        destructive_hint=True,
        idempotent_hint=False,
        open_world_hint=True,
    ),
)


def find_relevant(tools: Sequence[AnyTool], query: str, limit: int) -> list[AnyTool]:
    """The `limit` tools that best fit `query`, best first (the routing stand-in: lexical
    overlap of the query's words with each tool's name, title, description and tags)."""
    words = _words(query)
    scored = []
    for position, tool in enumerate(tools):
        text = " ".join([tool.name, tool.annotations.title or "", tool.description, *tool.tags])
        score = len(words & _words(text))
        if score:
            scored.append((-score, position, tool))
    return [tool for _, _, tool in sorted(scored, key=lambda s: (s[0], s[1]))][:limit]


def found(tools: Sequence[AnyTool]) -> dict[str, Any]:
    """`find_relevant_tools`' structured answer."""
    return {
        "tools": [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema()}
            for t in tools
        ]
    }


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if len(w) > 1}
