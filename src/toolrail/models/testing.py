"""Models for tests that need no script, and a guard against real provider calls.

`TestModel` plays a model that uses its tools: on its first turn it calls every tool it is
shown (or the ones named in `call_tools`) with arguments made from each tool's input schema;
on its next turn it answers with the results as JSON text, which ends the agent's turn.
It speaks the OpenAI Chat dialect, like `ScriptedModel`, so its turns go through the same
parsing a provider's response does.

`block_provider_calls()` makes every provider model (`OpenAIChatModel`, `AnthropicModel`,
...) refuse to send a request while it lasts — a test that forgot to swap in a test model
fails instead of spending money.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import orjson

from toolrail.core.call import ToolCall
from toolrail.core.messages import ToolResults
from toolrail.dialects import openai
from toolrail.dialects.base import Dialect
from toolrail.models import providers
from toolrail.models.base import ModelRequest

__all__ = ["TestModel", "block_provider_calls", "example_arguments"]


class TestModel:
    """Calls its tools once with schema-made arguments, then answers with their results."""

    __test__ = False  # not a pytest test class, whatever its name says

    def __init__(self, *, call_tools: Sequence[str] | None = None, text: str | None = None) -> None:
        """`call_tools`: the tools to call (default: every tool shown); `text`: the final
        answer (default: the results as JSON)."""
        self.call_tools = None if call_tools is None else tuple(call_tools)
        self.text = text
        self.requests: list[ModelRequest] = []

    @property
    def dialect(self) -> Dialect:
        return openai.chat

    async def respond(self, request: ModelRequest) -> object:
        self.requests.append(request)
        results = [m for m in request.messages if isinstance(m, ToolResults)]
        if results and results[-1].agent == request.agent:
            outputs = {o.call.name: o.result.value_or(None) for m in results for o in m.outcomes}
            text = self.text if self.text is not None else _json(outputs)
            return openai.chat.response_from(text, [])
        calls = [
            ToolCall(
                id=f"call_{uuid.uuid4().hex[:12]}",
                name=name,
                arguments=_json(example_arguments(schema)),
            )
            for name, schema in _shown(request)
            if self.call_tools is None or name in self.call_tools
        ]
        return openai.chat.response_from("", calls)


def _shown(request: ModelRequest) -> list[tuple[str, Mapping[str, Any]]]:
    """Name and input schema of each tool in an OpenAI Chat export."""
    return [
        (tool["function"]["name"], tool["function"].get("parameters") or {})
        for tool in request.export.tools
        if isinstance(tool.get("function"), Mapping)
    ]


def example_arguments(schema: Mapping[str, Any]) -> Any:
    """A small value that satisfies common JSON Schema constraints: defaults, consts and
    enums first, then the type's plainest value within its bounds.

    >>> example_arguments({"type": "object", "properties": {"n": {"type": "integer",
    ...     "minimum": 3}, "tag": {"enum": ["x", "y"]}}, "required": ["n", "tag"]})
    {'n': 3, 'tag': 'x'}
    """
    return _example(schema, schema.get("$defs", {}), depth=0)


def _example(schema: Mapping[str, Any], defs: Mapping[str, Any], depth: int) -> Any:
    if depth > 8:
        return None
    if "$ref" in schema:
        target = defs.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
        return _example(
            {**target, **{k: v for k, v in schema.items() if k != "$ref"}}, defs, depth + 1
        )
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, ()) if o.get("type") != "null"]
        if options:
            return _example(options[0], defs, depth + 1)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    match kind:
        case "object":
            properties = schema.get("properties", {})
            return {
                name: _example(properties[name], defs, depth + 1)
                for name in schema.get("required", [])
                if name in properties
            }
        case "array":
            item = schema.get("items") or {}
            return [_example(item, defs, depth + 1) for _ in range(schema.get("minItems", 0))]
        case "string":
            return _string(schema)
        case "integer" | "number":
            if "minimum" in schema:
                low = schema["minimum"]
            elif "exclusiveMinimum" in schema:
                low = schema["exclusiveMinimum"] + 1
            else:
                low = min(0, schema.get("maximum", 0))
            return int(low) if kind == "integer" else float(low)
        case "boolean":
            return False
        case _:
            return None


def _string(schema: Mapping[str, Any]) -> str:
    formats = {
        "date": "2024-01-01",
        "date-time": "2024-01-01T00:00:00Z",
        "email": "a@example.com",
        "uri": "https://example.com",
        "uuid": "00000000-0000-0000-0000-000000000000",
    }
    text = formats.get(str(schema.get("format")), "a")
    return text.ljust(int(schema.get("minLength", 0)), "a")


def _json(value: object) -> str:
    return orjson.dumps(value, default=str).decode()


@contextmanager
def block_provider_calls() -> Iterator[None]:
    """While this lasts, provider models raise `ProviderCallsBlocked` instead of sending."""
    before = providers.ALLOW_PROVIDER_CALLS
    providers.ALLOW_PROVIDER_CALLS = False
    try:
        yield
    finally:
        providers.ALLOW_PROVIDER_CALLS = before
