"""Tool spans are built off the call path, after the call, with the ids it ran under."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import (
    Decision,
    ParentBased,
    Sampler,
    SamplingResult,
    TraceIdRatioBased,
)
from opentelemetry.util.types import Attributes
from returns.result import Success

from tests.held_writers import EndedContexts, hold
from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool
from toolrail.observe.otel import OtelSink

from .conftest import recording_provider

pytestmark = pytest.mark.anyio

SEEN: list[trace.SpanContext] = []


@tool
async def traced(steps: int, ctx: ExecutionContext[TracerProvider | None]) -> str:
    """Note the span context it runs under, report progress, and make a span of its own."""
    SEEN.append(trace.get_current_span().get_span_context())
    for step in range(steps):
        ctx.report_progress(step + 1, steps)
    with trace.get_tracer("the-tool", tracer_provider=ctx.deps).start_as_current_span(
        "tool's own work"
    ):
        await asyncio.sleep(0)
    return "done"


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    SEEN.clear()
    yield
    SEEN.clear()


def _by_name(exporter: InMemorySpanExporter) -> dict[str, ReadableSpan]:
    return {s.name: s for s in exporter.get_finished_spans()}


async def test_the_tool_runs_under_the_ids_of_its_exported_span() -> None:
    """What the tool saw as its span is the span exported; its own span is that one's child."""
    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter)
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([traced]), sinks=[sink])
    outcome = await executor.run(
        ToolCall(name="traced", arguments={"steps": 2}), ExecutionContext(deps=provider)
    )
    assert outcome.result == Success("done")
    assert sink.flush()
    spans = _by_name(exporter)
    tool_span, own = spans["execute_tool traced"], spans["tool's own work"]
    (seen,) = SEEN
    assert tool_span.context is not None
    assert (seen.trace_id, seen.span_id) == (tool_span.context.trace_id, tool_span.context.span_id)
    assert seen.trace_flags.sampled
    assert tool_span.context.trace_flags.sampled
    assert tool_span.parent is None  # a root: its trace id came from the tracer's generator
    assert own.parent is not None
    assert own.parent.span_id == tool_span.context.span_id
    assert own.context is not None
    assert own.context.trace_id == tool_span.context.trace_id
    # back-dated to the call: it encloses the tool's own span, and its progress events
    assert tool_span.start_time is not None
    assert tool_span.end_time is not None
    assert own.start_time is not None
    assert own.end_time is not None
    assert tool_span.start_time <= own.start_time <= own.end_time <= tool_span.end_time
    progress = [e for e in tool_span.events if e.name == "progress"]
    assert [dict(e.attributes or {}) for e in progress] == [
        {"progress": 1, "total": 2},
        {"progress": 2, "total": 2},
    ]
    assert all(tool_span.start_time <= e.timestamp <= tool_span.end_time for e in progress)
    # the provider's own tracer for the scope is left as it was
    assert provider.get_tracer("toolrail").id_generator is provider.id_generator  # type: ignore[attr-defined]
    assert tool_span.instrumentation_scope is not None
    assert tool_span.instrumentation_scope.name == "toolrail"
    assert trace.get_current_span() is trace.INVALID_SPAN  # nothing left attached
    provider.shutdown()


CTX = ExecutionContext(agent="t")


async def test_an_unsampled_call_is_no_span_and_tells_its_children_so() -> None:
    """ParentBased(TraceIdRatioBased(0)): no tool span, the tool's context is not sampled,
    and so its own span is not recorded either."""
    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter, sampler=ParentBased(TraceIdRatioBased(0.0)))
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([traced]), sinks=[sink])
    outcome = await executor.run(
        ToolCall(name="traced", arguments={"steps": 1}), ExecutionContext(deps=provider)
    )
    assert outcome.result == Success("done")
    assert sink.flush()
    assert exporter.get_finished_spans() == ()  # neither the call's span nor the tool's own
    (seen,) = SEEN
    assert seen.is_valid
    assert not seen.trace_flags.sampled
    provider.shutdown()


async def test_a_sampled_parent_is_followed_by_a_parent_based_sampler() -> None:
    """Under a sampled remote parent, ParentBased(ratio 0) samples the call: it is exported
    in the parent's trace, as the parent's child."""
    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter, sampler=ParentBased(TraceIdRatioBased(0.0)))
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([traced]), sinks=[sink])
    remote = trace.SpanContext(
        0x1234, 0x5678, is_remote=True, trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED)
    )
    token = otel_context.attach(trace.set_span_in_context(trace.NonRecordingSpan(remote)))
    try:
        await executor.run(
            ToolCall(name="traced", arguments={"steps": 0}), ExecutionContext(deps=provider)
        )
    finally:
        otel_context.detach(token)
    assert sink.flush()
    spans = _by_name(exporter)
    tool_span = spans["execute_tool traced"]
    assert dict(tool_span.attributes or {})["gen_ai.tool.name"] == "traced"
    assert spans["tool's own work"].parent == tool_span.context
    assert tool_span.parent is not None
    assert (tool_span.parent.trace_id, tool_span.parent.span_id) == (0x1234, 0x5678)
    assert tool_span.context is not None
    (seen,) = SEEN
    assert seen.trace_flags.sampled
    assert (seen.trace_id, seen.span_id) == (0x1234, tool_span.context.span_id)
    provider.shutdown()


@tool
def noop(n: int) -> int:
    """Hand n back."""
    return n


async def test_flush_loses_nothing_from_many_concurrent_calls() -> None:
    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter)
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([noop]), sinks=[sink])
    for _ in range(3):
        await asyncio.gather(
            *(executor.run(ToolCall(name="noop", arguments={"n": n}), CTX) for n in range(100))
        )
    assert sink.flush()
    spans = exporter.get_finished_spans()
    assert len(spans) == 300
    assert len({s.context.span_id for s in spans if s.context is not None}) == 300
    sink.close()
    provider.shutdown()


def test_spans_still_queued_at_exit_are_built_then(tmp_path: Path) -> None:
    """A program that ends straight after its calls still exports every tool span, though
    its exporter is slower than its calls (without the exit flush most would be lost)."""
    script = tmp_path / "ends_at_once.py"
    script.write_text(
        textwrap.dedent(
            """
            import asyncio, sys, time
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
            from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool
            from toolrail.observe.otel import OtelSink

            @tool
            def noop(n: int) -> int:
                "Hand n back."
                return n

            provider = TracerProvider()
            def slowly(span):  # a slow exporter: the writer is still busy at the end
                time.sleep(0.001)
                return span.name + "\\n"

            provider.add_span_processor(
                SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stdout, formatter=slowly))
            )
            executor = Executor(ToolRegistry([noop]), sinks=[OtelSink(provider)])

            async def main() -> None:
                for n in range(200):
                    await executor.run(ToolCall(name="noop", arguments={"n": n}),
                                       ExecutionContext())

            asyncio.run(main())
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.splitlines() == ["execute_tool noop"] * 200


class Raising(SpanProcessor):
    """A span processor that fails at the start or at the end of every span."""

    def __init__(self, at: str) -> None:
        self.at = at

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        if self.at == "start":
            raise RuntimeError("processor broke at start")

    def on_end(self, span: ReadableSpan) -> None:
        if self.at == "end":
            raise RuntimeError("processor broke at end")


@pytest.mark.parametrize("at", ["start", "end"])
async def test_a_raising_processor_never_breaks_a_call(
    at: str, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter)
    provider.add_span_processor(Raising(at))
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([noop]), sinks=[sink])
    with caplog.at_level(logging.WARNING, logger="toolrail"):
        for n in range(3):
            outcome = await executor.run(ToolCall(name="noop", arguments={"n": n}), CTX)
            assert outcome.result == Success(n)
        assert sink.flush()  # the writer lives on after a failure
    warnings = [r for r in caplog.records if r.name == "toolrail.observe.otel"]
    assert len(warnings) == 3
    assert all("could not build a tool span" in r.getMessage() for r in warnings)
    assert f"processor broke at {at}" in warnings[0].getMessage()
    assert capsys.readouterr().out == ""
    if at == "end":  # processors before the raising one still had the spans
        assert len(exporter.get_finished_spans()) == 3
    provider.shutdown()


async def test_with_a_tracer_that_is_not_the_sdks_spans_are_made_on_the_call_path() -> None:
    """The API's no-op provider: calls run as before, nothing is queued."""
    sink = OtelSink(trace.NoOpTracerProvider())
    executor = Executor(ToolRegistry([traced]), sinks=[sink])
    outcome = await executor.run(ToolCall(name="traced", arguments={"steps": 1}), CTX)
    assert outcome.result == Success("done")
    assert sink.flush(timeout=0)
    (seen,) = SEEN
    assert not seen.is_valid


class Marking(Sampler):
    """Samples everything and marks each span with an attribute of its own."""

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: trace.SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[trace.Link] | None = None,
        trace_state: trace.TraceState | None = None,
    ) -> SamplingResult:
        marked = {**(attributes or {}), "sampler.mark": name}
        return SamplingResult(Decision.RECORD_AND_SAMPLE, marked, None)

    def get_description(self) -> str:
        return "marking"


class AtStart(SpanProcessor):
    """Notes each span's attributes as its processors first see it."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[str, object]] = {}

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.seen[str(dict(span.attributes or {})["gen_ai.tool.call.id"])] = dict(
            span.attributes or {}
        )


@tool
def halve(n: int) -> int:
    """Half of an even n."""
    if n % 2:
        raise ValueError("odd")
    return n // 2


@pytest.mark.parametrize("sampler", [None, Marking()], ids=["default", "a sampler's own"])
async def test_a_span_starts_with_every_attribute_it_ends_with(sampler: Sampler | None) -> None:
    """Built after the call, a tool span is given all its attributes when it starts (the
    sampler's own among them): a processor's `on_start` sees what is exported."""
    exporter = InMemorySpanExporter()
    provider = (
        recording_provider(exporter)
        if sampler is None
        else recording_provider(exporter, sampler=sampler)
    )
    at_start = AtStart()
    provider.add_span_processor(at_start)
    sink = OtelSink(provider, record_content=True)
    executor = Executor(ToolRegistry([halve]), sinks=[sink])
    for n in (4, 3):
        await executor.run(ToolCall(id=f"c{n}", name="halve", arguments={"n": n}), CTX)
    assert sink.flush()
    spans = {
        str(dict(s.attributes or {})["gen_ai.tool.call.id"]): s
        for s in exporter.get_finished_spans()
    }
    ok, failed = dict(spans["c4"].attributes or {}), dict(spans["c3"].attributes or {})
    assert ok["gen_ai.tool.call.result"] == "2"
    assert ok["toolrail.attempts"] == 1
    assert "error.type" not in ok
    assert failed["error.type"] == "execution_failed"
    assert failed["gen_ai.tool.call.arguments"] == '{"n":3}'
    assert "gen_ai.tool.call.result" not in failed
    assert spans["c3"].status.status_code is trace.StatusCode.ERROR
    if sampler is not None:
        assert ok["sampler.mark"] == failed["sampler.mark"] == "execute_tool halve"
    assert at_start.seen == {"c4": ok, "c3": failed}
    provider.shutdown()


async def test_a_queued_span_keeps_the_calls_ids_not_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While a span waits for the writer, the call's context (with its progress reporter)
    and events are free to go; the span is built from what was kept, as before."""
    exporter = InMemorySpanExporter()
    sink = OtelSink(recording_provider(exporter))
    hold(sink._writer, monkeypatch)
    ended = EndedContexts()
    executor = Executor(ToolRegistry([traced]), sinks=[sink, ended])
    ctx = ExecutionContext(agent="a")
    await executor.run(ToolCall(id="c1", name="traced", arguments={"steps": "x"}), ctx)
    await executor.run(ToolCall(id="c2", name="no_such_tool", arguments={}), ctx)
    assert len(sink._writer._queue) == len(ended) == 2
    assert exporter.get_finished_spans() == ()
    assert ended.alive() == []
    assert sink.flush(timeout=10)
    refused, unknown = exporter.get_finished_spans()
    assert refused.name == "execute_tool traced"
    assert refused.attributes is not None
    assert refused.attributes["error.type"] == "invalid_arguments"
    assert unknown.name == "execute_tool no_such_tool"
    assert unknown.attributes is not None
    assert unknown.attributes["gen_ai.tool.call.id"] == "c2"
