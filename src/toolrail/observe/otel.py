"""OpenTelemetry spans for tool calls, after the GenAI semantic conventions.

One `execute_tool {tool}` span per call (kind INTERNAL), parented to whatever span is current
when the call starts — an orchestrator's `invoke_agent` span, or the application's own.
Attributes: `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
`gen_ai.tool.type`, `gen_ai.conversation.id`, `gen_ai.agent.name`, `error.type`; MCP tools
carry `toolrail.mcp.server` (and `toolrail.mcp.tool`, the server's own name for it, when the
sink is given the `McpHub`; without it the server is read from the `mcp__<server>__<tool>`
name, as sanitised there). Arguments and results (`gen_ai.tool.call.arguments`,
`gen_ai.tool.call.result`) are recorded only with `record_content=True`, redacted.

Passed to an `Orchestrator(observer=...)` too, the sink opens one `invoke_agent {agent}` span
per agent's stretch of turns (`gen_ai.operation.name`, `gen_ai.agent.name`,
`gen_ai.conversation.id`), current while those turns run, so their tool spans are its
children; an agent that fails (model error, out of turns) ends it with an error status.

While a call runs, its span is the current span of the task running it, so what the tool
does is traced inside it. Trace context reaches MCP servers: the MCP SDK (2.x) itself opens
an `MCP send tools/call` client span and injects W3C `traceparent`/`tracestate` into every
request's `params._meta` (SEP-414) from the current context — which, during an MCP tool's
call, holds its `execute_tool` span; toolrail adds nothing to the request.

The sink starts and ends spans in memory; exporting is the span processor's business
(use a `BatchSpanProcessor` so no exporter I/O happens on the call path).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import Token
from typing import TYPE_CHECKING, Any, Protocol, assert_never

import orjson

try:
    from opentelemetry import context as otel_context
    from opentelemetry import trace
except ModuleNotFoundError as error:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "toolrail.observe.otel needs OpenTelemetry: pip install 'toolrail[otel]'"
    ) from error

from returns.result import Success

from toolrail.core.context import ExecutionContext
from toolrail.core.redact import redact, redact_text
from toolrail.observe.hooks import FAILED_ENDS, AgentEnded
from toolrail.recording.events import (
    CircuitStateChanged,
    McpServerStateChanged,
    ToolCallRequested,
    ToolCompleted,
    ToolDefinitionChanged,
    ToolEvent,
    ToolFailed,
    ToolProgress,
    ToolRegistered,
    ToolStarted,
    ToolUnregistered,
)

if TYPE_CHECKING:
    from toolrail.mcp.hub import Origin

_MAX_CONTENT = 8192


class Origins(Protocol):
    """What the sink asks of an `McpHub`: where a namespaced tool comes from."""

    def origin(self, name: str) -> Origin | None: ...


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
        self._open: dict[tuple[str, str], tuple[trace.Span, Token[otel_context.Context]]] = {}

    def __call__(self, event: ToolEvent) -> None:
        match event:
            case ToolStarted():
                span = self._span(event.tool, event.call_id, event.conversation_id, event.agent)
                if event.source == "mcp":
                    self._mark_mcp(span, event.tool)
                if self.record_content:
                    span.set_attribute("gen_ai.tool.call.arguments", _content(event.arguments))
                # current for the tool body, which runs in a copy of this task's context
                # taken after this event: its own spans, and MCP requests, nest under it
                token = otel_context.attach(trace.set_span_in_context(span))
                self._open[(event.conversation_id, event.call_id)] = (span, token)
            case ToolProgress():
                opened = self._open.get((event.conversation_id, event.call_id))
                if opened is not None:
                    running = opened[0]
                    attributes: dict[str, str | float] = {"progress": event.progress}
                    if event.total is not None:
                        attributes["total"] = event.total
                    running.add_event("progress", attributes)
            case ToolCompleted() | ToolFailed():
                self._end(event)
            case (
                ToolCallRequested()
                | ToolRegistered()
                | ToolUnregistered()
                | ToolDefinitionChanged()
                | McpServerStateChanged()
                | CircuitStateChanged()
            ):
                pass
            case _:
                assert_never(event)

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

    def _span(self, tool: str, call_id: str, conversation_id: str, agent: str) -> trace.Span:
        return self.tracer.start_span(
            f"execute_tool {tool}",
            context=otel_context.get_current(),
            kind=trace.SpanKind.INTERNAL,
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "gen_ai.tool.call.id": call_id,
                "gen_ai.tool.type": "function",
                "gen_ai.conversation.id": conversation_id,
                "gen_ai.agent.name": agent,
            },
        )

    def _mark_mcp(self, span: trace.Span, tool: str) -> None:
        origin = self.mcp.origin(tool) if self.mcp is not None else None
        if origin is not None:
            span.set_attribute("toolrail.mcp.server", origin.server)
            span.set_attribute("toolrail.mcp.tool", origin.tool)
        elif tool.startswith("mcp__"):  # the name as namespaced: mcp__<server>__<tool>
            span.set_attribute("toolrail.mcp.server", tool[5:].split("__", 1)[0])

    def _end(self, event: ToolCompleted | ToolFailed) -> None:
        opened = self._open.pop((event.conversation_id, event.call_id), None)
        if opened is None:  # refused before it started: a span for the refusal alone
            span = self._span(event.tool, event.call_id, event.conversation_id, event.agent)
        else:
            span, token = opened
            if trace.get_current_span() is span:  # the task that made it current
                otel_context.detach(token)
        if isinstance(event, ToolFailed):
            span.set_attribute("error.type", event.error.kind)
            span.set_status(trace.Status(trace.StatusCode.ERROR, str(redact(event.error.message))))
        elif self.record_content and isinstance(event.outcome.result, Success):
            span.set_attribute("gen_ai.tool.call.result", _content(event.outcome.result.unwrap()))
        span.set_attribute("toolrail.attempts", event.outcome.attempts)
        span.end()


def _content(value: object) -> str:
    text = orjson.dumps(redact(value), default=str).decode()
    return text if len(text) <= _MAX_CONTENT else text[:_MAX_CONTENT] + "…[truncated]"
