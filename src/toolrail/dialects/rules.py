"""Each provider's documented rules for tool input schemas, written down once.

The exports follow them, the tests check every export against them (`violations`), and
the README's table of what each provider keeps is generated from the exports they shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Rules:
    """What one provider accepts in a tool's input schema."""

    provider: str
    keywords: frozenset[str]
    """Keywords a schema node may carry."""
    formats: frozenset[str]
    """The `format` values it accepts."""
    closed_objects: bool = False
    """Every object has `additionalProperties: false`."""
    all_required: bool = False
    """Every property is listed in `required`."""
    string_enums: bool = False
    """`enum` values are strings."""
    min_items: frozenset[int] | None = None
    """The only `minItems` values allowed (None: any)."""
    typed: bool = False
    """Every node says what it is: `type`, `anyOf`, `enum`, `const` or `$ref`."""


# OpenAI structured outputs, "Supported schemas":
# https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
# (string: pattern, format; number: multipleOf, maximum, exclusiveMaximum, minimum,
# exclusiveMinimum; array: minItems, maxItems; all fields required, additionalProperties
# false, root an object, at most 5000 properties and 10 levels of nesting, 1000 enum
# values, 120,000 characters of names, enum and const values, 15,000 characters in one
# enum of more than 250 values; regexes without lookaround or
# backreferences (pydantic-ai's OpenAIJsonSchemaTransformer treats them the same way)).
OPENAI_STRICT = Rules(
    provider="openai (strict)",
    keywords=frozenset(
        {
            "type",
            "description",
            "title",
            "enum",
            "const",
            "anyOf",
            "$ref",
            "$defs",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "pattern",
            "format",
            "multipleOf",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
            "minItems",
            "maxItems",
        }
    ),
    formats=frozenset(
        {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
    ),
    closed_objects=True,
    all_required=True,
    typed=True,
)

# Anthropic strict tool use: what the anthropic SDK's own `transform_schema`
# (anthropic/lib/_parse/_transform.py) keeps; all else goes into the description.
# https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs
ANTHROPIC_STRICT = Rules(
    provider="anthropic (strict)",
    keywords=frozenset(
        {
            "type",
            "description",
            "title",
            "enum",
            "const",
            "anyOf",
            "allOf",
            "$ref",
            "$defs",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "format",
            "minItems",
        }
    ),
    formats=frozenset(
        {
            "date-time",
            "time",
            "date",
            "duration",
            "email",
            "hostname",
            "uri",
            "ipv4",
            "ipv6",
            "uuid",
        }
    ),
    closed_objects=True,
    min_items=frozenset({0, 1}),
    typed=True,
)

# Gemini function declarations, the `Schema` object (an OpenAPI 3.0 subset):
# https://ai.google.dev/api/caching#Schema ; google-genai's `types.Schema.enum` is
# `list[str]`; string formats: "enum" and "date-time" only.
GEMINI = Rules(
    provider="gemini",
    keywords=frozenset(
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
    ),
    formats=frozenset({"enum", "date-time", "float", "double", "int32", "int64"}),
    string_enums=True,
)


@dataclass(frozen=True, slots=True)
class OpenAILimits:
    """OpenAI strict mode's size limits (same source as `OPENAI_STRICT`)."""

    properties: int = 5000
    depth: int = 10
    enum_values: int = 1000
    characters: int = 120_000
    large_enum: int = 250
    large_enum_characters: int = 15_000


def openai_limit_breaches(schema: dict[str, Any], limits: OpenAILimits) -> list[str]:
    """The size limits a strict schema goes past."""
    properties = enum_values = characters = 0
    found: list[str] = []
    for node in nodes(schema):
        names = node.get("properties")
        if isinstance(names, dict):
            properties += len(names)
            characters += sum(len(n) for n in names)
        values = node.get("enum")
        if isinstance(values, list):
            enum_values += len(values)
            text = sum(len(v) for v in values if isinstance(v, str))
            characters += text
            if len(values) > limits.large_enum and text > limits.large_enum_characters:
                found.append(
                    f"an enum of {len(values)} values with {text} characters (at most "
                    f"{limits.large_enum_characters} past {limits.large_enum} values)"
                )
        if isinstance(node.get("const"), str):
            characters += len(node["const"])
    if properties > limits.properties:
        found.append(f"{properties} properties (at most {limits.properties})")
    if (depth := nesting(schema)) > limits.depth:
        found.append(f"{depth} levels of nesting (at most {limits.depth})")
    if enum_values > limits.enum_values:
        found.append(f"{enum_values} enum values (at most {limits.enum_values})")
    if characters > limits.characters:
        found.append(f"{characters} characters of names, enum and const values")
    return found


def nesting(node: Any) -> int:
    """Levels of nested objects (not following `$ref`)."""
    if not isinstance(node, dict):
        return 0
    below = max((nesting(child) for child in children(node)), default=0)
    return below + (1 if node.get("type") == "object" or "properties" in node else 0)


def children(node: dict[str, Any]) -> Iterator[Any]:
    """The schemas directly inside a schema node."""
    for key, value in node.items():
        if key in ("properties", "$defs", "definitions", "patternProperties"):
            if isinstance(value, dict):
                yield from value.values()
        elif key in ("items", "additionalProperties", "not", "contains") and isinstance(
            value, dict
        ):
            yield value
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            yield from value


def nodes(schema: Any) -> Iterator[dict[str, Any]]:
    """Every schema node within a schema, the root first."""
    if isinstance(schema, dict):
        yield schema
        for child in children(schema):
            yield from nodes(child)


def violations(rules: Rules, schema: dict[str, Any]) -> list[str]:
    """Where a schema breaks a provider's rules; empty when it keeps all of them."""
    found: list[str] = []
    if schema.get("type") != "object":
        found.append("the root is not an object")
    for node in nodes(schema):
        extra = set(node) - rules.keywords
        if extra:
            found.append(f"unsupported keywords {sorted(extra)} in {node}")
        is_object = node.get("type") == "object" or "properties" in node
        if rules.closed_objects and is_object and node.get("additionalProperties") is not False:
            found.append(f"an object not closed: {node}")
        required = set(node.get("required", []))
        if rules.all_required and is_object and required != set(node.get("properties", {})):
            found.append(f"properties not all required: {node}")
        fmt = node.get("format")
        if fmt is not None and fmt not in rules.formats:
            found.append(f"format {fmt!r} in {node}")
        if rules.string_enums and not all(isinstance(v, str) for v in node.get("enum", [])):
            found.append(f"enum values not all strings: {node}")
        if rules.min_items is not None and node.get("minItems", 0) not in rules.min_items:
            found.append(f"minItems {node['minItems']}")
        if rules.typed and not ({"type", "anyOf", "allOf", "enum", "const", "$ref"} & set(node)):
            found.append(f"a node without a type: {node}")
        if isinstance(node.get("type"), list) and rules is GEMINI:
            found.append(f"a type list: {node}")
    if rules is OPENAI_STRICT:
        found.extend(openai_limit_breaches(schema, OpenAILimits()))
    return found
