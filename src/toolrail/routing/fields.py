"""A tool's words by field: the name, labels, parameter names, description, parameter prose."""

from __future__ import annotations

from collections.abc import Mapping

from toolrail.core.tool import AnyTool
from toolrail.routing.text import words

FIELDS = ("name", "tags", "parameters", "description", "parameter_text")
FIELD_WEIGHTS = (3.0, 2.0, 1.5, 1.0, 0.5)
"""How much a word counts by where it appears. The name is chosen to say what the tool does;
tags and the MCP server name are chosen labels; parameter names and enum, example and
default values are the nouns a request fills in; the description is prose; parameter
descriptions are prose about one argument. Fixed by that reading, not fitted to a
benchmark."""
MAX_VALUE_CHARS = 64
"""An example or default longer than this is a sample document, not a value a request
would repeat; it is not read."""
MAX_DEPTH = 6
"""How deep nested parameter schemas are read: deeper text is rarely what a request names."""


def tool_fields(tool: AnyTool) -> tuple[list[str], ...]:
    """The words of each field in `FIELDS` for `tool`."""
    names: list[str] = []
    prose: list[str] = []
    _walk(_safe_schema(tool), names, prose, depth=0)
    own_name, server = tool.name, ""
    if tool.name.startswith("mcp__") and tool.name.count("__") >= 2:
        _, server, own_name = tool.name.split("__", 2)
    labels = " ".join([*sorted(tool.tags), server, tool.annotations.title or ""])
    texts = (own_name, labels, " ".join(names), tool.description, " ".join(prose))
    return tuple(words(text) for text in texts)


def _safe_schema(tool: AnyTool) -> Mapping[str, object]:
    try:
        return tool.input_schema()
    except Exception:  # a schema that cannot be built still leaves name and description
        return {}


def _mapping(node: object) -> Mapping[str, object] | None:
    if type(node) is dict:  # JSON Schemas are plain dicts: skip the slower ABC check
        return node
    return node if isinstance(node, Mapping) else None


def _walk(node: object, names: list[str], prose: list[str], depth: int) -> None:
    found = _mapping(node)
    if depth > MAX_DEPTH or found is None:
        return
    properties = _mapping(found.get("properties"))
    if properties is not None:
        for key, sub in properties.items():
            names.append(str(key))
            prop = _mapping(sub)
            if prop is not None:
                _describe(prop, names, prose)
                _walk(prop, names, prose, depth + 1)
    for key in ("items", "additionalProperties"):
        if key in found:
            _walk(found[key], names, prose, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        options = found.get(key)
        if isinstance(options, list):
            for option in options:
                _walk(option, names, prose, depth + 1)
    defs = _mapping(found.get("$defs"))
    if defs is not None:
        for sub in defs.values():
            _walk(sub, names, prose, depth + 1)


def _describe(prop: Mapping[str, object], names: list[str], prose: list[str]) -> None:
    for key in ("description", "title"):
        text = prop.get(key)
        if isinstance(text, str):
            prose.append(text)
    values = prop.get("enum")
    if isinstance(values, list):
        names.extend(str(v) for v in values if isinstance(v, str | int))
    # example and default values are what a request fills in too ("convert 5 USD to EUR"),
    # when they are values, not sample documents
    examples = prop.get("examples")
    shown = [
        *(examples if isinstance(examples, list) else []),
        prop.get("example"),
        prop.get("default"),
    ]
    names.extend(v for v in shown if isinstance(v, str) and len(v) <= MAX_VALUE_CHARS)
