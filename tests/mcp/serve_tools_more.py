"""More local tools for the `toolrail serve` tests: ones that misbehave on purpose."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from toolrail import ExecutionContext, tool


@tool
async def stubborn(marker: str) -> str:
    """Run on through cancellations (swallowing each); the marker file says it started."""
    Path(marker).write_text("started")
    for _ in range(40):
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.05)
    return "finished anyway"


@tool
async def chatty(count: int, ctx: ExecutionContext) -> str:
    """Report progress `count` times in a tight loop, never waiting."""
    for step in range(1, count + 1):
        ctx.report_progress(step, count, f"step {step}")
    return f"{count} reports"
