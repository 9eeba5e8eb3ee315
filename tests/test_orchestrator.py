"""Multi-agent conversations end to end with ScriptedModel, in every dialect."""

from __future__ import annotations

import pytest
from returns.result import Failure, Success

from toolrail import (
    Agent,
    Complete,
    EndConversation,
    ExecutionContext,
    Executor,
    InvalidArguments,
    NotAllowed,
    Orchestrator,
    ScriptedModel,
    ScriptedTurn,
    ToolRegistry,
    tool,
)
from toolrail.builtin import complete, end_conversation
from toolrail.core.messages import AssistantMessage, Handoff, ToolResults
from toolrail.dialects import anthropic, gemini, openai
from toolrail.dialects.base import Dialect
from toolrail.models.base import ModelRequest
from toolrail.recording.events import ToolCallRequested, ToolCompleted, ToolEvent
from toolrail.resilience import BreakerSettings, Resilience

pytestmark = pytest.mark.anyio
DIALECTS = [openai.chat, openai.responses, anthropic.dialect, gemini.dialect]


@tool
def lookup(city: str) -> str:
    """Weather for a city."""
    return f"{city}: 4°C"


@tool
def note(text: str, ctx: ExecutionContext) -> str:
    """Keep a note; returns the phase it was kept in."""
    return f"{ctx.phase}:{text}"


def registry() -> ToolRegistry:
    return ToolRegistry([lookup, note, complete, end_conversation])


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
async def test_two_agents_handoff_and_end(dialect: Dialect) -> None:
    """Researcher recovers from bad arguments, completes; writer ends the conversation."""
    researcher = ScriptedModel(
        [
            ScriptedTurn(text="Looking it up.", calls=[("lookup", {"town": "Oslo"})]),
            lambda request: ScriptedTurn(
                calls=[("lookup", {"city": "Oslo"}), ("lookup", {"city": "Bergen"})]
            ),
            ScriptedTurn(
                calls=[("complete", {"summary": "Oslo 4°C, Bergen 4°C", "next_agent": "writer"})]
            ),
        ],
        dialect=dialect,
    )
    writer = ScriptedModel(
        [
            ScriptedTurn(calls=[("note", {"text": "draft"})]),
            ScriptedTurn(
                calls=[("end_conversation", {"reason": "answered", "final_message": "Both 4°C."})]
            ),
        ],
        dialect=dialect,
    )
    events: list[ToolEvent] = []
    orchestrator = Orchestrator(
        [
            Agent(
                name="researcher",
                instructions="Find facts.",
                model=researcher,
                tools=("lookup", "complete"),
            ),
            Agent(
                name="writer",
                instructions="Write.",
                model=writer,
                tools=("note", "end_conversation"),
                phase="drafting",
            ),
        ],
        registry(),
        sinks=[events.append],
    )
    result = await orchestrator.run("Weather in Oslo and Bergen?", conversation_id="conv-1")

    assert result.end.kind == "end_conversation"
    assert result.final_message == "Both 4°C."
    assert [(r.agent, r.turns, r.tool_calls) for r in result.agents] == [
        ("researcher", 3, 4),
        ("writer", 2, 2),
    ]
    first = result.outcomes[0].result
    assert isinstance(first, Failure)
    assert isinstance(first.failure(), InvalidArguments)
    assert [o.result for o in result.outcomes[1:3]] == [
        Success("Oslo: 4°C"),
        Success("Bergen: 4°C"),
    ]
    assert result.outcomes[4].result == Success("drafting:draft")
    assert any(isinstance(m, Handoff) and m.to_agent == "writer" for m in result.transcript)
    # the validation failure went back to the model in its own dialect
    second_request: ModelRequest = researcher.requests[1]
    assert "invalid_arguments" in str(second_request.body)
    # each agent saw only its tools, exported in its dialect
    exported = str(writer.requests[0].export.tools)
    assert "end_conversation" in exported
    assert "lookup" not in exported
    completed = [e for e in events if isinstance(e, ToolCompleted)]
    assert {e.conversation_id for e in completed} == {"conv-1"}
    assert any(isinstance(e, ToolCallRequested) for e in events)  # streamed announcements


async def test_not_allowed_calls_go_back_to_the_model() -> None:
    """A call outside the agent's table is a NotAllowed result the model reads."""
    model = ScriptedModel(
        [
            ScriptedTurn(calls=[("end_conversation", {"reason": "x"})]),
            ScriptedTurn(text="I will stop here."),
        ]
    )
    orchestrator = Orchestrator(
        [Agent(name="a", instructions="", model=model, tools=("lookup",))], registry()
    )
    result = await orchestrator.run("hi")
    assert isinstance(result.outcomes[0].result.failure(), NotAllowed)  # the developer's value
    assert result.end.kind == "completed"
    assert result.final_message == "I will stop here."
    # the model reads it as a name no tool has: it cannot probe which hidden tools exist
    read = str(model.requests[1].body)
    assert "unknown_tool" in read
    assert "there is no tool named 'end_conversation'" in read
    assert all(reason not in read for reason in ("not_allowed", "may not call"))
    assert "NotAllowed" not in str(model.requests[1].messages)


async def test_a_tool_lacking_permissions_reads_as_unknown_to_the_model() -> None:
    """Declared permissions hide a tool as the table does: the model cannot tell it from a
    name no tool has, "did you mean" included."""

    @tool(permissions=["vault:read"])
    def vault_read(key: str) -> str:
        """Read a vault secret."""
        return "s3cr3t"

    model = ScriptedModel(
        [
            ScriptedTurn(calls=[("vault_read", {"key": "k"}), ("vault_reed", {"key": "k"})]),
            ScriptedTurn(text="done"),
        ]
    )
    agents = [Agent(name="a", instructions="", model=model, tools=("*",))]
    result = await Orchestrator(agents, ToolRegistry([vault_read, *registry()])).run("hi")
    assert result.outcomes[0].result.failure().kind == "permission_denied"
    read = str(model.requests[1].body)
    assert all(reason not in read for reason in ("permission", "vault:read"))
    assert read.count("unknown_tool") == 2


async def test_batch_with_terminators_runs_every_call_and_end_wins() -> None:
    """All calls in a batch run; EndConversation beats a Complete earlier in the batch."""
    model = ScriptedModel(
        [
            ScriptedTurn(
                calls=[
                    ("complete", {"summary": "done"}),
                    ("lookup", {"city": "Rome"}),
                    ("end_conversation", {"reason": "bye"}),
                ]
            )
        ]
    )
    orchestrator = Orchestrator(
        [Agent(name="a", instructions="", model=model, tools=("*",))], registry()
    )
    result = await orchestrator.run("go")
    assert result.end.kind == "end_conversation"
    assert [o.call.name for o in result.outcomes] == ["complete", "lookup", "end_conversation"]
    assert result.outcomes[1].result == Success("Rome: 4°C")
    assert isinstance(result.outcomes[0].result.unwrap(), Complete)
    assert isinstance(result.outcomes[2].result.unwrap(), EndConversation)


async def test_routing_table_and_function() -> None:
    """Without next_agent, a table or a function decides who goes next."""

    def done(summary: str) -> ScriptedModel:
        return ScriptedModel([ScriptedTurn(calls=[("complete", {"summary": summary})])])

    agents = [
        Agent(name="a", instructions="", model=done("a did it"), tools=("complete",)),
        Agent(name="b", instructions="", model=done("b did it"), tools=("complete",)),
    ]
    by_table = await Orchestrator(agents, registry(), route={"a": "b", "b": None}).run("x")
    assert [r.agent for r in by_table.agents] == ["a", "b"]
    assert by_table.end.kind == "completed"
    assert by_table.final_message == "b did it"

    agents = [
        Agent(name="a", instructions="", model=done("a"), tools=("complete",)),
        Agent(name="b", instructions="", model=done("b"), tools=("complete",)),
    ]
    seen: list[tuple[str, str]] = []

    def route(agent: str, completed: Complete) -> str | None:
        seen.append((agent, completed.summary))
        return "b" if agent == "a" else None

    await Orchestrator(agents, registry(), route=route).run("x")
    assert seen == [("a", "a"), ("b", "b")]


async def test_limits_end_with_reasons_not_exceptions() -> None:
    """Max turns, max calls per turn, handoff loops, model errors, unknown agents."""
    looping = ScriptedModel(lambda request: ScriptedTurn(calls=[("lookup", {"city": "X"})]))
    result = await Orchestrator(
        [Agent(name="a", instructions="", model=looping, tools=("lookup",), max_turns=3)],
        registry(),
    ).run("x")
    assert (result.end.kind, result.agents[0].turns) == ("max_turns", 3)

    greedy = ScriptedModel([ScriptedTurn(calls=[("lookup", {"city": str(n)}) for n in range(5)])])
    result = await Orchestrator(
        [Agent(name="a", instructions="", model=greedy, tools=("*",), max_tool_calls_per_turn=4)],
        registry(),
    ).run("x")
    assert result.end.kind == "max_tool_calls"
    assert "5 tool calls" in result.end.detail

    ping = ScriptedModel(lambda r: ScriptedTurn(calls=[("complete", {"summary": "again"})]))
    result = await Orchestrator(
        [Agent(name="a", instructions="", model=ping, tools=("*",))],
        registry(),
        route={"a": "a"},
        max_handoffs=3,
    ).run("x")
    assert result.end.kind == "max_handoffs"

    empty = ScriptedModel([])
    result = await Orchestrator([Agent(name="a", instructions="", model=empty)], registry()).run(
        "x"
    )
    assert result.end.kind == "model_error"
    assert "ScriptExhausted" in result.end.detail

    lost = ScriptedModel(
        [ScriptedTurn(calls=[("complete", {"summary": "s", "next_agent": "ghost"})])]
    )
    result = await Orchestrator(
        [Agent(name="a", instructions="", model=lost, tools=("*",))], registry()
    ).run("x")
    assert result.end.kind == "unknown_agent"


async def test_malformed_model_arguments_are_outcomes() -> None:
    """Broken JSON from the model is an InvalidArguments result, and the loop goes on."""
    model = ScriptedModel(
        [ScriptedTurn(calls=[("lookup", '{"city": "Os')]), ScriptedTurn(text="sorry")]
    )
    result = await Orchestrator(
        [Agent(name="a", instructions="", model=model, tools=("lookup",))], registry()
    ).run("x")
    assert isinstance(result.outcomes[0].result.failure(), InvalidArguments)
    assert isinstance(result.transcript[-1], AssistantMessage)
    assert any(isinstance(m, ToolResults) for m in result.transcript)


SENT: list[str] = []


@tool
def send_email(to: str) -> str:
    """Send an email."""
    SENT.append(to)
    return f"sent to {to}"


async def test_a_run_pauses_for_approval_and_resumes() -> None:
    """Without an inline approver, the run ends awaiting approval; resume settles each
    pending call exactly once and the conversation carries on."""
    from toolrail.policy import Approve, Deny, Gates, Rules

    SENT.clear()
    model = ScriptedModel(
        [
            ScriptedTurn(
                calls=[
                    ("send_email", {"to": "ada@example.com"}),
                    ("send_email", {"to": "bob@example.com"}),
                    ("lookup", {"city": "Oslo"}),
                ]
            ),
            ScriptedTurn(calls=[("end_conversation", {"reason": "mail handled"})]),
        ]
    )
    orchestrator = Orchestrator(
        [Agent(name="a", instructions="", model=model, tools=("*",))],
        ToolRegistry([send_email, lookup, end_conversation]),
        gates=Gates(rules=Rules.of(ask=["send_email"])),
    )
    paused = await orchestrator.run("mail them")
    assert paused.end.kind == "awaiting_approval"
    assert [r.arguments["to"] for r in paused.pending] == ["ada@example.com", "bob@example.com"]
    assert SENT == []  # nothing runs before approval
    assert paused.outcomes[2].result == Success("Oslo: 4°C")  # the rest of the batch ran

    ada, bob = paused.pending
    half = await orchestrator.resume(paused, {ada.id: Approve()})
    assert half.end.kind == "awaiting_approval"  # bob is still undecided
    assert [r.id for r in half.pending] == [bob.id]
    assert SENT == ["ada@example.com"]

    done = await orchestrator.resume(half, {bob.id: Deny(message="not bob"), ada.id: Approve()})
    assert done.end.kind == "end_conversation"
    assert SENT == ["ada@example.com"]  # ada ran once, bob never
    results = [o.result for o in done.outcomes[:2]]
    assert results[0] == Success("sent to ada@example.com")
    assert "not bob" in results[1].failure().message
    # the model saw the settled results, not the pending ones
    assert "not bob" in str(model.requests[1].body)

    with pytest.raises(ValueError, match="only a run awaiting approval"):
        await orchestrator.resume(done, {})


async def test_a_strict_agent_reads_strict_nulls_as_defaults() -> None:
    """Agent(strict=True) exports strict schemas; the model's `null` for an optional field
    (which strict mode makes required and nullable) means the field's default."""
    seen: list[int] = []

    @tool
    def repeat(word: str, times: int = 3) -> str:
        """Repeat a word."""
        seen.append(times)
        return word * times

    model = ScriptedModel(
        [
            ScriptedTurn(calls=[("repeat", {"word": "ab", "times": None})]),
            ScriptedTurn(calls=[("complete", {"summary": "done"})]),
        ]
    )
    agent = Agent(name="a", instructions="", model=model, tools=("repeat", "complete"), strict=True)
    result = await Orchestrator([agent], ToolRegistry([repeat, complete])).run("go")
    assert result.end.kind == "completed"
    assert seen == [3]
    [request, *_] = model.requests
    [repeat_definition] = [t for t in request.export.tools if t["function"]["name"] == "repeat"]
    assert repeat_definition["function"]["strict"] is True


async def test_a_masked_refusal_reads_the_same_on_every_turn() -> None:
    """The masked refusal is frozen at its first reading, as a true unknown name's error is
    frozen when made: it does not lose "did you mean search?" once search's circuit opens
    (found by an outside review: the text changed between turns, in one world only)."""

    @tool
    def search(q: str) -> str:
        """Search the web."""
        raise RuntimeError("backend down")

    @tool(permissions=["admin"])
    def searches(q: str) -> str:
        """Admin search."""
        return "x"

    model = ScriptedModel(
        [
            ScriptedTurn(calls=[("searches", {"q": "x"})]),  # hidden: lacks a permission
            ScriptedTurn(calls=[("search", {"q": "x"}), ("search", {"q": "y"})]),  # trips it
            ScriptedTurn(text="done"),
        ]
    )
    executor = Executor(
        ToolRegistry([search, searches]),
        resilience=Resilience(breakers=BreakerSettings(consecutive_failures=2)),
    )
    await Orchestrator([Agent(name="a", instructions="", model=model, tools=("*",))], executor).run(
        "hi"
    )
    first, last = (str(model.requests[i].body) for i in (1, 2))
    assert "there is no tool named 'searches'; did you mean search?" in first
    assert "there is no tool named 'searches'; did you mean search?" in last
