"""Metrics from real calls, scraped over real HTTP and parsed with the client's parser."""

from __future__ import annotations

import asyncio
import socket
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool
from toolrail.observe.metrics import PrometheusSink, serve_metrics

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
