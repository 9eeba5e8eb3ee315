"""Issue 11's defects, one test each: what toolrail exports a provider accepts, and what a
model sends back (against that export) toolrail accepts with the same meaning."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field
from returns.result import Failure, Success

from toolrail import (
    ExecutionContext,
    Executor,
    InvalidArguments,
    ParameterSchema,
    Result,
    Tool,
    ToolCall,
    ToolError,
    ToolOutcome,
    ToolRegistry,
    tool,
)
from toolrail.dialects import anthropic, gemini, openai
from toolrail.dialects.base import Export
from toolrail.dialects.rules import ANTHROPIC_STRICT, GEMINI, OPENAI_STRICT, violations
from toolrail.registry import AnyTool

pytestmark = pytest.mark.anyio


class Inner(BaseModel):
    label: str
    weight: float = 1.0


class Settings(BaseModel):
    n: int = 5
    name: str | None = None
    mode: Literal["fast", "slow"] = "fast"
    inner: Inner = Inner(label="x")


@tool
async def configure(args: Settings, ctx: ExecutionContext) -> Result[object, ToolError]:
    """Echo the settings it ran with."""
    return Success(args.model_dump())


async def _noop(args: object, ctx: ExecutionContext) -> Result[object, ToolError]:
    return Success(None)


async def run(t: AnyTool, call: ToolCall) -> Any:
    outcome = await Executor(ToolRegistry([t])).run(call, ExecutionContext())
    return outcome.result


def chat_response(name: str, arguments: str, finish: str = "tool_calls") -> dict[str, Any]:
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish}]}


async def test_strict_nulls_mean_absent() -> None:
    """Defect 1: strict mode makes `n: int = 5` nullable; the model's null must mean "use
    the default", not `$.n: Input should be a valid integer`."""
    export = openai.export_tools([configure], strict=True)
    parameters = export.tools[0]["function"]["parameters"]
    assert export.tools[0]["function"]["strict"] is True
    assert violations(OPENAI_STRICT, parameters) == []
    nulls = '{"n": null, "name": null, "mode": null, "inner": {"label": "y", "weight": null}}'
    [call] = openai.parse_tool_calls(chat_response("configure", nulls), export)
    assert await run(configure, call) == Success(
        {"n": 5, "name": None, "mode": "fast", "inner": {"label": "y", "weight": 1.0}}
    )
    # a null the tool itself takes keeps its meaning (None), it is not dropped
    assert call.arguments == {"name": None, "inner": {"label": "y"}}


class Tagged(BaseModel):
    tags: list[str] = Field(default_factory=list, max_length=3)
    pair: tuple[int, str] = (1, "a")


class Linked(BaseModel):
    """A $ref with a sibling description, a uri, a lookahead pattern, unique items."""

    home: Inner = Field(description="where it lives")
    url: str = Field(json_schema_extra={"format": "uri"})
    code: str = Field(json_schema_extra={"pattern": r"^(?=.*\d)[a-z0-9]+$"})
    ids: set[int]


@tool
async def tagged(args: Tagged, ctx: ExecutionContext) -> Result[object, ToolError]:
    """Tuples cannot be strict."""
    return Success("ok")


@tool
async def linked(args: Linked, ctx: ExecutionContext) -> Result[object, ToolError]:
    """Strict-hostile keywords."""
    return Success("ok")


def test_openai_strict_rules_are_kept_or_the_loss_is_reported() -> None:
    """Defect 2: `$ref` siblings, formats, lookaheads and uniqueItems are rewritten (and the
    loss named); what strict cannot say at all (prefixItems, untyped items, depth, size)
    sends the tool with strict off, and the report says why."""
    export = openai.export_tools([tagged, linked], strict=True)
    flat, kept = (t["function"] for t in export.tools)
    assert flat["strict"] is False
    assert flat["parameters"] == tagged.input_schema()
    assert any("prefixItems" in n and "strict off" in n for n in export.report["tagged"])
    assert kept["strict"] is True
    assert violations(OPENAI_STRICT, kept["parameters"]) == []
    home = kept["parameters"]["properties"]["home"]
    assert home["description"] == "where it lives"
    assert "$ref" not in home
    losses = " ".join(export.losses("linked"))
    for lost in ("format 'uri'", "pattern", "uniqueItems"):
        assert lost in losses
    wide = Tool(
        name="wide",
        description="d",
        parameters=ParameterSchema.from_json_schema(
            {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5001)}}
        ),
        execute=_noop,
    )
    deep_schema: dict[str, Any] = {"type": "string"}
    for _ in range(11):
        deep_schema = {"type": "object", "properties": {"x": deep_schema}, "required": ["x"]}
    deep = Tool(
        name="deep",
        description="d",
        parameters=ParameterSchema.from_json_schema(deep_schema),
        execute=_noop,
    )
    untyped = Tool(
        name="untyped",
        description="d",
        parameters=ParameterSchema.from_json_schema(
            {
                "type": "object",
                "properties": {
                    "xs": {"type": "array", "items": {}},
                    "both": {"allOf": [{"type": "string"}, {"minLength": 1}]},
                },
            }
        ),
        execute=_noop,
    )
    export = openai.export_tools([wide, deep, untyped], strict=True)
    assert [t["function"]["strict"] for t in export.tools] == [False, False, False]
    assert "5001 properties" in export.report["wide"][0]
    assert "11 levels" in export.report["deep"][0]
    assert "no type" in export.report["untyped"][0]


def test_anthropic_strict_follows_the_sdk_transform() -> None:
    """Defect 3: strict closes every object (in `$defs` too), moves unsupported keywords
    into the description and reports them; the result is what the SDK's own
    `transform_schema` makes of the same schema."""
    from anthropic.lib._parse._transform import transform_schema

    class Box(BaseModel):
        inner: Inner
        size: int = Field(ge=1, le=9)
        names: list[str] = Field(min_length=2)

    @tool
    async def box(args: Box, ctx: ExecutionContext) -> Result[object, ToolError]:
        """A box."""
        return Success("ok")

    export = anthropic.export_tools([box], strict=True)
    [item] = export.tools
    schema = item["input_schema"]
    assert item["strict"] is True
    assert violations(ANTHROPIC_STRICT, schema) == []
    assert schema["$defs"]["Inner"]["additionalProperties"] is False
    assert "minimum" not in str(schema["properties"]["size"].keys())
    assert {"minimum", "maximum", "minItems"} <= {
        n.split(" lost ")[1].split()[0] for n in export.losses("box")
    }
    assert _shape(schema) == _shape(transform_schema(box.input_schema()))


def _shape(schema: Any) -> Any:
    """A schema without descriptions (where the two place moved keywords differently)."""
    if isinstance(schema, dict):
        return {k: _shape(v) for k, v in schema.items() if k not in ("description", "title")}
    if isinstance(schema, list):
        return [_shape(v) for v in schema]
    return schema


class Picks(BaseModel):
    level: Literal[1, 2, 3]
    flag: Literal[True] = True
    size: Literal["s", 2] = "s"


@tool
async def picks(args: Picks, ctx: ExecutionContext) -> Result[object, ToolError]:
    """Literal values of several types."""
    return Success(args.model_dump())


async def test_gemini_enums_are_strings_and_read_back() -> None:
    """Defect 4: Gemini's enums are strings (google-genai refuses `enum: [1, 2]` before
    sending); the model's `"1"` means the integer 1 for this tool."""
    from google.genai import types

    export = gemini.export_tools([picks])
    [declaration] = export.tools[0]["function_declarations"]
    types.FunctionDeclaration.model_validate(declaration)  # the SDK's own type accepts it
    assert violations(GEMINI, declaration["parameters"]) == []
    level = declaration["parameters"]["properties"]["level"]
    assert level["enum"] == ["1", "2", "3"]
    assert level["type"] == "string"
    response = gemini.dialect.response_from("", [])
    response["candidates"][0]["content"]["parts"] = [
        {"functionCall": {"name": "picks", "args": {"level": "2", "flag": "true", "size": "2"}}}
    ]
    [call] = gemini.dialect.parse_tool_calls(response, export)
    assert await run(picks, call) == Success({"level": 2, "flag": True, "size": 2})


async def test_gemini_reports_what_it_cannot_carry() -> None:
    """Defect 4: recursion and tuples do not fit Gemini's subset; conforming arguments the
    tool then rejects are named in the report as lost constraints."""
    export = gemini.export_tools([tagged])
    [declaration] = export.tools[0]["function_declarations"]
    pair = declaration["parameters"]["properties"]["pair"]
    assert pair["type"] == "array"
    assert "items" in pair
    assert any("prefixItems" in n for n in export.losses("tagged"))
    [call] = gemini.dialect.parse_tool_calls(
        {"candidates": [{"content": {"parts": [{"functionCall": {
            "name": "tagged", "args": {"pair": ["a", 1]}}}]}}]},
        export,
    )  # fmt: skip
    result = await run(tagged, call)
    assert isinstance(result, Failure)
    assert isinstance(result.failure(), InvalidArguments)


def test_chat_custom_tool_call_keeps_its_name() -> None:
    """Defect 7: an OpenAI `custom` tool call is a call to that tool, not one with no name."""
    response = chat_response("x", "{}")
    response["choices"][0]["message"]["tool_calls"] = [
        {"id": "call_9", "type": "custom", "custom": {"name": "grep", "input": "foo *.py"}}
    ]
    [call] = openai.parse_tool_calls(response)
    assert (call.name, call.arguments) == ("grep", "foo *.py")
    item = {"type": "custom_tool_call", "call_id": "c", "name": "grep", "input": "x"}
    output = {"output": [item]}
    assert [c.name for c in openai.responses.parse_tool_calls(output)] == ["grep"]


def test_gemini_ids_are_stable() -> None:
    """Defect 7: a call without an id gets the same id on every parse of one response,
    different ones for different calls."""
    part = {"functionCall": {"name": "lookup", "args": {"city": "Oslo"}}}
    response = {"candidates": [{"content": {"parts": [part, part]}}], "responseId": "r1"}
    first = gemini.parse_tool_calls(response)
    assert [c.id for c in first] == [c.id for c in gemini.parse_tool_calls(response)]
    assert first[0].id != first[1].id
    # the made-up id is not sent back as if Gemini had given it
    done = ToolOutcome(
        call=first[0], result=Success("ok"), started_at=datetime.now(UTC), duration_ms=1
    )
    assert "id" not in gemini.format_tool_result(done)["function_response"]


def test_empty_success_gives_no_empty_anthropic_text_block() -> None:
    """Defect 8: `Success("")` is a tool_result without content, not an empty text block
    (which the API refuses)."""
    done = ToolOutcome(
        call=ToolCall(name="t", id="toolu_1"),
        result=Success(""),
        started_at=datetime.now(UTC),
        duration_ms=1,
    )
    block = anthropic.format_tool_result(done)
    assert block == {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": False}
    from anthropic.types import ToolResultBlockParam
    from pydantic import TypeAdapter

    TypeAdapter(ToolResultBlockParam).validate_python(block)


@pytest.mark.parametrize(
    ("dialect", "response"),
    [
        (openai.chat, chat_response("configure", '{"n": 3, "name": "ab', finish="length")),
        (
            openai.responses,
            {
                "status": "incomplete",
                "incomplete_details": {"reason": "max_output_tokens"},
                "output": [
                    {
                        "type": "function_call",
                        "call_id": "c1",
                        "name": "configure",
                        "arguments": '{"n": 3',
                        "status": "incomplete",
                    }
                ],
            },
        ),
        (
            anthropic.dialect,
            {
                "stop_reason": "max_tokens",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "configure", "input": {"n": 3}}
                ],
            },
        ),
        (  # a streamed text block that opened and got no text after the cut call
            anthropic.dialect,
            {
                "stop_reason": "max_tokens",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "configure", "input": {"n": 3}},
                    {"type": "text", "text": ""},
                ],
            },
        ),
        (
            gemini.dialect,
            {
                "candidates": [
                    {
                        "finishReason": "MAX_TOKENS",
                        "content": {
                            "parts": [{"functionCall": {"name": "configure", "args": {"n": 3}}}]
                        },
                    }
                ]
            },
        ),
    ],
)
async def test_a_cut_off_call_never_runs(dialect: Any, response: dict[str, Any]) -> None:
    """Defect 6: a call the token limit cut (even one whose input parses, as the Anthropic
    SDK completes a prefix) goes back to the model as InvalidArguments, saying why."""
    [call] = dialect.parse_tool_calls(response, Export([]))
    assert "cut off" in str(call.arguments)
    result = await run(configure, call)
    assert isinstance(result, Failure)
    assert isinstance(result.failure(), InvalidArguments)


class PickA(BaseModel):
    kind: Literal["a"]
    x: int = 7


class PickB(BaseModel):
    kind: Literal["b"]
    x: int | None = None


class Picking(BaseModel):
    pick: PickA | PickB = Field(discriminator="kind")
    m: int | None = 5


@tool
async def picking(args: Picking, ctx: ExecutionContext) -> Result[object, ToolError]:
    """Echo the pick."""
    return Success(args.model_dump())


async def test_strict_nulls_are_read_per_union_member() -> None:
    """A null inside a union member means what that member says (B's x takes null, A's
    does not); a default behind a null the tool takes is unreachable, a reported loss."""
    export = openai.export_tools([picking], strict=True)
    sent = '{"pick": {"kind": "a", "x": null}, "m": null}'
    [call] = openai.parse_tool_calls(chat_response("picking", sent), export)
    assert await run(picking, call) == Success({"pick": {"kind": "a", "x": 7}, "m": None})
    sent = '{"pick": {"kind": "b", "x": null}, "m": 1}'
    [call] = openai.parse_tool_calls(chat_response("picking", sent), export)
    assert await run(picking, call) == Success({"pick": {"kind": "b", "x": None}, "m": 1})
    assert any("$.m" in loss and "5" in loss for loss in export.losses("picking"))


def _strict_report(schema: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    async def echo(args: object, ctx: ExecutionContext) -> Result[object, ToolError]:
        return Success(args)

    t = Tool(
        name="t", description="t", parameters=ParameterSchema.from_json_schema(schema), execute=echo
    )
    export = openai.export_tools([t], strict=True)
    return export.tools[0]["function"], export.losses("t")


@pytest.mark.parametrize(
    ("prop", "defs", "keyword"),
    [
        ({"$ref": "#/$defs/N", "maximum": 3}, {"N": {"type": "integer"}}, "maximum"),
        (
            {"$ref": "#/$defs/T", "maxItems": 2},
            {"T": {"type": "array", "items": {"$ref": "#/$defs/T"}}},
            "maxItems",
        ),
    ],
)
def test_openai_strict_keeps_a_ref_sibling_or_reports_it_lost(
    prop: dict[str, Any], defs: dict[str, Any], keyword: str
) -> None:
    """A constraint beside a `$ref` is kept on the inlined target, or (beside a recursive
    one, where strict takes nothing) named in `losses()`."""
    schema = {"type": "object", "properties": {"p": prop}, "required": ["p"], "$defs": defs}
    function, losses = _strict_report(schema)
    assert function["strict"] is True
    kept = function["parameters"]["properties"]["p"].get(keyword) == prop[keyword]
    assert kept or any(keyword in loss for loss in losses)
    assert violations(OPENAI_STRICT, function["parameters"]) == []


@pytest.mark.parametrize("pattern", [r"^(a)\1$", r"^(?P<x>a)(?P=x)$"])
def test_openai_strict_reports_backreferences(pattern: str) -> None:
    """Backreferences, `\\1` and Python's `(?P=name)` alike, are reported lost."""
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}
    function, losses = _strict_report(schema)
    assert "pattern" not in function["parameters"]["properties"]["s"]
    assert any("pattern" in loss for loss in losses)


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "string", "enum": [f"{i:03d}" + "v" * 57 for i in range(300)]},
        {"type": "object", "properties": {f"p{i}": {"const": "x" * 400} for i in range(400)}},
    ],
)
def test_openai_strict_size_limits_count_enums_and_consts(prop: dict[str, Any]) -> None:
    """Over 250 enum values of more than 15,000 characters, and const values past the
    120,000 characters, are past strict mode's limits: sent with strict off, and said."""
    schema = {"type": "object", "properties": {"p": prop}, "required": ["p"]}
    function, _ = _strict_report(schema)
    assert function["strict"] is False


def test_anthropic_strict_reports_a_ref_sibling_lost() -> None:
    """A constraint beside a `$ref` (dropped, as the SDK's transform drops it) is named in
    `losses()`."""

    async def echo(args: object, ctx: ExecutionContext) -> Result[object, ToolError]:
        return Success(args)

    schema = {
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/N", "maximum": 3, "description": "how many"}},
        "required": ["n"],
        "$defs": {"N": {"type": "integer"}},
    }
    t = Tool(
        name="t", description="t", parameters=ParameterSchema.from_json_schema(schema), execute=echo
    )
    export = anthropic.export_tools([t], strict=True)
    assert export.tools[0]["strict"] is True
    [loss] = export.losses("t")
    assert "maximum 3" in loss


def _gemini(prop: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    async def echo(args: object, ctx: ExecutionContext) -> Result[object, ToolError]:
        return Success(args)

    schema = {"type": "object", "properties": {"p": prop}, "required": ["p"]}
    t = Tool(
        name="t", description="t", parameters=ParameterSchema.from_json_schema(schema), execute=echo
    )
    export = gemini.export_tools([t])
    [declaration] = export.tools[0]["function_declarations"]
    assert violations(GEMINI, declaration["parameters"]) == []
    return declaration["parameters"]["properties"]["p"], export.losses("t")


@pytest.mark.parametrize(
    ("prop", "lost_word"),
    [
        ({"enum": ["1", 1]}, "1 (sent"),  # two values, one string: the integer is unreachable
        ({"anyOf": [{"enum": [1, 2]}, {"type": "string"}]}, "'1'"),  # "1" reads back as 1
        ({"anyOf": [{"const": True}, {"enum": ["true", "x"]}]}, "'true'"),
        ({"type": "number", "exclusiveMinimum": 0}, "exclusiveMinimum"),
        ({"type": ["number", "null"], "exclusiveMaximum": 9}, "exclusiveMaximum"),
        ({"type": ["string", "null"], "format": "uri"}, "format"),
    ],
)
def test_gemini_reports_ambiguous_enums_and_dropped_keywords(
    prop: dict[str, Any], lost_word: str
) -> None:
    """Values that become the same string, and keywords the subset drops, are losses."""
    _, losses = _gemini(prop)
    assert any(lost_word in loss for loss in losses), losses


def test_gemini_integer_exclusive_bounds_keep_the_tighter_one() -> None:
    """An integer's exclusiveMinimum beside a looser minimum becomes the minimum."""
    exported, _ = _gemini({"type": "integer", "exclusiveMinimum": 4, "minimum": 0})
    assert exported["minimum"] == 5
    exported, _ = _gemini({"type": "integer", "minimum": 7, "exclusiveMinimum": 4})
    assert exported["minimum"] == 7
    exported, losses = _gemini({"type": ["integer", "null"], "exclusiveMaximum": 9})
    assert (exported["maximum"], losses) == (8, ())
