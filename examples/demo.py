"""The toolrail demo: a scripted two-agent conversation, narrated live.

A researcher (search, index, and an MCP time server's tools) and a writer (word count,
notes) work on one request. Watch for: a call with bad arguments the model fixes, four
calls running in parallel with live progress, an MCP tool called by its namespaced name,
`complete` handing control to the writer, a call that waits for a person's approval, and
`end_conversation` ending it all. Then a failing service trips its circuit breaker.
Every call lands in the JSONL log, summarised at the end.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path

from demo_observe import observability
from demo_tools import (
    billing_status,
    fetch_status,
    index_docs,
    save_note,
    search_docs,
    word_count,
)
from rich.console import Console

from toolrail import (
    Agent,
    ExecutionContext,
    Executor,
    JsonlCallLog,
    Orchestrator,
    ScriptedModel,
    ScriptedTurn,
    Success,
    ToolCall,
    ToolRegistry,
    ToolStreamHandler,
)
from toolrail.builtin import complete, end_conversation
from toolrail.dialects import anthropic
from toolrail.mcp import McpHub, McpServerConfig
from toolrail.models import AssistantMessage, Handoff, Message, ModelRequest, ToolResults
from toolrail.policy import ApprovalRequest, Approve, Deny, Gates, Rules
from toolrail.policy.approvals import Approver
from toolrail.recording.logreader import format_stats, read_entries, stats
from toolrail.recording.ui import LiveProgress
from toolrail.resilience import BreakerSettings, Resilience

LOGS = Path(os.environ.get("TOOLRAIL_LOG_DIR") or Path(__file__).resolve().parent.parent / "logs")
REQUEST = "Write a short status note on the docs: what is indexed, and the time in Oslo."
TIME_SERVER = McpServerConfig(
    name="time",
    command=sys.executable,
    args=("-m", "mcp_server_time", "--local-timezone", "UTC"),
    trusted=True,
    stderr="discard",
)


def fix_the_query(request: ModelRequest) -> ScriptedTurn:
    """What a model does after reading InvalidArguments: send a longer query."""
    last = request.messages[-1]
    assert isinstance(last, ToolResults)
    error = last.outcomes[0].result.failure()
    return ScriptedTurn(
        text=f"The tool said {error.kind}; I will use a longer query.",
        calls=[("search_docs", {"query": "agents results", "limit": 2})],
    )


def hand_over(request: ModelRequest) -> ScriptedTurn:
    """Read the batch's results (the MCP server's answer among them) and complete."""
    last = request.messages[-1]
    assert isinstance(last, ToolResults)
    pages, clock = 0, "unknown"
    for outcome in last.outcomes:
        match outcome.call.name, outcome.result:
            case "index_docs", Success(int() as indexed):
                pages += indexed
            case "mcp__time__get_current_time", Success({"datetime": str() as now}):
                clock = now
            case _:
                pass
    summary = f"{pages} pages indexed; docs service up; Oslo time is {clock}."
    return ScriptedTurn(calls=[("complete", {"summary": summary, "next_agent": "writer"})])


def write_note(request: ModelRequest) -> ScriptedTurn:
    """Turn the researcher's handoff summary into a note."""
    handoff = next(m for m in reversed(request.messages) if isinstance(m, Handoff))
    note = f"Docs status: {handoff.summary}"
    return ScriptedTurn(
        text="Drafting the note.",
        calls=[("word_count", {"text": note}), ("save_note", {"title": "status", "body": note})],
    )


def finish(request: ModelRequest) -> ScriptedTurn:
    saved = next(m for m in reversed(request.messages) if isinstance(m, ToolResults))
    final = f"{saved.outcomes[1].result.value_or('')}."
    return ScriptedTurn(
        calls=[("end_conversation", {"reason": "the note is saved", "final_message": final})]
    )


RESEARCHER = ScriptedModel(
    [
        ScriptedTurn(text="Let me search the docs first.", calls=[("search_docs", {"query": "x"})]),
        fix_the_query,
        ScriptedTurn(
            text="Now four things at once: index two sections, check the docs service, "
            "and ask the time server for Oslo.",
            calls=[
                ("index_docs", {"section": "guides"}),
                ("index_docs", {"section": "api"}),
                ("fetch_status", {"service": "docs"}),
                ("mcp__time__get_current_time", {"timezone": "Europe/Oslo"}),
            ],
        ),
        hand_over,
    ],
    dialect=anthropic.dialect,  # the researcher's model speaks Anthropic's dialect
)

WRITER = ScriptedModel([write_note, finish])  # speaks OpenAI's Chat Completions dialect

AGENTS = [
    Agent(
        name="researcher",
        instructions="Find out what the user needs, then hand over to the writer.",
        model=RESEARCHER,
        tools=("search_docs", "index_docs", "fetch_status", "mcp__time__*", "complete"),
        permissions=frozenset({"mcp:connect"}),
    ),
    Agent(
        name="writer",
        instructions="Write and save the note, then end the conversation.",
        model=WRITER,
        tools=("word_count", "save_note", "end_conversation"),
        permissions=frozenset({"fs:write"}),
    ),
]


def narrate(console: Console) -> Callable[[Message], None]:
    def on_message(message: Message) -> None:
        match message:
            case AssistantMessage(agent=agent, text=text) if text:
                console.print(f"[bold]🤖 {agent}:[/bold] {text}")
            case Handoff(from_agent=source, to_agent=target, summary=summary):
                console.print(f"\n[bold magenta]↪ {source} hands over to {target}:[/] {summary}\n")
            case _:
                pass

    return on_message


def stand_in_human(console: Console) -> Approver:
    """The approver: a real one would ask a person; this one shows the request and agrees."""

    async def approve(request: ApprovalRequest) -> Approve | Deny:
        console.print(
            f"[bold yellow]🙋 approval requested[/]: {request.tool} "
            f"{request.to_json()['arguments']} ({request.reason})"
        )
        console.print("[bold yellow]🙋 a person approves it[/]")
        return Approve()

    return approve


async def trip_the_breaker(console: Console, call_log: JsonlCallLog) -> None:
    """Three failures in a row open billing_status's circuit: the next call fails fast and
    the tool disappears from what the agent is shown. (It is read-only, so each call is
    retried with backoff first.)"""
    console.print(
        "\n[bold]Act two:[/bold] the billing service is down; billing_status is "
        "read-only, so each call is retried before it counts as a failure."
    )
    stream = ToolStreamHandler()
    resilience = Resilience(breakers=BreakerSettings(consecutive_failures=3, cooldown_s=30))
    executor = Executor(
        ToolRegistry([billing_status, fetch_status]),
        resilience=resilience,
        sinks=[call_log, stream],
    )
    ctx = ExecutionContext(agent="researcher")
    with LiveProgress(stream, console=console):
        for _ in range(4):
            await executor.run(ToolCall(name="billing_status"), ctx)
    shown = ", ".join(t.name for t in executor.visible("researcher"))
    console.print(f"  the researcher is now shown only: {shown}")
    for line in executor.explain("researcher", "billing_status"):
        console.print(f"  explain billing_status → {line}")


async def main() -> None:
    console = Console(soft_wrap=True)
    console.print(__doc__)
    registry = ToolRegistry(
        [search_docs, index_docs, fetch_status, word_count, save_note, complete, end_conversation]
    )
    call_log = JsonlCallLog(LOGS)
    stream = ToolStreamHandler()
    observed = observability()
    for note in observed.notes:
        console.print(note, highlight=False)
    async with McpHub([TIME_SERVER], registry=registry) as hub:
        mcp_tools = ", ".join(t.name for t in hub.tools())
        console.print(f"MCP server 'time' connected: {mcp_tools}\n")
        console.print(f"[bold]🧑 user:[/bold] {REQUEST}")
        orchestrator = Orchestrator(
            AGENTS,
            registry,
            sinks=[call_log, stream, *observed.sinks],
            observer=observed.observer,
            on_message=narrate(console),
            gates=Gates(rules=Rules.of(ask=["save_note"]), approver=stand_in_human(console)),
        )
        with LiveProgress(stream, console=console):
            result = await orchestrator.run(REQUEST, start="researcher")

    console.print(f"\n[bold]🏁 Ended:[/bold] {result.end.kind} — {result.end.detail}")
    console.print(f"[bold]Final message:[/bold] {result.final_message}")
    for run in result.agents:
        console.print(f"  {run.agent}: {run.turns} turns, {run.tool_calls} tool calls")
    await trip_the_breaker(console, call_log)
    await call_log.aclose()
    console.print(f"\nEvery call is a line in {call_log.current_path}")
    console.print("`toolrail logs stats --dir logs` says:\n")
    console.print(format_stats(stats(read_entries(LOGS))), highlight=False)
    console.print()
    for line in observed.summary(LOGS / "demo-trace.jsonl"):
        console.print(line, highlight=False)


if __name__ == "__main__":
    asyncio.run(main())
