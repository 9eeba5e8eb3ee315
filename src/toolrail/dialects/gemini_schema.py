"""Gemini's schema subset (the rules: `toolrail.dialects.rules.GEMINI`).

Refs are inlined (recursion is cut, and noted as lost), `const` and enums become string
enums (read back by `ArgumentMap`), type lists become `nullable` or `anyOf`, tuples become
arrays of any of their members, and what the subset cannot say is dropped and noted.
"""

from __future__ import annotations

from typing import Any

from toolrail.dialects.rules import GEMINI
from toolrail.dialects.schema import (
    Notes,
    Schema,
    changed,
    definitions,
    inline_refs,
    json_text,
    lost,
    merge_all_of,
)

_QUIET = frozenset({"$schema", "$id", "$comment", "examples", "discriminator", "deprecated"})
_STRING_FORMATS = frozenset({"enum", "date-time"})


def gemini_subset(schema: Schema, notes: Notes) -> Schema:
    """Gemini's OpenAPI-style subset of `schema`, with every change noted."""
    defs = definitions(schema)
    inlined = inline_refs(schema, notes)
    result: Schema = _node(inlined, notes, "$", defs)
    result.setdefault("type", "object")
    return result


def _node(node: Any, notes: Notes, path: str, defs: dict[str, Any]) -> Any:
    if not isinstance(node, dict):
        return node
    node = dict(node)
    if "allOf" in node:
        members = node.pop("allOf")
        merged = members[0] if len(members) == 1 else merge_all_of(members, defs)
        if merged is None:
            lost(notes, path, "allOf (only its first member kept)")
            merged = members[0]
        node = {**merged, **node}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "const":
            out["enum"] = [value]
        elif key in ("oneOf", "anyOf"):
            out["anyOf"] = [_node(m, notes, f"{path}|{i}", defs) for i, m in enumerate(value)]
            if key == "oneOf":
                changed(notes, path, "oneOf sent as anyOf")
        elif key == "type" and isinstance(value, list):
            kinds = [k for k in value if k != "null"]
            if "null" in value:
                out["nullable"] = True
            if len(kinds) == 1:
                out["type"] = kinds[0]
            elif kinds:
                out["anyOf"] = [{"type": k} for k in kinds]
                changed(notes, path, "type list sent as anyOf")
        elif key == "properties" and isinstance(value, dict):
            out[key] = {n: _node(v, notes, f"{path}.{n}", defs) for n, v in value.items()}
        elif key == "items":
            out[key] = _node(value, notes, f"{path}[]", defs)
        elif key == "prefixItems" and isinstance(value, list):
            out["items"] = _tuple_items(value, notes, path, defs)
        elif key == "format":
            if node.get("type") != "string" or value in _STRING_FORMATS:
                out[key] = value
            else:
                lost(notes, path, f"format {value!r}")
        elif key == "exclusiveMinimum" and node.get("type") == "integer":
            out["minimum"] = value + 1
        elif key == "exclusiveMaximum" and node.get("type") == "integer":
            out["maximum"] = value - 1
        elif key in GEMINI.keywords:
            out[key] = value
        elif key == "additionalProperties" and not isinstance(value, dict):
            if value is True:
                changed(notes, path, "extra keys not offered to the model")
        elif key not in _QUIET:
            lost(notes, path, f"{key} {value!r}")
    if "anyOf" in out and {"type": "null"} in out["anyOf"]:
        out["anyOf"] = [s for s in out["anyOf"] if s != {"type": "null"}]
        out["nullable"] = True
        if len(out["anyOf"]) == 1:
            out.update(out.pop("anyOf")[0])
    if "enum" in out:
        _string_enum(out, notes, path)
    if out.get("type") == "array" and "items" not in out:
        out["items"] = {}
        lost(notes, path, "items of any type (Gemini needs an item schema)")
    return out


def _tuple_items(value: list[Any], notes: Notes, path: str, defs: dict[str, Any]) -> Schema:
    members: list[Any] = []
    for item in (_node(m, notes, f"{path}[]", defs) for m in value):
        if item not in members:
            members.append(item)
    lost(notes, path, "prefixItems (each position's own type; items take any member)")
    return members[0] if len(members) == 1 else {"anyOf": members}


def _string_enum(out: Schema, notes: Notes, path: str) -> None:
    """Gemini's enums are strings (`Schema.enum: list[str]`); others are sent as their
    JSON text and read back by `ArgumentMap`. A null among them becomes `nullable`."""
    values = [v for v in out["enum"] if v is not None]
    if len(values) < len(out["enum"]):
        out["nullable"] = True
    if not all(isinstance(v, str) for v in values):
        changed(notes, path, "enum sent as strings (read back as its values)")
    out["enum"] = [json_text(v) for v in values]
    out["type"] = "string"
    out["format"] = "enum"
