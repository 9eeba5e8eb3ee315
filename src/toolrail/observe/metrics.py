"""Prometheus metrics for tool calls, with low-cardinality labels.

    toolrail_tool_calls_total{tool, outcome}        outcome: "ok" or the error kind
    toolrail_tool_call_duration_seconds{tool}       histogram
    toolrail_tool_retries_total{tool}               attempts beyond the first
    toolrail_tools_running                          calls started and not yet ended
    toolrail_mcp_server_up{server}                  1 ready, 0 otherwise
    toolrail_circuit_open{breaker}                  1 open or probing, 0 closed
    toolrail_tool_definition_changes_total{server, action}

Tool labels are registry names; a name no registry knows (a model's typo) is counted as
"<unknown>", so a model cannot grow the label set.
"""

from __future__ import annotations

from typing import assert_never
from wsgiref.simple_server import WSGIServer

try:
    import prometheus_client as prom
except ModuleNotFoundError as error:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "toolrail.observe.metrics needs prometheus-client: pip install 'toolrail[prometheus]'"
    ) from error

from returns.result import Failure

from toolrail.core.errors import UnknownTool
from toolrail.events import (
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

UNKNOWN = "<unknown>"


class PrometheusSink:
    """A sink that counts calls; pass it in `Executor(sinks=[...])` and expose `registry`
    with `serve_metrics` (or your own web app's `/metrics`)."""

    def __init__(self, registry: prom.CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else prom.CollectorRegistry()
        self.calls = prom.Counter(
            "toolrail_tool_calls",
            "Tool calls by tool and outcome (ok or the error kind).",
            ["tool", "outcome"],
            registry=self.registry,
        )
        self.duration = prom.Histogram(
            "toolrail_tool_call_duration_seconds",
            "Tool call duration, from the call's start to its outcome.",
            ["tool"],
            registry=self.registry,
        )
        self.retries = prom.Counter(
            "toolrail_tool_retries",
            "Attempts beyond the first, for tools safe to retry.",
            ["tool"],
            registry=self.registry,
        )
        self.running = prom.Gauge(
            "toolrail_tools_running", "Calls started and not yet ended.", registry=self.registry
        )
        self.server_up = prom.Gauge(
            "toolrail_mcp_server_up",
            "1 when the MCP server's session is ready, 0 otherwise.",
            ["server"],
            registry=self.registry,
        )
        self.definition_changes = prom.Counter(
            "toolrail_tool_definition_changes",
            "MCP tool definitions that changed after they were first seen.",
            ["server", "action"],
            registry=self.registry,
        )
        self.circuit_open = prom.Gauge(
            "toolrail_circuit_open",
            "1 while a circuit (a tool's, or mcp:<server>) is open or probing, 0 when closed.",
            ["breaker"],
            registry=self.registry,
        )
        self._started: set[tuple[str, str]] = set()

    def __call__(self, event: ToolEvent) -> None:
        match event:
            case ToolStarted():
                self._started.add((event.conversation_id, event.call_id))
                self.running.inc()
            case ToolCompleted() | ToolFailed():
                result = event.outcome.result
                failure = result.failure() if isinstance(result, Failure) else None
                tool = UNKNOWN if isinstance(failure, UnknownTool) else event.tool
                self.calls.labels(tool, "ok" if failure is None else failure.kind).inc()
                self.duration.labels(tool).observe(event.outcome.duration_ms / 1000)
                if event.outcome.attempts > 1:
                    self.retries.labels(tool).inc(event.outcome.attempts - 1)
                if (event.conversation_id, event.call_id) in self._started:
                    self._started.discard((event.conversation_id, event.call_id))
                    self.running.dec()
            case CircuitStateChanged():
                self.circuit_open.labels(event.breaker).set(0 if event.state == "closed" else 1)
            case McpServerStateChanged():
                self.server_up.labels(event.server).set(1 if event.state == "ready" else 0)
            case ToolDefinitionChanged():
                self.definition_changes.labels(event.server, event.action).inc()
            case ToolCallRequested() | ToolProgress() | ToolRegistered() | ToolUnregistered():
                pass
            case _:
                assert_never(event)

    def text(self) -> bytes:
        """The metrics in Prometheus' text format."""
        return prom.generate_latest(self.registry)


def serve_metrics(sink: PrometheusSink, port: int = 9464, addr: str = "127.0.0.1") -> WSGIServer:
    """Serve `/metrics` over HTTP from a daemon thread (localhost by default); stop it with
    `server.shutdown(); server.server_close()`."""
    server, _thread = prom.start_http_server(port, addr=addr, registry=sink.registry)
    return server
