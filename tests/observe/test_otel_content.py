"""What `record_content=True` puts in a span: the call log's record of the same call,
converted and redacted the same way, and never the reason a span is lost."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel
from returns.result import Success

from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool
from toolrail.observe.otel import OtelSink

pytestmark = pytest.mark.anyio

SECRET = "hunter2-very-secret"


@dataclasses.dataclass
class Creds:
    user: str
    password: str


class Conf(BaseModel):
    user: str
    api_key: str


@tool
def a_dataclass() -> Creds:
    """A dataclass with a secret field."""
    return Creds(user="bob", password=SECRET)


@tool
def a_model() -> Conf:
    """A pydantic model with a secret field."""
    return Conf(user="bob", api_key=SECRET)


@tool
def a_set() -> object:
    """A set holding an assignment of a secret."""
    return {f"password={SECRET}"}


@tool
def a_nested_dataclass() -> object:
    """A dict holding a dataclass with a secret field."""
    return {"items": [Creds(user="bob", password=SECRET)]}


@tool
def connect(host: str, credentials: dict[str, str], passwords: list[str] | None = None) -> str:
    """Connect."""
    return "ok"


def _by_tool(exporter: InMemorySpanExporter) -> dict[str, dict[str, object]]:
    return {
        str(dict(s.attributes or {})["gen_ai.tool.name"]): dict(s.attributes or {})
        for s in exporter.get_finished_spans()
    }


def _log_lines(directory: Path) -> list[dict[str, object]]:
    (path,) = directory.glob("*.jsonl")
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


async def test_results_that_are_not_json_data_are_redacted_as_the_call_log_redacts_them(
    spans: tuple[TracerProvider, InMemorySpanExporter], tmp_path: Path
) -> None:
    """A dataclass, a pydantic model, a set, a dict holding a dataclass: the span's result
    is the log's `output` (same conversion, same redaction), with no secret in either."""
    provider, exporter = spans
    sink = OtelSink(provider, record_content=True)
    with JsonlCallLog(tmp_path) as log:
        tools = [a_dataclass, a_model, a_set, a_nested_dataclass]
        executor = Executor(ToolRegistry(tools), sinks=[sink, log])
        for each in tools:
            outcome = await executor.run(ToolCall(name=each.name), ExecutionContext())
            assert isinstance(outcome.result, Success)
    assert sink.flush()
    by_tool = _by_tool(exporter)
    logged = {str(line["tool"]): line["output"] for line in _log_lines(tmp_path)}
    assert set(by_tool) == set(logged) == {each.name for each in tools}
    for name, attributes in by_tool.items():
        result = str(attributes["gen_ai.tool.call.result"])
        assert SECRET not in result, name
        assert orjson.loads(result) == logged[name], name
    assert orjson.loads(str(by_tool["a_dataclass"]["gen_ai.tool.call.result"])) == {
        "user": "bob",
        "password": "[REDACTED]",
    }


@pytest.mark.parametrize("as_bytes", [False, True], ids=["text", "bytes"])
async def test_arguments_sent_as_json_text_or_bytes_are_redacted_as_data(
    spans: tuple[TracerProvider, InMemorySpanExporter], tmp_path: Path, as_bytes: bool
) -> None:
    """Arguments as a provider sends them (JSON text, or its bytes) are recorded as the log
    records them: parsed, then redacted as data, so a secret-named key hides its whole
    value (an object, a list), and bytes are redacted too."""
    provider, exporter = spans
    sink = OtelSink(provider, record_content=True)
    text = (
        '{"host": "db", "credentials": {"user": "bob", "value": "S3CRET-one"},'
        ' "passwords": ["S3CRET-two"]}'
    )
    with JsonlCallLog(tmp_path) as log:
        executor = Executor(ToolRegistry([connect]), sinks=[sink, log])
        arguments: str | bytes = text.encode() if as_bytes else text
        outcome = await executor.run(
            ToolCall(name="connect", arguments=arguments), ExecutionContext()
        )
        assert isinstance(outcome.result, Success)
    assert sink.flush()
    recorded = str(_by_tool(exporter)["connect"]["gen_ai.tool.call.arguments"])
    assert "S3CRET" not in recorded
    (line,) = _log_lines(tmp_path)
    assert orjson.loads(recorded) == line["args"]
    assert orjson.loads(recorded)["host"] == "db"
