"""`invoke_agent` spans from real orchestrator runs, with their tool spans as children."""

from __future__ import annotations

import sys

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from toolrail import Agent, Orchestrator, ScriptedModel, ScriptedTurn, ToolRegistry, tool
from toolrail.builtin import complete, end_conversation
from toolrail.models.base import ModelRequest
from toolrail.observe.otel import OtelSink

pytestmark = pytest.mark.anyio


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
