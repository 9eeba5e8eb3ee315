"""OpenAI strict mode: a tool's schema rewritten to the structured-outputs subset, or refused.

What a rewrite cannot keep goes into the description (as pydantic-ai and the anthropic SDK
do) and is noted as lost; what it cannot express at all (tuples, maps, untyped values,
schemas past the size limits) makes the tool not strict-compatible, and the export sends
it with strict off instead. The rules: see `toolrail.dialects.rules.OPENAI_STRICT`.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from toolrail.dialects.rules import OPENAI_STRICT, OpenAILimits, openai_limit_breaches
from toolrail.dialects.schema import (
    Notes,
    Schema,
    changed,
    definitions,
    describe,
    lost,
    merge_all_of,
    recursive_refs,
)

_STRUCTURE = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "prefixItems"}
    | {"anyOf", "oneOf", "allOf", "enum", "const"}
)
"""Keywords that shape a value rather than constrain it: never merged beside a `$ref`."""
_QUIET = ("$schema", "$id", "$comment", "examples", "deprecated", "readOnly", "writeOnly")
_UNSUPPORTED_PATTERN = re.compile(r"\(\?<?[=!]|\(\?P=|\\[1-9]|\\k<")


class NotStrict(Exception):
    """The schema has something strict mode cannot express."""


def openai_strict(schema: Schema, notes: Notes) -> Schema | None:
    """The schema in strict form (every object closed, every property required, optional
    ones nullable), or None if strict mode cannot express it (the reason is noted)."""
    before = len(notes)
    try:
        if schema.get("type") != "object":
            raise NotStrict("$: the root is not an object")
        rewriter = _Strict(schema, notes)
        out: Schema = rewriter.node(copy.deepcopy(schema), "$", root=True)
        done: dict[str, Any] = {}
        while len(done) < len(rewriter.defs_used):  # a definition may use further ones
            for name, target in list(rewriter.defs_used.items()):
                if name not in done:
                    done[name] = rewriter.node(copy.deepcopy(target), f"$defs.{name}")
        if done:
            out["$defs"] = done
        breaches = openai_limit_breaches(out, OpenAILimits())
        if breaches:
            raise NotStrict("; ".join(breaches))
    except NotStrict as why:
        del notes[before:]  # the schema goes out as declared: only the reason stands
        notes.append(f"not strict-compatible ({why}); sent with strict off")
        return None
    return out


class _Strict:
    def __init__(self, schema: Schema, notes: Notes) -> None:
        self.defs = definitions(schema)
        self.recursive = recursive_refs(schema)
        self.notes = notes
        self.defs_used: dict[str, Any] = {}

    def node(self, node: Any, path: str, *, root: bool = False) -> Schema:
        if not isinstance(node, dict) or not node:
            raise NotStrict(f"{path}: any value (no type)")
        node = {k: v for k, v in node.items() if k not in (*_QUIET, "$defs", "definitions")}
        moved: dict[str, Any] = {}
        if "default" in node:
            moved["default"] = node.pop("default")
            changed(self.notes, path, "default moved into the description")
        if "discriminator" in node:
            node.pop("discriminator")
        for key in tuple(node):
            if key not in OPENAI_STRICT.keywords and key not in ("oneOf", "allOf", "prefixItems"):
                moved[key] = node.pop(key)
                lost(self.notes, path, f"{key} {moved[key]!r} (moved into the description)")
        fmt = node.get("format")
        if fmt is not None and fmt not in OPENAI_STRICT.formats:
            moved["format"] = node.pop("format")
            lost(self.notes, path, f"format {fmt!r} (moved into the description)")
        pattern = node.get("pattern")
        if isinstance(pattern, str) and _UNSUPPORTED_PATTERN.search(pattern):
            moved["pattern"] = node.pop("pattern")
            lost(self.notes, path, f"pattern {pattern!r} (lookaround or backreference)")
        if "prefixItems" in node:
            raise NotStrict(f"{path}: prefixItems (a tuple)")
        if "$ref" in node:
            return self._ref(node, moved, path)
        if "oneOf" in node:
            node["anyOf"] = node.pop("oneOf")
            changed(self.notes, path, "oneOf sent as anyOf")
        if "allOf" in node:
            node = self._all_of(node, path)
            if "$ref" in node:
                return self._ref(node, moved, path)
        kind = node.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"]
            if len(kinds) > 1:
                node.pop("type")
                node["anyOf"] = [{"type": k} for k in kinds] + (
                    [{"type": "null"}] if "null" in kind else []
                )
                changed(self.notes, path, "type list sent as anyOf")
        if not ({"type", "anyOf", "enum", "const"} & set(node)):
            raise NotStrict(f"{path}: any value (no type)")
        if "anyOf" in node:
            node["anyOf"] = [self.node(m, f"{path}|{i}") for i, m in enumerate(node["anyOf"])]
        if node.get("type") == "array" or (
            isinstance(node.get("type"), list) and "array" in node["type"]
        ):
            node["items"] = self.node(node.get("items"), f"{path}[]")
        if node.get("type") == "object" or "properties" in node:
            self._object(node, path, root=root)
        describe(node, moved)
        out: Schema = node
        return out

    def _ref(self, node: Schema, moved: dict[str, Any], path: str) -> Schema:
        ref = node["$ref"]
        if ref != "#" and ref not in self.defs:
            raise NotStrict(f"{path}: $ref {ref} is not a local definition")
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if ref == "#" or ref in self.recursive:
            if ref != "#":
                self.defs_used[ref.rsplit("/", 1)[-1]] = self.defs[ref]
            for key, value in siblings.items():  # strict takes nothing beside a $ref
                note = changed if key in ("description", "title") else lost
                note(self.notes, path, f"{key} {value!r} beside the recursive $ref (dropped)")
            if moved:
                changed(self.notes, path, f"keywords beside the recursive $ref {ref} dropped")
            return {"$ref": ref if ref == "#" else f"#/$defs/{ref.rsplit('/', 1)[-1]}"}
        # strict mode takes no keywords beside $ref: a non-recursive target is inlined and
        # a constraint beside it goes onto the target (both apply), if the target has none
        target = self.node(copy.deepcopy(self.defs[ref]), path)
        for key, value in siblings.items():
            if key in ("description", "title") or key not in _STRUCTURE | target.keys():
                target[key] = value
            elif target.get(key) != value:
                lost(self.notes, path, f"{key} {value!r} beside the $ref {ref} (dropped)")
        describe(target, moved)
        return target

    def _all_of(self, node: Schema, path: str) -> Schema:
        members = node.pop("allOf")
        if not isinstance(members, list) or not members:
            raise NotStrict(f"{path}: empty allOf")
        if len(members) == 1 and isinstance(members[0], dict):
            return {**members[0], **node}
        merged = merge_all_of(members, self.defs)
        if merged is None:
            raise NotStrict(f"{path}: allOf whose members do not merge into one object")
        changed(self.notes, path, "allOf merged into one object")
        return {**merged, **node}

    def _object(self, node: Schema, path: str, *, root: bool) -> None:
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties")
        if not properties and (extra not in (None, False) or not root):
            raise NotStrict(f"{path}: an object with free keys (a map)")
        if extra not in (None, False):
            changed(self.notes, path, "additionalProperties closed (strict allows none)")
        required = set(node.get("required", []))
        out: dict[str, Any] = {}
        for name, prop in properties.items():
            sub = self.node(prop, f"{path}.{name}")
            if name not in required and _unreachable_default(prop, self.defs):
                lost(
                    self.notes,
                    f"{path}.{name}",
                    f"default {prop['default']!r} (a null means None here, so the model "
                    "cannot ask for the default)",
                )
            if name not in required:
                sub = nullable(sub)
                changed(self.notes, f"{path}.{name}", "optional: required and nullable")
            out[name] = sub
        node["properties"] = out
        node["required"] = list(out)
        node["additionalProperties"] = False


def _unreachable_default(prop: Any, defs: dict[str, Any]) -> bool:
    """An optional property that takes null and defaults to something else: strict mode
    makes it required, and its null is None, so nothing asks for the default."""
    return isinstance(prop, dict) and prop.get("default") is not None and accepts_null(prop, defs)


def nullable(prop: Schema) -> Schema:
    """`prop` or null; a null is read back as "absent" (see `ArgumentMap`)."""
    if accepts_null(prop):
        return prop
    kind = prop.get("type")
    plain = not ({"enum", "const", "$ref", "anyOf"} & set(prop))
    if isinstance(kind, str) and plain:
        return {**prop, "type": [kind, "null"]}
    if isinstance(kind, list) and plain:
        return {**prop, "type": [*kind, "null"]}
    if "anyOf" in prop:
        return {**prop, "anyOf": [*prop["anyOf"], {"type": "null"}]}
    inner = {k: v for k, v in prop.items() if k != "description"}
    out: Schema = {"anyOf": [inner, {"type": "null"}]}
    if "description" in prop:
        out["description"] = prop["description"]
    return out


def accepts_null(prop: Any, defs: dict[str, Any] | None = None, depth: int = 0) -> bool:
    """Whether a schema lets null through (unconstrained ones do)."""
    if not isinstance(prop, dict) or depth > 16:
        return prop is True
    ref = prop.get("$ref")
    if isinstance(ref, str) and defs is not None and ref in defs:
        return accepts_null(defs[ref], defs, depth + 1)
    kind = prop.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "enum" in prop:
        return None in prop["enum"]
    if "const" in prop:
        return prop["const"] is None
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return any(accepts_null(m, defs, depth + 1) for m in prop[key])
    if "allOf" in prop:
        return all(accepts_null(m, defs, depth + 1) for m in prop["allOf"])
    return kind is None and "$ref" not in prop
