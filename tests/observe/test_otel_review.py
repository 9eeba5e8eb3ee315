"""Defects an outside review found in the OTel sink: progress kept without bound, two sinks
leaving a tool span current, and a call in flight when the global tracer provider is set."""

from __future__ import annotations

import anyio
import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.util._once import Once

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool
from toolrail.observe.otel import OtelSink

from .conftest import recording_provider

pytestmark = pytest.mark.anyio

DEADLINE_S = 10.0


@tool
def busy(reports: int, ctx: ExecutionContext) -> str:
    """Report progress `reports` times."""
    for step in range(1, reports + 1):
        ctx.report_progress(step, reports)
    return "done"


@tool
def ping() -> str:
    """Answer at once."""
    return "pong"


@tool
async def held(ctx: ExecutionContext[tuple[anyio.Event, anyio.Event]]) -> str:
    """Say it started, wait to be released, then report progress."""
    started, release = ctx.deps
    started.set()
    await release.wait()
    ctx.report_progress(1, 1)
    return "done"


def _call_id(span: ReadableSpan) -> object:
    return dict(span.attributes or {}).get("gen_ai.tool.call.id")


def _parent(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent else None


def _progress(span: ReadableSpan) -> list[object]:
    return [dict(e.attributes or {})["progress"] for e in span.events if e.name == "progress"]


@pytest.mark.parametrize(("limit", "kept"), [(10, 10), (None, 128)])
async def test_progress_is_kept_as_the_span_keeps_events(limit: int | None, kept: int) -> None:
    """A call reporting more progress than its span holds events keeps the first reports
    and the latest, and says how many it left out (the provider's limit, else 128)."""
    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter, span_limits=SpanLimits(max_events=limit))
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([busy]), sinks=[sink])
    await executor.run(ToolCall(name="busy", arguments={"reports": 1000}), ExecutionContext())
    assert sink.flush()
    [span] = exporter.get_finished_spans()
    assert _progress(span) == [*map(float, range(1, kept)), 1000.0]
    assert dict(span.attributes or {})["toolrail.progress.dropped"] == 1000 - kept
    provider.shutdown()


async def test_progress_under_an_unlimited_provider_is_kept_whole() -> None:
    """A provider that sets no event limit at all keeps every report (up to a bound)."""
    exporter = InMemorySpanExporter()
    unlimited = SpanLimits(max_events=SpanLimits.UNSET)
    provider = recording_provider(exporter, span_limits=unlimited)
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([busy]), sinks=[sink])
    await executor.run(ToolCall(name="busy", arguments={"reports": 500}), ExecutionContext())
    assert sink.flush()
    [span] = exporter.get_finished_spans()
    assert _progress(span) == [float(n) for n in range(1, 501)]
    assert "toolrail.progress.dropped" not in dict(span.attributes or {})
    provider.shutdown()


async def test_progress_within_the_limit_drops_nothing(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """Under the limit every report is an event, and no count of dropped ones is added."""
    provider, exporter = spans
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([busy]), sinks=[sink])
    await executor.run(ToolCall(name="busy", arguments={"reports": 3}), ExecutionContext())
    assert sink.flush()
    [span] = exporter.get_finished_spans()
    assert _progress(span) == [1.0, 2.0, 3.0]
    assert "toolrail.progress.dropped" not in dict(span.attributes or {})


@pytest.mark.parametrize("order", [(0, 1), (1, 0), (0, 1, 2), (2, 0, 1)])
async def test_several_sinks_leave_the_callers_span_current(order: tuple[int, ...]) -> None:
    """Sinks attach their contexts in order and end in the same order: after each call,
    in any order of sinks, the caller's span is current again, so the next call and the
    application's next span are its children, not a tool span's."""
    exporters = [InMemorySpanExporter() for _ in order]
    providers = [recording_provider(e) for e in exporters]
    sinks = [OtelSink(p, record_content=i == 0) for i, p in enumerate(providers)]
    executor = Executor(ToolRegistry([ping]), sinks=[sinks[i] for i in order])
    app = providers[0].get_tracer("app")
    with app.start_as_current_span("request") as request:
        before = otel_context.get_current()
        for call_id in ("a", "b"):
            await executor.run(ToolCall(id=call_id, name="ping"), ExecutionContext())
            assert otel_context.get_current() is before
        with app.start_as_current_span("app work"):
            pass
    assert trace.get_current_span() is trace.INVALID_SPAN
    assert all(sink.flush() for sink in sinks)
    finished = [s for e in exporters for s in e.get_finished_spans()]
    calls = {_call_id(s): s for s in exporters[order[0]].get_finished_spans()}
    request_id = request.get_span_context().span_id
    assert _parent(calls["a"]) == _parent(calls["b"]) == request_id  # the first sink's
    a_ids = {s.context.span_id for s in finished if _call_id(s) == "a"}
    assert not any(_parent(s) in a_ids for s in finished if _call_id(s) == "b")
    [work] = [s for s in finished if s.name == "app work"]
    assert _parent(work) == request_id
    for provider in providers:
        provider.shutdown()


@pytest.mark.parametrize("sdk_first", [True, False])
async def test_a_sink_ending_spans_on_the_call_path_restores_the_context_too(
    spans: tuple[TracerProvider, InMemorySpanExporter], sdk_first: bool
) -> None:
    """Beside a sink with a tracer that is not the SDK's (spans made on the call path), the
    caller's context is current again after each call, in either order."""
    provider, exporter = spans
    sdk, other = OtelSink(provider), OtelSink(trace.NoOpTracerProvider())
    executor = Executor(ToolRegistry([ping]), sinks=[sdk, other] if sdk_first else [other, sdk])
    with provider.get_tracer("app").start_as_current_span("request") as request:
        before = otel_context.get_current()
        for call_id in ("a", "b"):
            await executor.run(ToolCall(id=call_id, name="ping"), ExecutionContext())
            assert otel_context.get_current() is before
    assert sdk.flush()
    parents = {_call_id(s): _parent(s) for s in exporter.get_finished_spans()}
    assert parents["a"] == parents["b"]  # under the other sink's span when it came first
    if sdk_first:
        assert parents["a"] == request.get_span_context().span_id


@pytest.fixture
def no_global_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """No global tracer provider yet, and one may be set (put back after the test)."""
    monkeypatch.delenv("OTEL_PYTHON_TRACER_PROVIDER", raising=False)
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", None)
    monkeypatch.setattr(trace, "_TRACER_PROVIDER_SET_ONCE", Once())


@pytest.mark.usefixtures("no_global_provider")
async def test_a_call_running_when_the_global_provider_is_set_ends_as_it_started() -> None:
    """A call started before the application set its tracer provider ends on the path it
    started on: no zero-length span without a parent for it, and its context detached;
    calls after it are spans of the new provider."""
    started, release = anyio.Event(), anyio.Event()
    sink = OtelSink()  # made before the application sets up OpenTelemetry
    executor = Executor(ToolRegistry([held, ping]), sinks=[sink])
    restored: list[bool] = []

    async def held_call() -> None:
        before = otel_context.get_current()
        ctx = ExecutionContext(deps=(started, release))
        await executor.run(ToolCall(id="early", name="held"), ctx)
        restored.append(otel_context.get_current() is before)

    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter)
    with anyio.fail_after(DEADLINE_S):
        async with anyio.create_task_group() as group:
            group.start_soon(held_call)
            await started.wait()
            trace.set_tracer_provider(provider)
            await executor.run(ToolCall(id="late", name="ping"), ExecutionContext())
            release.set()
    assert restored == [True]  # the early call's context is no longer current
    assert sink.flush()
    assert [_call_id(s) for s in exporter.get_finished_spans()] == ["late"]
    provider.shutdown()
