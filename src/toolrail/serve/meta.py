"""The two meta-tools of dynamic and hybrid mode: `find_relevant_tools(query, limit)` and
`execute_tool(tool_name, arguments)`, so a client lists two tools instead of hundreds.

A query is at most `QUERY_CHARS` characters (the bound the orchestrator routes a turn on);
a longer one is refused before any ranking, saying so: ranking a few MB of text holds the
event loop, and every other client's call, for seconds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import mcp_types as types

from toolrail.core.errors import ArgumentIssue, InvalidArguments
from toolrail.registry import AnyTool
from toolrail.routing import Router
from toolrail.routing.surfacing import QUERY_CHARS

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
            "query": {
                "type": "string",
                "maxLength": QUERY_CHARS,
                "description": "what you want to do, in a few words",
            },
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


def overlong_query(arguments: Mapping[str, Any]) -> InvalidArguments | None:
    """Why `find_relevant_tools`' query is refused for its length (checked before the
    schema, whose message would repeat the whole query), or None."""
    query = arguments.get("query")
    if not isinstance(query, str) or len(query) <= QUERY_CHARS:
        return None
    issue = ArgumentIssue(
        path="$.query",
        message=f"{len(query)} characters; a query has at most {QUERY_CHARS} characters: "
        "say what you want to do in a few words",
    )
    return InvalidArguments.of(FIND, (issue,))


def find_relevant(
    router: Router, query: str, limit: int, *, agent: str, permissions: frozenset[str]
) -> list[AnyTool]:
    """The `limit` tools that best fit `query`, best first, among those `agent` may call
    (the router applies the executor's own filter); none when nothing is relevant."""
    matches = router.search(
        query, k=limit, agent=agent, permissions=permissions, exclude=META_NAMES
    )
    return [m.tool for m in matches][:limit]


def found(tools: Sequence[AnyTool]) -> dict[str, Any]:
    """`find_relevant_tools`' structured answer."""
    return {
        "tools": [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema()}
            for t in tools
        ]
    }
