"""toolrail tools as MCP tools, and call outcomes as MCP results.

Annotations become MCP's hints; a declared output schema becomes `outputSchema` (wrapped as
`{"result": ...}` when it is not an object schema, the SDK's convention) and the output
`structuredContent` with a JSON text fallback. A failure is a result with `isError` and the
error's (redacted) message, the error's kind in `_meta`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from returns.result import Failure, Result, Success

from toolrail._jsonish import dumps, to_json_value
from toolrail.core.errors import ToolError
from toolrail.core.redact import redact
from toolrail.registry import AnyTool

ERROR_META_KEY = "dev.toolrail/error"
"""`_meta` key of a failed result: `{"kind": ..., "model_can_fix": ...}`."""


def mcp_tool(tool: AnyTool) -> types.Tool:
    """The MCP definition of a toolrail tool, under the registry's own name."""
    hints = tool.annotations
    return types.Tool(
        name=tool.name,
        title=hints.title,
        description=tool.description,
        input_schema=dict(tool.input_schema()),
        output_schema=output_schema(tool),
        annotations=types.ToolAnnotations(
            title=hints.title,
            read_only_hint=hints.read_only,
            # a read-only tool changes nothing, whatever the (MCP-style) default says
            destructive_hint=hints.destructive and not hints.read_only,
            idempotent_hint=hints.idempotent,
            open_world_hint=hints.open_world,
        ),
    )


def output_schema(tool: AnyTool) -> dict[str, Any] | None:
    """The tool's output schema as MCP wants it: always an object schema."""
    if tool.output_schema is None:
        return None
    schema = dict(tool.output_schema)
    if schema.get("type") == "object":
        return schema
    return {"type": "object", "properties": {"result": schema}, "required": ["result"]}


def call_result(tool: AnyTool | None, result: Result[object, ToolError]) -> types.CallToolResult:
    """What the client receives for one call's `Result`."""
    match result:
        case Success(value):
            return success_result(value, output_schema(tool) if tool is not None else None)
        case Failure(error):
            return error_result(error)
        case _:  # pragma: no cover - Result has two cases
            raise AssertionError(result)


def success_result(value: object, schema: Mapping[str, Any] | None) -> types.CallToolResult:
    data = to_json_value(value)
    structured: dict[str, Any] | None = None
    if schema is not None:
        structured = data if _is_plain_object(schema, data) else {"result": data}
    elif isinstance(data, dict):
        structured = data
    text = data if isinstance(data, str) else dumps(data).decode()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=wire_text(text))],
        structured_content=structured,
    )


def error_result(error: ToolError) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=redacted_text(error.message))],
        is_error=True,
        meta={ERROR_META_KEY: {"kind": error.kind, "model_can_fix": error.model_can_fix}},
    )


def redacted_text(text: str) -> str:
    """`text` redacted, as the client may receive it (see `wire_text`)."""
    cleaned = redact(text)
    return wire_text(cleaned if isinstance(cleaned, str) else str(cleaned))


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def wire_text(text: str) -> str:
    """`text` as UTF-8 can carry it: a lone surrogate (a non-UTF-8 file name that Python read
    with surrogateescape, say) becomes U+FFFD. The SDK's writer cannot encode one, and a
    stdio server whose writer fails answers nothing more."""
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


def _is_plain_object(schema: Mapping[str, Any], data: object) -> bool:
    """Whether `data` is the object itself, not a value the `{"result": ...}` wrapper holds."""
    properties = schema.get("properties")
    wrapper = (
        isinstance(properties, dict)
        and set(properties) == {"result"}
        and schema.get("required") == ["result"]
    )
    if not isinstance(data, dict):
        return False
    return not wrapper or set(data) == {"result"}
