"""The railway: one `ToolCall` in, one `ToolOutcome` out, events emitted on the way.

    lookup (registry + agent table)  → UnknownTool / NotAllowed
    permissions the tool declares    → PermissionDenied
    validate (pydantic / jsonschema) → InvalidArguments
    gates, if any (policy/gates.py)  → PermissionDenied / CircuitOpen / ApprovalRequired /
                                       BudgetExceeded
    emit ToolStarted
    run under the tool's deadline,   → ExecutionFailed / TimedOut / Cancelled
      retried if safe to repeat
    cap the output, emit ToolCompleted | ToolFailed

Validation comes before the rules because rules may match on arguments
(`shell(git status*)`), and they should see arguments that passed the schema.

No exception escapes `run` for anything a tool or its input does. The only exception it lets
through is the caller's own cancellation of the task awaiting it, as asyncio requires.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import assert_never

import structlog
from returns.result import Failure, Result, Success

from toolrail.core.call import ToolCall, ToolOutcome
from toolrail.core.context import ExecutionContext, ProgressCallback
from toolrail.core.errors import (
    ExecutionFailed,
    InternalError,
    InvalidArguments,
    PermissionDenied,
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
from toolrail.invocation import Invoker, cancelled
from toolrail.outputs import cap_output
from toolrail.policy.approvals import Approve, Deny
from toolrail.policy.gates import Gates, denied
from toolrail.registry import AgentToolTable, AnyTool, ToolRegistry, unknown_tool
from toolrail.resilience import is_breakage, with_retries
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
        gates: Gates | None = None,
        max_output_chars: int | None = None,
        output_caps: Mapping[str, int] | None = None,
        spill_dir: str | Path = Path("logs") / "outputs",
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`gates` adds rules, approvals, budgets, breakers and retries; outputs longer than
        `max_output_chars` (or a tool's `output_caps` entry) are cut, the whole output saved
        under `spill_dir`; `sleep` waits between retries (a fake one makes tests instant)."""
        self.registry = registry
        self.agents = agents
        self.gates = gates
        self.max_output_chars = max_output_chars
        self.output_caps = dict(output_caps or {})
        self.spill_dir = Path(spill_dir)
        self.sleep = sleep
        self.sinks = Fanout(sinks, timeout_s=sink_timeout_s)
        self.invoker = Invoker(default_timeout_s)

    def visible(self, agent: str, permissions: frozenset[str] | None = None) -> tuple[AnyTool, ...]:
        """The tools `agent` may see — the ones its table, `permissions` (if given) and the
        gates would let it call."""
        tools = (
            tuple(self.registry)
            if self.agents is None
            else self.agents.visible(agent, self.registry)
        )
        if permissions is not None:
            tools = tuple(t for t in tools if t.permissions <= permissions)
        if self.gates is not None:
            gates = self.gates
            tools = tuple(t for t in tools if not gates.hides(t, agent))
        return tools

    def explain(
        self, agent: str, tool_name: str, permissions: frozenset[str] = frozenset()
    ) -> list[str]:
        """Why `tool_name` is or is not visible and callable for `agent`, gate by gate."""
        tool = self.registry.find(tool_name)
        if tool is None:
            return [f"lookup: no tool named {tool_name!r}"]
        lines = ["lookup: registered" + (f" (from {tool.source})" if tool.source else "")]
        if self.agents is not None:
            allowed = self.agents.allows(agent, tool_name)
            lines.append(f"agent table: {'allows' if allowed else 'does not allow'} {agent}")
        missing = tool.permissions - permissions
        lines.append(
            f"permissions: missing {', '.join(sorted(missing))}"
            if missing
            else "permissions: granted"
        )
        if self.gates is not None:
            ctx = ExecutionContext(agent=agent, permissions=permissions)
            lines.extend(self.gates.explain(tool, ctx))
        return lines

    async def resume(
        self, request_id: str, decision: Approve | Deny
    ) -> Result[ToolOutcome, LookupError]:
        """Settle a call that waits for approval: approve runs it (once), deny answers the
        model; a request can be settled only once."""
        pending = self.gates.take_pending(request_id) if self.gates is not None else None
        if pending is None:
            return Failure(LookupError(f"no pending approval request {request_id!r}"))
        call, ctx = pending.call, pending.context
        match decision:
            case Deny(message=message):
                started_at, start = datetime.now(UTC), time.perf_counter()
                refusal: Result[object, ToolError] = Failure(denied(call.name, message))
                tool = self.registry.find(call.name)
                return Success(self._finish(call, ctx, tool, refusal, started_at, start))
            case Approve(arguments=edited, always=always):
                assert self.gates is not None
                self.gates.remember(ctx, always)
                if edited is not None:
                    call = ToolCall(id=call.id, name=call.name, arguments=dict(edited))
                with self.gates.approved(call.id):
                    return Success(await self.run(call, ctx))
            case _:
                assert_never(decision)

    def emit(self, event: ToolEvent) -> None:
        """Send an event to the sinks (the orchestrator announces streaming calls this way)."""
        self.sinks.emit(event)

    def cancel(self, call_id: str) -> bool:
        """Cancel a running call; it ends in `Failure(Cancelled)`. False if it is not running."""
        return self.invoker.cancel(call_id)

    async def run(self, call: ToolCall, ctx: ExecutionContext) -> ToolOutcome:
        """Run one call through lookup, validation and execution; always returns an outcome."""
        started_at = datetime.now(UTC)
        start = time.perf_counter()
        ctx = ctx.for_call(call.id)
        tool: AnyTool | None = None
        attempts = 1
        try:
            tool = self._lookup(call, ctx)
            if tool is None:
                result = self._refusal(call, ctx)
            else:
                result, attempts = await self._validate_and_invoke(tool, call, ctx)
        except asyncio.CancelledError:
            # the caller cancelled the task awaiting us: record it, then let it propagate
            self._finish(call, ctx, tool, Failure(cancelled("the caller")), started_at, start)
            raise
        except Exception as error:
            log.exception("toolrail bug while running a call", tool=call.name, call_id=call.id)
            result = Failure(
                InternalError(
                    message=f"toolrail failed while running {call.name!r}: "
                    f"{ExecutionFailed.from_exception(error).message}"
                )
            )
        return self._finish(call, ctx, tool, result, started_at, start, attempts)

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
    ) -> tuple[Result[object, ToolError], int]:
        """Permissions, validation, gates, then the run; returns the result and attempts."""
        if tool.permissions and not tool.permissions <= ctx.permissions:
            missing = tool.permissions - ctx.permissions
            names = ", ".join(sorted(missing))
            return Failure(
                PermissionDenied(
                    message=f"{ctx.agent} lacks the permission {names} that {tool.name} needs",
                    tool=tool.name,
                    missing=frozenset(missing),
                )
            ), 1
        args = tool.parameters.check(call.arguments, tool=tool.name)
        if isinstance(args, InvalidArguments):
            return Failure(args), 1
        if self.gates is not None:
            admitted = await self.gates.admit(tool, call, args, ctx)
            if isinstance(admitted, Failure):
                return admitted, 1
            args = admitted.unwrap()
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
        if self.gates is None:
            return self._cap_output(tool, call, await self.invoker.invoke(tool, args, call, ctx)), 1
        return await self._guarded(tool, args, call, ctx, self.gates)

    async def _guarded(
        self, tool: AnyTool, args: object, call: ToolCall, ctx: ExecutionContext, gates: Gates
    ) -> tuple[Result[object, ToolError], int]:
        """Retries for tools safe to repeat; breakers and health see the final result."""
        start = time.perf_counter()
        if tool.annotations.safe_to_retry or tool.name in gates.retry.tools:
            result, attempts = await with_retries(
                lambda: self.invoker.invoke(tool, args, call, ctx), gates.retry, sleep=self.sleep
            )
        else:
            result, attempts = await self.invoker.invoke(tool, args, call, ctx), 1
        failure = result.failure() if isinstance(result, Failure) else None
        for breaker in gates.breakers_for(tool):
            breaker.record(failure is None or not is_breakage(failure))
        gates.health.record(
            tool.name,
            failure is None,
            (time.perf_counter() - start) * 1000,
            failure.message if failure is not None else None,
        )
        return self._cap_output(tool, call, result), attempts

    def _cap_output(
        self, tool: AnyTool, call: ToolCall, result: Result[object, ToolError]
    ) -> Result[object, ToolError]:
        cap = self.output_caps.get(tool.name, self.max_output_chars)
        if cap is None or not isinstance(result, Success):
            return result
        # the call id comes from a model: make it a plain file name before using it
        name = re.sub(r"[^A-Za-z0-9_-]", "_", call.id)[:80] or "call"
        return Success(cap_output(result.unwrap(), cap, self.spill_dir / name))

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
        attempts: int = 1,
    ) -> ToolOutcome:
        source = tool.source if tool is not None else "unknown"
        outcome = ToolOutcome(
            call=call,
            result=result,
            started_at=started_at,
            duration_ms=(time.perf_counter() - start) * 1000,
            attempts=attempts,
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


def _describe(tool: AnyTool, args: object) -> str | None:
    if tool.describe is None:
        return None
    try:
        return tool.describe(args)
    except Exception:
        log.warning("describe() failed; falling back to the default text", tool=tool.name)
        return None
