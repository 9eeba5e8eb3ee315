"""The fidelity contract over the corpus, per tool x dialect x strict on/off: the export
keeps the provider's documented rules (and fits its SDK's types), and every argument object
generated from the exported schema is accepted by `Executor.run`, or the export report
names the lost constraint."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure

from toolrail import ExecutionContext, Executor, InvalidArguments, ToolCall, ToolRegistry
from toolrail.dialects import anthropic, gemini, openai
from toolrail.dialects.base import Dialect, Export
from toolrail.dialects.rules import ANTHROPIC_STRICT, GEMINI, OPENAI_STRICT, violations
from toolrail.dialects.schema import definitions
from toolrail.registry import AnyTool

from .corpus import CORPUS
from .generate import from_schema

pytestmark = pytest.mark.anyio
DIALECTS: dict[str, Dialect] = {
    "openai": openai.chat,
    "anthropic": anthropic.dialect,
    "gemini": gemini.dialect,
}


def test_the_corpus_is_big_enough() -> None:
    """At least 25 tool input models, raw MCP schemas among them."""
    assert len(CORPUS) >= 25
    assert len({t.name for t in CORPUS}) == len(CORPUS)


def exported(dialect: str, export: Export) -> list[tuple[dict[str, Any], bool]]:
    """Each tool's exported input schema (as JSON Schema) and whether it went out strict."""
    match dialect:
        case "openai":
            return [(t["function"]["parameters"], t["function"]["strict"]) for t in export.tools]
        case "anthropic":
            return [(t["input_schema"], bool(t.get("strict"))) for t in export.tools]
        case _:
            [holder] = export.tools
            return [(d["parameters"], False) for d in holder["function_declarations"]]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_exports_keep_the_documented_rules(dialect: str, strict: bool) -> None:
    """Every export obeys its provider's rules and validates against the SDK's own types."""
    export = DIALECTS[dialect].export_tools(CORPUS, strict=strict)
    for tool, (schema, is_strict) in zip(CORPUS, exported(dialect, export), strict=True):
        rules = {"openai": OPENAI_STRICT, "anthropic": ANTHROPIC_STRICT, "gemini": GEMINI}[dialect]
        if dialect == "gemini" or is_strict:
            assert violations(rules, schema) == [], tool.name
        else:
            assert schema["type"] == "object"
            notes = export.report.get(tool.name, ())
            assert not strict or any("strict off" in n for n in notes), tool.name
    _sdk_accepts(dialect, export)


def _sdk_accepts(dialect: str, export: Export) -> None:
    from pydantic import TypeAdapter

    if dialect == "openai":
        from openai.types.chat import ChatCompletionToolParam

        for item in export.tools:
            TypeAdapter(ChatCompletionToolParam).validate_python(item)
    elif dialect == "anthropic":
        from anthropic.types import ToolParam

        for item in export.tools:
            TypeAdapter(ToolParam).validate_python(item)
    else:
        from google.genai import types

        types.Tool.model_validate(export.tools[0])


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("dialect", list(DIALECTS))
@pytest.mark.parametrize("tool", CORPUS, ids=lambda t: t.name)
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
async def test_conforming_arguments_are_accepted(
    tool: AnyTool, dialect: str, strict: bool, data: st.DataObject
) -> None:
    """Arguments drawn from the exported schema, sent back as that provider's response:
    accepted with the same meaning, or rejected only where the report names a loss."""
    export = DIALECTS[dialect].export_tools([tool], strict=strict)
    [(schema, _)] = exported(dialect, export)
    arguments = data.draw(from_schema(generating(dialect, schema)), label="arguments")
    response = DIALECTS[dialect].response_from("", [ToolCall(name=tool.name, arguments=arguments)])
    [call] = DIALECTS[dialect].parse_tool_calls(response, export)
    outcome = await Executor(ToolRegistry([tool])).run(call, ExecutionContext())
    match outcome.result:
        case Failure(InvalidArguments(issues=issues)):
            losses = export.losses(tool.name)
            for issue in issues:
                field = re.split(r"[.\[]", issue.path.removeprefix("$."))[0]
                assert any(field in n or n.startswith(("$:", "$defs")) for n in losses), (
                    f"{tool.name}: {issue} not named in {losses}"
                )
        case Failure(error):
            raise AssertionError(error)
        case _:
            pass


def generating(dialect: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The exported schema as plain JSON Schema to generate from: Gemini's OpenAPI words
    translated, recursion unrolled twice then closed (generators take no recursive refs)."""
    plain = _from_openapi(schema) if dialect == "gemini" else schema
    unrolled: dict[str, Any] = _unroll(plain, definitions(plain), plain, {})
    return unrolled


def _from_openapi(node: Any) -> Any:
    if isinstance(node, list):
        return [_from_openapi(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {
        k: (
            {n: _from_openapi(v) for n, v in value.items()}
            if k == "properties"
            else _from_openapi(value)
        )
        for k, value in node.items()
        if k not in ("nullable", "propertyOrdering", "example")
        and not (k == "format" and value == "enum")
    }
    return {"anyOf": [out, {"type": "null"}]} if node.get("nullable") else out


def _unroll(node: Any, defs: dict[str, Any], root: Any, seen: dict[str, int]) -> Any:
    if isinstance(node, list):
        return [_unroll(n, defs, root, seen) for n in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if seen.get(ref, 0) >= 2:
            return {"not": {}}
        target = root if ref == "#" else defs[ref]
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return _unroll({**target, **siblings}, defs, root, {**seen, ref: seen.get(ref, 0) + 1})
    return {
        k: (
            {n: _unroll(v, defs, root, seen) for n, v in value.items()}
            if k == "properties"
            else _unroll(value, defs, root, seen)
        )
        for k, value in node.items()
        if k not in ("$defs", "definitions", "$schema")
    }
