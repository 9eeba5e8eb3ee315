"""What the railway's gates and wrappers cost: per call, for 1,000 concurrent calls, and
for `Executor.visible()` at 1,000 tools.

The "gates" executor has what a configured application has on the call path besides
recording: an agent table, allow/ask/deny rules (none of which stops the call), a budget,
permissions the tool declares and the context grants, and a deadline. Recording sinks are
measured in `executor_overhead.py` and `log_throughput.py`.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `python bench/railway_...`

from bench.timing import AsyncCall, measure, report
from toolrail import (
    AgentToolTable,
    ExecutionContext,
    Executor,
    JsonlCallLog,
    Sink,
    ToolCall,
    ToolRegistry,
    ToolStreamHandler,
    tool,
)
from toolrail.policy import Budget, Gates, Rules

ARGS = '{"a": 1, "b": 2}'
RULES = Rules.of(
    allow=["*add", "mcp__time__*", "read_path"],
    ask=["write_context_file", "shell(git push*)"],
    deny=["shell(rm *)", "mcp__danger__*", "delete_*"],
)


@tool(permissions=["math:add"], timeout_s=30)
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(permissions=["math:add"], timeout_s=30)
async def slow_add(a: int, b: int) -> int:
    """Add two integers, slowly."""
    await asyncio.sleep(0.01)
    return a + b


def executor(
    *, gated: bool, registry: ToolRegistry | None = None, recorded: bool = False
) -> Executor:
    """Bare; with `gated`, the gates; with `recorded` too, the JSONL log and stream handler."""
    registry = registry if registry is not None else ToolRegistry([add, slow_add])
    if not gated:
        return Executor(registry)
    sinks: list[Sink] = []
    if recorded:
        sinks = [
            JsonlCallLog(tempfile.mkdtemp(prefix="toolrail-bench-")),
            ToolStreamHandler(on_update=lambda update: None),
        ]
    return Executor(
        registry,
        agents=AgentToolTable({"bench": ["*add", "tool_*", "mcp__*"]}),
        gates=Gates(
            rules=RULES,
            budget=Budget(per_agent=10**9, per_conversation=10**9, per_tool={"add": 10**9}),
        ),
        sinks=sinks,
    )


def per_call(gated: bool) -> AsyncCall:
    run = executor(gated=gated).run
    ctx = ExecutionContext(agent="bench", permissions=frozenset({"math:add"}))
    call = ToolCall(name="add", arguments=ARGS, id="c1")

    async def one() -> object:
        return (await run(call, ctx)).result

    return one


async def _walls(
    contenders: dict[str, AsyncCall], settle: dict[str, Callable[[], object]], rounds: int = 15
) -> dict[str, float]:
    """Median wall time of each `make()` in ms, rounds interleaved so drift hits all alike;
    `settle[name]` (untimed) waits for what a contender left to a background thread."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, make in contenders.items():
            start = time.perf_counter()
            await make()
            times[name].append((time.perf_counter() - start) * 1000)
            if name in settle:
                settle[name]()
    return {name: statistics.median(values) for name, values in times.items()}


async def concurrent(n: int = 1000, rounds: int = 15) -> None:
    """Each round a batch of `n` calls with ids of their own, as a model's reply gives them
    (made before timing: the raw gather has none to make)."""
    ctx = ExecutionContext(agent="bench", permissions=frozenset({"math:add"}))
    ids = itertools.count()
    batches = iter(
        [
            [ToolCall(name="slow_add", arguments=ARGS, id=f"c{next(ids)}") for _ in range(n)]
            for _ in range(3 * (rounds + 1))  # each toolrail contender's warm-up and rounds
        ]
    )
    bare, gated = executor(gated=False), executor(gated=True)
    full = executor(gated=True, recorded=True)
    body = slow_add.execute

    async def raw() -> object:
        return await asyncio.gather(*(body(slow_add.parameters.check(ARGS), ctx) for _ in range(n)))

    def batch(runner: Executor) -> AsyncCall:
        return lambda: runner.run_many(next(batches), ctx, max_concurrency=n)

    contenders: dict[str, AsyncCall] = {
        "raw asyncio.gather": raw,
        "toolrail run_many": batch(bare),
        "toolrail run_many, gates": batch(gated),
        "toolrail run_many, full railway": batch(full),
    }
    for make in contenders.values():  # warm up
        await make()
    call_log = next(sink for sink in full.sinks.sinks if isinstance(sink, JsonlCallLog))
    walls = await _walls(
        contenders, {"toolrail run_many, full railway": call_log.flush}, rounds=rounds
    )
    base = walls["raw asyncio.gather"]
    print(f"\n{n} concurrent 10 ms calls (wall time)")
    print(f"  {'':44} {'median ms':>10} {'× raw gather':>16}")
    for name, ms in walls.items():
        print(f"  {name:44} {ms:10.1f} {ms / base:16.2f}")


def visible_at(n: int = 1000) -> None:
    tools = [tool(name=f"tool_{i}", tags=[f"group_{i % 7}"])(_noop) for i in range(n)]
    gated = executor(gated=True, registry=ToolRegistry(tools))
    gated.visible("bench")
    times = []
    for _ in range(200):
        start = time.perf_counter_ns()
        gated.visible("bench")
        times.append((time.perf_counter_ns() - start) / 1000)
    print(f"\nExecutor.visible() at {n} tools, gates: median {statistics.median(times):.1f} µs")


def _noop() -> None:
    """Do nothing."""


async def main() -> None:
    timings = await measure(
        {"Executor.run": per_call(False), "Executor.run, gates": per_call(True)}
    )
    report("Railway per call (async tool, no sinks)", timings, baseline="Executor.run")
    await concurrent()
    visible_at()


if __name__ == "__main__":
    asyncio.run(main())
