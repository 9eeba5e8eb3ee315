"""Per-call cost of the executor path against plain pydantic and the leading peers.

Every contender validates the same JSON arguments `{"a": 1, "b": 2}` for an async
`add(a: int, b: int) -> int` and calls it. Peers are called at their own tool-invocation
entry points, without an agent run around them. What a model's reply gives each call anew
(its id) is made anew for each call: toolrail a `ToolCall`, pydantic-ai a `ToolCallPart`,
langchain-core a tool-call dict; what a run holds for all its calls is made once.

openai-agents keeps the call id in its per-call `ToolContext`. The baseline, its bare
`on_invoke_tool`, reuses one; two more rows make one per call: as its runner does
(`ToolContext.from_agent_context` over the run's context), and with its constructor, which
also makes a fresh usage record (the reading that matches the figures the performance goals
were set from: toolrail's bare call 0.63x openai-agents', pydantic-ai 1.60x).

A second table times the same contenders with a tool that waits once (`asyncio.sleep(0)`,
one trip through the event loop, as any I/O makes): what a tool that does I/O costs around
it, where the railway's writer threads may take the GIL while the loop waits. A third
times calls back to back with the garbage collector on and the writers' work timed.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import tempfile
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from pydantic import BaseModel

from bench.timing import AsyncCall, back_to_back, measure, report
from toolrail import (
    AgentToolTable,
    ExecutionContext,
    Executor,
    Result,
    Success,
    ToolCall,
    ToolError,
    ToolRegistry,
    tool,
)

ARGS = '{"a": 1, "b": 2}'
IDS = [f"c{i}" for i in range(10_000)]
"""Call ids, made before timing (more than the stream handler remembers)."""
FULL = "toolrail full railway (gates, JSONL log, stream)"
TRACED = "toolrail full railway + OTel sink"
BASELINE = "openai-agents FunctionTool.on_invoke_tool"
PER_CALL_RUNNER = "openai-agents, ToolContext per call, as its runner"
PER_CALL_MADE = "openai-agents, ToolContext per call, constructor"


async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def add_after_a_wait(a: int, b: int) -> int:
    """Add two integers."""
    await asyncio.sleep(0)
    return a + b


add_after_a_wait.__name__ = "add"  # every contender calls its tool `add`
Body = Callable[[int, int], Awaitable[int]]


def plain_pydantic(body: Body = add) -> AsyncCall:
    async def call() -> object:
        args = AddArgs.model_validate_json(ARGS)
        return await body(args.a, args.b)

    return call


class AddArgs(BaseModel):
    a: int
    b: int


@tool
async def add_functional(args: AddArgs, ctx: ExecutionContext) -> Result[int, ToolError]:
    """Add two integers."""
    return Success(args.a + args.b)


def toolrail_executor(*, with_table: bool, functional: bool = False, body: Body = add) -> AsyncCall:
    registry = ToolRegistry([tool(body), add_functional])
    table = AgentToolTable({"bench": ["add*"]}) if with_table else None
    executor = Executor(registry, agents=table)
    ctx = ExecutionContext(agent="bench")
    name = "add_functional" if functional else "add"
    ids = itertools.cycle(IDS)

    async def run() -> object:
        outcome = await executor.run(ToolCall(name=name, arguments=ARGS, id=next(ids)), ctx)
        return outcome.result

    return run


def full_railway(*, otel: bool = False, body: Body = add) -> tuple[AsyncCall, Callable[[], object]]:
    """Agent table, allow/ask/deny rules, a budget, declared permissions, a deadline, the
    JSONL call log and the stream handler; with `otel`, spans too (a batch processor
    exporting nowhere: no exporter I/O on the call path). With the call and what waits
    for the writer threads of the log and the span sink (run between rounds: the log's
    is measured on its own in `log_throughput.py`)."""
    from bench.railway_overhead import RULES
    from toolrail import JsonlCallLog, ToolStreamHandler
    from toolrail.policy import Budget, Gates

    call_log = JsonlCallLog(tempfile.mkdtemp(prefix="toolrail-bench-"))
    sinks: list[Any] = [call_log, ToolStreamHandler(on_update=lambda update: None)]
    if otel:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

        from toolrail.observe.otel import OtelSink

        provider = TracerProvider()
        # a queue that holds a round: the SDK's default (2,048) drops spans of a burst
        processor = BatchSpanProcessor(SpanExporter(), max_queue_size=1 << 16)
        provider.add_span_processor(processor)
        sinks.append(OtelSink(provider))
    executor = Executor(
        ToolRegistry([tool(permissions=["math:add"], timeout_s=30)(body)]),
        agents=AgentToolTable({"bench": ["add*"]}),
        gates=Gates(
            rules=RULES,
            budget=Budget(per_agent=10**9, per_conversation=10**9, per_tool={"add": 10**9}),
        ),
        sinks=sinks,
    )
    ctx = ExecutionContext(agent="bench", permissions=frozenset({"math:add"}))
    ids = itertools.cycle(IDS)

    async def run() -> object:
        return (await executor.run(ToolCall(name="add", arguments=ARGS, id=next(ids)), ctx)).result

    def settle() -> None:  # what the log's and the span sink's writer threads were handed
        for sink in sinks:
            if hasattr(sink, "flush"):
                sink.flush()

    return run, settle


def openai_agents(
    *, per_call: Literal["runner", "constructor"] | None = None, body: Body = add
) -> AsyncCall:
    os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
    from agents import RunContextWrapper, function_tool
    from agents.tool_context import ToolContext

    function = function_tool(body)
    if per_call is None:
        ctx = ToolContext(context=None, tool_name="add", tool_call_id="c1", tool_arguments=ARGS)

        async def bare() -> object:
            return await function.on_invoke_tool(ctx, ARGS)

        return bare
    run = RunContextWrapper(context=None)
    ids = itertools.cycle(IDS)

    async def call() -> object:
        made = (
            ToolContext.from_agent_context(run, next(ids), tool_name="add", tool_arguments=ARGS)
            if per_call == "runner"
            else ToolContext(
                context=None, tool_name="add", tool_call_id=next(ids), tool_arguments=ARGS
            )
        )
        return await function.on_invoke_tool(made, ARGS)

    return call


async def pydantic_ai(body: Body = add) -> AsyncCall:
    from pydantic_ai import RunContext
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.tool_manager import ToolManager
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import RunUsage

    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    manager = await ToolManager(FunctionToolset([body])).for_run_step(ctx)
    ids = itertools.cycle(IDS)

    async def call() -> object:
        return await manager.handle_call(
            ToolCallPart(tool_name="add", args=ARGS, tool_call_id=next(ids))
        )

    return call


def langchain_core(body: Body = add) -> AsyncCall:
    from langchain_core.tools import StructuredTool

    structured = StructuredTool.from_function(coroutine=body, name="add")
    ids = itertools.cycle(IDS)

    async def call() -> object:
        tool_call = {"name": "add", "args": {"a": 1, "b": 2}, "id": next(ids), "type": "tool_call"}
        return await structured.ainvoke(tool_call)

    return call


async def main() -> None:
    full, full_settle = full_railway()
    traced, traced_settle = full_railway(otel=True)
    contenders: dict[str, AsyncCall] = {
        "plain pydantic validate + call": plain_pydantic(),
        "toolrail Executor.run": toolrail_executor(with_table=False),
        "toolrail Executor.run + agent table": toolrail_executor(with_table=True),
        "toolrail Executor.run, functional-form tool": toolrail_executor(
            with_table=False, functional=True
        ),
        FULL: full,
        TRACED: traced,
        BASELINE: openai_agents(),
        PER_CALL_RUNNER: openai_agents(per_call="runner"),
        PER_CALL_MADE: openai_agents(per_call="constructor"),
        "pydantic-ai ToolManager.handle_call": await pydantic_ai(),
        "langchain-core StructuredTool.ainvoke": langchain_core(),
    }
    timings = await measure(contenders, settle={FULL: full_settle, TRACED: traced_settle})
    report(
        "Executor path per call (async tool, JSON arguments)",
        timings,
        baseline=BASELINE,
        also="toolrail Executor.run",  # what the railway adds to toolrail's own bare call
    )
    await _waiting_once()
    await _back_to_back()


async def _back_to_back() -> None:
    """The per-call tables turn the garbage collector off and leave the writer threads'
    work to the pauses between rounds. A program making calls back to back meets both: the
    collector walking what waits in queues, and the writers sharing the GIL."""
    full, full_settle = full_railway()
    traced, traced_settle = full_railway(otel=True)
    contenders: dict[str, AsyncCall] = {
        "toolrail Executor.run": toolrail_executor(with_table=False),
        FULL: full,
        TRACED: traced,
        BASELINE: openai_agents(),
        PER_CALL_MADE: openai_agents(per_call="constructor"),
        "pydantic-ai ToolManager.handle_call": await pydantic_ai(),
    }
    timings = await back_to_back(contenders, settle={FULL: full_settle, TRACED: traced_settle})
    report(
        "Back to back, garbage collector on, writer threads' work timed"
        " (µs a call; p99: the worst round)",
        timings,
        baseline=BASELINE,
        also="toolrail Executor.run",
    )


async def _waiting_once() -> None:
    """The same contenders, their tool waiting once in the event loop."""
    body = add_after_a_wait
    full, full_settle = full_railway(body=body)
    contenders: dict[str, AsyncCall] = {
        "plain pydantic validate + call": plain_pydantic(body),
        "toolrail Executor.run": toolrail_executor(with_table=False, body=body),
        FULL: full,
        BASELINE: openai_agents(body=body),
        PER_CALL_RUNNER: openai_agents(per_call="runner", body=body),
        "pydantic-ai ToolManager.handle_call": await pydantic_ai(body),
        "langchain-core StructuredTool.ainvoke": langchain_core(body),
    }
    timings = await measure(contenders, settle={FULL: full_settle})
    report(
        "Executor path per call (async tool that waits once in the event loop)",
        timings,
        baseline=BASELINE,
        also="toolrail Executor.run",
    )


if __name__ == "__main__":
    asyncio.run(main())
