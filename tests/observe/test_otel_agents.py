"""`invoke_agent` spans from real orchestrator runs, with their tool spans as children."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from toolrail import (
    Agent,
    ExecutionContext,
    Orchestrator,
    ScriptedModel,
    ScriptedTurn,
    Sink,
    ToolRegistry,
    tool,
)
from toolrail.builtin import complete, end_conversation
from toolrail.models.base import ModelRequest
from toolrail.observe.hooks import AgentEnded, AgentObserver
from toolrail.observe.otel import OtelSink
from toolrail.policy import Approve, Gates, Rules

pytestmark = pytest.mark.anyio
TOKEN = "sk-ant-api03-" + "Z" * 40


@tool
def lookup(city: str) -> str:
    """Weather for a city."""
    return f"{city}: 4°C"


def _named(exporter: InMemorySpanExporter, prefix: str) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if s.name.startswith(prefix)]


async def test_each_agent_stretch_is_an_invoke_agent_span_parenting_its_tool_spans(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """Two agents: two invoke_agent spans; every tool span is a child of its agent's span."""
    provider, exporter = spans
    otel = OtelSink(provider)
    researcher = ScriptedModel(
        [
            ScriptedTurn(calls=[("lookup", {"city": "Oslo"}), ("lookup", {"city": "Bergen"})]),
            ScriptedTurn(calls=[("complete", {"summary": "4°C", "next_agent": "writer"})]),
        ]
    )
    writer = ScriptedModel([ScriptedTurn(calls=[("end_conversation", {"reason": "done"})])])
    orchestrator = Orchestrator(
        [
            Agent(
                name="researcher", instructions="-", model=researcher, tools=("lookup", "complete")
            ),
            Agent(name="writer", instructions="-", model=writer, tools=("end_conversation",)),
        ],
        ToolRegistry([lookup, complete, end_conversation]),
        sinks=[otel],
        observer=otel,
    )
    result = await orchestrator.run("weather?", conversation_id="conv-7")
    assert result.end.kind == "end_conversation"
    assert otel.flush()  # tool spans are built just after their calls, off the call path

    agents = {s.name: s for s in _named(exporter, "invoke_agent ")}
    assert set(agents) == {"invoke_agent researcher", "invoke_agent writer"}
    for name, span in agents.items():
        attributes = dict(span.attributes or {})
        assert attributes["gen_ai.operation.name"] == "invoke_agent"
        assert attributes["gen_ai.agent.name"] == name.removeprefix("invoke_agent ")
        assert attributes["gen_ai.conversation.id"] == "conv-7"
        assert span.kind is SpanKind.INTERNAL
        assert span.status.status_code is not StatusCode.ERROR
    assert dict(agents["invoke_agent researcher"].attributes or {})["toolrail.agent.end"] == (
        "completed"
    )
    assert dict(agents["invoke_agent researcher"].attributes or {})["toolrail.agent.turns"] == 2

    tools = _named(exporter, "execute_tool ")
    assert sorted(s.name for s in tools) == [
        "execute_tool complete",
        "execute_tool end_conversation",
        "execute_tool lookup",
        "execute_tool lookup",
    ]
    for span in tools:
        agent = dict(span.attributes or {})["gen_ai.agent.name"]
        parent = agents[f"invoke_agent {agent}"]
        assert span.parent is not None
        assert span.parent.span_id == parent.context.span_id
        assert span.context.trace_id == parent.context.trace_id


async def test_a_failing_agent_ends_its_span_with_an_error(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """A model that raises: the agent's span has an error status and error.type."""
    provider, exporter = spans
    otel = OtelSink(provider)

    def broken(request: ModelRequest) -> ScriptedTurn:
        raise ConnectionError("provider down")

    orchestrator = Orchestrator(
        [Agent(name="planner", instructions="-", model=ScriptedModel(broken), tools=("lookup",))],
        ToolRegistry([lookup]),
        sinks=[otel],
        observer=otel,
    )
    result = await orchestrator.run("plan")
    assert result.end.kind == "model_error"
    assert otel.flush()
    (span,) = _named(exporter, "invoke_agent ")
    assert span.name == "invoke_agent planner"
    assert span.status.status_code is StatusCode.ERROR
    assert "provider down" in (span.status.description or "")
    assert dict(span.attributes or {})["error.type"] == "model_error"


def test_importing_toolrail_and_the_hook_does_not_import_opentelemetry() -> None:
    """OTel stays optional: the orchestrator's hook needs none of it."""
    import subprocess

    code = (
        "import sys, toolrail, toolrail.orchestrator, toolrail.observe.hooks; "
        "print(any(m.startswith('opentelemetry') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


class _Raising(SpanProcessor):
    """A span processor whose collector is unreachable: it raises at every span."""

    def __init__(self, when: str) -> None:
        self.when = when

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        if self.when == "start":
            raise RuntimeError("collector unreachable")

    def on_end(self, span: ReadableSpan) -> None:
        if self.when == "end":
            raise RuntimeError("collector unreachable")


class _BrokenObserver:
    """An application's observer that fails at one step of every stretch."""

    def __init__(self, step: str) -> None:
        self.step = step
        self.left: list[str] = []

    @contextmanager
    def invoke_agent(self, agent: str, ctx: ExecutionContext) -> Iterator[AgentEnded]:
        if self.step == "call":
            raise RuntimeError("observer broken")

        def ended(kind: str, detail: str, turns: int, tool_calls: int) -> None:
            if self.step == "ended":
                raise RuntimeError("observer broken")

        if self.step == "enter":
            raise RuntimeError("observer broken")
        yield ended
        self.left.append(agent)
        if self.step == "exit":
            raise RuntimeError("observer broken")


def _weather_run(observer: AgentObserver, sinks: list[Sink]) -> Orchestrator:
    model = ScriptedModel(
        [
            ScriptedTurn(calls=[("lookup", {"city": "Oslo"})]),
            ScriptedTurn(calls=[("end_conversation", {"reason": "done"})]),
        ]
    )
    agent = Agent(name="ops", instructions="-", model=model, tools=("lookup", "end_conversation"))
    return Orchestrator(
        [agent], ToolRegistry([lookup, end_conversation]), sinks=sinks, observer=observer
    )


@pytest.mark.parametrize("when", ["start", "end"])
async def test_a_span_processor_that_raises_never_breaks_the_run(when: str) -> None:
    """The invoke_agent span is made on the run's path: a processor raising there is
    reported, and the run ends as it would have (found by an outside review: the error
    escaped `Orchestrator.run`)."""
    provider = TracerProvider()
    provider.add_span_processor(_Raising(when))
    otel = OtelSink(provider)
    result = await _weather_run(otel, [otel]).run("weather?")
    assert result.end.kind == "end_conversation"
    assert [str(o.result.unwrap()) for o in result.outcomes][:1] == ["Oslo: 4°C"]


@pytest.mark.parametrize("step", ["call", "enter", "ended", "exit"])
async def test_an_observer_that_fails_never_breaks_the_run(step: str) -> None:
    observer = _BrokenObserver(step)
    result = await _weather_run(observer, []).run("weather?")
    assert result.end.kind == "end_conversation"
    if step in ("ended", "exit"):
        assert observer.left == ["ops"]  # left as usual after the failed step


async def test_a_handoff_that_cannot_run_ends_in_an_error_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """Control handed to no agent of that name, or once too often: the run fails, and its
    trace says so where it happened (found by an outside review: every span was OK)."""
    provider, exporter = spans
    otel = OtelSink(provider)
    model = ScriptedModel(
        [ScriptedTurn(calls=[("complete", {"summary": "done", "next_agent": f"ghost {TOKEN}"})])]
    )
    planner = Agent(name="planner", instructions="-", model=model, tools=("complete",))
    orchestrator = Orchestrator([planner], ToolRegistry([complete]), observer=otel)
    result = await orchestrator.run("hi")
    assert result.end.kind == "unknown_agent"
    [failed] = [s for s in _named(exporter, "invoke_agent ") if s.name != "invoke_agent planner"]
    assert failed.status.status_code is StatusCode.ERROR
    assert dict(failed.attributes or {})["error.type"] == "unknown_agent"
    assert TOKEN not in failed.name  # a model's text
    assert TOKEN not in str(dict(failed.attributes or {}))

    exporter.clear()
    looping = ScriptedModel(
        [ScriptedTurn(calls=[("complete", {"summary": "again", "next_agent": "planner"})])] * 3
    )
    planner = Agent(name="planner", instructions="-", model=looping, tools=("complete",))
    orchestrator = Orchestrator([planner], ToolRegistry([complete]), observer=otel, max_handoffs=1)
    result = await orchestrator.run("hi")
    assert result.end.kind == "max_handoffs"
    ends = [dict(s.attributes or {}).get("error.type") for s in _named(exporter, "invoke_agent ")]
    assert ends.count("max_handoffs") == 1


async def test_an_approved_call_runs_inside_its_agents_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    """`Orchestrator.resume` runs the approved call inside an invoke_agent span of the
    agent that asked for it (found by an outside review: its span was a root of its own)."""
    provider, exporter = spans
    otel = OtelSink(provider)
    model = ScriptedModel(
        [
            ScriptedTurn(calls=[("lookup", {"city": "Oslo"})]),
            ScriptedTurn(calls=[("end_conversation", {"reason": "done"})]),
        ]
    )
    agent = Agent(name="ops", instructions="-", model=model, tools=("lookup", "end_conversation"))
    orchestrator = Orchestrator(
        [agent],
        ToolRegistry([lookup, end_conversation]),
        sinks=[otel],
        observer=otel,
        gates=Gates(rules=Rules.of(ask=["lookup"])),
    )
    paused = await orchestrator.run("weather?")
    [request] = paused.pending
    done = await orchestrator.resume(paused, {request.id: Approve()})
    assert done.end.kind == "end_conversation"
    assert otel.flush()
    spans_by_id = {s.context.span_id: s for s in exporter.get_finished_spans()}
    [ran] = [
        s
        for s in _named(exporter, "execute_tool lookup")
        if s.status.status_code is not StatusCode.ERROR
    ]
    assert ran.parent is not None
    parent = spans_by_id[ran.parent.span_id]
    assert parent.name == "invoke_agent ops"
    assert dict(parent.attributes or {})["toolrail.agent.end"] == "resumed"
    assert dict(parent.attributes or {})["toolrail.agent.tool_calls"] == 1
