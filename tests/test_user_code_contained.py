"""A tool's own code around its body (validators, `describe`, its output's repr) raising
any BaseException never makes `Executor.run` raise."""

from __future__ import annotations

import asyncio
from typing import Annotated

import pydantic
import pytest
from returns.result import Failure, Success

from toolrail import ExecutionContext, Executor, InvalidArguments, ToolCall, ToolRegistry, tool
from toolrail.recording.events import ToolEvent

pytestmark = pytest.mark.anyio


class Custom(BaseException):
    """Not an Exception: what a careless library might raise."""


RAISED = [GeneratorExit, Custom, SystemExit]


@pytest.mark.parametrize("raised", RAISED)
async def test_a_validator_raising_anything_is_invalid_arguments(
    raised: type[BaseException],
) -> None:
    def refuse(value: int) -> int:
        raise raised()

    @tool
    async def strict(x: Annotated[int, pydantic.AfterValidator(refuse)]) -> int:
        """Take x."""
        return x

    outcome = await Executor(ToolRegistry([strict])).run(
        ToolCall(name="strict", arguments={"x": 1}), ExecutionContext()
    )
    match outcome.result:
        case Failure(InvalidArguments() as error):
            assert raised.__name__ in error.message
        case _:
            pytest.fail(f"not InvalidArguments: {outcome.result}")


@pytest.mark.parametrize("raised", RAISED)
async def test_describe_raising_anything_falls_back_to_the_default_text(
    raised: type[BaseException],
) -> None:
    def describe(_args: object) -> str:
        raise raised()

    @tool(describe=describe)
    async def told() -> str:
        """Say ok."""
        return "ok"

    events: list[ToolEvent] = []
    outcome = await Executor(ToolRegistry([told]), sinks=[events.append]).run(
        ToolCall(name="told"), ExecutionContext()
    )
    assert outcome.result == Success("ok")
    assert events  # the sink saw the call: describe ran, and failed quietly


class Unprintable:
    def __repr__(self) -> str:
        raise Custom("no repr")


async def test_an_output_whose_repr_raises_anything_is_still_an_outcome() -> None:
    @tool
    async def odd() -> object:
        """Return something odd."""
        return [Unprintable()] * 10_000

    outcome = await Executor(ToolRegistry([odd]), max_output_chars=100).run(
        ToolCall(name="odd"), ExecutionContext()
    )
    assert isinstance(outcome.result, Success)


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text")

    __repr__ = __str__


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (_Unprintable(), "<unprintable _Unprintable>"),
        (ValueError("token sk-abcdefghijklmnopqrstuvwxyz"), "ValueError: token [REDACTED]"),
        ("plain words", "plain words"),
    ],
)
async def test_a_failure_that_is_not_a_tool_error_is_the_tools_failure(
    failure: object, expected: str
) -> None:
    """`Failure(x)` where x is no ToolError is the tool's failure (ExecutionFailed), whatever
    x's text does: never an InternalError, never a secret."""

    @tool
    async def odd() -> object:
        """Fail oddly."""
        return Failure(failure)

    outcome = await Executor(ToolRegistry([odd])).run(ToolCall(name="odd"), ExecutionContext())
    error = outcome.result.failure()
    assert error.kind == "execution_failed"
    assert error.message.startswith(expected)


async def test_a_sinks_own_cancelled_error_never_breaks_a_call() -> None:
    """A sink that reads a cancelled future of its own raises `CancelledError`: a sink's
    failure like any other, not the call's cancellation."""

    def sink(event: ToolEvent) -> None:
        cancelled = asyncio.get_running_loop().create_future()
        cancelled.cancel()
        cancelled.result()

    @tool
    async def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    executor = Executor(ToolRegistry([add]), sinks=[sink])
    for b in range(3):
        outcome = await executor.run(
            ToolCall(name="add", arguments={"a": 1, "b": b}), ExecutionContext()
        )
        assert outcome.result == Success(1 + b)


async def test_cancelling_the_callers_task_still_stops_a_call_whose_sinks_run() -> None:
    """The call's own cancellation still propagates (the sinks heard how it ended)."""
    heard: list[str] = []

    @tool
    async def wait() -> str:
        """Wait."""
        await asyncio.sleep(10)
        return "done"

    executor = Executor(ToolRegistry([wait]), sinks=[lambda e: heard.append(type(e).__name__)])
    task = asyncio.ensure_future(executor.run(ToolCall(name="wait"), ExecutionContext()))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert heard[-1] == "ToolFailed"
