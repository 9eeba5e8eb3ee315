"""What `record_content=True` puts in a span: the call log's record of the same call,
converted and redacted the same way, and never the reason a span is lost."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Literal

import orjson
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel
from returns.result import Success

from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool
from toolrail.core.errors import InvalidArguments
from toolrail.core.tool import AnyTool
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
        tools: list[AnyTool] = [a_dataclass, a_model, a_set, a_nested_dataclass]
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


class Unprintable:
    """An object whose str() and repr() raise."""

    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@tool
def lone_surrogate() -> str:
    """Text that is not valid UTF-8."""
    return "a\udcffb"


@tool
def huge_int() -> int:
    """An integer far past 64 bits."""
    return 10**5000


@tool
def deep() -> object:
    """Lists nested far deeper than JSON encoders (or repr) go."""
    nested: list[object] = []
    for _ in range(100_000):
        nested = [nested]
    return nested


@tool
def unprintable() -> object:
    """An object whose str() raises."""
    return Unprintable()


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return "echoed"


async def test_content_that_cannot_be_recorded_never_costs_the_span(
    spans: tuple[TracerProvider, InMemorySpanExporter], tmp_path: Path
) -> None:
    """A lone surrogate (in a result, or in the arguments), an int over 64 bits, nesting
    past any encoder, an object whose str() raises: each call still has its span (as it has
    its log line), with content as the log records it; content that cannot be made at all
    is left out, and `toolrail.record_error` says which and why, without the value."""
    provider, exporter = spans
    sink = OtelSink(provider, record_content=True)
    tools: list[AnyTool] = [lone_surrogate, huge_int, deep, unprintable, echo]
    with JsonlCallLog(tmp_path) as log:
        executor = Executor(ToolRegistry(tools), sinks=[sink, log])
        for each in tools[:-1]:
            await executor.run(ToolCall(name=each.name), ExecutionContext())
        await executor.run(
            ToolCall(name="echo", arguments={"text": "b\ud800c"}), ExecutionContext()
        )
    assert sink.flush()
    by_tool = _by_tool(exporter)
    assert set(by_tool) == {each.name for each in tools}
    assert len(_log_lines(tmp_path)) == len(tools)
    logged = {str(line["tool"]): line for line in _log_lines(tmp_path)}
    for name in ("huge_int", "deep", "unprintable"):  # recorded as the log records them
        result = orjson.loads(str(by_tool[name]["gen_ai.tool.call.result"]))
        assert result == logged[name]["output"], name
    huge = orjson.loads(str(by_tool["huge_int"]["gen_ai.tool.call.result"]))
    assert huge == f"<an integer of {(10**5000).bit_length()} bits>"
    assert isinstance(orjson.loads(str(by_tool["deep"]["gen_ai.tool.call.result"])), list)
    surrogate = by_tool["lone_surrogate"]
    assert "gen_ai.tool.call.result" not in surrogate
    assert surrogate["gen_ai.tool.call.arguments"] == "{}"
    assert surrogate["toolrail.record_error"] == "gen_ai.tool.call.result: TypeError"
    echoed = by_tool["echo"]  # arguments JSON cannot hold: their repr, made valid text
    assert orjson.loads(str(echoed["gen_ai.tool.call.arguments"])) == logged["echo"]["args"]
    assert echoed["gen_ai.tool.call.result"] == '"echoed"'
    assert "toolrail.record_error" not in echoed


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text")

    __float__ = __str__


@tool
def odd_progress(ctx: ExecutionContext) -> str:
    """Report progress no number can describe."""
    ctx.report_progress(float("nan"), 0, "m")
    ctx.report_progress("abc", None, None)  # type: ignore[arg-type]
    ctx.report_progress(_Unprintable(), _Unprintable(), None)  # type: ignore[arg-type]
    ctx.report_progress(1, 2, None)
    return "ok"


async def test_odd_progress_and_a_name_that_is_no_string_never_cost_the_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """Whatever a tool reports as progress, and whatever a model sends as a tool name, the
    call has its span (progress that is not a number is left out of it)."""
    provider, exporter = spans
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([odd_progress]), sinks=[sink])
    await executor.run(ToolCall(name="odd_progress"), ExecutionContext())
    await executor.run(ToolCall(name=123), ExecutionContext())  # type: ignore[arg-type]
    assert sink.flush()
    names = sorted(span.name for span in exporter.get_finished_spans())
    assert names == ["execute_tool 123", "execute_tool odd_progress"]
    [odd] = [s for s in exporter.get_finished_spans() if s.name.endswith("odd_progress")]
    reported = [dict(event.attributes or {}) for event in odd.events]
    assert {"progress": 1.0, "total": 2.0} in reported
    assert all(isinstance(value, float) for each in reported for value in each.values())


@tool
def book_visit(patient: Literal["self", "child"], age: int) -> str:
    """Book a doctor's visit."""
    return "booked"


@pytest.mark.parametrize("record_content", [False, True])
async def test_a_refused_calls_argument_values_reach_its_span_only_with_content(
    spans: tuple[TracerProvider, InMemorySpanExporter], record_content: bool
) -> None:
    """A validation error quotes the values it rejected: without content opted in, the
    span's status says only where the arguments were wrong (found by an outside review:
    the values reached the status description either way)."""
    provider, exporter = spans
    sink = OtelSink(provider, record_content=record_content)
    executor = Executor(ToolRegistry([book_visit]), sinks=[sink])
    arguments = {"patient": "Jane Roe, 12 Elm St", "age": "forty, diabetic"}
    outcome = await executor.run(
        ToolCall(name="book_visit", arguments=arguments), ExecutionContext()
    )
    assert isinstance(outcome.result.failure(), InvalidArguments)
    assert sink.flush()
    [span] = exporter.get_finished_spans()
    description = span.status.description or ""
    assert "$.patient" in description
    assert "$.age" in description
    assert ("Jane Roe" in description) is record_content
    assert ("diabetic" in description) is record_content
