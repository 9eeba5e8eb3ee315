"""A tool as plain JSON, provider-neutral: what `toolrail tools list --json` prints, valid
against `schemas/tool-definition.schema.json`."""

from __future__ import annotations

from typing import Any

from toolrail.registry import AnyTool


def tool_definition(tool: AnyTool) -> dict[str, Any]:
    hints = tool.annotations
    definition: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema(),
        "annotations": {
            "title": hints.title,
            "read_only": hints.read_only,
            # a read-only tool changes nothing, whatever the (MCP-style) default says
            "destructive": hints.destructive and not hints.read_only,
            "idempotent": hints.idempotent,
            "open_world": hints.open_world,
        },
        "permissions": sorted(tool.permissions),
        "tags": sorted(tool.tags),
        "source": tool.source,
        "timeout_s": tool.timeout_s,
    }
    if tool.output_schema is not None:
        definition["output_schema"] = dict(tool.output_schema)
    if tool.prompt_fragment is not None:
        definition["prompt_fragment"] = tool.prompt_fragment
    return definition
