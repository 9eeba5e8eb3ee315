"""Calls that share a call id (models do repeat ids): each is its own span, and each ends
what it started in the metrics."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool
from toolrail.observe.metrics import PrometheusSink
from toolrail.observe.otel import OtelSink

pytestmark = pytest.mark.anyio

TICK_S = 0.05


@tool
async def slow(n: int) -> int:
    """Sleep n ticks, then answer n."""
    await asyncio.sleep(n * TICK_S)
    return n


async def _one_batch_two_calls_one_id(executor: Executor) -> None:
    """Two calls of one `run_many` batch with the id "call_1", the first started ending
    last."""
    calls = [ToolCall(name="slow", arguments={"n": n}, id="call_1") for n in (3, 1)]
    outcomes = await executor.run_many(calls, ExecutionContext())
    assert [o.result.unwrap() for o in outcomes] == [3, 1]


async def test_each_call_is_its_own_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """Two spans, each as long as its own call and each with its arguments (neither rebuilt
    as a refusal, as the second used to be, 0 s long)."""
    provider, exporter = spans
    otel = OtelSink(provider, record_content=True)
    await _one_batch_two_calls_one_id(Executor(ToolRegistry([slow]), sinks=[otel]))
    assert otel.flush()
    by_result = {
        str(dict(s.attributes or {}).get("gen_ai.tool.call.result")): s
        for s in exporter.get_finished_spans()
    }
    assert set(by_result) == {"3", "1"}
    for n in (3, 1):
        span = by_result[str(n)]
        assert span.start_time is not None
        assert span.end_time is not None
        lasted_s = (span.end_time - span.start_time) / 1e9
        assert lasted_s >= n * TICK_S * 0.9, (n, lasted_s)
        arguments = dict(span.attributes or {}).get("gen_ai.tool.call.arguments")
        assert arguments == f'{{"n":{n}}}'


async def test_each_call_ends_what_it_started_in_the_running_gauge() -> None:
    """`toolrail_tools_running` is back at 0 once both have ended (it used to stay at 1)."""
    prom = PrometheusSink()
    await _one_batch_two_calls_one_id(Executor(ToolRegistry([slow]), sinks=[prom]))
    assert prom.registry.get_sample_value("toolrail_tools_running") == 0
