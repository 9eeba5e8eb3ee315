"""ToolStreamHandler: progress text from events, in order and in disorder."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from returns.result import Failure, Success

from toolrail import (
    Complete,
    EndConversation,
    ExecutionContext,
    ExecutionFailed,
    Executor,
    TimedOut,
    ToolCall,
    ToolOutcome,
    ToolRegistry,
    tool,
)
from toolrail.recording.events import (
    ToolCallRequested,
    ToolCompleted,
    ToolFailed,
    ToolProgress,
    ToolRegistered,
    ToolStarted,
)
from toolrail.recording.narration import describe_call
from toolrail.recording.stream import _SAME_ID, _SEEN_LIMIT, ProgressUpdate, ToolStreamHandler

pytestmark = pytest.mark.anyio
CTX = ExecutionContext(agent="dev")
NOW = datetime(2026, 1, 1, tzinfo=UTC)
SLOW = TimedOut(message="slow", timeout_s=2)


def outcome(call_id: str, name: str, result: object, args: object = None) -> ToolOutcome:
    call = ToolCall(name=name, arguments=args, id=call_id)  # type: ignore[arg-type]
    return ToolOutcome(call=call, result=result, started_at=NOW, duration_ms=12.0)  # type: ignore[arg-type]


def collect() -> tuple[ToolStreamHandler, list[ProgressUpdate]]:
    updates: list[ProgressUpdate] = []
    return ToolStreamHandler(on_update=updates.append), updates


@pytest.mark.parametrize(
    ("tool_name", "args", "text"),
    [
        ("read_path", {"path": "src/app.py"}, "📖 Reading src/app.py"),
        ("write_context_file", '{"path": "PROJECT.md"}', "✏️ Writing PROJECT.md"),
        ("shell", {"command": ["git", "status"]}, "🔧 Running git status"),
        ("mcp__fetch__fetch", {"url": "https://example.com"}, "🌐 mcp__fetch__fetch: example.com"),
        ("complete", {"summary": "x"}, "✅ Completing task and returning control"),
        ("end_conversation", {}, "🏁 Ending the conversation"),
        ("search", "{not json", "⚙️ search"),
        ("search", "[1, 2]", "⚙️ search"),
        ("search", {"nested": {"a": 1}}, "⚙️ search"),
        ("search", {"q": "x" * 500}, "⚙️ search: " + "x" * 59 + "…"),
    ],
)
def test_default_texts(tool_name: str, args: object, text: str) -> None:
    """Sensible lines by tool name and source; any argument shape gives some text."""
    assert describe_call(tool_name, args) == text  # type: ignore[arg-type]


def test_in_order_stream() -> None:
    """Started → progress → completed gives running, progress and finished lines."""
    handler, updates = collect()
    handler(ToolStarted(call_id="c", tool="read_path", context=CTX, arguments={"path": "a.py"}))
    handler(
        ToolProgress(
            call_id="c", tool="read_path", context=CTX, progress=1, total=4, message="chunk 1"
        )
    )
    handler(
        ToolCompleted(
            call_id="c",
            tool="read_path",
            context=CTX,
            outcome=outcome("c", "read_path", Success("text")),
        )
    )
    assert [u.text for u in updates] == [
        "📖 Reading a.py",
        "📖 Reading a.py [25%] — chunk 1",
        "✔ 📖 Reading a.py (12 ms)",
    ]
    assert [u.status for u in updates] == ["running", "running", "completed"]
    assert handler.active() == []


def test_completed_without_started_reconstructs_the_start() -> None:
    """A finish we never saw start is preceded by a reconstructed start."""
    handler, updates = collect()
    handler(
        ToolFailed(
            call_id="c",
            tool="read_path",
            context=CTX,
            outcome=outcome("c", "read_path", Failure(SLOW), {"path": "b.py"}),
            error=SLOW,
        )
    )
    assert [(u.status, u.text) for u in updates] == [
        ("running", "📖 Reading b.py"),
        ("failed", "✖ 📖 Reading b.py — timed out after 2s (12 ms)"),
    ]
    assert updates[-1].error_kind == "timed_out"


def test_progress_for_unknown_call_and_duplicates() -> None:
    """Progress for an unseen call starts it; duplicate starts and finishes are dropped."""
    handler, updates = collect()
    handler(ToolProgress(call_id="p", tool="index", context=CTX, progress=3))
    handler(ToolStarted(call_id="p", tool="index", context=CTX, arguments={}))
    done = ToolCompleted(
        call_id="p", tool="index", context=CTX, outcome=outcome("p", "index", Success(3))
    )
    handler(done)
    handler(done)
    handler(ToolProgress(call_id="p", tool="index", context=CTX, progress=4))
    assert [u.status for u in updates] == ["running", "running", "completed"]
    assert updates[1].text == "⚙️ index [3]"


def test_late_news_of_recent_calls_is_dropped_past_the_remembered_window() -> None:
    """Models give each call its own id: after more calls than the handler remembers (at
    least the latest `_SEEN_LIMIT`, at most twice as many), a late finish of a recent call
    is still dropped, and one of the oldest (forgotten) is shown again rather than lost."""
    handler, updates = collect()
    contexts = [CTX.for_call(f"c{i}") for i in range(2 * _SEEN_LIMIT + 10)]
    finishes = [
        ToolCompleted(
            call_id=f"c{i}", tool="t", context=ctx, outcome=outcome(f"c{i}", "t", Success(i))
        )
        for i, ctx in enumerate(contexts)
    ]
    for i, (ctx, done) in enumerate(zip(contexts, finishes, strict=True)):
        handler(ToolStarted(call_id=f"c{i}", tool="t", context=ctx, arguments={}))
        handler(done)
    assert len(updates) == 2 * len(finishes)
    handler(finishes[-1])  # the newest: remembered, dropped
    handler(finishes[-_SEEN_LIMIT])  # the oldest still remembered
    assert len(updates) == 2 * len(finishes)
    handler(finishes[0])  # forgotten: shown again, as a call seen for the first time
    assert len(updates) == 2 * len(finishes) + 2
    assert [u.status for u in updates[-2:]] == ["running", "completed"]
    assert updates[-1].call_id == "c0"
    assert handler.active() == []


def test_late_news_of_an_older_call_with_a_reused_id_leaves_the_newer_call_alone() -> None:
    """Models reuse ids ("call_1" every turn). A late finish of the older call, arriving
    after the newer call with its id ended, is dropped, and so is a late start of the newer
    one: no line runs again, none is left running."""
    handler, updates = collect()
    older, newer = CTX.for_call("call_1"), CTX.for_call("call_1")
    for ctx in (older, newer):
        handler(ToolStarted(call_id="call_1", tool="t", context=ctx, arguments={}))
        handler(
            ToolCompleted(
                call_id="call_1", tool="t", context=ctx, outcome=outcome("call_1", "t", Success(1))
            )
        )
    assert [u.status for u in updates] == ["running", "completed"] * 2
    late_finish = ToolCompleted(
        call_id="call_1", tool="t", context=older, outcome=outcome("call_1", "t", Success(1))
    )
    handler(late_finish)
    handler(ToolStarted(call_id="call_1", tool="t", context=newer, arguments={}))
    handler(ToolProgress(call_id="call_1", tool="t", context=older, progress=1))
    assert len(updates) == 4
    assert handler.active() == []
    third = CTX.for_call("call_1")  # and a third call with the id is a call of its own
    handler(ToolStarted(call_id="call_1", tool="t", context=third, arguments={}))
    assert [u.status for u in handler.active()] == ["running"]


def test_a_model_giving_every_call_one_id_has_its_latest_calls_told_apart() -> None:
    """The handler tells apart the latest `_SAME_ID` ended calls with one id: late news of
    any of them is dropped; of an older one, shown again as a call of its own."""
    handler, updates = collect()
    contexts = [CTX.for_call("call_1") for _ in range(_SAME_ID + 1)]
    finishes = [
        ToolCompleted(
            call_id="call_1", tool="t", context=ctx, outcome=outcome("call_1", "t", Success(1))
        )
        for ctx in contexts
    ]
    for ctx, done in zip(contexts, finishes, strict=True):
        handler(ToolStarted(call_id="call_1", tool="t", context=ctx, arguments={}))
        handler(done)
    seen = len(updates)
    for done in finishes[1:]:
        handler(done)
    assert len(updates) == seen
    handler(finishes[0])
    assert [u.status for u in updates[seen:]] == ["running", "completed"]
    assert handler.active() == []


def test_parallel_calls_interleaved_keep_their_own_lines() -> None:
    """Two calls' events interleaved: each line stays with its call."""
    handler, updates = collect()
    handler(ToolStarted(call_id="a", tool="read_path", context=CTX, arguments={"path": "a"}))
    handler(ToolStarted(call_id="b", tool="read_path", context=CTX, arguments={"path": "b"}))
    assert [u.text for u in handler.active()] == ["📖 Reading a", "📖 Reading b"]
    handler(
        ToolCompleted(
            call_id="b",
            tool="read_path",
            context=CTX,
            outcome=outcome("b", "read_path", Success("")),
        )
    )
    handler(ToolProgress(call_id="a", tool="read_path", context=CTX, progress=0.5, total=1))
    assert [u.text for u in handler.active()] == ["📖 Reading a"]
    assert updates[-1].text == "📖 Reading a [50%]"
    assert updates[-2].text == "✔ 📖 Reading b (12 ms)"


def test_terminators_are_named() -> None:
    """Complete and EndConversation outputs are detected and said."""
    handler, updates = collect()
    handler(
        ToolCompleted(
            call_id="t",
            tool="complete",
            context=CTX,
            outcome=outcome("t", "complete", Success(Complete(summary="done"))),
        )
    )
    handler(
        ToolCompleted(
            call_id="e",
            tool="end_conversation",
            context=CTX,
            outcome=outcome("e", "end_conversation", Success(EndConversation(reason="user left"))),
        )
    )
    finished = [u for u in updates if u.finished]
    assert [(u.terminator, u.text) for u in finished] == [
        ("complete", "✅ Completed: done"),
        ("end_conversation", "🏁 Conversation ended: user left"),
    ]


def test_requested_then_started_and_registry_events() -> None:
    """A call announced while arguments stream shows as preparing, then running."""
    handler, updates = collect()
    handler(ToolRegistered(tool="x"))
    handler(ToolCallRequested(call_id="r", tool="read_path", context=CTX))
    handler(ToolStarted(call_id="r", tool="read_path", context=CTX, arguments={"path": "c"}))
    assert [(u.status, u.text) for u in updates] == [
        ("requested", "💭 Preparing read_path"),
        ("running", "📖 Reading c"),
    ]


def test_garbage_progress_values_do_not_crash() -> None:
    """A tool reporting non-numbers still gets a line."""
    handler, updates = collect()
    handler(ToolProgress(call_id="g", tool="t", context=CTX, progress="lots", total=None))  # type: ignore[arg-type]
    assert updates[-1].text == "⚙️ t [lots]"


def test_failing_callback_does_not_stop_others() -> None:
    """A broken UI callback is logged; other consumers still get updates."""
    handler, updates = collect()

    def broken(update: ProgressUpdate) -> None:
        raise RuntimeError("ui bug")

    handler.on_update(broken)
    handler(ToolStarted(call_id="c", tool="t", context=CTX, arguments={}))
    assert len(updates) == 1


async def test_async_iterator_with_a_real_executor() -> None:
    """`async for` over updates while an executor runs parallel calls with progress."""

    @tool(describe=lambda args: f"counting to {args.n}")
    async def count(n: int, ctx: ExecutionContext) -> int:
        """Count."""
        for i in range(n):
            ctx.report_progress(i + 1, n)
            await asyncio.sleep(0)
        return n

    handler = ToolStreamHandler()
    executor = Executor(ToolRegistry([count]), sinks=[handler])
    seen: list[ProgressUpdate] = []

    async def consume() -> None:
        async for update in handler.updates():
            seen.append(update)

    consumer = asyncio.create_task(consume())
    await asyncio.sleep(0)
    calls = [ToolCall(name="count", arguments={"n": n}, id=f"c{n}") for n in (2, 3)]
    await executor.run_many(calls, CTX)
    handler.close()
    await asyncio.wait_for(consumer, 5)
    finished = {u.call_id: u.text for u in seen if u.finished}
    assert finished.keys() == {"c2", "c3"}
    assert finished["c3"].startswith("✔ counting to 3")
    assert [u.text for u in seen if u.call_id == "c3" and not u.finished][-1] == (
        "counting to 3 [100%]"
    )


async def test_slow_reader_never_blocks_the_call() -> None:
    """A full queue drops intermediate progress, keeps the final line, never blocks."""
    handler = ToolStreamHandler(queue_size=2)
    iterator = handler.updates().__aiter__()
    reader = asyncio.ensure_future(iterator.__anext__())  # subscribe; read nothing more yet
    await asyncio.sleep(0)
    handler(ToolStarted(call_id="c", tool="t", context=CTX, arguments={}))
    for i in range(50):
        handler(ToolProgress(call_id="c", tool="t", context=CTX, progress=i))
    handler(
        ToolCompleted(call_id="c", tool="t", context=CTX, outcome=outcome("c", "t", Success(1)))
    )
    first = await asyncio.wait_for(reader, 5)
    last = await asyncio.wait_for(iterator.__anext__(), 5)
    assert first.status == "running"
    assert last.status == "completed"  # the final line survives a full queue
    await iterator.aclose()  # type: ignore[attr-defined]


async def test_updates_sees_what_happens_before_its_first_read() -> None:
    """`updates()` subscribes when called: events and `close()` before the first
    `__anext__` are not lost, and draining it ends instead of hanging."""
    handler = ToolStreamHandler()
    updates = handler.updates()
    handler(ToolStarted(call_id="c", tool="t", context=CTX, arguments={}))
    handler(
        ToolCompleted(call_id="c", tool="t", context=CTX, outcome=outcome("c", "t", Success(1)))
    )
    handler.close()

    async def drain() -> list[str]:
        return [u.status async for u in updates]

    seen = await asyncio.wait_for(drain(), 10)  # hung when close() was missed
    assert seen == ["running", "completed"]


def test_a_line_made_when_read_is_the_same_value_as_a_public_one() -> None:
    """The handler's lines make their text when first read, once; in every other way they
    are the same immutable value as `ProgressUpdate(...)`: every field, equality, hash,
    repr, pickling, and no assignment."""
    import pickle
    from dataclasses import FrozenInstanceError

    from toolrail.recording.stream import _last_line, _line, _progressed

    fields = {
        "progress": 1.0,
        "total": 2.0,
        "duration_ms": 3.0,
        "error_kind": "timed_out",
        "timed_out": True,
        "terminator": "complete",
        "at": NOW,
        "health": None,
    }
    renders: list[str] = []

    def render() -> str:
        renders.append("✖ t")
        return "✖ t"

    started = _line(lambda: "✖", "c", "t", "a", "running", NOW)
    report = ToolProgress(call_id="c", tool="t", context=CTX, progress=1.0, total=2.0, at=NOW)
    made = _last_line(
        _progressed(started, report, lambda: "✖"),
        render,
        status="failed",
        duration_ms=3.0,
        error_kind="timed_out",
        timed_out=True,
        terminator="complete",
        health=None,
    )
    public = ProgressUpdate(call_id="c", tool="t", agent="a", status="failed", text="✖ t", **fields)  # type: ignore[arg-type]
    assert renders == []  # nothing made until read
    assert made == public
    assert (hash(made), repr(made)) == (hash(public), repr(public))
    assert made.text == "✖ t"
    assert renders == ["✖ t"]  # made once
    assert pickle.loads(pickle.dumps(made)) == public
    with pytest.raises(FrozenInstanceError):
        made.status = "completed"  # type: ignore[misc]
    assert (
        ProgressUpdate(
            call_id="c", tool="t", agent="a", status="running", text="password=hunter2"
        ).text
        == "password=[REDACTED]"
    )


def test_a_line_is_made_from_the_event_it_answers_even_when_read_late() -> None:
    """Reading a call's lines after it ended, after later calls reused its id, gives the
    texts of that call's own events."""
    handler, updates = collect()
    for n, path in enumerate(["a.py", "b.py"]):
        ctx = ExecutionContext(agent="main")
        outcome = ToolOutcome(
            call=ToolCall(name="read_path", arguments={"path": path}, id="call_1"),
            result=Success("ok"),
            started_at=NOW,
            duration_ms=float(n + 1),
        )
        handler(
            ToolStarted(
                call_id="call_1", tool="read_path", context=ctx, arguments={"path": path}, at=NOW
            )
        )
        handler(
            ToolCompleted(call_id="call_1", tool="read_path", context=ctx, outcome=outcome, at=NOW)
        )
    assert [u.text for u in updates] == [
        "📖 Reading a.py",
        "✔ 📖 Reading a.py (1 ms)",
        "📖 Reading b.py",
        "✔ 📖 Reading b.py (2 ms)",
    ]


def test_every_line_of_a_call_is_redacted_once_and_whole() -> None:
    """Secrets in a start text, a progress message, an error, a summary never show; an error
    that completes a secret with the start text (`curl ... -u bob:pw`) is hidden too."""
    handler, updates = collect()
    handler(
        ToolStarted(
            call_id="c", tool="shell", context=CTX, arguments={"command": "curl https://x.test"}
        )
    )
    handler(
        ToolProgress(call_id="c", tool="shell", context=CTX, progress=1, message="token=s3cr3t-1")
    )
    error = ExecutionFailed(message="-u bob:hunter22 refused")  # clean alone: no `curl` in it
    handler(
        ToolFailed(
            call_id="c",
            tool="shell",
            context=CTX,
            outcome=outcome("c", "shell", Failure(error)),
            error=error,
        )
    )
    handler(
        ToolCompleted(
            call_id="d",
            tool="complete",
            context=CTX,
            outcome=outcome(
                "d", "complete", Success(Complete(summary="done; api_key=k3y-k3y-k3y"))
            ),
        )
    )
    texts = [u.text for u in updates]
    assert texts[0] == "🔧 Running curl https://x.test"
    assert len(texts) == 5
    for secret in ("s3cr3t-1", "hunter22", "k3y-k3y-k3y"):
        assert not any(secret in text for text in texts)
    assert texts[1].startswith("🔧 Running curl https://x.test [1]")
    assert updates[2].status == "failed"
    assert "bob:" in texts[2]
    assert updates[-1].terminator == "complete"


SECRET_VALUE = "correcthorsebattery9f8e7d6c"


@pytest.mark.parametrize(
    "key", ["password", "api_key", "apiKey", "client_secret", "token", "X-Api-Key", "passphrase"]
)
async def test_a_secret_named_argument_never_names_the_call(key: str) -> None:
    """Without `describe`, a line shows one argument: never one whose name says secret,
    whatever it holds (a value no text pattern recognises)."""

    @tool
    def login(user: str = "", secret: str = "") -> str:
        """Log in."""
        return "ok"

    handler, updates = collect()
    executor = Executor(ToolRegistry([login]), sinks=[handler])
    call = ToolCall(name="login", arguments={key: SECRET_VALUE, "user": "bob"}, id="c1")
    await executor.run(call, CTX)
    assert updates, "the call was narrated"
    assert all(SECRET_VALUE not in update.text for update in updates)
    assert describe_call("login", {key: SECRET_VALUE}) == "⚙️ login"


@pytest.mark.parametrize(
    "url",
    [
        "https://admin:s3cr3tPassw0rd@db.example.com/x",
        "http://admin:s3cr3tPassw0rd@db.example.com/x",
        "postgres://admin:s3cr3tPassw0rd@db.example.com/x",
    ],
)
def test_a_url_with_credentials_is_redacted_before_its_scheme_is_shortened(url: str) -> None:
    handler, updates = collect()
    handler(ToolStarted(call_id="c1", tool="fetch", context=CTX, arguments={"url": url}))
    [update] = updates
    assert "s3cr3tPassw0rd" not in update.text
    assert "db.example.com" in update.text


async def test_a_call_id_used_again_by_a_later_call_is_a_new_call() -> None:
    """Models repeat ids ("call_1" every turn): each call gets its own lines; only news of
    the very call that ended (its own context) is dropped as late."""

    @tool
    def echo(x: int) -> int:
        """Echo."""
        return x

    handler, updates = collect()
    executor = Executor(ToolRegistry([echo]), sinks=[handler])
    for x in range(3):
        await executor.run(ToolCall(name="echo", arguments={"x": x}, id="call_1"), CTX)
    finals = [u.text for u in updates if u.finished]
    assert [text.split(" (")[0] for text in finals] == [f"✔ ⚙️ echo: {x}" for x in range(3)]
    assert handler.active() == []


async def test_calls_sharing_an_id_in_one_batch_each_end_with_a_final_line() -> None:
    @tool
    async def nap(n: int) -> int:
        """Sleep n hundredths of a second."""
        await asyncio.sleep(n / 100)
        return n

    handler, updates = collect()
    executor = Executor(ToolRegistry([nap]), sinks=[handler])
    calls = [ToolCall(name="nap", arguments={"n": n}, id="call_1") for n in (1, 3)]
    await executor.run_many(calls, CTX)
    assert len([u for u in updates if u.finished]) == 2
    assert handler.active() == []


def test_late_news_of_an_ended_call_is_still_dropped() -> None:
    handler, updates = collect()
    ctx = CTX.for_call("c")
    handler(ToolStarted(call_id="c", tool="read_path", context=ctx, arguments={"path": "a"}))
    done = outcome("c", "read_path", Success("x"))
    handler(ToolCompleted(call_id="c", tool="read_path", context=ctx, outcome=done))
    handler(ToolProgress(call_id="c", tool="read_path", context=ctx, progress=1, total=2))
    handler(ToolCompleted(call_id="c", tool="read_path", context=ctx, outcome=done))
    assert [u.status for u in updates] == ["running", "completed"]


def test_the_terminal_view_makes_a_running_line_only_when_a_frame_shows_it() -> None:
    """`LiveProgress` keeps the latest line of each running call and draws them at its
    refresh (progress superseded between frames is never made); finished lines are printed
    above, redacted."""
    import io

    from rich.console import Console

    from toolrail.recording.ui import LiveProgress

    out = io.StringIO()
    handler, published = collect()
    view = LiveProgress(handler, console=Console(file=out, force_terminal=True, width=120))
    for n in range(3):
        call_id = f"c{n}"
        ctx = CTX.for_call(call_id)
        args = {"path": f"f{n}.py"}
        handler(ToolStarted(call_id=call_id, tool="read_path", context=ctx, arguments=args, at=NOW))
    ctx = CTX.for_call("c0")
    for step in range(100):
        handler(
            ToolProgress(
                call_id="c0", tool="read_path", context=ctx, progress=step, total=100, at=NOW
            )
        )
    frame = view._render()
    assert [str(line) for line in frame.renderables] == [
        "  ⠿ 📖 Reading f0.py [99%]",
        "  ⠿ 📖 Reading f1.py",
        "  ⠿ 📖 Reading f2.py",
    ]
    made = [update.call_id for update in published if "text" in vars(update)]
    assert len(published) == 103
    assert made == ["c0", "c1", "c2", "c0"]  # the starts and c0's last line, not 99 others
    args = {"path": "f1.py", "password": "hunter2"}
    failed = outcome(
        "c1", "read_path", Failure(ExecutionFailed(message="password=hunter2 refused")), args
    )
    handler(
        ToolFailed(
            call_id="c1",
            tool="read_path",
            context=CTX.for_call("c1"),
            outcome=failed,
            error=failed.result.failure(),
            at=NOW,
        )
    )
    shown = out.getvalue()
    assert "✖ 📖 Reading f1.py" in shown
    assert "hunter2" not in shown
    assert [str(line) for line in view._render().renderables] == [
        "  ⠿ 📖 Reading f0.py [99%]",
        "  ⠿ 📖 Reading f2.py",
    ]


async def test_late_news_of_a_call_outlived_by_many_calls_with_its_id_is_dropped() -> None:
    """A model giving every turn's call one id makes many ended calls with it; those whose
    context nobody holds any more can send no news, so they do not crowd out the one whose
    context a tool kept (a thread reporting after the call ended): its late news is still
    late news, however many calls with its id ended since."""
    kept: list[ExecutionContext] = []

    @tool
    def remember(x: int, ctx: ExecutionContext) -> int:
        """Keep the first call's context."""
        if not kept:
            kept.append(ctx)
        return x

    handler, updates = collect()
    executor = Executor(ToolRegistry([remember]), sinks=[handler])
    for x in range(3 * _SAME_ID):
        await executor.run(ToolCall(name="remember", arguments={"x": x}, id="call_1"), CTX)
    seen = len(updates)
    kept[0].report_progress(1, 2, "late")
    assert updates[seen:] == []
    assert handler.active() == []
