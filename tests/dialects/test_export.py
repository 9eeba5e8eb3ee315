"""Exported schemas against each provider's documented constraints, on awkward schemas."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from returns.result import Failure, Success

from toolrail import (
    ExecutionContext,
    ParameterSchema,
    Result,
    TimedOut,
    Tool,
    ToolCall,
    ToolError,
    ToolOutcome,
    tool,
)
from toolrail.dialects import anthropic, gemini, openai
from toolrail.dialects.rules import GEMINI, OPENAI_STRICT, violations
from toolrail.registry import AnyTool


class Color(StrEnum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    city: str | None = None


class Node(BaseModel):
    """A recursive model."""

    value: int
    children: list[Node] = []


class Order(BaseModel):
    customer: str = Field(description="who ordered", min_length=1)
    color: Color = Color.RED
    kind: Literal["a", "b"] = "a"
    address: Address | None = None
    addresses: list[Address] = []
    tags: dict[str, int] = {}
    amount: int | float | str = 0
    pair: tuple[int, str] | None = None
    tree: Node | None = None


MCP_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "mode": {"const": "fast"},
        "target": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "options": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "patternProperties": {"^x-": {"type": "string"}},
        },
        "limit": {"type": ["integer", "null"], "default": 5, "minimum": 1},
        "ref": {"$ref": "#/definitions/Thing"},
    },
    "required": ["mode"],
    "additionalProperties": True,
    "definitions": {"Thing": {"type": "object", "properties": {"id": {"type": "string"}}}},
}


async def _noop(args: object, ctx: ExecutionContext) -> Result[object, ToolError]:
    return Success(None)


@tool
async def order(args: Order, ctx: ExecutionContext) -> Result[str, ToolError]:
    """Place an order."""
    return Success("ok")


@tool
async def tree(args: Node, ctx: ExecutionContext) -> Result[int, ToolError]:
    """Sum a tree."""
    return Success(args.value)


RAW = Tool(
    name="mcp__srv__search",
    description="Search (from an MCP server).",
    parameters=ParameterSchema.from_json_schema(MCP_SCHEMA),
    execute=_noop,
)
CORPUS: list[AnyTool] = [order, tree, RAW]


def walk(schema: Any) -> list[dict[str, Any]]:
    """Every schema object within a schema."""
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        found.append(schema)
        for key, value in schema.items():
            if key in ("properties", "$defs", "definitions", "patternProperties"):
                for sub in value.values():
                    found.extend(walk(sub))
            elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
                found.extend(walk(value))
            elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
                for sub in value:
                    found.extend(walk(sub))
    return found


def test_openai_strict_mode_rules() -> None:
    """Strict: what goes out strict keeps every documented rule; a tool strict mode cannot
    express (here: maps) goes out as declared with strict off, and the report says why."""
    export = openai.export_tools(CORPUS, strict=True)
    strict = {t["function"]["name"]: t["function"]["strict"] for t in export.tools}
    assert strict == {"order": False, "tree": True, "mcp__srv__search": False}
    for item in export.tools:
        function = item["function"]
        if function["strict"]:
            assert violations(OPENAI_STRICT, function["parameters"]) == []
        else:
            [reason] = export.report[function["name"]]
            assert "a map" in reason
            assert "strict off" in reason
    assert any("required and nullable" in n for n in export.report["tree"])


def test_openai_non_strict_keeps_the_schema() -> None:
    """Without strict, the schema goes out as the tool declares it."""
    [item] = openai.export_tools([order]).tools
    assert item == {
        "type": "function",
        "function": {
            "name": "order",
            "description": "Place an order.",
            "parameters": order.input_schema(),
            "strict": False,
        },
    }
    [flat] = openai.responses.export_tools([order]).tools
    assert flat["name"] == "order"
    assert flat["type"] == "function"


def test_gemini_subset() -> None:
    """Gemini: only its keywords, refs inlined (recursion cut), const as enum, nullable."""
    export = gemini.export_tools(CORPUS)
    [holder] = export.tools
    for declaration in holder["function_declarations"]:
        for node in walk(declaration["parameters"]):
            assert set(node) <= GEMINI.keywords, set(node) - GEMINI.keywords
            assert not isinstance(node.get("type"), list)
    search = holder["function_declarations"][2]["parameters"]["properties"]
    assert search["mode"] == {"enum": ["fast"], "type": "string", "format": "enum"}
    assert search["limit"]["nullable"] is True
    assert search["ref"]["properties"] == {"id": {"type": "string"}}
    assert any("recursive $ref" in n for n in export.report["tree"])
    assert any("lost additionalProperties" in n for n in export.report["order"])


def test_anthropic_input_schema() -> None:
    """Anthropic takes the schema as input_schema, an object schema."""
    export = anthropic.export_tools(CORPUS)
    assert [t["name"] for t in export.tools] == ["order", "tree", "mcp__srv__search"]
    for item in export.tools:
        assert item["input_schema"]["type"] == "object"
        assert "$schema" not in item["input_schema"]


def test_names_a_provider_would_reject_are_refused_when_the_tool_is_made() -> None:
    """Gemini wants a letter or underscore first: the rule is decided once, at Tool
    construction, so no provider's export (nor `Orchestrator.run`) meets such a name."""
    with pytest.raises(ValueError, match=r"invalid tool name '1tool'.*for example '_1tool'"):
        Tool(
            name="1tool",
            description="d",
            parameters=ParameterSchema.from_json_schema({"type": "object"}),
            execute=_noop,
        )

    @tool
    def code() -> str:
        """A code."""
        return "1"

    with pytest.raises(ValueError, match="invalid tool name '2fa_code'"):
        replace(code, name="2fa_code")


def outcome(result: Result[object, ToolError]) -> ToolOutcome:
    return ToolOutcome(
        call=ToolCall(name="lookup", arguments="{}", id="c1"),
        result=result,
        started_at=datetime.now(UTC),
        duration_ms=1,
    )


def test_format_tool_result_per_provider() -> None:
    """Successes as content; failures marked as errors the model can read."""
    ok, failed = outcome(Success({"t": 4})), outcome(Failure(TimedOut(message="slow", timeout_s=1)))
    assert openai.format_tool_result(ok) == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": '{"t":4}',
    }
    assert "Error (timed_out): slow" in openai.format_tool_result(failed)["content"]
    assert anthropic.format_tool_result(ok)["is_error"] is False
    assert anthropic.format_tool_result(failed)["is_error"] is True
    assert gemini.format_tool_result(ok)["function_response"]["response"] == {"output": {"t": 4}}
    assert "error" in gemini.format_tool_result(failed)["function_response"]["response"]


@pytest.mark.parametrize(
    "response",
    [
        {"choices": []},
        {"choices": [{"message": {"tool_calls": [{"function": {}}]}}]},
        {"choices": [{"message": {"tool_calls": "nonsense"}}]},
        {"output": [{"type": "function_call"}]},
        None,
        [1, 2],
        "not json at all",
        b"\x00\xff",
        '{"choices": [{"message": {"tool_calls": [{"id": 1, "function": {"name": 2}}]}}]}',
    ],
)
def test_parsers_survive_odd_shapes(response: Any) -> None:
    """Odd response shapes give calls with what could be read, or none, never a crash."""
    for dialect in (openai.chat, anthropic.dialect, gemini.dialect):
        calls = dialect.parse_tool_calls(response)
        assert all(isinstance(c, ToolCall) for c in calls)


RESPONSE_KEYS = st.sampled_from(
    [
        "choices",
        "message",
        "tool_calls",
        "function",
        "name",
        "arguments",
        "id",
        "output",
        "type",
        "function_call",
        "content",
        "input",
        "candidates",
        "parts",
        "functionCall",
        "args",
        "text",
        "call_id",
        "tool_use",
    ]
)
RESPONSES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8) | RESPONSE_KEYS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(RESPONSE_KEYS, children, max_size=4)
    ),
    max_leaves=25,
)


@given(RESPONSES)
def test_parsers_never_raise(response: Any) -> None:
    """Any shape that looks a little like a provider response: calls or none, never a crash."""
    for dialect in (openai.chat, openai.responses, anthropic.dialect, gemini.dialect):
        assert all(isinstance(c, ToolCall) for c in dialect.parse_tool_calls(response))
        assert isinstance(dialect.parse_text(response), str)
