"""Instructions per call, counted by valgrind: the steady twin of `executor_overhead.py`.

Wall-clock medians on a shared machine drift by a third from hour to hour; the number of
instructions a call executes does not. Each contender runs in its own process under
`valgrind --tool=cachegrind` twice, with `FEW` and then `MANY` calls after the same warm-up;
the difference over `MANY - FEW` is its count per call, start-up and set-up cancelled out
(both runs hash with the same seed, so they start up alike). The counts repeat within 1%,
and other seeds move them by under 1%; the full railway's, whose writer threads wake as
the scheduler lets them, repeat within 3%.

What is counted: user-space instructions on every thread of the process. So the full
railway's total includes the work its call log and span sink hand to their writer threads;
its "call path" rows run with those writers handling nothing, which leaves what the calls
themselves execute. Not counted: time in the kernel, cache misses, waiting for the GIL,
which the wall-clock tables include: a ratio here complements them, it does not replace them.

Needs valgrind (`apt install valgrind`); without it, says so and measures nothing.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `python bench/instr...`

from bench import executor_overhead as contenders
from bench.timing import AsyncCall

WARM_UP, FEW, MANY = 200, 200, 1200
BASELINE = contenders.BASELINE
BARE = "toolrail Executor.run"
CALL_PATH = " (call path)"
Made = tuple[AsyncCall, Callable[[], object]]


def _unsettled(call: AsyncCall) -> Made:
    return call, lambda: None


async def _full(otel: bool) -> Made:
    return contenders.full_railway(otel=otel)


async def _pydantic_ai() -> Made:
    return _unsettled(await contenders.pydantic_ai())


async def _at_once(call: AsyncCall) -> Made:
    return _unsettled(call)


MAKERS: dict[str, Callable[[], Awaitable[Made]]] = {
    "plain pydantic validate + call": lambda: _at_once(contenders.plain_pydantic()),
    BARE: lambda: _at_once(contenders.toolrail_executor(with_table=False)),
    contenders.FULL: lambda: _full(otel=False),
    contenders.FULL + CALL_PATH: lambda: _full(otel=False),
    contenders.TRACED: lambda: _full(otel=True),
    contenders.TRACED + CALL_PATH: lambda: _full(otel=True),
    BASELINE: lambda: _at_once(contenders.openai_agents()),
    contenders.PER_CALL_RUNNER: lambda: _at_once(contenders.openai_agents(per_call="runner")),
    contenders.PER_CALL_MADE: lambda: _at_once(contenders.openai_agents(per_call="constructor")),
    "pydantic-ai ToolManager.handle_call": _pydantic_ai,
}


async def _child(name: str, calls: int) -> None:
    """Inside valgrind: warm up, then make `calls` calls and wait for the writer threads."""
    if name.endswith(CALL_PATH):  # the writer threads drain their queues, handling nothing
        from toolrail._batches import BackgroundBatches

        BackgroundBatches._call = lambda self, batch: None  # type: ignore[method-assign]
    call, settle = await MAKERS[name]()
    for _ in range(WARM_UP):
        await call()
    settle()
    for _ in range(calls):
        await call()
    settle()


def _instructions(name: str, calls: int) -> int:
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--child",
        name,
        str(calls),
    ]
    steady = {**os.environ, "PYTHONHASHSEED": "0"}  # both runs start up alike
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=steady)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from valgrind for {name!r}:\n{done.stderr}")
    return int(found.group(1).replace(",", ""))


def per_call(name: str) -> float:
    """Instructions one call of contender `name` executes (two valgrind runs, in parallel)."""
    with ThreadPoolExecutor(2) as pool:
        few, many = pool.map(_instructions, [name, name], [FEW, MANY])
    return (many - few) / (MANY - FEW)


def main() -> None:
    if shutil.which("valgrind") is None:
        print("\nInstructions per call: valgrind not found (apt install valgrind); skipped")
        return
    counts = {name: per_call(name) for name in MAKERS}
    base, bare = counts[BASELINE], counts[BARE]
    width = max(map(len, counts))
    print("\nInstructions per call (valgrind; user space, every thread)")
    print(f"  {'':{width}} {'thousands':>10} {'× openai-agents':>16} {'× Executor.run':>15}")
    for name, count in counts.items():
        print(f"  {name:{width}} {count / 1000:10.1f} {count / base:16.2f} {count / bare:15.2f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        asyncio.run(_child(sys.argv[2], int(sys.argv[3])))
    else:
        main()
