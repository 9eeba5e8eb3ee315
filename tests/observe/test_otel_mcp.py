"""Spans of real MCP calls: they name their server, and the trace reaches the server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from returns.result import Success

from toolrail import ExecutionContext, Executor, ToolCall
from toolrail.mcp import McpHub, McpServerConfig
from toolrail.observe.otel import OtelSink

pytestmark = pytest.mark.anyio
CTX = ExecutionContext(agent="t", permissions=frozenset({"mcp:connect"}))
SERVER = McpServerConfig(
    name="calc",
    command=sys.executable,
    args=(str(Path(__file__).with_name("trace_server.py")),),
    timeout_s=10,
    stderr="discard",
)


def _span(exporter: InMemorySpanExporter, name: str) -> ReadableSpan:
    (span,) = [s for s in exporter.get_finished_spans() if s.name == name]
    return span


async def test_an_mcp_call_span_names_its_server_and_tool(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """With the hub, the span carries the server and the server's own tool name."""
    provider, exporter = spans
    async with McpHub([SERVER]) as hub:
        sink = OtelSink(provider, mcp=hub)
        executor = Executor(hub.registry, sinks=[sink])
        outcome = await executor.run(
            ToolCall(name="mcp__calc__add", arguments={"a": 2, "b": 3}), CTX
        )
        assert sink.flush()
    assert outcome.result == Success(5)
    attributes = dict(_span(exporter, "execute_tool mcp__calc__add").attributes or {})
    assert attributes["toolrail.mcp.server"] == "calc"
    assert attributes["toolrail.mcp.tool"] == "add"


async def test_without_the_hub_the_server_is_read_from_the_name(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """An OtelSink that was not given the hub still names the server."""
    provider, exporter = spans
    async with McpHub([SERVER]) as hub:
        sink = OtelSink(provider)
        executor = Executor(hub.registry, sinks=[sink])
        await executor.run(ToolCall(name="mcp__calc__add", arguments={"a": 1, "b": 1}), CTX)
        assert sink.flush()
    attributes = dict(_span(exporter, "execute_tool mcp__calc__add").attributes or {})
    assert attributes["toolrail.mcp.server"] == "calc"


async def test_trace_context_reaches_the_mcp_server(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """The request's `_meta.traceparent` (injected by the MCP SDK) names the tool's trace."""
    provider, exporter = spans
    async with McpHub([SERVER]) as hub:
        sink = OtelSink(provider, mcp=hub)
        executor = Executor(hub.registry, sinks=[sink])
        outcome = await executor.run(ToolCall(name="mcp__calc__traceparent"), CTX)
        assert sink.flush()
    traceparent = outcome.result.unwrap()
    assert isinstance(traceparent, str)
    version, trace_id, span_id, _flags = traceparent.split("-")
    span = _span(exporter, "execute_tool mcp__calc__traceparent")
    assert version == "00"
    assert int(trace_id, 16) == span.context.trace_id
    # with no global tracer provider the SDK's own client span passes our span through
    assert int(span_id, 16) == span.context.span_id
    assert trace.get_current_span() is trace.INVALID_SPAN  # nothing left attached
