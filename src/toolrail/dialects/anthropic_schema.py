"""Anthropic strict tool use: a tool's schema rewritten as the anthropic SDK's own
`transform_schema` does (the rules: `toolrail.dialects.rules.ANTHROPIC_STRICT`), or refused.

Every object, those in `$defs` too, is closed; unsupported keywords go into the description
(noted as lost when they constrain). Recursive schemas, maps and untyped values cannot be
strict: such a tool goes out with strict off, and the report says why.
"""

from __future__ import annotations

import copy
from typing import Any

from toolrail.dialects.openai_schema import NotStrict
from toolrail.dialects.rules import ANTHROPIC_STRICT
from toolrail.dialects.schema import (
    Notes,
    Schema,
    changed,
    describe,
    lost,
    recursive_refs,
)

_HARMLESS = frozenset(
    {
        "default",
        "examples",
        "$comment",
        "$schema",
        "$id",
        "deprecated",
        "readOnly",
        "writeOnly",
        "discriminator",
        "title",
        "definitions",
    }
)


def anthropic_strict(schema: Schema, notes: Notes) -> Schema | None:
    """The schema in Anthropic's strict form, or None if it cannot be strict (noted)."""
    before = len(notes)
    try:
        if schema.get("type") != "object":
            raise NotStrict("$: the root is not an object")
        recursive = recursive_refs(schema)
        if recursive:
            raise NotStrict(f"recursive {', '.join(sorted(recursive))}")
        work = copy.deepcopy(schema)
        defs = {**work.pop("definitions", {}), **work.pop("$defs", {})}
        out = _node(work, notes, "$", root=True)
        if defs:
            out["$defs"] = {n: _node(d, notes, f"$defs.{n}") for n, d in defs.items()}
            _retarget(out)
    except NotStrict as why:
        del notes[before:]  # the schema goes out as declared: only the reason stands
        notes.append(f"not strict-compatible ({why}); sent with strict off")
        return None
    return out


def _retarget(node: Any) -> None:
    """`#/definitions/X` → `#/$defs/X`, where the definitions now live."""
    if isinstance(node, list):
        for item in node:
            _retarget(item)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/definitions/"):
            node["$ref"] = "#/$defs/" + ref.removeprefix("#/definitions/")
        for value in node.values():
            _retarget(value)


def _node(node: Any, notes: Notes, path: str, *, root: bool = False) -> Schema:
    if not isinstance(node, dict) or not node:
        raise NotStrict(f"{path}: any value (no type)")
    rest = dict(node)
    out: Schema = {}
    if "$ref" in rest:
        out["$ref"] = rest.pop("$ref")
        for key, value in rest.items():  # dropped, as the SDK's transform_schema does
            if key in ("description", "default"):  # not a constraint: the tool still applies it
                changed(notes, path, f"{key} beside $ref dropped")
            elif key != "title":
                lost(notes, path, f"{key} {value!r} beside $ref (dropped)")
        return out
    kind = rest.pop("type", None)
    if isinstance(kind, list):
        members = [{"type": k} for k in kind]
        if "anyOf" not in rest and "oneOf" not in rest:
            rest["anyOf"] = members if len(members) > 1 else []
            kind = None if len(members) > 1 else members[0]["type"]
            if kind is None:
                changed(notes, path, "type list sent as anyOf")
    literal = False
    for key in ("enum", "const"):
        if key in rest and _primitive(rest[key], key):
            out[key] = rest.pop(key)
            literal = True
    if literal:
        kind = None
    for key in ("anyOf", "oneOf", "allOf"):
        members = rest.pop(key, None)
        if isinstance(members, list) and members:
            target = "allOf" if key == "allOf" else "anyOf"
            if key == "oneOf":
                changed(notes, path, "oneOf sent as anyOf")
            out[target] = [_node(m, notes, f"{path}|{i}") for i, m in enumerate(members)]
    if kind is None and not (literal or {"anyOf", "allOf"} & set(out)):
        raise NotStrict(f"{path}: any value (no type)")
    if kind is not None:
        out["type"] = kind
    for key in ("description", "title"):
        if key in rest:
            out[key] = rest.pop(key)
    if kind == "object":
        _object(rest, out, notes, path, root=root)
    elif kind == "string" and rest.get("format") in ANTHROPIC_STRICT.formats:
        out["format"] = rest.pop("format")
    elif kind == "array":
        if "items" in rest:
            out["items"] = _node(rest.pop("items"), notes, f"{path}[]")
        if rest.get("minItems") in (0, 1):
            out["minItems"] = rest.pop("minItems")
    if "default" in rest:
        changed(notes, path, "default moved into the description")
    for key in rest:
        if key not in _HARMLESS:
            lost(notes, path, f"{key} {rest[key]!r} (moved into the description)")
    describe(out, {k: v for k, v in rest.items() if k not in ("definitions", "$schema")})
    return out


def _object(rest: Schema, out: Schema, notes: Notes, path: str, *, root: bool) -> None:
    properties = rest.pop("properties", {}) or {}
    extra = rest.pop("additionalProperties", None)
    if not properties and (extra not in (None, False) or not root):
        raise NotStrict(f"{path}: an object with free keys (a map)")
    if extra not in (None, False):
        changed(notes, path, "additionalProperties closed (strict allows none)")
    out["properties"] = {n: _node(p, notes, f"{path}.{n}") for n, p in properties.items()}
    out["additionalProperties"] = False
    if "required" in rest:
        out["required"] = list(rest.pop("required"))


def _primitive(value: Any, key: str) -> bool:
    values = value if key == "enum" else [value]
    return (
        isinstance(values, list)
        and bool(values)
        and all(v is None or isinstance(v, str | int | float | bool) for v in values)
    )
