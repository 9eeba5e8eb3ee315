"""A name a model supplies is untrusted text, shown only through the one redaction policy:
the tool a model asked for when no tool answers to it, and every key of its arguments.
The JSONL call log, events as JSON, OTel spans, Prometheus labels and `InvalidArguments`
(its issues' paths, and its message) never repeat a secret written as such a name. A
registered tool's name is not secret, and is shown as it is."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.util.types import Attributes
from returns.result import Failure

from toolrail import (
    ExecutionContext,
    Executor,
    InvalidArguments,
    JsonlCallLog,
    ToolCall,
    ToolOutcome,
    ToolRegistry,
    tool,
)
from toolrail.core.redact import REDACTED, redact
from toolrail.observe.otel import OtelSink
from toolrail.recording.eventjson import event_data
from toolrail.recording.events import ToolCallRequested, ToolEvent
from toolrail.recording.stream import ProgressUpdate, ToolStreamHandler

pytestmark = pytest.mark.anyio

SK = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3"
ASSIGNED = "password=" + "hunter2hunter2"
LEAKS = (SK, "hunter2hunter2")
CALLS = [
    ToolCall(id="unknown", name=SK, arguments={}),
    ToolCall(id="key", name="echo", arguments={"text": "x", SK: 1}),
    ToolCall(id="assigned", name="echo", arguments={"text": "x", ASSIGNED: 1}),
    ToolCall(id="json", name="echo", arguments=json.dumps({"text": "x", SK: 1, ASSIGNED: 2})),
    ToolCall(id="nested", name="nest", arguments={"inner": {"a": 1, SK: 2, ASSIGNED: 3}}),
]


@tool
def echo(text: str) -> str:
    """Say `text` back."""
    return text


@tool
def nest(inner: dict[str, int]) -> int:
    """Count the keys of `inner`."""
    return len(inner)


def _no_leak(text: str) -> None:
    for secret in LEAKS:
        assert secret not in text, text


async def _run(sinks: Sequence[object]) -> list[ToolOutcome]:
    executor = Executor(ToolRegistry([echo, nest]), sinks=list(sinks))  # type: ignore[arg-type]
    ctx = ExecutionContext(agent="a")
    return [await executor.run(call, ctx) for call in CALLS]


async def test_the_call_log_never_writes_a_secret_used_as_a_tool_name_or_a_key(
    tmp_path: Path,
) -> None:
    log = JsonlCallLog(tmp_path)
    await _run([log])
    assert log.flush()
    text = "".join(p.read_text() for p in tmp_path.glob("*.jsonl"))
    _no_leak(text)
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["tool"] for line in lines] == [REDACTED, "echo", "echo", "echo", "nest"]
    assert lines[1]["args"] == {"text": "x", REDACTED: 1}  # the key's value is no secret
    assert lines[2]["args"] == {"text": "x", f"password={REDACTED}": REDACTED}
    assert lines[4]["args"] == {"inner": {"a": 1, REDACTED: 2, f"password={REDACTED}": REDACTED}}


async def test_events_as_json_never_show_such_a_name() -> None:
    seen: list[ToolEvent] = []
    await _run([seen.append])
    shown = [event_data(event) for event in seen]
    _no_leak(json.dumps(shown))
    finished = [d for d in shown if d["type"] in ("tool_completed", "tool_failed")]
    assert [d["tool"] for d in finished] == [REDACTED, "echo", "echo", "echo", "nest"]


async def test_the_outcome_a_model_reads_never_repeats_such_a_name() -> None:
    """`InvalidArguments`: its issues' paths and its message, and what any later redaction
    makes of them; the issue still names the field (its redacted name) and the fix."""
    outcomes = await _run([])
    for outcome in outcomes[1:4]:
        assert isinstance(outcome.result, Failure)
        error = outcome.result.failure()
        assert isinstance(error, InvalidArguments)
        _no_leak(error.message)
        _no_leak(json.dumps([[i.path, i.message] for i in error.issues]))
        assert "unexpected field; remove it" in error.message
        assert error.message.count(REDACTED) >= 1
        assert redact(error.message) == error.message  # shown again, it reads the same


def test_redacting_data_hides_a_secret_written_as_a_key_and_keeps_every_entry() -> None:
    other = "sk-" + "Z9y8X7w6V5u4T3s2R1q0P9o8"
    data = {SK: 1, other: 2, REDACTED: 3, "plain": {ASSIGNED: 4}}
    shown = redact(data)
    _no_leak(json.dumps(shown))
    assert isinstance(shown, dict)
    assert sorted(shown.values(), key=str) == [1, 2, 3, {f"password={REDACTED}": REDACTED}]
    assert redact({"text": "x", "n": 1}) == {"text": "x", "n": 1}


class _Recording(trace.Tracer):
    """A tracer that is not the SDK's: the sink makes its spans on the call path."""

    def __init__(self) -> None:
        self.started: list[tuple[str, dict[str, object]]] = []

    def start_span(self, name: str, *args: Any, attributes: Attributes = None, **kw: Any) -> Any:
        self.started.append((name, dict(attributes or {})))
        return trace.NonRecordingSpan(trace.INVALID_SPAN_CONTEXT)

    def start_as_current_span(self, *args: Any, **kw: Any) -> Any:  # pragma: no cover
        raise NotImplementedError


class _Provider(trace.TracerProvider):
    def __init__(self) -> None:
        self.tracer = _Recording()

    def get_tracer(self, *args: Any, **kw: Any) -> trace.Tracer:
        return self.tracer


async def test_otel_spans_never_name_an_unknown_tool_as_the_model_wrote_it(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    sink = OtelSink(provider, record_content=True)
    other = _Provider()
    on_call_path = OtelSink(other)
    await _run([sink, on_call_path])
    assert sink.flush()
    finished = exporter.get_finished_spans()
    shown = [(s.name, dict(s.attributes or {})) for s in finished] + other.tracer.started
    _no_leak(json.dumps([(n, {k: str(v) for k, v in a.items()}) for n, a in shown]))
    for found in (finished[0].name, other.tracer.started[0][0]):
        assert found == f"execute_tool {REDACTED}"
    assert {a["gen_ai.tool.name"] for _, a in shown} == {REDACTED, "echo", "nest"}


async def test_prometheus_counts_an_unknown_tool_as_unknown() -> None:
    prometheus_client = pytest.importorskip("prometheus_client")
    from toolrail.observe.metrics import PrometheusSink

    registry = prometheus_client.CollectorRegistry()
    sink = PrometheusSink(registry=registry)
    await _run([sink])
    exposed = prometheus_client.generate_latest(registry).decode()
    _no_leak(exposed)
    assert 'tool="<unknown>"' in exposed


async def test_progress_lines_never_name_an_unknown_tool_as_the_model_wrote_it() -> None:
    """The stream handler's lines: neither their text nor their `tool` field, for a call
    the executor found no tool for, or one the model is still writing."""
    lines: list[ProgressUpdate] = []
    handler = ToolStreamHandler(on_update=lines.append)
    executor = Executor(ToolRegistry([echo, nest]), sinks=[handler])
    ctx = ExecutionContext(agent="a")
    executor.emit(ToolCallRequested(call_id="writing", tool=SK, context=ctx))
    await _run([handler])
    shown = [(line.tool, line.text) for line in lines]
    _no_leak(repr(shown))
    assert [tool for tool, _ in shown[:3]] == [REDACTED, REDACTED, REDACTED]
    assert {tool for tool, _ in shown[3:]} == {"echo", "nest"}
