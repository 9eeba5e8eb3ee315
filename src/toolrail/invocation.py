"""Running one tool body: under its deadline, cancellable by call id, held to its contract.

The body runs as its own task, awaited through a shield. At the deadline (or on
`Executor.cancel`) the body is cancelled and the call ends *at once* — a body that swallows
its cancellation runs on in the background, but nobody waits for it. What propagates out
of `invoke` is only the caller's own cancellation and `KeyboardInterrupt`; whatever else a
body raises (any `Exception`, `SystemExit`, `GeneratorExit`, other `BaseException`s) or
returns instead of a `Result` becomes a `ToolError`.

`Invoker` owns the only mutable state this needs — which task awaits which call, which
calls were asked to stop, and the bodies abandoned after their deadline.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable
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
        self, tool: AnyTool, args: object, call: ToolCall, ctx: ExecutionContext
    ) -> Result[object, ToolError]:
        """The tool's result, by its deadline; see the module docstring."""
        timeout_s = tool.timeout_s or self.default_timeout_s
        waiter = asyncio.current_task()
        try:
            started: object = tool.execute(args, ctx)  # a hand-made Tool may answer sync
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            return Failure(ExecutionFailed.from_exception(error))
        if not inspect.isawaitable(started):  # a body that answered synchronously
            return as_result(tool.name, started)
        body = asyncio.ensure_future(_contained(tool.name, started))
        if waiter is not None:
            self._running[call.id] = waiter
        deadline = asyncio.timeout(timeout_s)
        try:
            async with deadline:
                return await asyncio.shield(body)
        except TimeoutError as error:
            if not deadline.expired():  # the body's own TimeoutError
                return Failure(ExecutionFailed.from_exception(error))
            self._abandon(body)
            return Failure(
                TimedOut(
                    message=f"{tool.name} did not finish within {timeout_s:g}s",
                    timeout_s=timeout_s or 0.0,
                )
            )
        except asyncio.CancelledError:
            if not body.done():  # we were cancelled, not the body: stop it, do not wait
                self._abandon(body)
            if call.id in self._cancel_requested and waiter is not None:
                waiter.uncancel()
                return Failure(cancelled("a cancel request"))
            if waiter is not None and waiter.cancelling():
                raise  # the caller's own cancellation
            return Failure(cancelled("the tool itself"))
        finally:
            self._running.pop(call.id, None)
            self._cancel_requested.discard(call.id)

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
