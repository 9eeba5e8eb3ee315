"""The executor: every step of the railway, and that nothing escapes it."""

from __future__ import annotations

import asyncio
import threading

import pytest
from pydantic import BaseModel
from returns.result import Failure, Result, Success

from toolrail import (
    AgentToolTable,
    Cancelled,
    ExecutionContext,
    ExecutionFailed,
    Executor,
    InvalidArguments,
    NotAllowed,
    TimedOut,
    ToolCall,
    ToolError,
    ToolRegistry,
    UnknownTool,
    tool,
)
from toolrail.recording.events import (
    ToolCompleted,
    ToolEvent,
    ToolFailed,
    ToolProgress,
    ToolStarted,
)

pytestmark = pytest.mark.anyio


class Echo(BaseModel):
    text: str


@tool(describe=lambda args: f"echoing {args.text}")
async def echo(args: Echo, ctx: ExecutionContext) -> Result[str, ToolError]:
    """Echo the text."""
    return Success(args.text)


@tool(timeout_s=0.05)
async def sleepy() -> str:
    """Sleep too long."""
    await asyncio.sleep(10)
    return "late"


@tool
async def raises_timeout_itself() -> str:
    """Raise a TimeoutError that is not the executor's deadline."""
    raise TimeoutError("upstream socket")


@tool
async def waits(ctx: ExecutionContext) -> str:
    """Wait until cancelled."""
    await asyncio.Event().wait()
    return "never"


@tool
async def self_cancels() -> str:
    """Raise CancelledError from inside."""
    raise asyncio.CancelledError


@tool
def progresses(steps: int, ctx: ExecutionContext) -> int:
    """Report progress from a worker thread."""
    for step in range(steps):
        ctx.report_progress(step + 1, steps, f"step {step + 1}")
    return steps


@tool
async def exits() -> str:
    """Call sys.exit."""
    raise SystemExit(3)


def executor(**kwargs: object) -> Executor:
    registry = ToolRegistry(
        [echo, sleepy, raises_timeout_itself, waits, self_cancels, progresses, exits]
    )
    return Executor(registry, **kwargs)  # type: ignore[arg-type]


async def run(ex: Executor, name: str, arguments: object = None, agent: str = "a") -> object:
    outcome = await ex.run(ToolCall(name=name, arguments=arguments), ExecutionContext(agent=agent))  # type: ignore[arg-type]
    return outcome.result


async def test_success_outcome_carries_timing_and_call() -> None:
    """A good call gives Success with the call, a start time and a duration."""
    call = ToolCall(name="echo", arguments='{"text": "hi"}', id="c1")
    outcome = await executor().run(call, ExecutionContext())
    assert outcome.result == Success("hi")
    assert outcome.call is call
    assert outcome.duration_ms >= 0
    assert outcome.started_at.tzinfo is not None
    assert outcome.metadata["source"] == "local"


async def test_unknown_tool() -> None:
    """Unknown names give UnknownTool with suggestions."""
    result = await run(executor(), "ecko")
    assert isinstance(result, Failure)
    assert result.failure() == UnknownTool(
        message="there is no tool named 'ecko'; did you mean echo?",
        name="ecko",
        suggestions=("echo",),
    )


async def test_agent_table_is_enforced_and_hides_names() -> None:
    """Tools outside the table are NotAllowed; suggestions never reveal hidden tools."""
    ex = executor(agents=AgentToolTable({"a": ["sleepy"]}))
    assert isinstance((await run(ex, "echo", {"text": "x"})).failure(), NotAllowed)  # type: ignore[attr-defined]
    unknown = (await run(ex, "ecko")).failure()  # type: ignore[attr-defined]
    assert isinstance(unknown, UnknownTool)
    assert unknown.suggestions == ()
    assert [t.name for t in ex.visible("a")] == ["sleepy"]


async def test_invalid_arguments() -> None:
    """Bad arguments never reach the tool."""
    result = await run(executor(), "echo", '{"text": 5, "x": 1}')
    match result:
        case Failure(InvalidArguments(tool="echo", issues=issues)):
            assert [i.path for i in issues] == ["$.text", "$.x"]
        case _:
            raise AssertionError(result)


async def test_timeout_is_a_value() -> None:
    """A tool past its deadline gives TimedOut with the deadline."""
    assert await run(executor(), "sleepy") == Failure(
        TimedOut(message="sleepy did not finish within 0.05s", timeout_s=0.05)
    )


async def test_default_timeout_applies_to_tools_without_one() -> None:
    """`default_timeout_s` bounds tools that set none."""
    result = await run(executor(default_timeout_s=0.05), "waits")
    assert isinstance(result, Failure)
    assert isinstance(result.failure(), TimedOut)


async def test_a_tools_own_timeout_error_is_an_execution_failure() -> None:
    """A TimeoutError from inside the tool is its failure, not our deadline."""
    result = await run(executor(default_timeout_s=5), "raises_timeout_itself")
    assert result == Failure(
        ExecutionFailed(message="TimeoutError: upstream socket", exception_type="TimeoutError")
    )


async def test_cancel_request_gives_cancelled() -> None:
    """`executor.cancel(id)` ends a running call in Failure(Cancelled)."""
    ex = executor()
    started = asyncio.Event()
    ex.sinks.sinks = (lambda e: started.set() if isinstance(e, ToolStarted) else None,)
    call = ToolCall(name="waits", id="w1")
    task = asyncio.create_task(ex.run(call, ExecutionContext()))
    await asyncio.wait_for(started.wait(), 5)
    assert ex.cancel("w1")
    outcome = await asyncio.wait_for(task, 5)
    assert isinstance(outcome.result.failure(), Cancelled)
    assert not task.cancelled()
    assert not ex.cancel("w1")


async def test_outer_cancellation_propagates_after_recording() -> None:
    """Cancelling the caller's task is the caller's business: it propagates, and is recorded."""
    events: list[ToolEvent] = []
    started = asyncio.Event()

    def sink(event: ToolEvent) -> None:
        events.append(event)
        if isinstance(event, ToolStarted):
            started.set()

    ex = executor(sinks=[sink])
    task = asyncio.create_task(ex.run(ToolCall(name="waits"), ExecutionContext()))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    failed = [e for e in events if isinstance(e, ToolFailed)]
    assert len(failed) == 1
    assert isinstance(failed[0].error, Cancelled)


async def test_a_tool_raising_cancelled_is_cancelled() -> None:
    """A CancelledError the tool raises on its own is a Cancelled value."""
    result = await run(executor(), "self_cancels")
    assert isinstance(result, Failure)
    assert isinstance(result.failure(), Cancelled)


async def test_system_exit_in_a_tool_does_not_end_the_process() -> None:
    """A tool calling sys.exit fails; the agent loop lives on."""
    result = await run(executor(), "exits")
    assert isinstance(result, Failure)
    assert result.failure().exception_type == "SystemExit"


async def test_events_for_a_call_and_progress_from_threads() -> None:
    """Started → progress… → completed, progress from a worker thread included."""
    events: list[ToolEvent] = []
    threads: set[int] = set()

    def sink(event: ToolEvent) -> None:
        threads.add(threading.get_ident())
        events.append(event)

    ex = executor(sinks=[sink])
    events.clear()  # the tools it was made with, announced
    result = await run(ex, "progresses", {"steps": 3})
    await asyncio.sleep(0)  # let thread-posted progress callbacks run
    assert result == Success(3)
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "ToolStarted"
    assert kinds[-1] == "ToolCompleted"
    progress = [e for e in events if isinstance(e, ToolProgress)]
    assert [(p.progress, p.total, p.message) for p in progress] == [
        (1, 3, "step 1"),
        (2, 3, "step 2"),
        (3, 3, "step 3"),
    ]
    assert threads == {threading.get_ident()}  # sinks only ever run on the loop's thread


def test_progress_from_a_kept_context_is_told_on_the_loops_thread_or_dropped_once_closed() -> None:
    """A tool that keeps its context may report after its call: between two runs of the
    loop (told at once, on the loop's thread), or once the loop has closed (told on its
    thread; dropped from another, where nothing is left to run it). It never raises."""
    kept: list[ExecutionContext] = []

    @tool
    async def keeps(ctx: ExecutionContext) -> str:
        """Keeps its context."""
        kept.append(ctx)
        return "ok"

    seen: list[ToolEvent] = []
    ex = Executor(ToolRegistry([keeps]), sinks=[seen.append])
    loop = asyncio.new_event_loop()
    call = ToolCall(name="keeps", arguments={}, id="c1")
    loop.run_until_complete(ex.run(call, ExecutionContext(agent="a")))
    seen.clear()
    kept[0].report_progress(1, 2, "half")  # the loop's thread, the loop not running
    assert [e.progress for e in seen if isinstance(e, ToolProgress)] == [1]
    loop.close()
    kept[0].report_progress(2, 2, "done")
    elsewhere = threading.Thread(target=kept[0].report_progress, args=(2, 2, "done"))
    elsewhere.start()
    elsewhere.join()
    assert [e.progress for e in seen if isinstance(e, ToolProgress)] == [1, 2]
    assert len(seen) == 2


async def test_failing_and_async_sinks_do_not_break_calls() -> None:
    """A raising sink is logged and skipped; an async sink runs in the background."""
    seen: list[str] = []

    def broken(event: ToolEvent) -> None:
        raise RuntimeError("sink bug")

    async def slow(event: ToolEvent) -> None:
        await asyncio.sleep(0)
        seen.append(type(event).__name__)

    ex = executor(sinks=[broken, slow])
    assert await run(ex, "echo", {"text": "ok"}) == Success("ok")
    await ex.aclose()
    assert [kind for kind in seen if kind != "ToolRegistered"] == ["ToolStarted", "ToolCompleted"]


async def test_stuck_async_sink_is_bounded() -> None:
    """An async sink that never finishes is dropped after sink_timeout_s."""

    async def stuck(event: ToolEvent) -> None:
        await asyncio.Event().wait()

    ex = executor(sinks=[stuck], sink_timeout_s=0.01)
    assert await run(ex, "echo", {"text": "ok"}) == Success("ok")
    await asyncio.wait_for(ex.aclose(), 5)


async def test_describe_feeds_the_started_event() -> None:
    """The tool's describe(input) becomes the started event's description."""
    events: list[ToolEvent] = []
    await run(executor(sinks=[events.append]), "echo", {"text": "x"})
    started = [e for e in events if isinstance(e, ToolStarted)]
    assert started[0].description == "echoing x"
    completed = [e for e in events if isinstance(e, ToolCompleted)]
    assert completed[0].outcome.result == Success("x")


async def test_run_many_keeps_call_order_and_bounds_concurrency() -> None:
    """Outcomes come back in call order; no more than max_concurrency run at once."""
    running = 0
    peak = 0

    @tool
    async def step(n: int) -> int:
        """Count concurrency."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.001 * (5 - n))
        running -= 1
        return n

    ex = Executor(ToolRegistry([step]))
    calls = [ToolCall(name="step", arguments={"n": n}) for n in range(5)]
    outcomes = await ex.run_many(calls, ExecutionContext(), max_concurrency=2)
    assert [o.result for o in outcomes] == [Success(n) for n in range(5)]
    assert [o.call for o in outcomes] == calls
    assert peak == 2


async def test_run_many_shares_one_batch_id() -> None:
    """All calls of one batch carry the same batch id in their context."""
    events: list[ToolEvent] = []
    ex = executor(sinks=[events.append])
    calls = [ToolCall(name="echo", arguments={"text": str(n)}) for n in range(3)]
    await ex.run_many(calls, ExecutionContext())
    batch_ids = {e.context.batch_id for e in events if isinstance(e, ToolCompleted)}
    assert len(batch_ids) == 1
    assert None not in batch_ids


async def test_a_validator_that_raises_oddly_is_an_invalid_arguments_value() -> None:
    """Even an exception from deep inside validation comes back as a value: the tool's own
    validation refused this input (named by type, never with the value), not a toolrail bug."""

    class Weird(BaseModel):
        x: int

        def model_post_init(self, context: object) -> None:
            raise RuntimeError("validator bug")

    @tool
    async def weird(args: Weird, ctx: ExecutionContext) -> Result[int, ToolError]:
        """Weird."""
        return Success(args.x)

    result = await run(Executor(ToolRegistry([weird])), "weird", {"x": 1})
    assert isinstance(result, Failure)
    assert isinstance(result.failure(), InvalidArguments)
    assert "RuntimeError" in result.failure().message


def test_an_async_sink_outside_an_event_loop_is_skipped_cleanly() -> None:
    """Emitting from sync code to an async sink drops the event, without warnings."""
    from toolrail.recording.events import ToolRegistered
    from toolrail.recording.sinks import Fanout

    seen: list[ToolEvent] = []

    async def sink(event: ToolEvent) -> None:
        seen.append(event)

    Fanout([sink]).emit(ToolRegistered(tool="x"))
    assert seen == []


# --- what makes the railway cheap must not change what it does (issue 14) ---------------


async def test_every_kind_of_sink_gets_every_event_also_when_the_sinks_are_replaced() -> None:
    """Objects of Python classes (also one whose `__call__` is inherited, or async),
    functions, bound methods and builtins all get each event, and so do sinks assigned to
    `sinks` later (as the metrics collector adds itself) or appended to a list assigned
    there; a sink class's `__call__` replaced later (as a test patches one) is what runs."""
    from toolrail.recording.events import Sink, ToolRegistered
    from toolrail.recording.sinks import Fanout

    seen: list[tuple[str, ToolEvent]] = []

    class Plain:
        def __call__(self, event: ToolEvent) -> None:
            seen.append(("plain", event))

    class Inherited(Plain):
        pass

    class Later:
        async def __call__(self, event: ToolEvent) -> None:
            seen.append(("async", event))

    class Holder:
        def take(self, event: ToolEvent) -> None:
            seen.append(("method", event))

    builtin: list[ToolEvent] = []
    fanout = Fanout([Plain(), Inherited(), Holder().take, builtin.append])
    first, second = ToolRegistered(tool="a"), ToolRegistered(tool="b")
    fanout.emit(first)
    fanout.sinks = (*fanout.sinks, Later(), lambda event: seen.append(("lambda", event)))
    fanout.emit(second)
    await fanout.drain()
    assert sorted(kind for kind, event in seen if event is first) == ["method", "plain", "plain"]
    assert sorted(kind for kind, event in seen if event is second) == [
        "async",
        "lambda",
        "method",
        "plain",
        "plain",
    ]
    assert builtin == [first, second]
    assert len(fanout.sinks) == 6
    listed: list[Sink] = [builtin.append]
    fanout.sinks = listed  # type: ignore[assignment]  # a list, as people write it
    fanout.emit(third := ToolRegistered(tool="c"))
    listed.append(Plain())
    Plain.__call__ = lambda self, event: seen.append(("patched", event))  # type: ignore[method-assign]
    fanout.emit(fourth := ToolRegistered(tool="d"))
    assert builtin == [first, second, third, fourth]
    assert [kind for kind, event in seen if event in (third, fourth)] == ["patched"]


async def test_visible_follows_the_registry_the_rules_and_the_circuits() -> None:
    """`visible()` is remembered between calls, and forgets when anything it read changes."""
    from toolrail.policy import Gates, Rules
    from toolrail.resilience import BreakerSettings, Resilience

    now = [0.0]

    @tool
    async def breaks() -> str:
        """Always breaks."""
        raise OSError("disk on fire")

    registry = ToolRegistry([echo, breaks])
    ex = Executor(
        registry,
        gates=Gates(rules=Rules.of(allow=["*"])),
        resilience=Resilience(
            breakers=BreakerSettings(consecutive_failures=1, cooldown_s=30),
            clock=lambda: now[0],
        ),
    )

    def names() -> list[str]:
        return [t.name for t in ex.visible("a")]

    assert names() == ["echo", "breaks"]
    registry.register(sleepy)
    assert names() == ["echo", "breaks", "sleepy"]
    registry.unregister("sleepy")
    assert names() == ["echo", "breaks"]
    assert ex.gates is not None
    ex.gates.rules = Rules.of(allow=["*"], deny=["echo"])
    assert names() == ["breaks"]
    await ex.run(ToolCall(name="breaks"), ExecutionContext(agent="a"))
    assert ex.circuit_state("breaks") == "open"
    assert names() == []
    now[0] = 31.0  # cooled down: offered again, for the probe
    assert names() == ["breaks"]


async def test_a_tools_context_variables_stay_its_own() -> None:
    """The body runs in a copy of the caller's context, as a task of its own would."""
    import contextvars

    seen: list[str] = []
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="caller")

    @tool
    async def sets() -> str:
        """Sets a context variable on both sides of a wait."""
        seen.append(var.get())
        var.set("tool, before")
        await asyncio.sleep(0)
        var.set("tool, after")
        return var.get()

    outcome = await Executor(ToolRegistry([sets])).run(ToolCall(name="sets"), ExecutionContext())
    assert outcome.result == Success("tool, after")
    assert seen == ["caller"]
    assert var.get() == "caller"


async def test_a_body_that_swallows_its_cancellation_runs_on_unawaited() -> None:
    """At its deadline the call ends; the body is neither awaited nor frozen: it finishes
    on its own, in the background."""
    finished = asyncio.Event()

    @tool(timeout_s=0.05)
    async def stubborn() -> str:
        """Ignores its first cancellation, then finishes."""
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await asyncio.sleep(0.01)
        finished.set()
        return "done anyway"

    outcome = await Executor(ToolRegistry([stubborn])).run(
        ToolCall(name="stubborn"), ExecutionContext()
    )
    assert isinstance(outcome.result.failure(), TimedOut)
    assert not finished.is_set()
    await asyncio.wait_for(finished.wait(), 5)


async def test_many_concurrent_deadlines_all_fire() -> None:
    """Deadlines share timers; each call still ends at its own, and none leaks."""
    ex = Executor(ToolRegistry([sleepy, echo]))
    calls = [ToolCall(name="sleepy", id=f"s{i}") for i in range(50)]
    calls += [ToolCall(name="echo", id=f"e{i}", arguments={"text": "hi"}) for i in range(50)]
    outcomes = await ex.run_many(calls, ExecutionContext(), max_concurrency=100)
    assert all(isinstance(o.result.failure(), TimedOut) for o in outcomes[:50])
    assert all(o.result == Success("hi") for o in outcomes[50:])
    assert not ex.invoker._deadlines._slots


async def test_the_callers_cancellation_propagates_past_a_stubborn_body() -> None:
    """A body that swallows cancellation keeps the caller's own cancellation at most until
    its deadline; then the body is abandoned and the cancellation goes on."""
    entered, released = asyncio.Event(), asyncio.Event()

    @tool(timeout_s=0.1)
    async def stubborn() -> str:
        """Ignores cancellation until the test releases it."""
        entered.set()
        while not released.is_set():
            try:
                await released.wait()
            except asyncio.CancelledError:
                continue
        return "released"

    ex = Executor(ToolRegistry([stubborn]))
    task = asyncio.ensure_future(ex.run(ToolCall(name="stubborn"), ExecutionContext()))
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (abandoned,) = ex.invoker._abandoned
    assert not abandoned.done()
    released.set()  # the test's own clean-up of the body it abandoned
    await asyncio.wait_for(abandoned, 5)
    assert not ex.invoker._abandoned


async def test_a_keyboard_interrupt_raised_in_a_worker_thread_is_the_tools() -> None:
    """A person's Ctrl-C reaches the main thread; one raised by a sync tool on a worker
    thread is that tool's failure, in either form, and must not escape `run`."""

    @tool
    def plain() -> str:
        """Raises KeyboardInterrupt in its worker thread."""
        raise KeyboardInterrupt

    @tool
    def functional(args: Echo, ctx: ExecutionContext) -> Result[str, ToolError]:
        """Raises KeyboardInterrupt in its worker thread."""
        raise KeyboardInterrupt

    ex = Executor(ToolRegistry([plain, functional]))
    outcomes = await ex.run_many(
        [ToolCall(name="plain"), ToolCall(name="functional", arguments={"text": "x"})],
        ExecutionContext(),
    )
    for outcome in outcomes:
        error = outcome.result.failure()
        assert isinstance(error, ExecutionFailed)
        assert error.exception_type == "KeyboardInterrupt"


async def test_a_cancel_scope_inside_the_tool_is_the_tools_own() -> None:
    """`asyncio.timeout` (and anyio's scopes, as httpx uses them) cancel the task they run
    in and take it back: that is the tool's business, not the caller's cancellation."""

    @tool
    async def recovers() -> str:
        """Gives up waiting after a moment, and says so."""
        try:
            async with asyncio.timeout(0.01):
                await asyncio.sleep(10)
        except TimeoutError:
            return "gave up waiting"
        return "never"

    @tool
    async def lets_it_out() -> str:
        """Lets its own TimeoutError out."""
        async with asyncio.timeout(0.01):
            await asyncio.sleep(10)
        return "never"

    ex = Executor(ToolRegistry([recovers, lets_it_out]))
    ctx = ExecutionContext()
    assert (await ex.run(ToolCall(name="recovers"), ctx)).result == Success("gave up waiting")
    error = (await ex.run(ToolCall(name="lets_it_out"), ctx)).result.failure()
    assert isinstance(error, ExecutionFailed)
    assert error.exception_type == "TimeoutError"


async def test_the_callers_progress_callback_hears_progress_with_sinks_attached() -> None:
    """An executor with sinks used to put its own reporter in place of the context's
    `on_progress`: the caller's callback heard nothing. Both hear every report now, and a
    call made from inside a tool reports as itself, not also as its parent."""

    @tool
    async def inner(ctx: ExecutionContext) -> str:
        """Report once."""
        ctx.report_progress(1, 1, "inner")
        return "in"

    @tool
    async def outer(ctx: ExecutionContext) -> str:
        """Report, then run another tool."""
        ctx.report_progress(1, 2, "outer")
        await runner.run(ToolCall(id="c-inner", name="inner"), ctx)
        return "out"

    events: list[ToolEvent] = []
    runner = Executor(ToolRegistry([inner, outer]), sinks=[events.append])
    heard: list[str | None] = []
    ctx = ExecutionContext(on_progress=lambda progress, total, message: heard.append(message))
    outcome = await runner.run(ToolCall(id="c-outer", name="outer"), ctx)
    assert outcome.result == Success("out")
    assert heard == ["outer", "inner"]
    reported = [(e.call_id, e.message) for e in events if isinstance(e, ToolProgress)]
    assert reported == [("c-outer", "outer"), ("c-inner", "inner")]


async def test_progress_through_a_derived_context_and_a_failing_callback() -> None:
    """A tool may report through a context it derived (`replace`, `for_call`): the call's
    sinks still hear it. The caller's `on_progress` runs on the loop's thread even for a
    sync tool, and its failure is its own: the tool's call still succeeds."""
    import threading
    from dataclasses import replace

    @tool
    async def derives(ctx: ExecutionContext) -> str:
        """Report through derived contexts."""
        replace(ctx, phase="later").report_progress(1, 3, "via replace")
        ctx.for_call("sub-1").report_progress(2, 3, "via for_call")
        return "ok"

    @tool
    def in_a_thread(ctx: ExecutionContext) -> str:
        """Report from a worker thread."""
        ctx.report_progress(1, 1, "from a thread")
        return "ok"

    events: list[ToolEvent] = []
    runner = Executor(ToolRegistry([derives, in_a_thread]), sinks=[events.append])
    threads: list[bool] = []

    def broken(progress: float, total: float | None, message: str | None) -> None:
        threads.append(threading.current_thread() is threading.main_thread())
        raise RuntimeError("the progress bar broke")

    ctx = ExecutionContext(on_progress=broken)
    first = await runner.run(ToolCall(id="c1", name="derives"), ctx)
    second = await runner.run(ToolCall(id="c2", name="in_a_thread"), ctx)
    await asyncio.sleep(0.01)  # a worker thread's report reaches the loop by call_soon
    assert first.result == Success("ok")
    assert second.result == Success("ok")
    reported = [(e.call_id, e.message) for e in events if isinstance(e, ToolProgress)]
    assert reported == [("c1", "via replace"), ("c1", "via for_call"), ("c2", "from a thread")]
    assert threads == [True, True, True]
