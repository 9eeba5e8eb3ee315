"""Running one tool body: under its deadline, cancellable by call id, held to its contract.

`Invoker` owns the only mutable state this needs — which task runs which call, and which
calls were asked to stop — so that `Executor.cancel(call_id)` can reach a running call.
"""

from __future__ import annotations

import asyncio
from typing import Any

from returns.result import Failure, Result, Success

from toolrail.core.call import ToolCall
from toolrail.core.context import ExecutionContext
from toolrail.core.errors import Cancelled, ExecutionFailed, TimedOut, ToolError
from toolrail.registry import AnyTool


class Invoker:
    def __init__(self, default_timeout_s: float | None = None) -> None:
        self.default_timeout_s = default_timeout_s
        self._running: dict[str, asyncio.Task[Any]] = {}
        self._cancel_requested: set[str] = set()

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
        """The tool's result; whatever it raises or returns instead becomes a `ToolError`.
        Only the caller's own cancellation propagates, as asyncio requires."""
        timeout_s = tool.timeout_s or self.default_timeout_s
        task = asyncio.current_task()
        if task is not None:
            self._running[call.id] = task
        deadline = asyncio.timeout(timeout_s) if timeout_s is not None else None
        try:
            if deadline is None:
                returned = await tool.execute(args, ctx)
            else:
                async with deadline:
                    returned = await tool.execute(args, ctx)
        except TimeoutError as error:
            if deadline is not None and deadline.expired():
                return Failure(
                    TimedOut(
                        message=f"{tool.name} did not finish within {timeout_s:g}s",
                        timeout_s=timeout_s or 0.0,
                    )
                )
            return Failure(ExecutionFailed.from_exception(error))
        except asyncio.CancelledError:
            if call.id in self._cancel_requested and task is not None:
                task.uncancel()
                return Failure(cancelled("a cancel request"))
            if task is not None and task.cancelling():
                raise
            return Failure(cancelled("the tool itself"))
        except (Exception, SystemExit) as error:
            return Failure(ExecutionFailed.from_exception(error))
        finally:
            self._running.pop(call.id, None)
            self._cancel_requested.discard(call.id)
        return as_result(tool.name, returned)


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
