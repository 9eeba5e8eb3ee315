"""Property: no exception escapes `Executor.run` or `Orchestrator.run` for anything a tool,
its input, a model, a sink or an approver does."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, get_args

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, field_validator
from returns.result import Failure, Result, Success

from toolrail import (
    Agent,
    ExecutionContext,
    Executor,
    Orchestrator,
    ParameterSchema,
    ScriptedModel,
    ScriptedTurn,
    Tool,
    ToolCall,
    ToolError,
    ToolOutcome,
    ToolRegistry,
)
from toolrail.orchestrator import EndKind
from toolrail.policy import ApprovalRequest, Approve, Budget, Deny, Gates, Rules
from toolrail.policy.approvals import Approver
from toolrail.resilience import BreakerSettings, Resilience, RetrySettings


class Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("cannot print me")


class Args(BaseModel):
    value: object = None
    count: int = 0

    @field_validator("count")
    @classmethod
    def odd_counts_explode(cls, count: int) -> int:
        if count == 13:
            raise RuntimeError("validator raised a non-validation error")
        return count


async def _hang() -> Result[object, ToolError]:
    await asyncio.Event().wait()
    return Success(None)


def _raise(exc: BaseException) -> Callable[[], Any]:
    def body() -> Any:
        raise exc

    return body


BEHAVIOURS: dict[str, Callable[[], Any]] = {
    "success": lambda: Success({"ok": True}),
    "success_weird": lambda: Success(object()),
    "tool_error": lambda: Failure(ToolError(message="plain base error")),
    "failure_not_tool_error": lambda: Failure(ValueError("not a ToolError")),
    "failure_string": lambda: Failure("just a string"),
    "plain_value": lambda: 42,
    "none": lambda: None,
    "value_error": _raise(ValueError("bad")),
    "key_error": _raise(KeyError("missing")),
    "unprintable": _raise(Unprintable()),
    "system_exit": _raise(SystemExit(1)),
    "recursion": _raise(RecursionError("deep")),
    "cancelled": _raise(asyncio.CancelledError()),
    "timeout_error": _raise(TimeoutError()),
    "memory_error": _raise(MemoryError()),
    "not_implemented": _raise(NotImplementedError()),
}


def _misbehaving(kind: str, progress: object) -> Tool[Args, object]:
    behaviour = BEHAVIOURS.get(kind)

    async def execute(args: Args, ctx: ExecutionContext) -> Result[object, ToolError]:
        ctx.report_progress(progress, progress, str(progress))  # type: ignore[arg-type]
        if kind == "hang":
            return await _hang()
        assert behaviour is not None
        returned: Result[object, ToolError] = behaviour()
        return returned

    def describe(args: Args) -> str:
        if args.count % 2:
            raise RuntimeError("describe is broken too")
        return f"doing {kind}"

    return Tool(
        name=f"t_{kind}",
        description="a misbehaving tool",
        parameters=ParameterSchema.from_model(Args),
        execute=execute,
        timeout_s=0.01,
        describe=describe,
    )


TOOLS = ToolRegistry(
    [_misbehaving(kind, None) for kind in [*BEHAVIOURS, "hang"]]
    + [
        Tool(
            name="raw_schema",
            description="raw",
            parameters=ParameterSchema.from_json_schema(
                {
                    "type": "object",
                    "properties": {"n": {"type": "integer", "maximum": 3}},
                    "required": ["n"],
                }
            ),
            execute=lambda args, ctx: _echo(args),
        )
    ]
)


async def _echo(args: object) -> Result[object, ToolError]:
    return Success(args)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(["value", "count", "n", "x", ""]) | st.text(max_size=5),
            children,
            max_size=3,
        )
    ),
    max_leaves=12,
)
ARGUMENTS = (
    JSONISH
    | st.text(max_size=40)
    | st.binary(max_size=20)
    | st.builds(lambda v: __import__("json").dumps(v), JSONISH)
    | st.fixed_dictionaries({"count": st.integers(-20, 20), "value": JSONISH})
)
NAMES = st.sampled_from([*TOOLS.names(), "nope", "", "t_", "x" * 100])


async def _no_sleep(seconds: float) -> None:
    return None


class SinkExploded(BaseException):
    """Not even an Exception."""


SINK_FAILURES: dict[str, BaseException | None] = {
    "none": None,
    "runtime": RuntimeError("sink broke"),
    "base": SinkExploded("sink exploded"),
    "exit": SystemExit(2),
}


def _approver(kind: str) -> Approver | None:
    async def decide(request: ApprovalRequest) -> Approve | Deny:
        match kind:
            case "approve":
                return Approve()
            case "deny":
                return Deny(message="no")
            case "edit":
                return Approve(arguments={"count": 3, "value": "edited"})
            case "edit_invalid":
                return Approve(arguments={"count": "not a number"})
            case "raise":
                raise RuntimeError("approver broke")
            case _:
                raise SinkExploded("approver exploded")

    return None if kind == "pending" else decide


APPROVER_KINDS = st.sampled_from(
    ["pending", "approve", "deny", "edit", "edit_invalid", "raise", "explode"]
)


def _executor(sink_failure: str, gated: bool, approver: str) -> Executor:
    failure = SINK_FAILURES[sink_failure]

    def sink(event: object) -> None:
        if failure is not None:
            raise failure

    gates = Gates(
        rules=Rules.of(ask=["t_success*"], deny=["raw_schema(n:3)"]),
        budget=Budget(per_conversation=5),
        approver=_approver(approver),
    )
    resilience = Resilience(
        breakers=BreakerSettings(consecutive_failures=2),
        retry=RetrySettings(tools=frozenset({"t_value_error", "t_hang"})),
    )
    return Executor(
        TOOLS,
        sinks=[sink],
        gates=gates if gated else None,
        resilience=resilience if gated else Resilience.off(),
        sleep=_no_sleep,
        max_output_chars=20 if gated else None,
    )


def _run(calls: list[ToolCall], sink_failure: str, gated: bool, approver: str) -> list[ToolOutcome]:
    executor = _executor(sink_failure, gated, approver)
    ctx = ExecutionContext(agent="fuzz")
    with asyncio.Runner() as runner:
        return runner.run(executor.run_many(calls, ctx, max_concurrency=4))


def _is_result_of_tool_error(outcome: ToolOutcome) -> None:
    match outcome.result:
        case Success(_):
            pass
        case Failure(ToolError() as error):
            assert error.message
        case other:
            raise AssertionError(f"not a Result of ToolError: {other!r}")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(NAMES, ARGUMENTS), min_size=1, max_size=6),
    st.sampled_from(sorted(SINK_FAILURES)),
    st.booleans(),
    APPROVER_KINDS,
)
def test_nothing_escapes_run(
    calls: list[tuple[str, Any]], sink_failure: str, gated: bool, approver: str
) -> None:
    """Any name, any arguments, any tool behaviour, sinks and approvers that raise, with or
    without gates (rules, approvals, budgets) and resilience (breakers, retries, output
    caps): a ToolOutcome holding a Result, for the call that was asked (edits aside)."""
    tool_calls = [ToolCall(name=name, arguments=args) for name, args in calls]
    outcomes = _run(tool_calls, sink_failure, gated, approver)
    assert [(o.call.id, o.call.name) for o in outcomes] == [(c.id, c.name) for c in tool_calls]
    for outcome in outcomes:
        _is_result_of_tool_error(outcome)


TURNS = st.lists(
    st.builds(
        ScriptedTurn,
        text=st.text(max_size=10),
        calls=st.lists(st.tuples(NAMES, st.text(max_size=30) | JSONISH.map(str)), max_size=4),
    ),
    min_size=0,
    max_size=4,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TURNS, st.sampled_from(sorted(SINK_FAILURES)), st.booleans(), APPROVER_KINDS)
def test_nothing_escapes_orchestrator_run(
    turns: list[ScriptedTurn], sink_failure: str, gated: bool, approver: str
) -> None:
    """Whatever a model says (names, broken JSON, too few turns), whatever tools, sinks and
    approvers do: `Orchestrator.run` returns a RunResult whose every outcome is a Result."""
    executor = _executor(sink_failure, gated, approver)
    agent = Agent(
        name="fuzz", instructions="", model=ScriptedModel(turns), tools=("*",), max_turns=3
    )
    with asyncio.Runner() as runner:
        result = runner.run(Orchestrator([agent], executor).run("go"))
    assert result.end.kind in get_args(EndKind)
    for outcome in result.outcomes:
        _is_result_of_tool_error(outcome)
