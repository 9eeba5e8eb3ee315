"""Tools from plain definitions (name, description, JSON Schema): catalogues for routing."""

from __future__ import annotations

import re
from collections.abc import Mapping

from returns.result import Failure, Result

from toolrail.core.context import ExecutionContext
from toolrail.core.errors import ExecutionFailed, ToolError
from toolrail.core.params import JsonObject, ParameterSchema
from toolrail.core.tool import AnyTool, Tool

EMPTY_OBJECT: Mapping[str, object] = {"type": "object", "properties": {}}


def safe_tool_name(name: str) -> str:
    """`name` with characters providers refuse replaced by `_` (`PDF&URLTool` -> `PDF_URLTool`)."""
    cleaned = re.sub(r"[^a-zA-Z0-9_-]+", "_", name)[:64] or "tool"
    return cleaned if cleaned[0].isalpha() or cleaned[0] == "_" else f"_{cleaned}"[:64]


def definition_tool(
    name: str,
    description: str,
    schema: Mapping[str, object] = EMPTY_OBJECT,
    *,
    tags: frozenset[str] = frozenset(),
) -> AnyTool:
    """A tool known only by its definition; running it fails, saying nothing runs it."""

    async def not_runnable(_args: JsonObject, _ctx: ExecutionContext) -> Result[object, ToolError]:
        return Failure(ExecutionFailed(message=f"{name!r} is a definition only; nothing runs it"))

    return Tool(
        name=safe_tool_name(name),
        description=description,
        parameters=ParameterSchema.from_json_schema(schema),
        execute=not_runnable,
        tags=tags,
    )
