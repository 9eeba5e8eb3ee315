"""Arguments written against an exported schema, read back in the tool's own terms.

An export may say a thing differently from the tool: OpenAI strict mode has every property
required and the optional ones nullable, so a `null` there means "absent, use the default";
Gemini's enums are strings, so `"1"` there means the integer `1`. `ArgumentMap` undoes
exactly those rewrites, guided by the tool's own schema, before the executor validates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from toolrail.core.call import RawArguments, ToolCall
from toolrail.dialects.openai_schema import accepts_null
from toolrail.dialects.schema import definitions, json_text

_MAX_DEPTH = 64


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentMap:
    """How one tool's exported schema differs from its own, in the ways that need undoing."""

    schema: Mapping[str, Any]
    """The tool's own input schema."""
    null_is_absent: bool = False
    """A `null` for an optional property that does not take null means "absent"."""
    enums_as_strings: bool = False
    """A string that is the JSON text of a non-string enum or const value means that value."""

    def read(self, call: ToolCall) -> ToolCall:
        """The call with its arguments in the tool's terms; unparseable ones stay as sent."""
        arguments = _as_object(call.arguments)
        if arguments is None:
            return call
        reader = _Reader(self, definitions(dict(self.schema)))
        fixed = reader.value(arguments, [dict(self.schema)], 0)
        if fixed == arguments:
            return call
        return ToolCall(id=call.id, name=call.name, arguments=fixed)


def _as_object(raw: RawArguments) -> dict[str, Any] | None:
    if isinstance(raw, Mapping):
        return dict(raw)
    if isinstance(raw, str | bytes) and raw.strip():
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None
    return None


@dataclass(frozen=True, slots=True)
class _Reader:
    rules: ArgumentMap
    defs: dict[str, Any]

    def views(
        self, schemas: list[Any], depth: int, value: Any = None, *, unions: bool = True
    ) -> list[dict[str, Any]]:
        """The schemas `value` meets: each one, its `$ref` target, its `allOf` members and
        the union members its own constants (a discriminator) leave possible."""
        out: list[dict[str, Any]] = []
        for schema in schemas:
            if not isinstance(schema, dict) or depth > _MAX_DEPTH:
                continue
            out.append(schema)
            ref = schema.get("$ref")
            if isinstance(ref, str):
                target = self.rules.schema if ref == "#" else self.defs.get(ref)
                out.extend(self.views([target], depth + 1, value, unions=unions))
            members = schema.get("allOf")
            if isinstance(members, list):
                out.extend(self.views(members, depth + 1, value, unions=unions))
            for key in ("anyOf", "oneOf"):
                members = schema.get(key)
                if unions and isinstance(members, list):
                    fitting = [m for m in members if self.fits(value, m, depth + 1)]
                    out.extend(self.views(fitting or members, depth + 1, value))
        return out

    def fits(self, value: Any, member: Any, depth: int) -> bool:
        """Whether an object could be this union member: no property it has is one the
        member fixes (`const`, `enum`) to other values."""
        if not isinstance(value, dict):
            return True
        for view in self.views([member], depth, value, unions=False):
            properties = view.get("properties")
            if not isinstance(properties, dict):
                continue
            for key, prop in properties.items():
                if key not in value:
                    continue
                fixed = [
                    v
                    for own in self.views([prop], depth + 1, unions=False)
                    if "enum" in own or "const" in own
                    for v in _allowed(own)
                ]
                if fixed and not any(self.same(value[key], v) for v in fixed):
                    return False
        return True

    def same(self, sent: Any, allowed: Any) -> bool:
        if sent == allowed and type(sent) is type(allowed):
            return True
        as_text = self.rules.enums_as_strings and isinstance(sent, str)
        return as_text and not isinstance(allowed, str) and json_text(allowed) == sent

    def value(self, value: Any, schemas: list[Any], depth: int) -> Any:
        views = self.views(schemas, depth, value)
        if isinstance(value, str) and self.rules.enums_as_strings:
            return self.enum_value(value, views)
        if isinstance(value, dict):
            return self.object(value, views, depth)
        if isinstance(value, list):
            return [
                self.value(item, self.item_schemas(views, index), depth + 1)
                for index, item in enumerate(value)
            ]
        return value

    def enum_value(self, text: str, views: list[dict[str, Any]]) -> Any:
        allowed = [v for view in views for v in _allowed(view)]
        if text in allowed:
            return text
        for candidate in allowed:
            if not isinstance(candidate, str) and json_text(candidate) == text:
                return candidate
        return text

    def object(self, value: dict[str, Any], views: list[dict[str, Any]], depth: int) -> Any:
        out: dict[str, Any] = {}
        for key, item in value.items():
            declared = [
                (view, view["properties"][key])
                for view in views
                if isinstance(view.get("properties"), dict) and key in view["properties"]
            ]
            if item is None and self.rules.null_is_absent and self.absent(key, declared):
                continue
            schemas: list[Any] = [prop for _, prop in declared]
            if not declared:
                schemas = [v["additionalProperties"] for v in views if "additionalProperties" in v]
            out[key] = self.value(item, schemas, depth + 1)
        return out

    def absent(self, key: str, declared: list[tuple[dict[str, Any], Any]]) -> bool:
        """Null means absent: some schema has the key optional and none lets null through."""
        optional = any(key not in view.get("required", ()) for view, _ in declared)
        return optional and not any(accepts_null(prop, self.defs) for _, prop in declared)

    def item_schemas(self, views: list[dict[str, Any]], index: int) -> list[Any]:
        out: list[Any] = []
        for view in views:
            prefix = view.get("prefixItems")
            if isinstance(prefix, list) and index < len(prefix):
                out.append(prefix[index])
            elif "items" in view:
                out.append(view["items"])
        return out


def _allowed(view: dict[str, Any]) -> list[Any]:
    values = view.get("enum")
    found = list(values) if isinstance(values, list) else []
    if "const" in view:
        found.append(view["const"])
    return found
