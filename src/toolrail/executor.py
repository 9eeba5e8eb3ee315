"""The railway: one `ToolCall` in, one `ToolOutcome` out, events emitted on the way.

    lookup (registry + agent table)  → UnknownTool / NotAllowed
    validate (pydantic / jsonschema) → InvalidArguments
    emit ToolStarted
    run under the tool's deadline    → ExecutionFailed / TimedOut / Cancelled
    emit ToolCompleted | ToolFailed

No exception escapes `run` for anything a tool or its input does. The only exception it lets
through is the caller's own cancellation of the task awaiting it, as asyncio requires.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import structlog
from returns.result import Failure, Result, Success

from toolrail.core.call import ToolCall, ToolOutcome
from toolrail.core.context import ExecutionContext, ProgressCallback
from toolrail.core.errors import (
    Cancelled,
    ExecutionFailed,
    InternalError,
    TimedOut,
    ToolError,
)
from toolrail.events import (
    Sink,
    ToolCompleted,
    ToolEvent,
    ToolFailed,
    ToolProgress,
    ToolStarted,
)
from toolrail.registry import AgentToolTable, AnyTool, ToolRegistry, unknown_tool
from toolrail.sinks import Fanout

log = structlog.get_logger("toolrail.executor")


class Executor:
    """Runs tool calls for agents; never raises for a tool's failure.

    `default_timeout_s` applies to tools that set no `timeout_s` of their own.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        agents: AgentToolTable | None = None,
        sinks: Iterable[Sink] = (),
        default_timeout_s: float | None = None,
        sink_timeout_s: float = 5.0,
    ) -> None:
        self.registry = registry
        self.agents = agents
        self.default_timeout_s = default_timeout_s
        self.sinks = Fanout(sinks, timeout_s=sink_timeout_s)
        self._running: dict[str, asyncio.Task[Any]] = {}
        self._cancel_requested: set[str] = set()

    def visible(self, agent: str) -> tuple[AnyTool, ...]:
        """The tools `agent` may see — the same ones it may call."""
        if self.agents is None:
            return tuple(self.registry)
        return self.agents.visible(agent, self.registry)

    def emit(self, event: ToolEvent) -> None:
        """Send an event to the sinks (the orchestrator announces streaming calls this way)."""
        self.sinks.emit(event)

    def cancel(self, call_id: str) -> bool:
        """Cancel a running call; it ends in `Failure(Cancelled)`. False if it is not running."""
        task = self._running.get(call_id)
        if task is None or task.done():
            return False
        self._cancel_requested.add(call_id)
        task.cancel()
        return True

    async def run(self, call: ToolCall, ctx: ExecutionContext) -> ToolOutcome:
        """Run one call through lookup, validation and execution; always returns an outcome."""
        started_at = datetime.now(UTC)
        start = time.perf_counter()
        ctx = ctx.for_call(call.id)
        tool: AnyTool | None = None
        try:
            tool = self._lookup(call, ctx)
            if tool is None:
                result = self._refusal(call, ctx)
            else:
                result = await self._validate_and_invoke(tool, call, ctx)
        except asyncio.CancelledError:
            # the caller cancelled the task awaiting us: record it, then let it propagate
            self._finish(call, ctx, tool, Failure(_cancelled("the caller")), started_at, start)
            raise
        except Exception as error:
            log.exception("toolrail bug while running a call", tool=call.name, call_id=call.id)
            result = Failure(
                InternalError(
                    message=f"toolrail failed while running {call.name!r}: "
                    f"{ExecutionFailed.from_exception(error).message}"
                )
            )
        return self._finish(call, ctx, tool, result, started_at, start)

    async def run_many(
        self, calls: Sequence[ToolCall], ctx: ExecutionContext, *, max_concurrency: int = 8
    ) -> list[ToolOutcome]:
        """Run a batch concurrently (at most `max_concurrency` at once); outcomes in call order."""
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        batch_ctx = replace(ctx, batch_id=ctx.batch_id or uuid.uuid4().hex[:12])
        limit = asyncio.Semaphore(max_concurrency)

        async def one(call: ToolCall) -> ToolOutcome:
            async with limit:
                return await self.run(call, batch_ctx)

        return list(await asyncio.gather(*(one(call) for call in calls)))

    async def aclose(self) -> None:
        """Let async sinks finish what they were handed."""
        await self.sinks.drain()

    # --- the steps --------------------------------------------------------------------

    def _lookup(self, call: ToolCall, ctx: ExecutionContext) -> AnyTool | None:
        """The tool to run, or None if it is unknown or not this agent's to call."""
        tool = self.registry.find(call.name)
        if tool is None or self.agents is None or self.agents.allows(ctx.agent, call.name):
            return tool
        return None

    def _refusal(self, call: ToolCall, ctx: ExecutionContext) -> Result[object, ToolError]:
        """Why `_lookup` found nothing: NotAllowed, or UnknownTool suggesting visible names."""
        if call.name in self.registry:
            assert self.agents is not None
            return self.agents.check(ctx.agent, call.name).map(lambda _: None)
        return Failure(unknown_tool(call.name, (t.name for t in self.visible(ctx.agent))))

    async def _validate_and_invoke(
        self, tool: AnyTool, call: ToolCall, ctx: ExecutionContext
    ) -> Result[object, ToolError]:
        validated = tool.parameters.validate(call.arguments, tool=tool.name)
        if isinstance(validated, Failure):
            return validated
        args = validated.unwrap()
        if self.sinks.sinks:
            ctx = ctx.for_call(call.id, self._progress_reporter(call, tool, ctx))
            self.sinks.emit(
                ToolStarted(
                    call_id=call.id,
                    tool=tool.name,
                    context=ctx,
                    arguments=call.arguments,
                    description=_describe(tool, args),
                    source=tool.source,
                    read_only=tool.annotations.read_only,
                )
            )
        return await self._invoke(tool, args, call, ctx)

    async def _invoke(
        self, tool: AnyTool, args: object, call: ToolCall, ctx: ExecutionContext
    ) -> Result[object, ToolError]:
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
                return Failure(_cancelled("a cancel request"))
            if task is not None and task.cancelling():
                raise
            return Failure(_cancelled("the tool itself"))
        except (Exception, SystemExit) as error:
            return Failure(ExecutionFailed.from_exception(error))
        finally:
            self._running.pop(call.id, None)
            self._cancel_requested.discard(call.id)
        return _as_result(tool.name, returned)

    def _progress_reporter(
        self, call: ToolCall, tool: AnyTool, ctx: ExecutionContext
    ) -> ProgressCallback:
        loop = asyncio.get_running_loop()
        loop_thread = threading.get_ident()

        def report(progress: float, total: float | None, message: str | None) -> None:
            event = ToolProgress(
                call_id=call.id,
                tool=tool.name,
                context=ctx,
                progress=progress,
                total=total,
                message=message,
            )
            if threading.get_ident() == loop_thread:
                self.sinks.emit(event)
            else:  # a sync tool in a worker thread
                loop.call_soon_threadsafe(self.sinks.emit, event)

        return report

    def _finish(
        self,
        call: ToolCall,
        ctx: ExecutionContext,
        tool: AnyTool | None,
        result: Result[object, ToolError],
        started_at: datetime,
        start: float,
    ) -> ToolOutcome:
        source = tool.source if tool is not None else "unknown"
        outcome = ToolOutcome(
            call=call,
            result=result,
            started_at=started_at,
            duration_ms=(time.perf_counter() - start) * 1000,
            metadata={"source": source},
        )
        if self.sinks.sinks:
            if isinstance(result, Failure):
                self.sinks.emit(
                    ToolFailed(
                        call_id=call.id,
                        tool=call.name,
                        context=ctx,
                        outcome=outcome,
                        error=result.failure(),
                        source=source,
                    )
                )
            else:
                self.sinks.emit(
                    ToolCompleted(
                        call_id=call.id, tool=call.name, context=ctx, outcome=outcome, source=source
                    )
                )
        return outcome


def _cancelled(by: str) -> Cancelled:
    return Cancelled(message=f"the call was cancelled by {by} before it finished")


def _describe(tool: AnyTool, args: object) -> str | None:
    if tool.describe is None:
        return None
    try:
        return tool.describe(args)
    except Exception:
        log.warning("describe() failed; falling back to the default text", tool=tool.name)
        return None


def _as_result(name: str, returned: object) -> Result[object, ToolError]:
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
