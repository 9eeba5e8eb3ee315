"""A program ends when its work is done, whatever its tools did past their deadlines."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import asyncio
from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool

@tool(timeout_s=0.5)
async def swallow() -> str:
    '''Swallow every cancellation, forever.'''
    while True:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            pass

async def main() -> None:
    executor = Executor(ToolRegistry([swallow]))
    outcome = await executor.run(ToolCall(name="swallow"), ExecutionContext())
    print(outcome.result.failure().kind)

asyncio.run(main())
"""


def test_a_tool_that_swallows_cancellation_does_not_keep_the_program_alive() -> None:
    """The call ends TimedOut at its deadline; at asyncio.run's end the abandoned body is
    closed instead of cancelled again (it hung there before, forever)."""
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "timed_out"
