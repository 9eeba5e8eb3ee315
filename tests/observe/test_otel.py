"""Spans from real calls, read back through the OTel SDK's in-memory exporter."""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool
from toolrail.observe.otel import OtelSink

pytestmark = pytest.mark.anyio


@tool
def login(user: str, password: str) -> str:
    """Log a user in."""
    return f"welcome {user}, token=sk-abcdefghijklmnopqrstuvwxyz123456"


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


async def test_a_call_is_an_execute_tool_span_under_the_current_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([divide]), sinks=[sink])
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("invoke_agent planner") as parent:
        await executor.run(
            ToolCall(id="c1", name="divide", arguments={"a": 6, "b": 3}),
            ExecutionContext(agent="planner", conversation_id="conv-1"),
        )
    assert sink.flush()  # tool spans are built just after their calls, off the call path
    finished = {s.name: s for s in exporter.get_finished_spans()}
    span = finished["execute_tool divide"]
    assert span.parent is not None
    assert span.parent.span_id == parent.get_span_context().span_id
    assert span.kind is trace.SpanKind.INTERNAL
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["gen_ai.tool.name"] == "divide"
    assert attributes["gen_ai.tool.call.id"] == "c1"
    assert attributes["gen_ai.conversation.id"] == "conv-1"
    assert attributes["gen_ai.agent.name"] == "planner"
    assert "gen_ai.tool.call.arguments" not in attributes  # content is opt-in
    assert span.status.status_code is not StatusCode.ERROR


async def test_failures_and_refusals_are_error_spans_with_their_kind(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([divide]), sinks=[sink])
    ctx = ExecutionContext()
    await executor.run(ToolCall(id="z", name="divide", arguments={"a": 1, "b": 0}), ctx)
    await executor.run(ToolCall(id="u", name="dvide", arguments={}), ctx)
    await executor.run(ToolCall(id="v", name="divide", arguments={"a": "x"}), ctx)
    assert sink.flush()
    by_id = {
        dict(s.attributes or {})["gen_ai.tool.call.id"]: s for s in exporter.get_finished_spans()
    }
    assert {k: dict(s.attributes or {})["error.type"] for k, s in by_id.items()} == {
        "z": "execution_failed",
        "u": "unknown_tool",
        "v": "invalid_arguments",
    }
    assert all(s.status.status_code is StatusCode.ERROR for s in by_id.values())


async def test_content_is_recorded_only_when_asked_and_redacted(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    sink = OtelSink(provider, record_content=True)
    executor = Executor(ToolRegistry([login]), sinks=[sink])
    await executor.run(
        ToolCall(name="login", arguments={"user": "ada", "password": "hunter2-secret"}),
        ExecutionContext(),
    )
    assert sink.flush()
    (span,) = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    arguments = str(attributes["gen_ai.tool.call.arguments"])
    assert "ada" in arguments
    assert "hunter2-secret" not in arguments
    assert "sk-abcdefghijklmnopqrstuvwxyz123456" not in str(attributes["gen_ai.tool.call.result"])


@tool
async def outer(x: int, ctx: ExecutionContext[Executor]) -> int:
    """Calls divide through the same executor, as a tool that uses tools does."""
    executor = ctx.deps
    inner = await executor.run(ToolCall(id="in", name="divide", arguments={"a": x, "b": 1}), ctx)
    value = inner.result.unwrap()
    assert isinstance(value, float)
    return int(value)


async def test_a_call_made_inside_a_call_is_a_child_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """The running call's span is current: a nested call's span is its child."""
    provider, exporter = spans
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([outer, divide]), sinks=[sink])
    outcome = await executor.run(
        ToolCall(id="out", name="outer", arguments={"x": 4}), ExecutionContext(deps=executor)
    )
    assert sink.flush()
    assert outcome.result.unwrap() == 4
    finished = {s.name: s for s in exporter.get_finished_spans()}
    child, parent = finished["execute_tool divide"], finished["execute_tool outer"]
    assert child.parent is not None
    assert child.parent.span_id == parent.context.span_id
    assert trace.get_current_span() is trace.INVALID_SPAN  # nothing left attached
