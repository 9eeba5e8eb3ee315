"""JSON Schema pieces the provider rewrites share.

Each rewrite returns a new schema and notes on what it changed or could not express, so
an export can report per tool instead of silently sending something else. A note that
starts `"<path>: lost "` names a constraint the provider will not enforce: arguments the
model sends may then fail the tool's own validation, and the model reads why.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

Schema = dict[str, Any]
Notes = list[str]

LOST = ": lost "
"""What marks a note as a lost constraint (see the module docstring)."""

_MAX_DEPTH = 32


def lost(notes: Notes, path: str, what: str) -> None:
    """Note a constraint the provider will not enforce."""
    notes.append(f"{path}{LOST}{what}")


def changed(notes: Notes, path: str, what: str) -> None:
    """Note a rewrite that keeps the meaning."""
    notes.append(f"{path}: {what}")


def definitions(schema: Schema) -> dict[str, Any]:
    """Local definitions by their `$ref` (`#/$defs/X`, `#/definitions/X`)."""
    found: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        table = schema.get(key)
        if isinstance(table, dict):
            found.update({f"#/{key}/{name}": value for name, value in table.items()})
    return found


def recursive_refs(schema: Schema) -> frozenset[str]:
    """The local `$ref`s that reach themselves again (directly or through others)."""
    defs = definitions(schema)
    recursive: set[str] = set()

    def refs_in(node: Any) -> set[str]:
        if isinstance(node, list):
            return {r for item in node for r in refs_in(item)}
        if not isinstance(node, dict):
            return set()
        own = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        return own | {
            r for k, v in node.items() if k not in ("$defs", "definitions") for r in refs_in(v)
        }

    for ref, target in defs.items():
        seen: set[str] = set()
        todo = list(refs_in(target))
        while todo:
            current = todo.pop()
            if current == ref:
                recursive.add(ref)
                break
            if current in seen or current not in defs:
                continue
            seen.add(current)
            todo.extend(refs_in(defs[current]))
    if "#" in refs_in(schema):
        recursive.add("#")
    return frozenset(recursive)


def inline_refs(schema: Schema, notes: Notes) -> Schema:
    """Replace local `$ref`s with their targets; recursive ones are cut to a plain object."""
    defs = definitions(schema)

    def walk(node: Any, stack: tuple[str, ...], path: str) -> Any:
        if isinstance(node, list):
            return [walk(item, stack, path) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in stack or len(stack) > _MAX_DEPTH:
                lost(notes, path, f"recursive $ref {ref} (cut to a plain object)")
                return {"type": "object", **_keep(node, ("description",))}
            if ref not in defs:
                lost(notes, path, f"unresolvable $ref {ref} (any value)")
                return _keep(node, ("description",))
            target = walk(defs[ref], (*stack, ref), path)
            extra = {k: v for k, v in node.items() if k != "$ref"}
            return {**target, **walk(extra, stack, path)} if extra else target
        out: Schema = {}
        for key, value in node.items():
            if key in ("$defs", "definitions"):
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {n: walk(v, stack, f"{path}.{n}") for n, v in value.items()}
            else:
                out[key] = walk(value, stack, path)
        return out

    inlined: Schema = walk(schema, (), "$")
    return inlined


def _keep(node: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: node[k] for k in keys if k in node}


def describe(node: Schema, moved: dict[str, Any]) -> None:
    """Move keywords a provider cannot enforce into the description, as the anthropic SDK's
    `transform_schema` does, so the model may still follow them."""
    if not moved:
        return
    text = ", ".join(f"{k}: {orjson.dumps(v).decode()}" for k, v in moved.items())
    before = node.get("description")
    node["description"] = f"{before}\n\n{{{text}}}" if before else f"{{{text}}}"


def json_text(value: object) -> str:
    """A primitive as the JSON text a provider's string enum carries (`1` → "1")."""
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def merge_all_of(members: list[Any], defs: dict[str, Any]) -> Schema | None:
    """`allOf` object members merged into one object schema, or None if they do not merge
    cleanly (something other than objects, or a property declared twice)."""
    merged: Schema = {"type": "object", "properties": {}, "required": []}
    for member in members:
        target = defs.get(member.get("$ref", "")) if isinstance(member, dict) else None
        part = copy.deepcopy(target if target is not None else member)
        if not isinstance(part, dict) or part.get("type", "object") != "object":
            return None
        for name, prop in part.get("properties", {}).items():
            if name in merged["properties"]:
                return None
            merged["properties"][name] = prop
        merged["required"].extend(part.get("required", []))
        for key, value in part.items():
            if key not in ("type", "properties", "required", "title"):
                if key in merged and merged[key] != value:
                    return None
                merged[key] = value
    return merged
