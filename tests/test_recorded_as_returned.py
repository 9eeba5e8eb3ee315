"""A record shows a call as it was when it returned (review of 25565a4, 2787fe2): the call
log and the span sink build their records later, on writer threads, from what the call path
kept. A caller scrubbing its own arguments dict after the call, a tool changing the output
it returned, a caller adding to `outcome.metadata`: none of it may reach a record, and
above all not by un-hiding a secret the record hid as the call returned."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel, SecretStr

from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool
from toolrail.observe.otel import OtelSink
from toolrail.policy.approvals import ApprovalRequest, Approve
from toolrail.policy.gates import Gates
from toolrail.policy.rules import Rules

pytestmark = pytest.mark.anyio

SECRET = "hunter22-SECRET-xyz"
STATE: dict[str, list[str]] = {"items": []}


@tool
async def login(user: str, password: str) -> str:
    """Log in, and say so with the password (as a careless tool would)."""
    return f"logged in {user} with {password}"


class Listing(BaseModel):
    items: list[str]


@tool
async def state() -> dict[str, list[str]]:
    """The shared state itself, not a copy."""
    return STATE


@tool
async def listing() -> Listing:
    """A model the tool keeps (and changes later)."""
    return KEPT


KEPT = Listing(items=["first"])


@tool
async def noted(ctx: ExecutionContext) -> str:
    """Attaches a list it goes on changing."""
    ctx.attach(seen=NOTES)
    return "ok"


NOTES: list[str] = []


def _lines(directory: Path) -> dict[str, dict[str, Any]]:
    (path,) = directory.glob("*.jsonl")
    lines = (orjson.loads(line) for line in path.read_bytes().splitlines())
    return {line["call_id"]: line for line in lines}


async def test_a_caller_scrubbing_its_arguments_after_the_call_un_hides_nothing(
    tmp_path: Path, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = spans
    log, sink = JsonlCallLog(tmp_path), OtelSink(provider, record_content=True)
    executor = Executor(ToolRegistry([login]), sinks=[log, sink])
    arguments = {"user": "bob", "password": SECRET}
    await executor.run(ToolCall(id="c1", name="login", arguments=arguments), ExecutionContext())
    arguments["password"] = "***"  # the caller's own dict, scrubbed once the call is done
    arguments["user"] = "eve"
    assert log.flush()
    assert sink.flush()

    line = _lines(tmp_path)["c1"]
    assert SECRET not in orjson.dumps(line).decode()
    assert line["output"] == "logged in bob with [REDACTED]"  # hidden as it was returned
    assert line["args"] == {"user": "bob", "password": "[REDACTED]"}
    (span,) = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    assert SECRET not in str(attributes)
    assert orjson.loads(str(attributes["gen_ai.tool.call.result"])) == line["output"]
    assert orjson.loads(str(attributes["gen_ai.tool.call.arguments"])) == line["args"]


async def test_what_a_tool_or_caller_changes_after_the_call_is_not_recorded(
    tmp_path: Path, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = spans
    log, sink = JsonlCallLog(tmp_path), OtelSink(provider, record_content=True)
    executor = Executor(ToolRegistry([state, listing, noted]), sinks=[log, sink])
    STATE["items"][:] = ["first"]
    NOTES[:] = ["first"]
    KEPT.items[:] = ["first"]
    outcomes = [
        await executor.run(ToolCall(id=name, name=name), ExecutionContext())
        for name in ("state", "listing", "noted")
    ]
    STATE["items"].append("changed after return")
    KEPT.items.append("changed after return")
    NOTES.append("changed after return")
    outcomes[0].metadata["note"] = "added by the caller"  # type: ignore[index]
    assert log.flush()
    assert sink.flush()

    lines = _lines(tmp_path)
    assert lines["state"]["output"] == {"items": ["first"]}
    assert lines["state"]["output_type"] == "dict"
    assert "metadata" not in lines["state"]
    assert lines["listing"]["output"] == {"items": ["first"]}
    assert lines["listing"]["output_type"] == "Listing"
    assert lines["noted"]["metadata"] == {"seen": ["first"]}
    results = {
        str(dict(s.attributes or {})["gen_ai.tool.name"]): dict(s.attributes or {}).get(
            "gen_ai.tool.call.result"
        )
        for s in exporter.get_finished_spans()
    }
    assert orjson.loads(str(results["state"])) == {"items": ["first"]}
    assert orjson.loads(str(results["listing"])) == {"items": ["first"]}


class _Exits:
    """An object whose repr ends the thread that asks for it (`SystemExit`)."""

    def __repr__(self) -> str:
        raise SystemExit("bye")

    def __hash__(self) -> int:
        return 1


@tool
async def exiting(ctx: ExecutionContext) -> str:
    """Attaches a set holding an object whose repr raises `SystemExit`."""
    ctx.attach(handles=frozenset({_Exits()}))
    return "ok"


@tool
async def add(a: int, b: int) -> int:
    """Add."""
    return a + b


@pytest.mark.parametrize("durable", [False, True])
async def test_a_value_whose_repr_exits_loses_no_line(tmp_path: Path, durable: bool) -> None:
    """Nor stops the writer thread for good, leaving every later line unwritten and
    `flush()` waiting forever."""
    log = JsonlCallLog(tmp_path, durable=durable)
    executor = Executor(ToolRegistry([exiting, add]), sinks=[log])
    await executor.run(ToolCall(id="exiting", name="exiting"), ExecutionContext())
    for n in range(5):
        call = ToolCall(id=f"c{n}", name="add", arguments={"a": n, "b": 1})
        await executor.run(call, ExecutionContext())
    assert log.flush(timeout=10)
    lines = _lines(tmp_path)
    assert set(lines) == {"exiting", "c0", "c1", "c2", "c3", "c4"}
    assert lines["c4"]["output"] == 5


async def test_a_call_whose_line_cannot_be_built_costs_no_other_line(tmp_path: Path) -> None:
    """A call id that is not text (a program's own mistake, past the type checker): its
    line is left out, the other lines of its batch are written."""
    log = JsonlCallLog(tmp_path)
    executor = Executor(ToolRegistry([add]), sinks=[log])
    calls = [ToolCall(id=f"c{n}", name="add", arguments={"a": n, "b": 1}) for n in range(10)]
    calls.insert(5, ToolCall(id=12345, name="add", arguments={"a": 0, "b": 0}))  # type: ignore[arg-type]
    for call in calls:
        await executor.run(call, ExecutionContext())
    assert log.flush(timeout=10)
    assert set(_lines(tmp_path)) == {f"c{n}" for n in range(10)}


class _Interrupting(SpanProcessor):
    """Raises `CancelledError` (a `BaseException`) as the first span ends."""

    def __init__(self) -> None:
        self.raised = False

    def on_end(self, span: ReadableSpan) -> None:
        if not self.raised:
            self.raised = True
            raise asyncio.CancelledError


async def test_a_span_processor_raising_anything_costs_its_span_alone() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(_Interrupting())
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    sink = OtelSink(provider)
    executor = Executor(ToolRegistry([add]), sinks=[sink])
    for n in range(20):
        await executor.run(
            ToolCall(id=f"c{n}", name="add", arguments={"a": n, "b": 1}), ExecutionContext()
        )
    assert sink.flush(timeout=10)
    assert len(exporter.get_finished_spans()) == 19
    provider.shutdown()


@tool
async def model_and_set(ctx: ExecutionContext) -> dict[str, object]:
    """An output and metadata of every kind the log turns into JSON data."""
    ctx.attach(tags={"b", "a"}, listing=Listing(items=["x"]), raw=b"bytes")
    return {"tags": {"z"}, "model": Listing(items=["y"]), "raw": b"out", "n": 2**70}


async def test_what_is_taken_as_the_call_ends_reads_as_the_record_made_it_before(
    tmp_path: Path,
) -> None:
    """A model, a set, bytes, an integer past 64 bits, in the output and in what the tool
    attached: the line shows each as the log has always made it JSON data."""
    log = JsonlCallLog(tmp_path)
    executor = Executor(ToolRegistry([model_and_set]), sinks=[log])
    call = ToolCall(id="m", name="model_and_set", arguments=b"{}")
    await executor.run(call, ExecutionContext())
    assert log.flush()
    line = _lines(tmp_path)["m"]
    assert line["output"] == {
        "tags": ["z"],
        "model": {"items": ["y"]},
        "raw": "out",
        "n": str(2**70),
    }
    assert line["output_type"] == "dict"
    assert line["metadata"] == {"tags": ["a", "b"], "listing": {"items": ["x"]}, "raw": "bytes"}


@tool
async def connect(host: str, creds: dict[str, SecretStr], keys: list[SecretStr]) -> str:
    """Connect, quoting the keys (as a careless tool would)."""
    return f"connected {host} with {creds['api'].get_secret_value()} {keys[0].get_secret_value()}"


async def test_a_caller_scrubbing_a_declared_secret_container_un_hides_nothing(
    tmp_path: Path, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    """A declared secret that is a container (`dict[str, SecretStr]`) is masked whole, its
    value kept for what it hides: taken as it was too, not as the caller's dict is later."""
    provider, exporter = spans
    log, sink = JsonlCallLog(tmp_path), OtelSink(provider, record_content=True)
    executor = Executor(ToolRegistry([connect]), sinks=[log, sink])
    arguments = {"host": "h", "creds": {"api": SECRET}, "keys": [SECRET[::-1]]}
    await executor.run(ToolCall(id="c", name="connect", arguments=arguments), ExecutionContext())
    arguments["creds"]["api"] = "***"  # type: ignore[index]
    arguments["keys"][0] = "***"  # type: ignore[index]
    assert log.flush()
    assert sink.flush()
    line = _lines(tmp_path)["c"]
    assert line["output"] == "connected h with [REDACTED] [REDACTED]"
    (span,) = exporter.get_finished_spans()
    result = str(dict(span.attributes or {})["gen_ai.tool.call.result"])
    assert orjson.loads(result) == line["output"]


@tool
async def shell(command: str) -> str:
    """Run a command."""
    return f"ran {command}"


async def test_a_persons_edit_is_recorded_as_the_arguments_it_replaced(tmp_path: Path) -> None:
    """`metadata.asked_arguments`: the model's own arguments, as data (an object), as the
    log always wrote them."""

    async def edit(request: ApprovalRequest) -> Approve:
        return Approve(arguments={"command": "git status"})

    log = JsonlCallLog(tmp_path)
    gates = Gates(rules=Rules.of(ask=["shell"]), approver=edit)
    executor = Executor(ToolRegistry([shell]), gates=gates, sinks=[log])
    call = ToolCall(id="s", name="shell", arguments={"command": "git push"})
    await executor.run(call, ExecutionContext())
    assert log.flush()
    line = _lines(tmp_path)["s"]
    assert line["args"] == {"command": "git status"}
    assert line["metadata"] == {"asked_arguments": {"command": "git push"}}
    assert line["output"] == "ran git status"


class _Wrapped(trace.Tracer):
    """An SDK tracer behind a tracer of another kind: the sink makes its spans on the call
    path, where content is made at once, from the same parts as the writer's."""

    def __init__(self, tracer: trace.Tracer) -> None:
        self._tracer = tracer

    def start_span(self, *args: Any, **kwargs: Any) -> trace.Span:
        return self._tracer.start_span(*args, **kwargs)

    def start_as_current_span(self, *args: Any, **kwargs: Any) -> Any:
        return self._tracer.start_as_current_span(*args, **kwargs)


class _WrappingProvider(trace.TracerProvider):
    def __init__(self, provider: TracerProvider) -> None:
        self._provider = provider

    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        return _Wrapped(self._provider.get_tracer(*args, **kwargs))


async def test_content_made_on_the_call_path_hides_what_the_arguments_hide(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    sink = OtelSink(_WrappingProvider(provider), record_content=True)
    executor = Executor(ToolRegistry([login]), sinks=[sink])
    arguments = {"user": "bob", "password": SECRET}
    await executor.run(ToolCall(id="w", name="login", arguments=arguments), ExecutionContext())
    (span,) = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    assert orjson.loads(str(attributes["gen_ai.tool.call.result"])) == (
        "logged in bob with [REDACTED]"
    )
    assert SECRET not in str(attributes)
