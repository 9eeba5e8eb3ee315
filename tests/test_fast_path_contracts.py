"""What the call path promised before it was made faster, and still does: found by an
outside review of the speed work; each test fails on the code it reviewed."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import inspect
import math
from typing import Any, cast

import pytest
from pydantic import BaseModel
from returns.result import Failure, Result, Success

from toolrail import (
    ExecutionContext,
    ExecutionFailed,
    Executor,
    Gates,
    ParameterSchema,
    Tool,
    ToolAnnotations,
    ToolCall,
    ToolCompleted,
    ToolError,
    ToolEvent,
    ToolFailed,
    ToolRegistry,
    TransportError,
    tool,
)
from toolrail.core.tool import AnyTool
from toolrail.resilience import BreakerSettings, Resilience, RetrySettings

pytestmark = pytest.mark.anyio


@tool
async def waits() -> str:
    """Wait one loop turn."""
    await asyncio.sleep(0)
    return "done"


def _live_loops() -> int:
    gc.collect()
    return sum(isinstance(o, asyncio.AbstractEventLoop) for o in gc.get_objects())


def test_an_executor_used_from_many_event_loops_keeps_none_of_them_alive() -> None:
    executor = Executor(ToolRegistry([waits]))  # the default deadline arms a timer per call
    before = _live_loops()
    for _ in range(30):  # a sync wrapper: one asyncio.run per call
        asyncio.run(executor.run(ToolCall(name="waits"), ExecutionContext()))
    assert _live_loops() - before <= 1  # at most the last one, until the next call


class Transfer(BaseModel):
    to: str
    amount: int


@tool
async def transfer(args: Transfer, ctx: ExecutionContext) -> Result[str, ToolError]:
    """Send money."""
    return Success(f"sent {args.amount} to {args.to}")


async def test_gates_admit_answers_the_arguments_to_run_with() -> None:
    args = Transfer(to="bob", amount=5)
    passed = await Gates().admit(transfer, ToolCall(name="transfer"), args, ExecutionContext())
    assert passed == Success(args)


async def test_resilience_run_still_wraps_one_invocation() -> None:
    async def attempt() -> Result[object, ToolError]:
        return Success("ok")

    assert await Resilience().run(transfer, attempt) == (Success("ok"), 1)


class UpstreamFailure(Failure[ToolError]):  # type: ignore[misc]
    """A subclass of returns' Failure: legal at run time (`@final` is for type checkers)."""


@tool
async def fetch() -> object:
    """Fetch something."""
    return UpstreamFailure(TransportError(message="upstream down"))


async def test_a_failure_of_a_subclass_is_recorded_as_a_failure() -> None:
    events: list[ToolEvent] = []
    executor = Executor(ToolRegistry([fetch]), sinks=[events.append])
    outcome = await executor.run(ToolCall(name="fetch"), ExecutionContext())
    assert outcome.result == Failure(TransportError(message="upstream down"))
    assert [type(e) for e in events if isinstance(e, ToolCompleted | ToolFailed)] == [ToolFailed]


@tool
async def big() -> int:
    """A big number."""
    return 10**400


@tool
async def ratio() -> float:
    """A precise ratio."""
    return 1 / 3


@pytest.mark.parametrize("number_tool", [big, ratio])
async def test_a_number_longer_than_its_cap_is_cut(number_tool: AnyTool) -> None:
    executor = Executor(ToolRegistry([number_tool]), output_caps={number_tool.name: 5})
    outcome = await executor.run(ToolCall(name=number_tool.name), ExecutionContext())
    output = outcome.result.unwrap()
    assert isinstance(output, dict)
    assert output["truncated"] is True


def test_executor_run_is_a_coroutine_function() -> None:
    """Test doubles made with `create_autospec(Executor)` can be awaited."""
    assert inspect.iscoroutinefunction(Executor.run)


class BrokenRegistry(ToolRegistry):
    def find(self, name: str) -> AnyTool | None:
        raise RuntimeError("registry backend unavailable")


async def test_a_lookup_that_raises_is_recorded_under_its_own_call() -> None:
    events: list[ToolEvent] = []
    executor = Executor(BrokenRegistry([transfer]), sinks=[events.append])
    outcome = await executor.run(ToolCall(id="c1", name="transfer"), ExecutionContext())
    assert outcome.result.failure().kind == "internal_error"
    [failed] = [e for e in events if isinstance(e, ToolFailed)]
    assert (failed.context.call_id, failed.context.call_stack) == ("c1", ("c1",))


async def test_a_cancelled_probe_leaves_the_circuit_half_open() -> None:
    """A half-open probe stopped by `Executor.cancel` says nothing about the tool."""
    mode = {"now": "fail"}
    clock = [0.0]

    @tool
    async def service() -> str:
        """A flaky service."""
        if mode["now"] == "fail":
            raise RuntimeError("down")
        await asyncio.sleep(10)
        return "up"

    resilience = Resilience(
        breakers=BreakerSettings(consecutive_failures=2, cooldown_s=10),
        clock=lambda: clock[0],
        retry=RetrySettings(attempts=1),
    )
    executor = Executor(ToolRegistry([service]), resilience=resilience)
    ctx: ExecutionContext[Any] = ExecutionContext()
    for _ in range(2):
        await executor.run(ToolCall(name="service"), ctx)
    assert executor.circuit_state("service") == "open"
    clock[0], mode["now"] = 11.0, "slow"
    probe = asyncio.create_task(executor.run(ToolCall(id="probe", name="service"), ctx))
    await asyncio.sleep(0.01)
    assert executor.cancel("probe")
    assert (await probe).result.failure().kind == "cancelled"
    assert executor.circuit_state("service") == "half_open"


class _Later:
    """An awaitable that is not a coroutine: waits one loop turn, then does `then`."""

    def __init__(self, then: Any) -> None:
        self.then = then

    def __await__(self) -> Any:
        yield None
        return self.then()


def _raising(error: BaseException) -> Any:
    def go() -> Any:
        raise error

    return go


ENDINGS: dict[str, tuple[Any, str]] = {
    "returns Success": (lambda: Success(7), "success"),
    "returns a plain value, not a Result": (lambda: 7, "failed"),
    "returns a Failure of a non-ToolError": (lambda: Failure(ValueError("x")), "failed"),
    "raises ValueError": (_raising(ValueError("bad")), "ValueError"),
    "raises SystemExit": (_raising(SystemExit(3)), "SystemExit"),
    "raises GeneratorExit": (_raising(GeneratorExit()), "GeneratorExit"),
}


@pytest.mark.parametrize("coroutine", [True, False], ids=["coroutine", "awaitable"])
@pytest.mark.parametrize("ending", list(ENDINGS))
async def test_a_body_that_waits_then_ends_oddly_is_held_to_the_contract(
    ending: str, coroutine: bool
) -> None:
    """The invoker steps a coroutine body itself (no wrapper around it): what it returns
    or raises after waiting must still become a Result, as it does on the first step."""
    then, expected = ENDINGS[ending]

    async def body() -> object:
        await asyncio.sleep(0)
        return then()

    def execute(args: object, ctx: ExecutionContext) -> Any:
        return body() if coroutine else _Later(then)

    made = Tool(
        name="odd",
        description="ends oddly",
        parameters=ParameterSchema.from_json_schema({"type": "object"}),
        execute=execute,
    )
    outcome = await Executor(ToolRegistry([made])).run(ToolCall(name="odd"), ExecutionContext())
    match outcome.result, expected:
        case Success(value), "success":
            assert value == 7
        case Failure(error), "failed":
            assert isinstance(error, ToolError)
        case Failure(error), exception_type:
            assert getattr(error, "exception_type", None) == exception_type
        case other:
            pytest.fail(f"unexpected {other}")


async def test_a_body_raising_while_the_caller_cancels_fails_as_under_a_plain_await() -> None:
    """A body handed the caller's cancellation that raises something else instead: under a
    plain await the task would end with that error, so the call ends with it as a value
    (the caller's task can no more tell this apart from a TaskGroup's own cancellation,
    which Python 3.11 leaves counted: see the TaskGroup tests below)."""
    entered = asyncio.Event()

    @tool
    async def stubborn() -> str:
        """Raise on cancellation."""
        entered.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            raise ValueError("cleaning up failed") from None
        return "never"

    executor = Executor(ToolRegistry([stubborn]))
    task = asyncio.ensure_future(executor.run(ToolCall(name="stubborn"), ExecutionContext()))
    await entered.wait()
    task.cancel()
    outcome = await task
    error = outcome.result.failure()
    assert isinstance(error, ExecutionFailed)
    assert "cleaning up failed" in error.message


async def test_a_finished_call_leaves_no_reference_cycle_behind() -> None:
    """A call's context used to hold its progress reporter, which held the context: every
    call with a sink attached left a cycle for the garbage collector. Refcounting alone
    frees a call's context now."""
    import weakref

    seen: list[weakref.ref[ExecutionContext]] = []

    @tool
    async def remembers(ctx: ExecutionContext) -> str:
        """Note the context it ran in."""
        seen.append(weakref.ref(ctx))
        ctx.report_progress(1, 1, "done")
        return "ok"

    executor = Executor(ToolRegistry([remembers]), sinks=[lambda event: None])
    gc.collect()
    gc.disable()
    try:
        outcome = await executor.run(ToolCall(name="remembers"), ExecutionContext())
        assert outcome.result == Success("ok")
        del outcome
        assert seen[0]() is None
    finally:
        gc.enable()


class _Nothing(BaseModel):
    pass


def test_an_abandoned_body_raising_system_exit_does_not_end_the_program() -> None:
    """A body that swallows its deadline's cancellation runs on, abandoned; whatever it
    raises in the end (here `SystemExit`) used to escape the event loop once the invoker
    stepped bodies without a wrapper coroutine."""

    @tool(timeout_s=0.02)
    async def stubborn(args: _Nothing, ctx: ExecutionContext) -> Result[str, ToolError]:
        """Ignore the deadline once, then exit."""
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(10)
        await asyncio.sleep(0.02)
        raise SystemExit(3)

    async def main() -> str:
        executor = Executor(ToolRegistry([stubborn]))
        outcome = await executor.run(ToolCall(name="stubborn", arguments={}), ExecutionContext())
        assert outcome.result.failure().kind == "timed_out"
        await asyncio.sleep(0.1)  # the abandoned body raises meanwhile
        await executor.aclose()
        return "carried on"

    assert asyncio.run(main()) == "carried on"


def test_a_body_raising_as_it_is_closed_at_shutdown_does_not_end_the_program() -> None:
    """A body that swallows every cancellation is closed for good when `asyncio.run` ends;
    a `SystemExit` from its `finally` then must not escape either."""

    @tool(timeout_s=0.02)
    async def clinging(args: _Nothing, ctx: ExecutionContext) -> Result[str, ToolError]:
        """Never stop; exit when closed."""
        try:
            while True:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.sleep(10)
        finally:
            raise SystemExit(4)

    async def main() -> str:
        executor = Executor(ToolRegistry([clinging]))
        outcome = await executor.run(ToolCall(name="clinging", arguments={}), ExecutionContext())
        assert outcome.result.failure().kind == "timed_out"
        return "done"

    assert asyncio.run(main()) == "done"


async def test_closing_a_running_call_does_not_raise_what_the_body_raises_on_close() -> None:
    """`Executor.run`'s coroutine closed mid-call (its task torn down) closes the body; a
    body whose clean-up raises must not make that close raise."""
    entered = asyncio.Event()

    @tool
    async def cleanup_fails(args: _Nothing, ctx: ExecutionContext) -> Result[str, ToolError]:
        """Fail while cleaning up."""
        try:
            entered.set()
            await asyncio.sleep(10)
        finally:
            raise SystemExit(7)

    executor = Executor(ToolRegistry([cleanup_fails]))
    running = executor.run(ToolCall(name="cleanup_fails", arguments={}), ExecutionContext())
    waiting_on = running.send(None)  # the call runs until the body waits
    assert entered.is_set()
    del waiting_on
    running.close()  # raises nothing


async def test_a_resilience_of_ones_own_still_wraps_each_invocation() -> None:
    """The executor runs breaker ▸ retry ▸ health inline, as `Resilience.run` does — but a
    subclass with a `run` of its own (metrics, a bulkhead) is still the one called."""
    wrapped: list[str] = []

    class Counted(Resilience):
        async def run(self, tool: AnyTool, attempt: Any, *, sleep: Any = None) -> Any:
            wrapped.append(tool.name)
            return await super().run(tool, attempt, sleep=sleep)

    executor = Executor(ToolRegistry([waits]), resilience=Counted())
    for _ in range(3):
        outcome = await executor.run(ToolCall(name="waits"), ExecutionContext())
        assert outcome.result == Success("done")
    assert wrapped == ["waits"] * 3


class Forecast(BaseModel):
    city: str

    @classmethod
    def model_validate_json(cls, json_data: Any, **kwargs: Any) -> Forecast:
        """Accept a bare city name as well as JSON."""
        if isinstance(json_data, str) and not json_data.lstrip().startswith("{"):
            return cls(city=json_data)
        return super().model_validate_json(json_data, **kwargs)


async def test_a_models_own_model_validate_json_is_still_used() -> None:
    @tool
    async def forecast(args: Forecast, ctx: ExecutionContext) -> Result[str, ToolError]:
        """Tell the weather."""
        return Success(f"sunny in {args.city}")

    executor = Executor(ToolRegistry([forecast]))
    outcome = await executor.run(ToolCall(name="forecast", arguments="Oslo"), ExecutionContext())
    assert outcome.result == Success("sunny in Oslo")


# --- the first attempt is made before tenacity is entered (only a failure retries) ------


def _failing_read(failures: int) -> tuple[AnyTool, list[int]]:
    made: list[int] = []

    @tool(annotations=ToolAnnotations(read_only=True))
    async def lookup() -> str:
        """Read a record over a flaky link."""
        made.append(1)
        if len(made) <= failures:
            raise ConnectionError("link down")
        return "record"

    return lookup, made


@pytest.mark.parametrize("through", ["executor", "resilience.run"])
@pytest.mark.parametrize(
    ("failures", "attempts", "slept"),
    [(0, 1, []), (2, 3, [1.0, 2.0]), (9, 4, [1.0, 2.0, 3.0])],
)
async def test_a_retried_call_waits_attempts_and_stops_as_before(
    through: str, failures: int, attempts: int, slept: list[float]
) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    lookup, made = _failing_read(failures)
    resilience = Resilience(retry=RetrySettings(attempts=4, initial_s=1, max_s=3, jitter_s=0))
    if through == "executor":
        executor = Executor(ToolRegistry([lookup]), resilience=resilience, sleep=sleep)
        outcome = await executor.run(ToolCall(name="lookup"), ExecutionContext())
        result, made_attempts = outcome.result, outcome.attempts
    else:
        args = lookup.parameters.check(None)
        result, made_attempts = await resilience.run(
            lookup, lambda: lookup.execute(args, ExecutionContext()), sleep=sleep
        )
    assert (made_attempts, len(made), waits) == (attempts, attempts, slept)
    assert (type(result) is Success) is (failures < attempts)
    health = resilience.health.health("lookup")
    assert health is not None
    assert health.calls == 1  # one call, however many attempts


async def test_a_call_cancelled_while_waiting_to_retry_gives_its_probe_back() -> None:
    """A half-open probe whose first attempt failed and whose retry was cancelled said
    nothing about the tool: the circuit stays half-open and the next call may probe."""
    clock = [0.0]
    lookup, made = _failing_read(failures=100)
    resilience = Resilience(
        breakers=BreakerSettings(consecutive_failures=1, cooldown_s=10),
        clock=lambda: clock[0],
    )
    waiting, never = asyncio.Event(), asyncio.Event()

    async def sleep(seconds: float) -> None:
        if clock[0] > 0:  # the probe's wait lasts until it is cancelled
            waiting.set()
            await never.wait()

    executor = Executor(ToolRegistry([lookup]), resilience=resilience, sleep=sleep)
    opened = await executor.run(ToolCall(name="lookup"), ExecutionContext())
    assert opened.attempts == 3
    assert executor.circuit_state("lookup") == "open"
    clock[0] = 11.0
    probe = asyncio.create_task(executor.run(ToolCall(name="lookup"), ExecutionContext()))
    await waiting.wait()  # the probe's first attempt has failed; it waits to retry
    assert len(made) == 4
    probe.cancel()
    with pytest.raises(asyncio.CancelledError):
        await probe
    assert executor.circuit_state("lookup") == "half_open"
    assert resilience.take(lookup) != ()  # the probe is free to take again


async def test_an_attempt_that_is_no_result_is_made_once() -> None:
    """`Resilience.run` retries only a failure: an `attempt` that breaks the contract (answers
    None) is not made again."""
    lookup, _ = _failing_read(0)
    made: list[int] = []

    async def attempt() -> Any:
        made.append(1)

    resilience = Resilience(retry=RetrySettings(attempts=3, jitter_s=0))
    result, attempts = await resilience.run(lookup, attempt)
    assert (cast(object, result), attempts) == (None, 1)
    assert made == [1]


@dataclasses.dataclass(frozen=True, kw_only=True)
class _TokenContext(ExecutionContext[None]):
    """A context whose construction needs more than its fields (an InitVar)."""

    token: dataclasses.InitVar[str]
    user: str = ""

    def __post_init__(self, token: str) -> None:
        super().__post_init__()
        object.__setattr__(self, "user", token.upper())


def test_a_context_made_for_a_call_is_a_copy_with_the_call() -> None:
    outer = _TokenContext(agent="a", token="red", permissions=frozenset({"fs:read"}))
    outer.attach(left="over")
    inner = outer.for_call("c1")
    assert (inner.agent, inner.permissions) == ("a", frozenset({"fs:read"}))
    assert (inner.call_id, inner.call_stack, inner.attached) == ("c1", ("c1",), {})
    nested = inner.for_call("c2")
    assert nested.call_stack == ("c1", "c2")
    assert (outer.call_id, outer.call_stack) == (None, ())  # the original is untouched
    inner.attach(rows=1)
    assert outer.attached == {"left": "over"}
    assert nested.attached == {}
    # a plain ExecutionContext (a subclass's __init__ may need what its fields do not hold),
    # which a tool may still derive from as usual
    assert type(inner) is ExecutionContext
    assert dataclasses.replace(inner, phase="inner").call_id == "c1"


async def test_a_tool_passes_on_or_derives_from_a_context_of_a_subclass() -> None:
    """A subclass whose construction needs more than its fields: a tool still runs a batch
    with its ctx (`run_many` derives a batch context) and derives contexts of its own."""
    executor: Executor

    @tool
    async def leaf() -> str:
        """A leaf."""
        return "leaf"

    @tool
    async def fan_out(ctx: ExecutionContext) -> str:
        """Run two leaves, then derive a context for a phase."""
        outcomes = await executor.run_many([ToolCall(name="leaf"), ToolCall(name="leaf")], ctx)
        phase = dataclasses.replace(ctx, phase="inner").phase
        return ",".join([*(str(o.result.unwrap()) for o in outcomes), str(phase)])

    executor = Executor(ToolRegistry([leaf, fan_out]))
    outcome = await executor.run(ToolCall(name="fan_out"), _TokenContext(agent="a", token="x"))
    assert outcome.result == Success("leaf,leaf,inner")


def test_the_call_path_makes_no_closure_cells_per_call() -> None:
    """A closure anywhere in `Executor._run` turns every name it reads into a cell made on
    each call, kept alive while the call waits: with a thousand calls in flight, that is
    thousands more objects for the garbage collector to walk."""
    assert Executor._run.__code__.co_cellvars == ()


# --- whose cancellation it is: read relative to the call's start (outside review) --------


async def _one_branch_fails() -> None:
    raise ValueError("one branch failed")


@tool
async def fan_out() -> str:
    """Fan out with a TaskGroup; one branch fails."""
    async with asyncio.TaskGroup() as group:
        group.create_task(asyncio.sleep(1))
        group.create_task(_one_branch_fails())
    return "unreachable"


@tool(timeout_s=0.05)
async def slow() -> str:
    """Take longer than its deadline."""
    await asyncio.sleep(1)
    return "late"


@tool
async def own_timeout() -> str:
    """Time out inside, and say so."""
    try:
        async with asyncio.timeout(0.01):
            await asyncio.sleep(1)
    except TimeoutError:
        return "caught"
    return "no"


async def test_a_failing_task_group_in_a_tool_is_a_failure_and_spoils_no_later_call() -> None:
    """On Python 3.11 a TaskGroup whose branch fails leaves its task's `cancelling()` count
    raised: that is neither the caller's cancellation now, nor on the next call."""
    executor = Executor(ToolRegistry([fan_out, slow]))
    failed = (await executor.run(ToolCall(name="fan_out"), ExecutionContext())).result
    assert failed.failure().kind == "execution_failed"
    assert "ExceptionGroup" in failed.failure().message
    late = (await executor.run(ToolCall(name="slow"), ExecutionContext())).result
    assert late.failure().kind == "timed_out"


async def _swallow_a_cancellation() -> None:
    """What code written before `Task.uncancel` does: catch a cancellation, carry on."""
    task = asyncio.current_task()
    assert task is not None
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(0)


@pytest.mark.parametrize(("name", "ends"), [("slow", "timed_out"), ("own_timeout", "caught")])
async def test_a_caller_that_once_swallowed_a_cancellation_still_gets_values(
    name: str, ends: str
) -> None:
    executor = Executor(ToolRegistry([slow, own_timeout]))

    async def agent_loop() -> Result[object, ToolError]:
        await _swallow_a_cancellation()
        return (await executor.run(ToolCall(name=name), ExecutionContext())).result

    result = await asyncio.create_task(agent_loop())
    assert (result.unwrap() if type(result) is Success else result.failure().kind) == ends


@tool(timeout_s=math.inf)
async def patient() -> str:
    """Wait without a deadline."""
    await asyncio.sleep(0.01)
    return "done"


async def test_an_infinite_deadline_is_none() -> None:
    for executor in (
        Executor(ToolRegistry([patient])),
        Executor(ToolRegistry([waits]), default_timeout_s=math.inf),
    ):
        [name] = [t.name for t in executor.registry]
        outcome = await executor.run(ToolCall(name=name), ExecutionContext())
        assert type(outcome.result) is Success


@pytest.mark.parametrize("timeout_s", [0, -1.0, math.nan])
def test_a_default_deadline_that_is_no_duration_is_refused(timeout_s: float) -> None:
    with pytest.raises(ValueError, match="default_timeout_s"):
        Executor(ToolRegistry([waits]), default_timeout_s=timeout_s)
