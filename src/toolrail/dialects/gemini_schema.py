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
_EXCLUSIVE = {"exclusiveMinimum": ("minimum", max), "exclusiveMaximum": ("maximum", min)}


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
        elif len(members) > 1:
            changed(notes, path, "allOf merged into one object")
        node = {**merged, **node}
    for note in _ambiguous(node):
        lost(notes, path, note)
    integer = _kinds(node) == {"integer"}
    out: dict[str, Any] = {}
    bounds: dict[str, int] = {}
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
            if value in GEMINI.formats:
                out[key] = value
            else:
                lost(notes, path, f"format {value!r}")
        elif key in _EXCLUSIVE and integer and isinstance(value, int):
            bounds[key] = value
        elif key in GEMINI.keywords:
            out[key] = value
        elif key == "additionalProperties" and not isinstance(value, dict):
            if value is True:
                changed(notes, path, "extra keys not offered to the model")
        elif key not in _QUIET:
            lost(notes, path, f"{key} {value!r}")
    for key, value in bounds.items():  # an integer's exclusive bound is an inclusive one
        bound, tighter = _EXCLUSIVE[key]
        inclusive = value + 1 if bound == "minimum" else value - 1
        out[bound] = tighter(out.get(bound, inclusive), inclusive)
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


def _kinds(node: Schema) -> set[str]:
    kind = node.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()
    return kinds - {"null"}


def _ambiguous(node: Schema) -> list[str]:
    """Values that become one string in Gemini's string enums (`"1"` and `1`, or `1` and
    any string), across this node and its union members: only one of them reads back."""
    sources: list[tuple[list[Any], bool]] = []  # (enum values, takes any string)
    for schema in [node, *node.get("anyOf", ()), *node.get("oneOf", ())]:
        if not isinstance(schema, dict):
            continue
        values = list(schema.get("enum") or []) + ([schema["const"]] if "const" in schema else [])
        free = not values and "string" in _kinds(schema)
        if values or free:
            sources.append((values, free))
    found: list[str] = []
    by_text: dict[str, list[tuple[int, Any]]] = {}
    for index, (values, _) in enumerate(sources):
        for value in values:
            if value is not None:
                by_text.setdefault(json_text(value), []).append((index, value))
    free_at = {i for i, (_, free) in enumerate(sources) if free}
    for text, found_at in by_text.items():
        distinct = {(type(v), json_text(v)): v for _, v in found_at}
        if any(isinstance(v, str) for v in distinct.values()):
            meant: Any = text
        else:
            meant = next(iter(distinct.values()))
            if free_at:
                distinct[(str, text)] = text
        places = {i for i, _ in found_at} | (free_at if not isinstance(meant, str) else set())
        if len(distinct) > 1 and (len(places) > 1 or len(sources) == 1):
            others = sorted(
                repr(v) for v in distinct.values() if v != meant or type(v) is not type(meant)
            )
            found.append(
                f"{', '.join(others)} (sent as the string {text!r}, which reads back as {meant!r})"
            )
    return found


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
    out["enum"] = list(dict.fromkeys(json_text(v) for v in values))
    out["type"] = "string"
    out["format"] = "enum"
