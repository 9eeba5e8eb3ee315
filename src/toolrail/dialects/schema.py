"""JSON Schema rewrites for providers that accept only part of JSON Schema.

Each rewrite returns a new schema and notes on what it changed or could not express, so
an export can report per tool instead of silently sending something else.
"""

from __future__ import annotations

import copy
from typing import Any

Schema = dict[str, Any]
Notes = list[str]

_MAX_DEPTH = 32


def inline_refs(schema: Schema, notes: Notes) -> Schema:
    """Replace local `$ref`s with their targets; recursive ones are cut to a plain object."""
    definitions: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        found = schema.get(key)
        if isinstance(found, dict):
            definitions.update({f"#/{key}/{name}": value for name, value in found.items()})

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in stack or len(stack) > _MAX_DEPTH:
                notes.append(f"recursive $ref {ref} cut to a plain object")
                return {"type": "object", **_keep(node, ("description",))}
            if ref not in definitions:
                notes.append(f"unresolvable $ref {ref} replaced by an unconstrained value")
                return _keep(node, ("description",))
            target = walk(definitions[ref], (*stack, ref))
            extra = {k: v for k, v in node.items() if k != "$ref"}
            return {**target, **walk(extra, stack)} if extra else target
        return {
            key: walk(value, stack)
            for key, value in node.items()
            if key not in ("$defs", "definitions")
        }

    inlined: Schema = walk(schema, ())
    return inlined


def _keep(node: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: node[k] for k in keys if k in node}


# --- OpenAI strict mode ---------------------------------------------------------------

_OPENAI_STRICT_UNSUPPORTED = (
    "default",
    "examples",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "$schema",
    "$id",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
)


def openai_strict(schema: Schema, notes: Notes) -> Schema:
    """OpenAI structured-output rules: every object closed, every property required,
    optional ones nullable, `oneOf` as `anyOf`, unsupported keywords dropped."""
    result: Schema = _strict_node(copy.deepcopy(schema), notes, "$")
    return result


def _strict_node(node: Any, notes: Notes, path: str) -> Any:
    if isinstance(node, list):
        return [_strict_node(item, notes, path) for item in node]
    if not isinstance(node, dict):
        return node
    for key in _OPENAI_STRICT_UNSUPPORTED:
        if key in node:
            del node[key]
            if key not in ("$schema", "$id", "$comment"):
                notes.append(f"{path}: dropped unsupported keyword {key!r}")
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
        notes.append(f"{path}: oneOf rewritten as anyOf")
    if "allOf" in node and isinstance(node["allOf"], list) and len(node["allOf"]) == 1:
        node.update(node.pop("allOf")[0])
    for key, value in list(node.items()):
        if key == "properties" and isinstance(value, dict):
            node[key] = {n: _strict_node(v, notes, f"{path}.{n}") for n, v in value.items()}
        elif key in ("$defs", "definitions") and isinstance(value, dict):
            node[key] = {n: _strict_node(v, notes, f"{key}.{n}") for n, v in value.items()}
        elif key in ("items", "anyOf", "allOf", "prefixItems", "additionalProperties"):
            node[key] = _strict_node(value, notes, f"{path}[{key}]")
    if node.get("type") == "object" or "properties" in node:
        properties: dict[str, Any] = node.setdefault("properties", {})
        required = set(node.get("required", []))
        for name, prop in properties.items():
            if name not in required:
                properties[name] = _nullable(prop)
                notes.append(f"{path}.{name}: optional, made required and nullable")
        node["required"] = list(properties)
        if node.get("additionalProperties") not in (False, None):
            notes.append(f"{path}: additionalProperties closed (strict mode allows none)")
        node["additionalProperties"] = False
    return node


def _nullable(prop: Any) -> Any:
    if not isinstance(prop, dict):
        return prop
    kind = prop.get("type")
    if isinstance(kind, str) and kind != "null":
        return {**prop, "type": [kind, "null"]}
    if isinstance(kind, list) and "null" not in kind:
        return {**prop, "type": [*kind, "null"]}
    if "anyOf" in prop and {"type": "null"} not in prop["anyOf"]:
        return {**prop, "anyOf": [*prop["anyOf"], {"type": "null"}]}
    if kind is None and "anyOf" not in prop:
        return {"anyOf": [prop, {"type": "null"}]}
    return prop


# --- Gemini ---------------------------------------------------------------------------

GEMINI_KEYWORDS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    }
)


def gemini_subset(schema: Schema, notes: Notes) -> Schema:
    """Gemini's OpenAPI-style subset: refs inlined, `const` as `enum`, type lists as
    `nullable`, everything else unsupported removed (and noted)."""
    inlined = inline_refs(schema, notes)
    result: Schema = _gemini_node(inlined, notes, "$")
    return result


def _gemini_node(node: Any, notes: Notes, path: str) -> Any:
    if isinstance(node, list):
        return [_gemini_node(item, notes, path) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "const":
            out["enum"] = [value]
            notes.append(f"{path}: const rewritten as enum")
        elif key == "oneOf":
            out["anyOf"] = _gemini_node(value, notes, path)
            notes.append(f"{path}: oneOf rewritten as anyOf")
        elif key == "type" and isinstance(value, list):
            kinds = [k for k in value if k != "null"]
            if "null" in value:
                out["nullable"] = True
            if len(kinds) == 1:
                out["type"] = kinds[0]
            else:
                out["anyOf"] = [{"type": k} for k in kinds]
                notes.append(f"{path}: type list rewritten as anyOf")
        elif key == "properties" and isinstance(value, dict):
            out[key] = {n: _gemini_node(v, notes, f"{path}.{n}") for n, v in value.items()}
        elif key in ("items", "anyOf"):
            out[key] = _gemini_node(value, notes, f"{path}[{key}]")
        elif key in GEMINI_KEYWORDS:
            out[key] = value
        elif key not in ("$schema", "$id", "$comment"):
            notes.append(f"{path}: dropped unsupported keyword {key!r}")
    if "anyOf" in out and {"type": "null"} in out["anyOf"]:
        out["anyOf"] = [s for s in out["anyOf"] if s != {"type": "null"}]
        out["nullable"] = True
        if len(out["anyOf"]) == 1:
            out.update(out.pop("anyOf")[0])
    if "enum" in out and "type" not in out:
        out["type"] = "string"
        out["enum"] = [str(v) for v in out["enum"]]
    return out
