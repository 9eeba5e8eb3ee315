"""Prometheus metrics for tool calls, with low-cardinality labels.

    toolrail_tool_calls_total{tool, outcome}        outcome: "ok" or the error kind
    toolrail_tool_call_duration_seconds{tool}       histogram
    toolrail_tool_retries_total{tool}               attempts beyond the first
    toolrail_tool_timeouts_total{tool}              calls that ran past their deadline
    toolrail_tools_running                          calls started and not yet ended
    toolrail_mcp_server_up{server}                  1 ready, 0 otherwise
    toolrail_circuit_open{breaker}                  1 open or probing, 0 closed
    toolrail_tool_unhealthy{tool}                   0 healthy, 1 degraded, 2 failing
                                                    (`HealthTracker`; a tool never judged: 0)
    toolrail_tool_definition_changes_total{server, action}
    toolrail_approvals_pending                      calls waiting for a person (with `gates`)
    toolrail_budget_remaining{limit, scope}         calls left under each budget limit, the
                                                    tightest over recent conversations not
                                                    idle (with `gates`; see `Budget`)

Tool labels are registry names, by construction: a call the executor found no tool for
(its finished event's `source` is "unknown") is counted as "<unknown>", whatever the error
— a model's typo (UnknownTool), a made-up name under a broken MCP server's prefix
(TransportError), a name this agent may not call (NotAllowed) — so a model can neither grow
the label set nor put its own text (a key it was shown) in a label.
"""

from __future__ import annotations

import io
import socket
import sys
import threading
import time
from collections.abc import Iterator
from socketserver import ThreadingMixIn
from typing import TYPE_CHECKING, Any, ClassVar, assert_never
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

try:
    import prometheus_client as prom
except ModuleNotFoundError as error:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "toolrail.observe.metrics needs prometheus-client: pip install 'toolrail[prometheus]'"
    ) from error

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from returns.result import Failure

from toolrail._diagnostics import get_logger
from toolrail.core.errors import UnknownTool
from toolrail.recording.events import (
    NO_TOOL,
    CircuitStateChanged,
    McpServerStateChanged,
    ToolCallRequested,
    ToolCompleted,
    ToolDefinitionChanged,
    ToolEvent,
    ToolFailed,
    ToolHealthChanged,
    ToolProgress,
    ToolRegistered,
    ToolStarted,
    ToolUnregistered,
)

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

    from toolrail.core.context import ExecutionContext
    from toolrail.mcp.hub import McpHub
    from toolrail.policy.gates import Gates
    from toolrail.resilience import Resilience

log = get_logger("toolrail.observe.metrics")

UNKNOWN = "<unknown>"
_UNHEALTHY = {"healthy": 0, "degraded": 1, "failing": 2}


class PrometheusSink:
    """A sink that counts calls; pass it in `Executor(sinks=[...])` and expose `registry`
    with `serve_metrics` (or your own web app's `/metrics`)."""

    def __init__(
        self, registry: prom.CollectorRegistry | None = None, *, gates: Gates | None = None
    ) -> None:
        """`gates`: the executor's policy, read at each scrape for pending approvals and
        budgets left."""
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
        self.timeouts = prom.Counter(
            "toolrail_tool_timeouts",
            "Calls that ran past their deadline.",
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
        self.unhealthy = prom.Gauge(
            "toolrail_tool_unhealthy",
            "0 while a tool is healthy, 1 degraded, 2 failing, judged from its recent calls.",
            ["tool"],
            registry=self.registry,
        )
        # a started call, by its context's identity and its id: the executor gives each call
        # a context of its own, so calls that share an id (models repeat ids) each end what
        # they started; the context is kept, so its identity is not reused meanwhile
        self._started: dict[tuple[int, str], ExecutionContext[Any]] = {}
        if gates is not None:
            self.registry.register(_PolicyCollector(gates))

    def __call__(self, event: ToolEvent) -> None:
        match event:
            case ToolStarted():
                self._started[(id(event.context), event.call_id)] = event.context
                self.running.inc()
            case ToolCompleted() | ToolFailed():
                result = event.outcome.result
                failure = result.failure() if isinstance(result, Failure) else None
                no_tool = event.source == NO_TOOL or isinstance(failure, UnknownTool)
                tool = UNKNOWN if no_tool else event.tool
                self.calls.labels(tool, "ok" if failure is None else failure.kind).inc()
                self.duration.labels(tool).observe(event.outcome.duration_ms / 1000)
                if isinstance(event, ToolFailed) and event.timed_out:
                    self.timeouts.labels(tool).inc()
                if event.outcome.attempts > 1:
                    self.retries.labels(tool).inc(event.outcome.attempts - 1)
                if self._started.pop((id(event.context), event.call_id), None) is not None:
                    self.running.dec()
            case CircuitStateChanged():
                self.circuit_open.labels(event.breaker).set(0 if event.state == "closed" else 1)
            case ToolHealthChanged():
                self.unhealthy.labels(event.tool).set(_UNHEALTHY[event.status])
            case McpServerStateChanged():
                self.server_up.labels(event.server).set(1 if event.state == "ready" else 0)
            case ToolDefinitionChanged():
                self.definition_changes.labels(event.server, event.action).inc()
            case ToolCallRequested() | ToolProgress() | ToolRegistered() | ToolUnregistered():
                pass
            case _:
                assert_never(event)

    def follow(self, hub: McpHub) -> None:
        """Count an `McpHub` made without this sink: its servers' state now, and its events
        from here on."""
        for status in hub.status():
            self(McpServerStateChanged(server=status.name, state=status.state))
        hub.sinks.sinks = (*hub.sinks.sinks, self)

    def start_from(self, resilience: Resilience) -> None:
        """Show the circuits and health `resilience` holds now (replayed from a call log by
        `toolrail serve`): the executor's events carry their changes from here on."""
        for breaker, state in resilience.circuits().items():
            self(CircuitStateChanged(breaker=breaker, state=state))
        tracker = resilience.health
        for tool in tracker.tools():
            health = tracker.health(tool)
            if health is not None and health.status != "healthy":
                self(ToolHealthChanged(tool=tool, health=health))

    def text(self) -> bytes:
        """The metrics in Prometheus' text format."""
        return prom.generate_latest(self.registry)


class _PolicyCollector(Collector):
    """Pending approvals and budgets left, read from the gates at each scrape."""

    def __init__(self, gates: Gates) -> None:
        self.gates = gates

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily(
            "toolrail_approvals_pending",
            "Calls waiting for a person to approve or deny them (parked or being asked).",
            value=self.gates.waiting,
        )
        budget = self.gates.budget
        if budget is None:
            return
        left = GaugeMetricFamily(
            "toolrail_budget_remaining",
            "Calls left under each budget limit, the tightest over recent conversations.",
            labels=["limit", "scope"],
        )
        for (limit, scope), calls in sorted(budget.remaining().items()):
            left.add_metric([limit, scope], calls)
        yield left


def serve_metrics(
    sink: PrometheusSink,
    port: int = 9464,
    addr: str = "127.0.0.1",
    *,
    idle_timeout_s: float = 10.0,
    max_connections: int = 32,
) -> WSGIServer:
    """Serve `/metrics` over HTTP from a daemon thread (localhost by default); stop it with
    `server.shutdown(); server.server_close()`. A connection that has not sent a whole
    request within `idle_timeout_s` is closed, however slowly it trickles bytes, and one
    past `max_connections` open at once is refused: idle or half-sent requests cannot pin
    a thread each for ever."""
    family = socket.getaddrinfo(addr, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    settings = {"address_family": family[0][0], "limit": max_connections}
    server_class = type("MetricsServer", (_BoundedServer,), settings)
    handler = type("MetricsHandler", (_QuietHandler,), {"timeout": idle_timeout_s})
    server: WSGIServer = make_server(
        addr, port, prom.make_wsgi_app(sink.registry), server_class, handler
    )
    threading.Thread(target=server.serve_forever, name="toolrail-metrics", daemon=True).start()
    return server


class _QuietHandler(WSGIRequestHandler):
    """Reads a request within `timeout` seconds in all, and logs no request line (a library
    never prints)."""

    timeout: ClassVar[float] = 10.0  # `serve_metrics` sets it from `idle_timeout_s`

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the socket's own reader: replaced by one with a deadline
        deadline = time.monotonic() + self.timeout
        self.rfile = io.BufferedReader(_ReaderWithDeadline(self.connection, deadline))

    def parse_request(self) -> bool:
        parsed = super().parse_request()
        self.connection.settimeout(self.timeout)  # writing the answer: a timeout of its own
        return parsed

    def log_message(self, format: str, *args: Any) -> None:
        """Nothing."""


class _ReaderWithDeadline(socket.SocketIO):
    """A socket's reads, each given only the time left before `deadline`: a per-read
    timeout alone lets a client that sends a byte now and then keep a connection for ever."""

    def __init__(self, connection: socket.socket, deadline: float) -> None:
        super().__init__(connection, "rb")
        self._connection = connection
        self._deadline = deadline

    def readinto(self, buffer: WriteableBuffer) -> int | None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request was not sent in time")
        self._connection.settimeout(left)
        return super().readinto(buffer)


class _BoundedServer(ThreadingMixIn, WSGIServer):
    """A thread per connection, at most `limit` at once; a connection past it is closed."""

    daemon_threads = True
    limit = 32

    def server_activate(self) -> None:
        self._slots = threading.BoundedSemaphore(self.limit)
        super().server_activate()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went quiet or away (the base prints a traceback to stderr)."""
        error = sys.exc_info()[1]
        log.debug("metrics request failed", error=type(error).__name__)
