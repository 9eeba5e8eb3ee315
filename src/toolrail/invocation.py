"""Running one tool body: under its deadline, cancellable by call id, held to its contract.

The body's first step runs at once, eagerly (as Python 3.12's eager tasks do): a body that
finishes without waiting costs no task and no timer. A body that waits goes on as its own
task, awaited through one future woken by the body's end or by the deadline's timer. At the
deadline (or on `Executor.cancel`) the body is cancelled and the call ends *at once* — a
body that swallows its cancellation runs on in the background, but nobody waits for it. What propagates out
of `invoke` is only the caller's own cancellation and `KeyboardInterrupt`; whatever else a
body raises (any `Exception`, `SystemExit`, `GeneratorExit`, other `BaseException`s) or
returns instead of a `Result` becomes a `ToolError`.

`Invoker` owns the only mutable state this needs — which task awaits which call, which
calls were asked to stop, and the bodies abandoned after their deadline.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import types
from collections.abc import Awaitable, Coroutine, Generator
from typing import Any

from returns.result import Failure, Result, Success

from toolrail.core.call import ToolCall
from toolrail.core.context import ExecutionContext
from toolrail.core.errors import Cancelled, ExecutionFailed, TimedOut, ToolError
from toolrail.core.tool import AnyTool


class Invoker:
    def __init__(self, default_timeout_s: float | None = None) -> None:
        self.default_timeout_s = default_timeout_s
        self._running: dict[str, asyncio.Task[Any]] = {}
        self._cancel_requested: set[str] = set()
        self._abandoned: set[asyncio.Future[Any]] = set()

    def cancel(self, call_id: str) -> bool:
        """Stop a running call; it ends in `Failure(Cancelled)`. False if it is not running."""
        task = self._running.get(call_id)
        if task is None or task.done():
            return False
        self._cancel_requested.add(call_id)
        task.cancel()
        return True

    async def invoke(
        self, tool: AnyTool, args: object, call: ToolCall, ctx: ExecutionContext[Any]
    ) -> Result[object, ToolError]:
        """The tool's result, by its deadline; see the module docstring."""
        try:
            started: object = tool.execute(args, ctx)  # a hand-made Tool may answer sync
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            return Failure(ExecutionFailed.from_exception(error))
        if not inspect.isawaitable(started):  # a body that answered synchronously
            return as_result(tool.name, started)
        # Eager start (what Python 3.12's eager tasks do): the body's first step runs now,
        # in its own copy of the context; a body that finishes without waiting on anything
        # needs no task, no timer and no trip through the event loop.
        context = contextvars.copy_context()
        body_coro = _contained(tool.name, started)
        try:
            waiting_on = context.run(body_coro.send, None)
        except StopIteration as finished:
            done: Result[object, ToolError] = finished.value
            return done
        except asyncio.CancelledError:  # raised by the body itself, not sent to it
            return Failure(cancelled("the tool itself"))
        body = asyncio.get_running_loop().create_task(
            _resumed(body_coro, waiting_on), context=context
        )
        return await self._await(body, tool, call)

    async def _await(
        self, body: asyncio.Task[Result[object, ToolError]], tool: AnyTool, call: ToolCall
    ) -> Result[object, ToolError]:
        """Wait for a body running as its own task, until its deadline: one future and one
        timer, and the body is never awaited past the deadline (a body that swallows its
        cancellation runs on, abandoned)."""
        timeout_s = tool.timeout_s or self.default_timeout_s
        loop = asyncio.get_running_loop()
        waiter = asyncio.current_task()
        woken: asyncio.Future[bool] = loop.create_future()

        def wake(timed_out: object) -> None:
            if not woken.done():
                woken.set_result(timed_out is True)

        body.add_done_callback(wake)
        timer = loop.call_later(timeout_s, wake, True) if timeout_s else None
        if waiter is not None:
            self._running[call.id] = waiter
        try:
            timed_out = await woken
        except asyncio.CancelledError:
            if not body.done():  # we were cancelled, not the body: stop it, do not wait
                self._abandon(body)
            if call.id in self._cancel_requested and waiter is not None:
                waiter.uncancel()
                return Failure(cancelled("a cancel request"))
            raise  # the caller's own cancellation
        finally:
            if timer is not None:
                timer.cancel()
            body.remove_done_callback(wake)
            self._running.pop(call.id, None)
            self._cancel_requested.discard(call.id)
        if timed_out and not body.done():
            self._abandon(body)
            return Failure(
                TimedOut(
                    message=f"{tool.name} did not finish within {timeout_s:g}s",
                    timeout_s=timeout_s or 0.0,
                )
            )
        if body.cancelled():
            return Failure(cancelled("the tool itself"))
        return body.result()

    def _abandon(self, body: asyncio.Future[Any]) -> None:
        """Cancel a body and keep a reference until it ends; its result is not wanted."""
        body.cancel()
        if not body.done():
            self._abandoned.add(body)
            body.add_done_callback(self._forget)

    def _forget(self, body: asyncio.Future[Any]) -> None:
        self._abandoned.discard(body)
        if not body.cancelled():
            body.exception()  # retrieved: no "exception was never retrieved" noise


async def _contained(name: str, body: Awaitable[object]) -> Result[object, ToolError]:
    """The body's result; anything it raises but cancellation and `KeyboardInterrupt` is
    caught here, inside its task — asyncio would let a `SystemExit` out of the event loop."""
    try:
        returned = await body
    except (KeyboardInterrupt, asyncio.CancelledError):
        raise
    except BaseException as error:  # a tool's failure of any kind is a value
        return Failure(ExecutionFailed.from_exception(error))
    return as_result(name, returned)


@types.coroutine
def _resumed(
    body: Coroutine[Any, Any, Result[object, ToolError]], waiting_on: Any
) -> Generator[Any, Any, Result[object, ToolError]]:
    """Carry on a coroutine whose first step already ran: hand its task what it waits on,
    and pass back what the task sends or throws in."""
    while True:
        try:
            sent = yield waiting_on
        except BaseException as error:
            try:
                waiting_on = body.throw(error)
            except StopIteration as finished:
                returned: Result[object, ToolError] = finished.value
                return returned
        else:
            try:
                waiting_on = body.send(sent)
            except StopIteration as finished:
                result: Result[object, ToolError] = finished.value
                return result


def cancelled(by: str) -> Cancelled:
    return Cancelled(message=f"the call was cancelled by {by} before it finished")


def as_result(name: str, returned: object) -> Result[object, ToolError]:
    """Hold a tool to its contract: a `Result` whose failure is a `ToolError`."""
    match returned:
        case Success():
            return returned
        case Failure(ToolError() as error):
            return Failure(error)
        case Failure(other):
            return Failure(ExecutionFailed(message=str(other)))
        case _:
            return Failure(
                ExecutionFailed(
                    message=f"{name} returned {type(returned).__name__}, not a Result; "
                    "return Success(value) or Failure(ToolError)"
                )
            )
