"""`toolrail serve` coalesces a call's progress notifications: a tool reporting thousands of
times does not send thousands of notifications, and the last report always reaches the
client (before the result)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from .serve_support import served
from .test_serve_cancel import config

pytestmark = pytest.mark.anyio
REPORTS = 2000


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_flood_of_progress_is_coalesced_keeping_the_last(
    tmp_path: Path, transport: str
) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    with served(config(tmp_path), transport) as target:
        async with Client(target, mode="legacy") as client:
            result = await client.call_tool(
                "chatty", {"count": REPORTS}, progress_callback=on_progress
            )
            steps = await client.call_tool("steps", {"count": 3}, progress_callback=on_progress)
    assert not result.is_error
    assert not steps.is_error
    flood, paced = seen[:-3], seen[-3:]
    assert 1 <= len(flood) < REPORTS // 10
    last: tuple[float, float | None, str | None] = (REPORTS, REPORTS, f"step {REPORTS}")
    assert flood[-1] == last  # never the last one dropped
    assert [p for p, _, _ in flood] == sorted(p for p, _, _ in flood)
    assert paced == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
