"""A call's id comes with the model's call, as its tool name does: every record shows it
through the same policy (`shown_name`: redacted, cut to a bound). Found by an outside
review: a token in an id, and a 2 MB id, reached spans, event JSON and the call log whole."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool
from toolrail._jsonish import dumps
from toolrail.observe.otel import OtelSink
from toolrail.recording.events import ToolEvent

pytestmark = pytest.mark.anyio
TOKEN = "sk-ant-api03-" + "Z" * 40


@tool
def ping() -> str:
    """Ping."""
    return "pong"


@pytest.mark.parametrize(
    "call_id", [f"call_{TOKEN}", "x" * 2_000_000], ids=["secret", "two megabytes"]
)
@pytest.mark.parametrize("known", [True, False], ids=["known tool", "unknown tool"])
async def test_a_models_call_id_is_shown_as_its_tool_name_is(
    spans: tuple[TracerProvider, InMemorySpanExporter],
    tmp_path: Path,
    call_id: str,
    known: bool,
) -> None:
    provider, exporter = spans
    otel = OtelSink(provider)
    events: list[ToolEvent] = []
    with JsonlCallLog(tmp_path) as log:
        executor = Executor(ToolRegistry([ping]), sinks=[otel, log, events.append])
        call = ToolCall(id=call_id, name="ping" if known else "pong", arguments={})
        await executor.run(call, ExecutionContext())
    assert otel.flush()
    [span] = exporter.get_finished_spans()
    shown = str(dict(span.attributes or {})["gen_ai.tool.call.id"])
    [line] = [orjson.loads(text) for text in log.current_path.read_bytes().splitlines()]
    records = [shown, line["call_id"], *line["trace"]["call_stack"]]
    records += [
        orjson.loads(dumps(event))["call_id"] for event in events if hasattr(event, "call_id")
    ]
    assert len(records) >= 4
    for record in records:
        assert TOKEN not in record
        assert len(record) < 200
    assert shown == line["call_id"]  # one policy: the same text everywhere
