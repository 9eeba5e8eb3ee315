"""The toolrail demo: one registry, two agents with different tool tables, and what a
handful of calls return — successes, a validation failure, a call that is not allowed,
a tool that fails, a timeout — as an agent loop would see them. Then a batch of parallel
calls narrated live by the stream handler, and a summary of the JSONL call log."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from demo_tools import (
    fetch_status,
    index_docs,
    save_note,
    search_docs,
    slow_report,
    word_count,
)

from toolrail import (
    AgentToolTable,
    ExecutionContext,
    Executor,
    Failure,
    InvalidArguments,
    NotAllowed,
    Success,
    TimedOut,
    ToolCall,
    ToolOutcome,
    ToolRegistry,
)
from toolrail._jsonish import dumps
from toolrail.recording.jsonl import JsonlCallLog
from toolrail.recording.logreader import format_stats, read_entries, stats
from toolrail.recording.stream import ToolStreamHandler
from toolrail.recording.ui import LiveProgress

PERMISSIONS = {"researcher": frozenset[str](), "writer": frozenset({"fs:write"})}
LOGS = Path(os.environ.get("TOOLRAIL_LOG_DIR") or Path(__file__).resolve().parent.parent / "logs")
AGENTS = AgentToolTable(
    {
        "researcher": ["search_docs", "word_count", "slow_report", "fetch_status", "index_*"],
        "writer": ["word_count", "save_*"],
    }
)

CALLS = [
    ("researcher", ToolCall(name="search_docs", arguments='{"query": "retries", "limit": 1}')),
    ("researcher", ToolCall(name="word_count", arguments={"text": "errors are values"})),
    ("researcher", ToolCall(name="search_docs", arguments='{"query": "x", "limit": 50, "q": 1}')),
    ("researcher", ToolCall(name="save_note", arguments={"title": "t", "body": "b"})),
    ("writer", ToolCall(name="save_note", arguments={"title": "plan", "body": "ship it"})),
    ("researcher", ToolCall(name="fetch_status", arguments={"service": "billing"})),
    ("researcher", ToolCall(name="slow_report", arguments={"topic": "latency"})),
    ("writer", ToolCall(name="serach_docs", arguments={})),
]


def show(outcome: ToolOutcome) -> str:
    """What an agent loop does with an outcome: match on it."""
    match outcome.result:
        case Success(value):
            return f"✅ Success: {value!r}"
        case Failure(InvalidArguments(issues=issues)):
            lines = "".join(f"\n      {issue}" for issue in issues)
            return f"✏️  InvalidArguments — the model reads this and fixes its call:{lines}"
        case Failure(NotAllowed(message=message)):
            return f"🚫 NotAllowed: {message}"
        case Failure(TimedOut(timeout_s=seconds)):
            return f"⏱  TimedOut after {seconds:g}s — the loop decides what next"
        case Failure(error):
            fixable = "the model can fix this" if error.model_can_fix else "the loop decides"
            return f"❌ {type(error).__name__} ({fixable}): {error.message}"
        case _:
            return "?"


PARALLEL = [
    ToolCall(name="index_docs", arguments={"section": "guides"}),
    ToolCall(name="search_docs", arguments={"query": "agents results"}),
    ToolCall(name="index_docs", arguments={"section": "api"}),
    ToolCall(name="fetch_status", arguments={"service": "docs"}),
    ToolCall(name="word_count", arguments={"text": 42}),
]


async def main() -> None:
    registry = ToolRegistry(
        [search_docs, word_count, slow_report, save_note, fetch_status, index_docs]
    )
    call_log = JsonlCallLog(LOGS)
    executor = Executor(registry, agents=AGENTS, sinks=[call_log])
    print(__doc__)
    for agent in ("researcher", "writer"):
        names = ", ".join(t.name for t in executor.visible(agent))
        print(f"  {agent:10} may call: {names}")
    print()
    for agent, call in CALLS:
        outcome = await executor.run(
            call, ExecutionContext(agent=agent, permissions=PERMISSIONS[agent])
        )
        shown = (
            call.arguments if isinstance(call.arguments, str) else dumps(call.arguments).decode()
        )
        print(f"→ {agent} calls {call.name} {shown}")
        print(f"    {show(outcome)}  ({outcome.duration_ms:.1f} ms)\n")

    print("→ researcher runs five calls at once; the stream handler narrates them live:")
    narrator = ToolStreamHandler()
    live = Executor(registry, agents=AGENTS, sinks=[call_log, narrator])
    with LiveProgress(narrator):
        await live.run_many(PARALLEL, ExecutionContext(agent="researcher"), max_concurrency=5)

    await call_log.aclose()
    print(f"\nEvery call above is one line in {call_log.current_path}")
    print("`toolrail logs stats --dir logs` over the whole log says:\n")
    print(format_stats(stats(read_entries(call_log.directory))))


if __name__ == "__main__":
    asyncio.run(main())
