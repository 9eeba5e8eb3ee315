"""Everything toolrail writes as JSON stays JSON data, redacted, whatever a tool hands it:
an integer beyond 64 bits, a lone surrogate, an object where text belongs. Before, one
such value turned a whole event or result into its Python `repr`, unredacted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool
from toolrail._jsonish import dumps, json_safe
from toolrail.recording.events import Sink, ToolCompleted, ToolEvent, ToolProgress

pytestmark = pytest.mark.anyio
TOKEN = "sk-ant-api03-" + "Q" * 40
HUGE = 2**64


@tool
async def sync_repo(ctx: ExecutionContext) -> str:
    """Sync the repository, reporting progress in unusual shapes."""
    try:
        raise PermissionError(f"push rejected for token {TOKEN}")
    except PermissionError as error:
        ctx.report_progress(1, 3, error)  # type: ignore[arg-type]  # an exception as message
    ctx.report_progress(HUGE, 2 * HUGE, f"retrying with {TOKEN}")  # bytes past 64 bits
    ctx.report_progress(3, 3, {"api_key": TOKEN})  # type: ignore[arg-type]  # a dict
    return "synced"


@tool
async def stats(ctx: ExecutionContext) -> dict[str, object]:
    """Repository statistics, one of them past 64 bits."""
    ctx.attach(rows=3, checksum=HUGE)
    return {"files": 12, "total_bytes": HUGE, "owner": "ann"}


@tool
def title() -> list[str]:
    """A title cut mid-character by some upstream library."""
    return ["ok", "caf\ud83d"]


async def run(*calls: ToolCall, log: JsonlCallLog | None = None) -> list[ToolEvent]:
    events: list[ToolEvent] = []
    sinks: list[Sink] = [events.append] if log is None else [events.append, log]
    executor = Executor(ToolRegistry([sync_repo, stats, title]), sinks=sinks)
    for call in calls:
        await executor.run(call, ExecutionContext())
    return events


async def test_progress_of_any_shape_is_redacted_json_data() -> None:
    events = await run(ToolCall(name="sync_repo", arguments={}))
    progress = [event for event in events if isinstance(event, ToolProgress)]
    assert len(progress) == 3
    for event in progress:
        assert isinstance(event.message, str)  # told as text, whatever the tool passed
        text = dumps(event).decode()
        assert TOKEN not in text
        data = orjson.loads(text)
        assert data["type"] == "tool_progress"
        assert isinstance(data["message"], str)
    assert "push rejected for token" in progress[0].message  # type: ignore[operator]
    assert orjson.loads(dumps(progress[1]))["progress"] == str(HUGE)  # its digits, not lost


async def test_a_value_json_cannot_hold_stays_in_place(tmp_path: Path) -> None:
    log = JsonlCallLog(tmp_path)
    events = await run(
        ToolCall(name="stats", arguments={}), ToolCall(name="title", arguments={}), log=log
    )
    log.close()
    done = [orjson.loads(dumps(e)) for e in events if isinstance(e, ToolCompleted)]
    assert done[0]["result"]["value"] == {"files": 12, "total_bytes": str(HUGE), "owner": "ann"}
    assert done[0]["metadata"]["checksum"] == str(HUGE)
    assert done[1]["result"]["value"] == ["ok", "caf?"]
    lines = [orjson.loads(line) for line in log.current_path.read_bytes().splitlines()]
    assert [line["output"] for line in lines] == [
        {"files": 12, "total_bytes": str(HUGE), "owner": "ann"},
        ["ok", "caf?"],
    ]


def test_a_value_nested_past_orjsons_limit_is_cut_not_stringified() -> None:
    deep: Any = "bottom"
    for _ in range(400):
        deep = [deep]
    data = orjson.loads(dumps({"deep": deep, "n": HUGE}))
    assert data["n"] == str(HUGE)
    assert isinstance(data["deep"], list)


def test_a_repr_written_as_the_last_resort_is_redacted() -> None:
    """An event whose context is broken has no JSON form: its repr is written, redacted."""
    broken = ToolProgress(
        call_id="c1",
        tool="t",
        context=object(),  # type: ignore[arg-type]
        progress=1,
        message=f"token {TOKEN}",
    )
    text = orjson.loads(dumps(broken))
    assert isinstance(text, str)
    assert "ToolProgress" in text
    assert TOKEN not in text


_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False)
    | st.text()  # includes lone surrogates
)
_json_like = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_json_like)
def test_any_json_like_value_keeps_its_shape(value: object) -> None:
    written = orjson.loads(dumps(value))
    assert written == orjson.loads(orjson.dumps(json_safe(value)))
    if isinstance(value, dict):
        assert isinstance(written, dict)
        assert len(written) <= len(value)
    elif isinstance(value, list):
        assert isinstance(written, list)
        assert len(written) == len(value)
