"""A progress line's text is made when first read (`ProgressUpdate`); these are the ways
that could go wrong, each found by an outside review of the first version: a history of
progress read in one go, a caller's dict changed after the call, a failing render, two
readers at once, what an unread line keeps alive, a copy or pickle of an unread line."""

from __future__ import annotations

import copy
import gc
import pickle
import threading
import weakref
from datetime import UTC, datetime

import pytest
from returns.result import Failure, Success

from toolrail import (
    Complete,
    ExecutionContext,
    Executor,
    TimedOut,
    ToolCall,
    ToolOutcome,
    ToolRegistry,
    tool,
)
from toolrail.core.declared import Masked
from toolrail.recording.events import ToolCompleted, ToolFailed, ToolProgress, ToolStarted
from toolrail.recording.stream import ProgressUpdate, ToolStreamHandler, _line

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 1, 1, tzinfo=UTC)
SECRET = "zq-4471-PLAINSECRET"


def collect() -> tuple[ToolStreamHandler, list[ProgressUpdate]]:
    updates: list[ProgressUpdate] = []
    return ToolStreamHandler(on_update=updates.append), updates


def finished(call_id: str, name: str, result: object, args: object) -> ToolOutcome:
    call = ToolCall(name=name, arguments=args, id=call_id)  # type: ignore[arg-type]
    return ToolOutcome(call=call, result=result, started_at=NOW, duration_ms=12.0)  # type: ignore[arg-type]


def test_a_long_history_of_progress_is_read_in_one_step() -> None:
    """Each line is made from the call's first line, never from the line before it: 20,000
    reports unread, then read, is no recursion (it was, past ~500)."""
    handler, updates = collect()
    ctx = ExecutionContext(agent="dev").for_call("c1")
    handler(ToolStarted(call_id="c1", tool="scan", context=ctx, arguments='{"root": "src"}'))
    for step in range(20_000):
        handler(ToolProgress(call_id="c1", tool="scan", context=ctx, progress=step, total=20_000))
    assert handler.active()[0].text == "⚙️ scan: src"
    assert updates[-1].text == "⚙️ scan: src [100%]"
    outcome = finished("c1", "scan", Success(1), '{"root": "src"}')
    handler(ToolCompleted(call_id="c1", tool="scan", context=ctx, outcome=outcome))
    assert updates[-1].text == "✔ ⚙️ scan: src (12 ms)"


async def test_a_line_shows_the_arguments_of_its_call_not_what_the_caller_put_there_later() -> None:
    """A caller reusing one dict for its next call (here: a declared secret) never shows it
    on an earlier call's line read afterwards."""
    from pydantic import SecretStr

    @tool
    async def ping(host: str) -> str:
        """Ping a host."""
        return "pong"

    @tool
    async def unlock(vault: str, blob: SecretStr) -> str:
        """Unlock a vault."""
        return "unlocked"

    handler, updates = collect()
    executor = Executor(ToolRegistry([ping, unlock]), sinks=[handler])
    ctx = ExecutionContext(agent="dev")
    args: dict[str, object] = {"host": "example.org"}
    await executor.run(ToolCall(name="ping", arguments=args, id="c1"), ctx)
    args.clear()
    args.update(blob=SECRET, vault="v1")
    await executor.run(ToolCall(name="unlock", arguments=args, id="c2"), ctx)
    texts = [update.text for update in updates]  # read only now
    assert texts[0] == "⚙️ ping: example.org"
    assert texts[1].startswith("✔ ⚙️ ping: example.org (")
    assert not any(SECRET in text for text in texts)


def test_a_text_that_cannot_be_made_reads_as_the_tool() -> None:
    """Reading a line never raises (a UI's refresh thread reads them): a bug making one
    gives the tool's name, and is logged."""
    line = _line(lambda: str(1 / 0), call_id="c", tool="scan", agent="a", status="running", at=NOW)
    assert line.text == "⚙️ scan"
    assert line == ProgressUpdate(
        call_id="c", tool="scan", agent="a", status="running", text="⚙️ scan", at=NOW
    )


def test_a_reader_that_finds_the_text_made_by_another_thread_meanwhile_reads_it() -> None:
    """Two threads read an unread line: the one that missed the text, then found it made
    (its maker let go of what made it), reads the text — never an AttributeError."""
    line = _line(lambda: "⚙️ scan", call_id="c", tool="scan", agent="a", status="running", at=NOW)
    line.__dict__.update(text="⚙️ scan", _render=None)  # made by another, between our looks
    assert line.__getattr__("text") == "⚙️ scan"  # type: ignore[attr-defined]
    many = _line(lambda: "⚙️ x", call_id="c", tool="x", agent="a", status="running", at=NOW)
    seen: list[str] = []
    readers = [threading.Thread(target=lambda: seen.append(many.text)) for _ in range(8)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(10)
    assert seen == ["⚙️ x"] * 8


def test_an_unread_finished_line_keeps_neither_the_call_nor_its_output_alive() -> None:
    handler, updates = collect()

    class Output:
        pass

    ctx = ExecutionContext(agent="dev").for_call("c1")
    output = Output()
    outcome = finished("c1", "fetch", Success(output), '{"url": "a"}')
    handler(ToolStarted(call_id="c1", tool="fetch", context=ctx, arguments='{"url": "a"}'))
    handler(ToolCompleted(call_id="c1", tool="fetch", context=ctx, outcome=outcome))
    gone_output, gone_ctx = weakref.ref(output), weakref.ref(ctx)
    del output, outcome, ctx
    gc.collect()
    assert gone_output() is None
    assert gone_ctx() is None
    assert updates[-1].text == "✔ ⚙️ fetch: a (12 ms)"


def test_a_copy_or_pickle_of_an_unread_line_holds_its_text_and_no_secret() -> None:
    handler, updates = collect()
    args = {"vault": "v1", "blob": Masked(SECRET), "password": "hunter2"}  # as recorded
    summary = Complete(summary=f"unlocked v1 using {SECRET}")
    ctx = ExecutionContext(agent="dev").for_call("c1")
    outcome = finished("c1", "unlock", Success(summary), args)
    handler(ToolStarted(call_id="c1", tool="unlock", context=ctx, arguments=args))
    handler(ToolCompleted(call_id="c1", tool="unlock", context=ctx, outcome=outcome))
    for line in updates:
        data = pickle.dumps(line)
        assert SECRET.encode() not in data
        assert b"hunter2" not in data
        for made in (pickle.loads(data), copy.copy(line), copy.deepcopy(line)):
            assert made == line
            assert SECRET not in made.text
    assert updates[-1].text == "✅ Completed: unlocked v1 using [REDACTED]"


def test_a_subclass_of_a_failure_event_keeps_its_timed_out_flag() -> None:
    class LateFailure(ToolFailed):
        pass

    handler, updates = collect()
    ctx = ExecutionContext(agent="dev").for_call("c1")
    error = TimedOut(message="slow", timeout_s=2)
    outcome = finished("c1", "search", Failure(error), '{"q": "x"}')
    handler(LateFailure(call_id="c1", tool="search", context=ctx, outcome=outcome, error=error))
    assert updates[-1].timed_out
    assert updates[-1].text == "✖ ⚙️ search: x — timed out after 2s (12 ms)"
