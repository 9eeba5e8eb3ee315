"""An MCP tool result as a toolrail output, in MCP's own shapes.

- only text → the text;
- structured content whose text blocks only repeat it as JSON → the structured content;
- anything else (images, audio, resources, text beside structured content) → the result's
  wire shape, `{"content": [blocks], "structuredContent": ...}`: blocks keep MCP's field
  names (`mimeType`, not `mime_type`), so a dialect that accepts image parts can hand an
  `{"type": "image", "data", "mimeType"}` block to its provider as an image.
"""

from __future__ import annotations

from typing import Any

import mcp.types as mcp_types
import orjson
from returns.result import Failure, Result, Success

from toolrail.core.errors import ExecutionFailed, ToolError


def is_mcp_content(value: object) -> bool:
    """Whether an output is an MCP result's wire shape (a dict with a `content` block list).

    >>> is_mcp_content({"content": [{"type": "image", "data": "", "mimeType": "image/png"}]})
    True
    >>> is_mcp_content({"content": "text"})
    False
    """
    if not isinstance(value, dict) or not set(value) <= {"content", "structuredContent"}:
        return False
    blocks = value.get("content")
    return isinstance(blocks, list) and all(
        isinstance(block, dict) and isinstance(block.get("type"), str) for block in blocks
    )


def from_call_result(result: mcp_types.CallToolResult) -> Result[object, ToolError]:
    """The output a model should see, or the tool's own error."""
    texts = [block.text for block in result.content if isinstance(block, mcp_types.TextContent)]
    if result.is_error:
        message = "\n".join(texts) or "the MCP tool reported an error without a message"
        return Failure(ExecutionFailed(message=message, model_can_fix=True))
    structured = result.structured_content
    only_text = len(texts) == len(result.content)
    if structured is None and only_text:
        return Success("\n".join(texts))
    if structured is not None and only_text and _repeats(texts, structured):
        return Success(structured)
    wire: dict[str, object] = {"content": [_block(block) for block in result.content]}
    if structured is not None:
        wire["structuredContent"] = structured
    return Success(wire)


def _block(block: mcp_types.ContentBlock) -> dict[str, Any]:
    dumped: dict[str, Any] = block.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _repeats(texts: list[str], structured: object) -> bool:
    """Whether the text blocks only repeat the structured content (whole, or the `result`
    the SDKs wrap a non-object output in), as the spec asks servers to do."""
    if not texts:
        return True
    values = [structured]
    if isinstance(structured, dict) and set(structured) == {"result"}:
        values.append(structured["result"])
    joined = "".join(texts)
    parsed = [_loads(joined), joined, [_loads(t) for t in texts], texts]
    return any(p == v for p in parsed for v in values if p is not _NOT_JSON)


_NOT_JSON = object()


def _loads(text: str) -> object:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return _NOT_JSON
