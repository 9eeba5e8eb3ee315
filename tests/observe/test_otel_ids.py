"""The ids and sampling a call is given on its path are the ones the SDK's `start_span` would
give it: under the default sampler (decided without calling it), with the SDK's own
`RandomIdGenerator` (drawn from `random` directly) or any other id generator, for a root and
under parents that change from one call to the next."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool
from toolrail.observe.otel import OtelSink

from .conftest import recording_provider

pytestmark = pytest.mark.anyio

SEEN: list[trace.SpanContext] = []


@tool
async def seen(n: int) -> int:
    """Note the span context the call runs under."""
    SEEN.append(trace.get_current_span().get_span_context())
    return n


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    SEEN.clear()
    yield
    SEEN.clear()


def _remote(trace_id: int, span_id: int, flags: int, state: str = "") -> otel_context.Context:
    parent = trace.SpanContext(
        trace_id,
        span_id,
        is_remote=True,
        trace_flags=trace.TraceFlags(flags),
        trace_state=trace.TraceState.from_header([state]) if state else None,
    )
    return trace.set_span_in_context(trace.NonRecordingSpan(parent))


async def _call(executor: Executor, n: int, under: otel_context.Context | None = None) -> None:
    token = otel_context.attach(under) if under is not None else None
    try:
        call = ToolCall(id=f"c{n}", name="seen", arguments={"n": n})
        await executor.run(call, ExecutionContext())
    finally:
        if token is not None:
            otel_context.detach(token)


def _tool_spans(exporter: InMemorySpanExporter) -> dict[str, ReadableSpan]:
    spans = exporter.get_finished_spans()
    return {dict(s.attributes or {})["gen_ai.tool.call.id"]: s for s in spans}  # type: ignore[misc]


async def test_parents_changing_between_calls_are_each_followed() -> None:
    """Root, sampled parent A, unsampled parent B, A again (the same context object), B's
    trace state, root again: each call is the child its parent's context says, under the
    default sampler (ParentBased(ALWAYS_ON)), which is never asked on the call path."""
    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter)
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([seen]), sinks=[sink])
    sampled = trace.TraceFlags.SAMPLED | trace.TraceFlags.RANDOM_TRACE_ID
    a = _remote(0xA1, 0xA2, sampled, "vendor=a")
    b = _remote(0xB1, 0xB2, trace.TraceFlags.DEFAULT, "vendor=b")
    await _call(executor, 1)
    await _call(executor, 2, a)
    await _call(executor, 3, b)
    await _call(executor, 4, a)
    await _call(executor, 5, a)
    await _call(executor, 6)
    assert sink.flush()
    spans = _tool_spans(exporter)
    assert sorted(spans) == ["c1", "c2", "c4", "c5", "c6"]  # c3's parent is not sampled
    one, two, three, four, five, six = SEEN
    # roots: a trace of their own each, flagged as the SDK flags its own roots
    root_flags = provider.get_tracer("t").start_span("root").get_span_context().trace_flags
    for root, call_id in ((one, "c1"), (six, "c6")):
        assert spans[call_id].parent is None
        assert root.trace_flags == root_flags
        assert root.trace_id not in (0xA1, 0xB1)
    assert one.trace_id != six.trace_id
    # under A: A's trace, flags and trace state; A's span the parent; a span id each
    for child, call_id in ((two, "c2"), (four, "c4"), (five, "c5")):
        span = spans[call_id]
        assert span.parent is not None
        assert (span.parent.trace_id, span.parent.span_id) == (0xA1, 0xA2)
        assert span.context == child
        assert child.trace_id == 0xA1
        assert child.trace_flags == sampled
        assert child.trace_state.to_header() == "vendor=a"
    assert len({two.span_id, four.span_id, five.span_id}) == 3
    # under B: B's trace, not sampled, B's trace state
    assert (three.trace_id, three.trace_flags) == (0xB1, trace.TraceFlags.DEFAULT)
    assert three.trace_state.to_header() == "vendor=b"
    assert trace.get_current_span() is trace.INVALID_SPAN
    provider.shutdown()


async def test_the_sdks_random_ids_are_drawn_from_random_as_the_sdk_draws_them() -> None:
    """With the SDK's own RandomIdGenerator the ids come from `random`, as the SDK's do:
    seeding it makes them repeat; they are valid, and distinct from call to call."""
    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter)
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([seen]), sinks=[sink])
    parent = _remote(0xC1, 0xC2, trace.TraceFlags.SAMPLED)
    state = random.getstate()
    try:
        for _ in range(2):
            random.seed(1234)
            await _call(executor, 1)
            await _call(executor, 2, parent)
    finally:
        random.setstate(state)
    first_root, first_child, second_root, second_child = SEEN
    assert (first_root.trace_id, first_root.span_id) == (second_root.trace_id, second_root.span_id)
    random.seed(1234)  # the very ids the SDK's own start_span draws from the same state
    sdk = provider.get_tracer("check").start_span("root").get_span_context()
    random.setstate(state)
    assert (first_root.trace_id, first_root.span_id) == (sdk.trace_id, sdk.span_id)
    assert first_child.span_id == second_child.span_id
    assert first_root.is_valid
    assert first_child.is_valid
    assert first_root.trace_id != first_root.span_id
    assert first_child.trace_id == 0xC1
    assert first_child.span_id not in (0xC2, first_root.span_id)
    for _ in range(50):
        await _call(executor, 3)
    assert len({c.span_id for c in SEEN}) == 52  # 54 calls, two of them repeats
    assert len({c.trace_id for c in SEEN[4:]}) == 50
    assert sink.flush()
    assert len(exporter.get_finished_spans()) == 54
    provider.shutdown()


class Counting(IdGenerator):
    """An id generator of the application's own: ids counted up from a base."""

    def __init__(self) -> None:
        self.next_span, self.next_trace = 0x100, 0x9000

    def generate_span_id(self) -> int:
        self.next_span += 1
        return self.next_span

    def generate_trace_id(self) -> int:
        self.next_trace += 1
        return self.next_trace

    def is_trace_id_random(self) -> bool:
        return False


@pytest.mark.parametrize("sampler", [None, ALWAYS_ON], ids=["default", "always_on"])
async def test_an_id_generator_of_ones_own_gives_every_id(sampler: object) -> None:
    """Any other id generator is asked for each id, root or child, under the default
    sampler or another; a trace id it does not call random is not flagged random."""
    exporter = InMemorySpanExporter()
    options: dict[str, object] = {"id_generator": Counting()}
    if sampler is not None:
        options["sampler"] = sampler
    provider = recording_provider(exporter, **options)
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([seen]), sinks=[sink])
    await _call(executor, 1)
    await _call(executor, 2, _remote(0xD1, 0xD2, trace.TraceFlags.SAMPLED))
    assert sink.flush()
    root, child = SEEN
    assert (root.trace_id, root.span_id) == (0x9001, 0x101)
    assert root.trace_flags == trace.TraceFlags(trace.TraceFlags.SAMPLED)
    assert (child.trace_id, child.span_id) == (0xD1, 0x102)
    spans = _tool_spans(exporter)
    assert spans["c1"].context == root
    assert spans["c2"].context == child
    provider.shutdown()


async def test_a_sampler_set_on_the_tracer_after_the_sink_was_made_is_asked() -> None:
    """The tracer's sampler is read at each call: replaced by one that samples nothing,
    the calls after are neither spans nor sampled for what runs under them."""
    exporter = InMemorySpanExporter()
    provider = recording_provider(exporter)
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([seen]), sinks=[sink])
    await _call(executor, 1)
    sink.tracer.sampler = ALWAYS_OFF  # type: ignore[attr-defined]
    await _call(executor, 2)
    assert sink.flush()
    assert sorted(_tool_spans(exporter)) == ["c1"]
    assert [c.trace_flags.sampled for c in SEEN] == [True, False]
    provider.shutdown()
