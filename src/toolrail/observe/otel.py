"""OpenTelemetry spans for tool calls, after the GenAI semantic conventions.

One `execute_tool {tool}` span per call (kind INTERNAL), parented to whatever span is
current when the call starts — an orchestrator's `invoke_agent` span, or the application's
own. Attributes: `gen_ai.operation.name`, `gen_ai.tool.name` (a registry name; a name no
tool answers to is what a model wrote, redacted there and in the span's name, `shown_tool`),
`gen_ai.tool.call.id`, `gen_ai.tool.type`, `gen_ai.conversation.id`, `gen_ai.agent.name`,
`error.type`; MCP tools carry `toolrail.mcp.server` (and `toolrail.mcp.tool`, the server's
own name for it, when the sink is given the `McpHub`; without it the server is read from the
`mcp__<server>__<tool>` name, as sanitised there). Arguments and results
(`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) are recorded only with
`record_content=True`, as the JSONL call log records them: made JSON data the same way (JSON
text parsed; dataclasses, pydantic models, sets, bytes converted), then redacted and cut to
8 KiB by the one policy (`cut`). Content that cannot be made at all (text with a lone
surrogate) is left out, and `toolrail.record_error` names it and the error's type: it never
costs the span.

Passed to an `Orchestrator(observer=...)` too, the sink opens one `invoke_agent {agent}` span
per agent's stretch of turns (`gen_ai.operation.name`, `gen_ai.agent.name`,
`gen_ai.conversation.id`), current while those turns run, so their tool spans are its
children; an agent that fails (model error, out of turns) ends it with an error status.

While a call runs, its span context is the current one in the task running it, so what the
tool does is traced inside it. Trace context reaches MCP servers: the MCP SDK (2.x) itself
opens an `MCP send tools/call` client span and injects W3C `traceparent`/`tracestate` into
every request's `params._meta` (SEP-414) from the current context — which, during an MCP
tool's call, names its `execute_tool` span; toolrail adds nothing to the request.

Spans are built off the call path. With the OTel SDK's tracer, a call's start decides only
what must be known while it runs: its trace and span ids (from the tracer's `id_generator`,
or the parent's trace) and whether it is sampled (the tracer's `sampler`, so ratio and
parent-based sampling hold for the call and everything under it); a `NonRecordingSpan` with
that context is current while the tool runs. The SDK's defaults are followed rather than
called: its `RandomIdGenerator`'s ids are drawn from `random` as it draws them, and its
`ParentBased(ALWAYS_ON)` sampler's decision is the parent's sampled flag, or yes for a
root. When the call ends, its record goes to a writer thread, which builds the real SDK
span with those same ids, start and end times, progress events and status. So a tool span
reaches the span processors just *after* its call, not during it (its `on_start` too), and
possibly after its `invoke_agent` span has ended; `flush()` waits until every call handed
over so far is a span (then the provider's `force_flush()` drives the processors), and
whatever is still queued at interpreter exit is built then. A call keeps as many progress
reports as its span keeps events (the provider's span event limit; 10,000 if unlimited):
the first ones and the latest, with `toolrail.progress.dropped` saying how many were left
out between them. The sink's failures (a processor that raises) are reported through the
library diagnostics and never reach a call.
With any other tracer (the API's no-op, a vendor's), spans are started and ended on the
call path, as that tracer does it (a call already running when the global tracer provider
is set ends as it started). Exporting is the span processor's business: use a
`BatchSpanProcessor` so no exporter I/O happens anywhere near the call.

Several sinks on one executor attach their contexts in order and end in that same order, so
a sink's context may end under another's: it is detached once the ones above it are (see
`_detach`), and what was current before the call is current after it. A context has one
current span, so each sink's span is a child of the one before it, and the tool body sees
the last: to export to several backends, give one provider several span processors.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from random import getrandbits
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

import orjson

try:
    from opentelemetry import context as otel_context
    from opentelemetry import trace
except ModuleNotFoundError as error:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "toolrail.observe.otel needs OpenTelemetry: pip install 'toolrail[otel]'"
    ) from error

from returns.result import Success

from toolrail._batches import BackgroundBatches, flush_at_exit_first
from toolrail._diagnostics import get_logger
from toolrail._jsonish import arguments_as_they_are, as_it_is, taken
from toolrail.core.call import RawArguments, ToolOutcome
from toolrail.core.context import ExecutionContext
from toolrail.core.errors import InvalidArguments, ToolError
from toolrail.core.hidden import hidden_texts
from toolrail.core.redact import cut, redact, redact_text, shown_name
from toolrail.observe.hooks import FAILED_ENDS, AgentEnded
from toolrail.recording.eventjson import (
    arguments_data,
    shown_ended_tool,
    shown_tool,
)
from toolrail.recording.events import (
    EventRoutes,
    ToolCompleted,
    ToolEvent,
    ToolFailed,
    ToolProgress,
    ToolStarted,
)

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.sampling import SamplingResult
    from opentelemetry.util.types import AttributeValue

    from toolrail.mcp.hub import Origin

log = get_logger("toolrail.observe.otel")

_MAX_CONTENT = 8192
_ARGUMENTS = "gen_ai.tool.call.arguments"
_RESULT = "gen_ai.tool.call.result"
_RECORD_ERROR = "toolrail.record_error"
_LINGER_S = 0.02
"""The writer builds spans once calls pause this long (a flush hurries it): a call only
appends meanwhile, and one batch holds the GIL once, after the burst, not per call."""
_MAX_REPORTS = 128
"""Progress reports a call keeps when its tracer says no span event limit (the SDK's default)."""
_UNLIMITED_REPORTS = 10_000
"""Progress reports a call keeps when its provider sets no limit at all: memory is bounded."""
_DROPPED = "toolrail.progress.dropped"
_MAX_LEFT = 16
"""Contexts left to be detached (`_LEFT`) that a task holds at most: more means something
above them is never detached, and the oldest are let go."""
_INTERNAL = trace.SpanKind.INTERNAL
_SAMPLED = trace.TraceFlags(trace.TraceFlags.SAMPLED)
_UNSAMPLED = trace.TraceFlags(trace.TraceFlags.DEFAULT)
_SAMPLED_RANDOM = trace.TraceFlags(trace.TraceFlags.SAMPLED | trace.TraceFlags.RANDOM_TRACE_ID)
_UNSAMPLED_RANDOM = trace.TraceFlags(trace.TraceFlags.RANDOM_TRACE_ID)


class Origins(Protocol):
    """What the sink asks of an `McpHub`: where a namespaced tool comes from."""

    def origin(self, name: str) -> Origin | None: ...


_CallKey = tuple[int, str]
"""A running call: its context's `id()` and its call id (see `OtelSink.__init__`)."""

_Opening = ToolStarted | ToolCompleted | ToolFailed
"""What begins a tool span: the call's start, or its end when it never started (refused)."""


_Running = tuple[
    _Opening,
    otel_context.Context,
    trace.NonRecordingSpan,
    "SamplingResult | None",
    bool,
    int,
    otel_context.Context,
    "Token[otel_context.Context]",
]
"""A call's span as decided when it starts: the event that began it, its parent context,
the span the tool body sees (its ids), the sampler's result (None: sampled by the default
sampler, no result made), whether it is recorded, when it started (ns), and the context made
current for it with the token that detaches it. A tuple: made once per call, on its path."""


_Output = tuple[object, RawArguments, RawArguments]
"""A successful call's output, its arguments and the model's own (a person edited them),
each as it was when the call ended: what the span's result shows, and what it hides."""


class _Record(NamedTuple):
    """What the writer builds a span from, taken from the call's events on its path: not
    the events, which keep the call's context, reporter, outcome and call alive while the
    record waits (behind a burst, into the collector's oldest generation)."""

    shown_tool: str | None
    """The tool's name as shown; None: to be made by the writer (`shown_ended_tool` of the
    three below: a call refused before it started may name no tool)."""
    tool: str
    source: str
    error: ToolError | None
    call_id: str
    conversation_id: str
    agent: str
    attempts: int
    arguments: tuple[RawArguments] | None
    """With content recorded (`record_content`), of a call that started: its arguments as
    they were when it ended (`arguments_as_they_are`: a caller may change its own dict)."""
    output: _Output | None
    """With content recorded, of a call that succeeded: its output (`_output_now`)."""
    parent: otel_context.Context
    span: trace.SpanContext
    """The ids the tool body saw."""
    sampling: SamplingResult | None
    start: int
    end: int
    reports: _Reports | None
    """Its progress reports (when, progress, total)."""


_tuple_new = tuple.__new__

_Parent = tuple[otel_context.Context, int, trace.TraceFlags | None, "trace.TraceState | None", bool]
"""What the default sampler makes of a parent context, kept for the next call under the same
one: the context, its span's trace id (0: none valid, a call under it is a root), the flags
and trace state its children get, and whether they are sampled."""

_NO_PARENT: _Parent = (otel_context.Context(), 0, None, None, True)
_TRACE_ID_BITS = (1 << 128) - 1

_Attached = tuple[otel_context.Context, "Token[otel_context.Context]"]
_LEFT: ContextVar[tuple[_Attached, ...]] = ContextVar("toolrail_otel_left", default=())
"""Contexts a call's end found under another sink's, oldest first: each is detached by the
detach that makes it current again, so tokens are reset in the reverse order of their
attaches (resetting one early would bring back, later, a context already ended)."""


class _Reports:
    """A call's progress reports (when, progress, total), as many as its span keeps events:
    the first ones and the latest, and how many were dropped between them."""

    __slots__ = ("dropped", "kept", "room")

    def __init__(self, room: int) -> None:
        self.kept: list[tuple[int, float, float | None]] = []
        self.dropped = 0
        self.room = room

    def add(self, report: tuple[int, float, float | None]) -> None:
        if len(self.kept) < self.room:
            self.kept.append(report)
        else:  # full: the latest takes the last place
            self.kept[-1] = report
            self.dropped += 1


class OtelSink:
    """A sink that turns call events into spans; pass it in `Executor(sinks=[...])`."""

    def __init__(
        self,
        tracer_provider: trace.TracerProvider | None = None,
        *,
        record_content: bool = False,
        mcp: Origins | None = None,
    ) -> None:
        """`mcp`: the `McpHub` whose tools' spans name their server and original tool."""
        self.tracer = trace.get_tracer("toolrail", tracer_provider=tracer_provider)
        self.record_content = record_content
        self.mcp = mcp
        self._global = tracer_provider is None
        # a running call is keyed by its context's identity and its id: the executor gives
        # each call a context of its own (`for_call`), carried by all of that call's events,
        # so calls that share an id (models repeat ids) never share an entry; the entry
        # holds the context (in its event), so the identity is not reused while it is kept
        self._spans: dict[_CallKey, tuple[trace.Span, _Attached, object]] = {}
        self._running: dict[_CallKey, _Running] = {}
        self._progress: dict[_CallKey, _Reports] = {}
        self._parent = _NO_PARENT
        self._writer = BackgroundBatches(
            self._build_batch, name="toolrail-otel-spans", linger=_LINGER_S
        )
        self._use(_Builder.of(self.tracer))

    def __call__(self, event: ToolEvent) -> None:
        if self._builder is None:
            self._synchronous(event)
            return
        _ROUTES[type(event)](self, event)

    def _started(self, event: ToolStarted) -> None:
        parent, span, sampling, recording = self._decide(event)
        # current for the tool body, which runs in a copy of this task's context taken
        # after this event: its own spans, and MCP requests, nest under it
        attached = trace.set_span_in_context(span, parent)
        self._running[(id(event.context), event.call_id)] = (
            event,
            parent,
            span,
            sampling,
            recording,
            time.time_ns(),
            attached,
            otel_context.attach(attached),
        )

    def _finished(self, event: ToolCompleted | ToolFailed) -> None:
        key = (id(event.context), event.call_id)
        running = self._running.pop(key, None)
        if running is None and key in self._spans:  # started before the SDK's tracer was set
            self._end(event)
            return
        if running is None:  # refused before it started: a span for the refusal alone
            parent, span, sampling, recording = self._decide(event)
            if recording:
                start = time.time_ns()
                self._put(event, event, parent, span, sampling, start, start, None)
            return
        opened, parent, span, sampling, recording, start, attached, token = running
        _detach(attached, token)
        end = time.time_ns()
        progress = self._progress.pop(key, None) if self._progress else None
        if recording:
            self._put(opened, event, parent, span, sampling, start, end, progress)

    def _put(
        self,
        opened: _Opening,
        ended: ToolCompleted | ToolFailed,
        parent: otel_context.Context,
        span: trace.NonRecordingSpan,
        sampling: SamplingResult | None,
        start: int,
        end: int,
        reports: _Reports | None,
    ) -> None:
        """Queue the call's `_Record` for the writer."""
        error = ended.error if isinstance(ended, ToolFailed) else None
        started = isinstance(opened, ToolStarted)
        outcome = ended.outcome
        content = self.record_content
        ctx = ended.context
        record = (
            opened.tool if started else None,
            ended.tool,
            ended.source,
            error,
            ended.call_id,
            ctx.conversation_id,
            ctx.agent,
            outcome.attempts,
            (arguments_as_they_are(opened.arguments),)
            if content and isinstance(opened, ToolStarted)
            else None,
            _output_now(outcome) if content and type(outcome.result) is Success else None,
            parent,
            span.get_span_context(),
            sampling,
            start,
            end,
            reports,
        )
        self._writer.put(_tuple_new(_Record, record))  # not `_Record(...)`: Python's __new__

    def _progressed(self, event: ToolProgress) -> None:
        key = (id(event.context), event.call_id)
        if key in self._running:
            reports = self._progress.get(key)
            if reports is None:
                reports = self._progress[key] = _Reports(self._max_reports)
            reports.add((time.time_ns(), event.progress, event.total))
        elif key in self._spans:  # started before the SDK's tracer was set
            self._synchronous(event)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every call finished so far is a span handed to the span processors;
        False if `timeout` passed first. (Exporting them is the provider's `force_flush`.)"""
        return self._writer.flush(timeout)

    def close(self, timeout: float | None = None) -> bool:
        """`flush(timeout)`: build every span still queued (a later call starts the writer
        again); False if `timeout` passed first (a span processor that hangs)."""
        return self.flush(timeout)

    @contextmanager
    def invoke_agent(self, agent: str, ctx: ExecutionContext[Any]) -> Iterator[AgentEnded]:
        """An `invoke_agent {agent}` span, current while the agent's turns run."""
        with self.tracer.start_as_current_span(
            f"invoke_agent {agent}",
            kind=trace.SpanKind.INTERNAL,
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": agent,
                "gen_ai.conversation.id": ctx.conversation_id,
            },
        ) as span:

            def ended(kind: str, detail: str, turns: int, tool_calls: int) -> None:
                span.set_attribute("toolrail.agent.end", kind)
                span.set_attribute("toolrail.agent.turns", turns)
                span.set_attribute("toolrail.agent.tool_calls", tool_calls)
                if kind in FAILED_ENDS:
                    span.set_attribute("error.type", kind)
                    span.set_status(trace.Status(trace.StatusCode.ERROR, redact_text(detail)))

            yield ended

    # -- with the SDK's tracer: decided on the call path, built by the writer thread --

    def _decide(
        self, opened: _Opening
    ) -> tuple[otel_context.Context, trace.NonRecordingSpan, SamplingResult | None, bool]:
        """The call's span context as the SDK's `start_span` would make it, and no span:
        its parent context, the span the tool body sees, the sampler's result (None when
        the default sampler took it) and whether it is recorded. One the sampler does not
        record is current all the same, unsampled, so what runs under it is not sampled
        either; the writer never sees it."""
        tracer: Any = self.tracer
        parent = otel_context.get_current()
        ids = tracer.id_generator
        if tracer.sampler is self._default_sampler:  # ParentBased(ALWAYS_ON): no sampler call
            known = self._parent
            if known[0] is not parent:  # a parent context not seen just before: read it once
                known = self._parent = _under_default_sampler(parent)
            _, trace_id, flags, state, sampled = known
            if trace_id and type(ids) is self._random_ids:  # the SDK's RandomIdGenerator
                span_id = getrandbits(64)
                while not span_id:  # pragma: no cover - one chance in 2**64
                    span_id = getrandbits(64)
            elif trace_id:
                span_id = ids.generate_span_id()
            elif type(ids) is self._random_ids:  # a root: both ids from one random draw
                # the SDK draws 128 bits, then 64: one draw of 192 yields the same words
                # in the same order (`random` fills from the low bits), so a seeded
                # `random` gives the very ids the SDK would
                bits = getrandbits(192)
                trace_id, span_id = bits & _TRACE_ID_BITS, bits >> 128
                while not (trace_id and span_id):  # pragma: no cover - 2**-64
                    bits = getrandbits(192)
                    trace_id, span_id = bits & _TRACE_ID_BITS, bits >> 128
                flags = _SAMPLED_RANDOM
            else:
                trace_id = ids.generate_trace_id()
                flags = _SAMPLED_RANDOM if ids.is_trace_id_random() else _SAMPLED
                span_id = ids.generate_span_id()
            context = trace.SpanContext(trace_id, span_id, False, flags, state)
            return parent, trace.NonRecordingSpan(context), None, sampled
        above = trace.get_current_span(parent).get_span_context()
        if above.is_valid:
            trace_id, random = above.trace_id, above.trace_flags.random_trace_id
        else:
            trace_id, random = ids.generate_trace_id(), ids.is_trace_id_random()
        name = f"execute_tool {shown_tool(opened)}"
        attributes = self._attributes(opened)
        sampling = tracer.sampler.should_sample(parent, trace_id, name, _INTERNAL, attributes, ())
        sampled = sampling.decision.is_sampled()
        if sampled:
            flags = _SAMPLED_RANDOM if random else _SAMPLED
        else:
            flags = _UNSAMPLED_RANDOM if random else _UNSAMPLED
        context = trace.SpanContext(
            trace_id, ids.generate_span_id(), False, flags, sampling.trace_state
        )
        recording = sampled or sampling.decision.is_recording()
        return parent, trace.NonRecordingSpan(context), sampling, recording

    def _attributes(self, opened: _Opening) -> dict[str, AttributeValue]:
        ctx = opened.context
        return self._marks(
            shown_tool(opened),
            opened.tool,
            opened.source,
            opened.call_id,
            ctx.conversation_id,
            ctx.agent,
        )

    def _marks(
        self, shown: str, tool: str, source: str, call_id: str, conversation_id: str, agent: str
    ) -> dict[str, AttributeValue]:
        attributes: dict[str, AttributeValue] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": shown,
            "gen_ai.tool.call.id": shown_name(call_id),  # a model wrote it
            "gen_ai.tool.type": "function",
            "gen_ai.conversation.id": conversation_id,
            "gen_ai.agent.name": agent,
        }
        if source == "mcp":
            attributes.update(self._mcp_marks(tool))
        return attributes

    def _build_batch(self, records: list[_Record]) -> None:
        for record in records:
            self._build(record)

    def _build(self, record: _Record) -> None:
        """The SDK span of a finished call, with the ids it ran under; never raises."""
        builder = self._builder
        assert builder is not None
        sampling, reports, error = record.sampling, record.reports, record.error
        try:
            shown = record.shown_tool
            if shown is None:  # refused before it started: perhaps no tool's name
                shown = shown_ended_tool(record.tool, record.source, error)
            # every attribute the span ends with, given at its start: one copy, one check
            attributes: dict[str, AttributeValue] = (
                self._marks(
                    shown,
                    record.tool,
                    record.source,
                    record.call_id,
                    record.conversation_id,
                    record.agent,
                )
                if sampling is None
                else dict(sampling.attributes or {})
            )
            if record.arguments is not None:
                _add_content(attributes, _ARGUMENTS, arguments_data, record.arguments[0])
            if error is not None:
                attributes["error.type"] = error.kind
            elif record.output is not None:
                _add_content(attributes, _RESULT, _output_data, record.output)
            attributes["toolrail.attempts"] = record.attempts
            if reports is not None and reports.dropped:
                attributes[_DROPPED] = reports.dropped
            span = builder.start(record, shown, attributes)
            for at, progress, total in reports.kept if reports is not None else ():
                if (reported := _progress_marks(progress, total)) is not None:
                    span.add_event("progress", reported, timestamp=at)
            if error is not None:
                message = _status(error, self.record_content)
                span.set_status(trace.Status(trace.StatusCode.ERROR, message))
            span.end(end_time=record.end)
        except KeyboardInterrupt:
            raise
        except BaseException as failure:  # a span processor raising anything: the span is
            # lost, not the batch's others, nor the writer thread
            log.warning(
                "could not build a tool span",
                tool=record.tool,
                call_id=record.call_id,
                error=f"{type(failure).__name__}: {failure}",
            )

    # -- with any other tracer: started and ended on the call path --

    def _synchronous(self, event: ToolEvent) -> None:
        match event:
            case ToolStarted():
                if self._global and isinstance(self.tracer, trace.ProxyTracer):
                    self._resolve()
                    if self._builder is not None:  # the SDK's tracer was set meanwhile
                        self(event)
                        return
                span = self._span(event.tool, event.call_id, event.conversation_id, event.agent)
                if event.source == "mcp":
                    span.set_attributes(self._mcp_marks(event.tool))
                if self.record_content:
                    content: dict[str, AttributeValue] = {}
                    _add_content(content, _ARGUMENTS, arguments_data, event.arguments)
                    span.set_attributes(content)
                attached = trace.set_span_in_context(span)
                key = (id(event.context), event.call_id)
                self._spans[key] = (span, (attached, otel_context.attach(attached)), event.context)
            case ToolProgress():
                opened = self._spans.get((id(event.context), event.call_id))
                if opened is not None:
                    marks = _progress_marks(event.progress, event.total)
                    if marks is not None:
                        opened[0].add_event("progress", marks)
            case ToolCompleted() | ToolFailed():
                self._end(event)
            case _:
                pass

    def _resolve(self) -> None:
        """Once the global tracer provider is set, its own tracer (a proxy stays one)."""
        if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
            self.tracer = trace.get_tracer("toolrail")
            self._use(_Builder.of(self.tracer))

    def _use(self, builder: _Builder | None) -> None:
        """Build spans with `builder` (None: this tracer is not the SDK's)."""
        self._builder = builder
        self._default_sampler = builder.default_sampler if builder else None
        self._random_ids = builder.random_ids if builder else None
        self._max_reports = builder.max_events if builder else _MAX_REPORTS
        if builder is not None:
            flush_at_exit_first()

    def _span(self, tool: str, call_id: str, conversation_id: str, agent: str) -> trace.Span:
        return self.tracer.start_span(
            f"execute_tool {tool}",
            context=otel_context.get_current(),
            kind=trace.SpanKind.INTERNAL,
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "gen_ai.tool.call.id": shown_name(call_id),  # a model wrote it
                "gen_ai.tool.type": "function",
                "gen_ai.conversation.id": conversation_id,
                "gen_ai.agent.name": agent,
            },
        )

    def _mcp_marks(self, tool: str) -> dict[str, str]:
        origin = self.mcp.origin(tool) if self.mcp is not None else None
        if origin is not None:
            return {"toolrail.mcp.server": origin.server, "toolrail.mcp.tool": origin.tool}
        if tool.startswith("mcp__"):  # the name as namespaced: mcp__<server>__<tool>
            return {"toolrail.mcp.server": tool[5:].split("__", 1)[0]}
        return {}

    def _end(self, event: ToolCompleted | ToolFailed) -> None:
        opened = self._spans.pop((id(event.context), event.call_id), None)
        if opened is None:  # refused before it started: a span for the refusal alone
            tool = shown_tool(event)  # perhaps no tool's name: what the model wrote
            span = self._span(tool, event.call_id, event.conversation_id, event.agent)
        else:
            span, (attached, token), _ = opened
            _detach(attached, token)
        if isinstance(event, ToolFailed):
            span.set_attribute("error.type", event.error.kind)
            message = _status(event.error, self.record_content)
            span.set_status(trace.Status(trace.StatusCode.ERROR, message))
        elif self.record_content and isinstance(event.outcome.result, Success):
            content: dict[str, AttributeValue] = {}
            _add_content(content, _RESULT, _output_data, _output_now(event.outcome))
            span.set_attributes(content)
        span.set_attribute("toolrail.attempts", event.outcome.attempts)
        span.end()


class _Builder:
    """The writer's own copy of the sink's SDK tracer: same provider, processors, resource,
    limits and instrumentation scope, but its `id_generator` and `sampler` (public
    attributes) hand out the ids and the sampling decision each call was given on the call
    path. A copy, because `TracerProvider.get_tracer` hands every caller asking for the same
    scope the same tracer, whose generator and sampler are not ours to change."""

    def __init__(self, tracer: Any) -> None:
        from opentelemetry.sdk.trace import sampling
        from opentelemetry.sdk.trace.id_generator import IdGenerator, RandomIdGenerator

        builder = self
        self.default_sampler: object = sampling.DEFAULT_ON
        self.random_ids: type[IdGenerator] = RandomIdGenerator
        # the provider's span event limit, kept by the SDK's tracer (None: unlimited)
        limits = getattr(tracer, "_span_limits", None)
        events = getattr(limits, "max_events", _MAX_REPORTS)
        self.max_events = _UNLIMITED_REPORTS if events is None else max(int(events), 1)
        self.sampled = sampling.Decision.RECORD_AND_SAMPLE
        self.Result = sampling.SamplingResult
        self.context = trace.INVALID_SPAN_CONTEXT
        self.result: SamplingResult | None = None

        class Ids(IdGenerator):
            def generate_span_id(self) -> int:
                return builder.context.span_id

            def generate_trace_id(self) -> int:
                return builder.context.trace_id

            def is_trace_id_random(self) -> bool:
                return builder.context.trace_flags.random_trace_id

        class Decided(sampling.Sampler):
            def should_sample(self, *_: object, **__: object) -> SamplingResult:
                assert builder.result is not None
                return builder.result

            def get_description(self) -> str:
                return "toolrail: as decided when the call started"

        self.tracer = copy.copy(tracer)
        self.tracer.id_generator = Ids()
        self.tracer.sampler = Decided()

    @classmethod
    def of(cls, tracer: trace.Tracer) -> _Builder | None:
        """A builder for an SDK tracer; None for any other (built on the call path then)."""
        if not (hasattr(tracer, "id_generator") and hasattr(tracer, "sampler")):
            return None
        try:
            return cls(tracer)
        except ModuleNotFoundError:  # pragma: no cover - a look-alike tracer without the SDK
            return None

    def start(
        self, record: _Record, shown: str, attributes: dict[str, AttributeValue]
    ) -> trace.Span:
        """Start the call's span, back-dated to when it started, with its own ids, the
        sampler's decision (the default sampler's: sampled) and `attributes`, all it will
        carry (the sampler's own among them)."""
        self.context = record.span
        sampling = record.sampling
        decision = self.sampled if sampling is None else sampling.decision
        self.result = self.Result(decision, attributes, self.context.trace_state)
        try:
            span: trace.Span = self.tracer.start_span(
                f"execute_tool {shown}",
                context=record.parent,
                kind=_INTERNAL,
                start_time=record.start,
            )
        finally:
            self.context, self.result = trace.INVALID_SPAN_CONTEXT, None
        return span


_ROUTES: EventRoutes[OtelSink] = EventRoutes(
    (ToolStarted, OtelSink._started),
    ((ToolCompleted, ToolFailed), OtelSink._finished),
    (ToolProgress, OtelSink._progressed),
)  # other events are not a call's start, progress or end: no span


def _detach(attached: otel_context.Context, token: Token[otel_context.Context]) -> None:
    """Make current again what was current before `attached`: at once if it is current,
    then any context left under it; else (another sink's context is above it) it is left in
    `_LEFT`, for the detach that makes it current again."""
    if otel_context.get_current() is not attached:
        _LEFT.set((*_LEFT.get()[1 - _MAX_LEFT :], (attached, token)))
        return
    otel_context.detach(token)
    left = _LEFT.get()
    while left and left[-1][0] is otel_context.get_current():
        otel_context.detach(left[-1][1])
        left = left[:-1]
        _LEFT.set(left)


def _under_default_sampler(parent: otel_context.Context) -> _Parent:
    """What `ParentBased(ALWAYS_ON)` makes of `parent` for a child: a valid parent span's
    trace, flags (sampled if it is) and trace state; with none, a root (sampled)."""
    above = trace.get_current_span(parent).get_span_context()
    if not above.is_valid:
        return (parent, 0, None, None, True)
    sampled, random = above.trace_flags.sampled, above.trace_flags.random_trace_id
    if sampled:
        flags = _SAMPLED_RANDOM if random else _SAMPLED
    else:
        flags = _UNSAMPLED_RANDOM if random else _UNSAMPLED
    return (parent, above.trace_id, flags, above.trace_state, sampled)


def _progress_marks(progress: object, total: object) -> dict[str, AttributeValue] | None:
    """A progress report as a span event's attributes: numbers only (a tool may report
    anything; what is not a number is left out rather than cost the span)."""
    if type(progress) not in (int, float):
        return None
    marks: dict[str, AttributeValue] = {"progress": float(cast(float, progress))}
    if type(total) in (int, float):
        marks["total"] = float(cast(float, total))
    return marks


def _output_now(outcome: ToolOutcome) -> _Output:
    """A successful call's output and what it must not show (its arguments, and the model's
    own a person edited), as they are now, on the call path (`_output_data` reads them)."""
    asked = outcome.metadata.get("asked_arguments")
    return (
        as_it_is(outcome.result.unwrap()),
        arguments_as_they_are(outcome.call.arguments),
        arguments_as_they_are(asked),
    )


def _output_data(output: _Output) -> object:
    """The output as JSON data, without what its call's arguments hide (the log's own way,
    `hidden_of`), from its parts as they were (`_output_now`)."""
    value, arguments, asked = output
    return hidden_texts(arguments, asked).without_in(taken(value))


def _add_content(
    attributes: dict[str, AttributeValue],
    key: str,
    as_data: Callable[[Any], object],
    value: object,
) -> None:
    """`attributes[key]`: `value` as the JSONL call log records it — made JSON data by
    `as_data` (the log's own: `arguments_data` for a call's arguments, `to_json_value` for its
    output), then redacted and cut to `_MAX_CONTENT` bytes by the one policy (`cut`), as
    JSON text. Content that cannot be made (a lone surrogate, ...) is left out and named in
    `toolrail.record_error`, with the error's type alone (its text may quote the value):
    it never costs the span, nor the call on the call path."""
    try:
        attributes[key] = orjson.dumps(cut(as_data(value), _MAX_CONTENT)).decode()
    except Exception as error:
        note = f"{key}: {type(error).__name__}"
        earlier = attributes.get(_RECORD_ERROR)
        attributes[_RECORD_ERROR] = note if earlier is None else f"{earlier}; {note}"


def _status(error: ToolError, content: bool) -> str:
    """A failed span's status description: the error's message, redacted. Without content
    recorded, not a validation error's: it quotes the arguments it rejected (`got '...'`),
    so only where they were wrong is said."""
    if isinstance(error, InvalidArguments) and not content:
        where = ", ".join(issue.path for issue in error.issues)
        return f"invalid arguments at {where}" if where else "invalid arguments"
    return str(redact(error.message))
