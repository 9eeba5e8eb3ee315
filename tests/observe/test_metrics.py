"""Metrics from real calls, scraped over real HTTP and parsed with the client's parser."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from mcp import Client
from prometheus_client.parser import text_string_to_metric_families

from toolrail import ExecutionContext, Executor, ToolAnnotations, ToolCall, ToolRegistry, tool
from toolrail.core.errors import TransportError
from toolrail.mcp import McpHub, McpServerConfig
from toolrail.observe.metrics import PrometheusSink, serve_metrics
from toolrail.policy.budgets import Budget
from toolrail.policy.gates import Gates
from toolrail.resilience import BreakerSettings, Resilience

from ..mcp.serve_support import stdio_params, write_config

pytestmark = pytest.mark.anyio


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        body: bytes = response.read()
        return body


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def test_calls_are_counted_by_outcome_and_scraped_over_http() -> None:
    sink = PrometheusSink()
    executor = Executor(ToolRegistry([divide]), sinks=[sink])
    ctx = ExecutionContext()
    await executor.run(ToolCall(name="divide", arguments={"a": 4, "b": 2}), ctx)
    await executor.run(ToolCall(name="divide", arguments={"a": 4, "b": 0}), ctx)
    for typo in ("dvide", "divid", "x" * 50):  # a model's typos do not grow the label set
        await executor.run(ToolCall(name=typo, arguments={}), ctx)

    port = _free_port()
    server = serve_metrics(sink, port)
    try:
        body = await asyncio.to_thread(_get, f"http://127.0.0.1:{port}/metrics")
    finally:
        server.shutdown()
        server.server_close()
    samples = _samples(body.decode())
    calls = "toolrail_tool_calls_total"
    assert samples[(calls, (("outcome", "ok"), ("tool", "divide")))] == 1
    assert samples[(calls, (("outcome", "execution_failed"), ("tool", "divide")))] == 1
    assert samples[(calls, (("outcome", "unknown_tool"), ("tool", "<unknown>")))] == 3
    assert samples[("toolrail_tool_call_duration_seconds_count", (("tool", "divide"),))] == 2
    assert samples[("toolrail_tools_running", ())] == 0


_flaky_calls: list[int] = []


@tool(annotations=ToolAnnotations(idempotent=True))
def flaky() -> str:
    """Fails on its first call, then works."""
    _flaky_calls.append(1)
    if len(_flaky_calls) == 1:
        raise ConnectionError("first call fails")
    return "ok"


@tool
def broken() -> str:
    """Always fails."""
    raise RuntimeError("down")


@tool(timeout_s=0.05)
async def stuck() -> str:
    """Never finishes."""
    await asyncio.Event().wait()
    return "never"


async def _no_sleep(_: float) -> None:
    return None


async def test_retries_timeouts_and_circuit_state_are_counted() -> None:
    """A retried call, a timeout and a circuit that opens show in their metrics."""
    sink = PrometheusSink()
    executor = Executor(
        ToolRegistry([flaky, broken, stuck]),
        sinks=[sink],
        sleep=_no_sleep,
        resilience=Resilience(breakers=BreakerSettings(consecutive_failures=2, cooldown_s=60)),
    )
    ctx = ExecutionContext()
    assert (await executor.run(ToolCall(name="flaky"), ctx)).attempts == 2
    await executor.run(ToolCall(name="stuck"), ctx)
    for _ in range(2):
        await executor.run(ToolCall(name="broken"), ctx)
    samples = _samples(sink.text().decode())
    assert samples[("toolrail_tool_retries_total", (("tool", "flaky"),))] == 1
    assert samples[("toolrail_tool_timeouts_total", (("tool", "stuck"),))] == 1
    assert samples[("toolrail_circuit_open", (("breaker", "broken"),))] == 1
    calls = "toolrail_tool_calls_total"
    assert samples[(calls, (("outcome", "timed_out"), ("tool", "stuck")))] == 1
    assert samples[("toolrail_tools_running", ())] == 0


@tool
def lookup(q: str) -> str:
    """Look something up."""
    return q


@tool
def publish(text: str) -> str:
    """Publish text."""
    return text


async def test_budget_remaining_and_approvals_pending_are_read_at_scrape() -> None:
    """Budgets left (the tightest conversation) and calls waiting for a person."""
    gates = Gates(
        needs_approval=("publish",),
        budget=Budget(per_conversation=5, per_tool={"lookup": 3}, rate=(10, 60.0)),
    )
    sink = PrometheusSink(gates=gates)
    executor = Executor(ToolRegistry([lookup, publish]), sinks=[sink], gates=gates)
    ctx = ExecutionContext(agent="dev")
    for q in ("a", "b"):
        await executor.run(ToolCall(name="lookup", arguments={"q": q}), ctx)
    await executor.run(ToolCall(name="publish", arguments={"text": "hi"}), ctx)
    samples = _samples(sink.text().decode())
    assert samples[("toolrail_approvals_pending", ())] == 1
    left = "toolrail_budget_remaining"
    assert samples[(left, (("limit", "conversation"), ("scope", "")))] == 3
    assert samples[(left, (("limit", "tool"), ("scope", "lookup")))] == 1
    assert samples[(left, (("limit", "rate"), ("scope", "dev")))] == 8

    (pending,) = gates.pending
    taken = gates.take_pending(pending.id)
    assert taken is not None
    assert _samples(sink.text().decode())[("toolrail_approvals_pending", ())] == 0


TRACE_SERVER = str(Path(__file__).with_name("trace_server.py"))


async def test_mcp_servers_up_and_down() -> None:
    """A ready server is up; a closed one and one that cannot start are down."""
    sink = PrometheusSink()
    good = McpServerConfig(
        name="calc", command=sys.executable, args=(TRACE_SERVER,), stderr="discard"
    )
    bad = McpServerConfig(
        name="gone",
        command=sys.executable,
        args=("-c", "raise SystemExit(3)"),
        stderr="discard",
        timeout_s=10,
    )
    async with McpHub([good, bad], sinks=[sink]):
        up = _samples(sink.text().decode())
        assert up[("toolrail_mcp_server_up", (("server", "calc"),))] == 1
        assert up[("toolrail_mcp_server_up", (("server", "gone"),))] == 0
    down = _samples(sink.text().decode())
    assert down[("toolrail_mcp_server_up", (("server", "calc"),))] == 0


async def test_serve_metrics_port_serves_the_metrics_of_served_calls(tmp_path: Path) -> None:
    """`toolrail serve --metrics-port N`: a call over MCP shows when N is scraped over HTTP."""
    port = _free_port()
    params = stdio_params(write_config(tmp_path), "--metrics-port", str(port))
    async with Client(params) as client:
        await client.call_tool("greet", {"name": "ada"})
        body = await asyncio.to_thread(_get, f"http://127.0.0.1:{port}/metrics")
    samples = _samples(body.decode())
    assert samples[("toolrail_tool_calls_total", (("outcome", "ok"), ("tool", "greet")))] == 1
    assert samples[("toolrail_approvals_pending", ())] == 0


async def test_tool_labels_are_registry_names_whatever_the_refusal() -> None:
    """Names the registry does not hold are "<unknown>" whatever the error kind: under a
    prefix a broken source claims (TransportError, not UnknownTool), a model's made-up
    names (one with a key in it) add no series and show no text of theirs."""
    registry = ToolRegistry([divide])
    registry.claim(
        "mcp__srv__", lambda name: TransportError(message="server srv is down", server="srv")
    )
    sink = PrometheusSink()
    executor = Executor(registry, sinks=[sink])
    ctx = ExecutionContext()
    for i in range(20):
        made_up = f"mcp__srv__made_up_{i}_sk-ant-api03-{'A' * 20}"
        outcome = await executor.run(ToolCall(name=made_up, arguments={}), ctx)
        assert isinstance(outcome.result.failure(), TransportError)
    await executor.run(ToolCall(name="divide", arguments={"a": 4, "b": 2}), ctx)
    text = sink.text().decode()
    assert "made_up" not in text
    assert "sk-ant" not in text
    samples = _samples(text)
    tools = {dict(labels).get("tool") for _, labels in samples} - {None}
    assert tools == {"divide", "<unknown>"}
    calls = "toolrail_tool_calls_total"
    assert samples[(calls, (("outcome", "transport_error"), ("tool", "<unknown>")))] == 20


def test_idle_connections_neither_pin_threads_nor_stop_the_scrapes() -> None:
    """Half-sent requests are closed once idle, and past the limit refused at once, so a
    scrape gets through again (found by an outside review: each idle connection kept a
    server thread for ever)."""
    port = _free_port()
    server = serve_metrics(PrometheusSink(), port, idle_timeout_s=0.5, max_connections=4)
    idle: list[socket.socket] = []
    try:
        before = threading.active_count()
        for _ in range(20):
            held = socket.create_connection(("127.0.0.1", port))
            held.sendall(b"GET /metrics HTTP/1.1\r\n")  # never finished
            idle.append(held)
        time.sleep(0.2)
        assert threading.active_count() <= before + 4
        closed = 0
        for held in idle:  # closed by the server: refused at once, or once idle
            held.settimeout(5)
            closed += held.recv(1) == b""
        assert closed == len(idle)
        assert b"toolrail_tools_running" in _get(f"http://127.0.0.1:{port}/metrics")
    finally:
        for held in idle:
            held.close()
        server.shutdown()
        server.server_close()
