"""The railway: one `ToolCall` in, one `ToolOutcome` out, events emitted on the way.

    lookup (registry + agent table)  → UnknownTool / NotAllowed
    permissions the tool declares    → PermissionDenied
    a rule denying the tool by name  → PermissionDenied
    validate (pydantic / jsonschema) → InvalidArguments
    gates, if any (policy/gates.py)  → PermissionDenied / CircuitOpen / ApprovalRequired /
                                       BudgetExceeded
    ══► Admitted(tool, call, args): the one value the events, the log and the outcome are
        built from — the call as it runs, a person's edits included
    emit ToolStarted
    invoke through small wrappers:   → ExecutionFailed / TimedOut / Cancelled / CircuitOpen
      breaker ▸ retry ▸ health (resilience.py) ▸ deadline (invocation.py) ▸ output cap
    emit ToolCompleted | ToolFailed

Validation comes before the rules because rules may match on arguments
(`shell(git status*)`), and they should see arguments that passed the schema. A tool the
gates hide entirely (outside the agent's table, lacking a permission, denied by name) is
refused before validation, so its input schema never shows through validation errors, and
a mistyped name's "did you mean" suggests only tools the agent may see.

Refusals keep their true reason (`NotAllowed`, `PermissionDenied`): they are the
developer's values, and the log records them. Where a refusal crosses to an outside client
that may not learn which hidden names exist (`toolrail serve`), the boundary answers a
hidden tool exactly as an unknown name (see `Executor.shows`).

Nothing a tool, its input, an approver or a sink does makes `run` raise. What propagates is
only the caller's own cancellation of the task awaiting `run` (recorded first, as
asyncio requires) and a `KeyboardInterrupt` on the event loop's thread (a person's Ctrl-C;
one raised by a sync tool on its worker thread is that tool's failure).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
import types
import uuid
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, assert_never

from returns.result import Failure, Result, Success

from toolrail._diagnostics import get_logger
from toolrail._invocation import Invoker, answered, cancelled
from toolrail._jsonish import message_text
from toolrail._outputs import cap_output, fits
from toolrail.core.call import RawArguments, ToolCall, ToolOutcome, make_outcome
from toolrail.core.context import ExecutionContext, ProgressCallback
from toolrail.core.declared import masked
from toolrail.core.errors import (
    CircuitOpen,
    ExecutionFailed,
    InternalError,
    InvalidArguments,
    PermissionDenied,
    ToolError,
    UnknownTool,
)
from toolrail.core.hidden import Hidden, hidden_texts
from toolrail.core.threads import run_sync
from toolrail.core.tool import AnyTool
from toolrail.policy.approvals import Approve, Deny
from toolrail.policy.gates import Asking, Gates, denied, plain_arguments
from toolrail.recording.events import (
    NO_TOOL,
    CircuitStateChanged,
    Sink,
    ToolEvent,
    ToolHealthChanged,
    ToolRegistered,
    ToolStarted,
    ToolUnregistered,
    make_completed,
    make_failed,
    make_progress,
    make_started,
)
from toolrail.recording.sinks import Fanout
from toolrail.registry import AgentToolTable, ToolRegistry, unknown_tool
from toolrail.resilience import Health, HealthTracker, Resilience, State, with_retries

log = get_logger("toolrail.executor")

DEFAULT_TIMEOUT_S = 60.0
"""The deadline of a tool that sets none: no local tool hangs an agent loop for ever."""
DEFAULT_MAX_OUTPUT_CHARS = 262_144
"""Outputs longer than this (about 64k tokens) reach the model cut, with a marker saying so:
a safety net above the built-in tools' own limits, not a substitute for them."""


class Admitted(NamedTuple):
    """A call past every gate: the call as it will run (arguments a person edited included)
    and its validated arguments; `asked`, the model's own arguments when a person edited
    them. The events, the log line and the outcome are built from this one value, so the
    record always shows what ran. (A named tuple: it is made on every call.)"""

    tool: AnyTool
    call: ToolCall
    args: object
    asked: RawArguments = None


class Executor:
    """Runs tool calls for agents; never raises for a tool's failure."""

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        agents: AgentToolTable | None = None,
        sinks: Iterable[Sink] = (),
        gates: Gates | None = None,
        resilience: Resilience | None = None,
        default_timeout_s: float | None = DEFAULT_TIMEOUT_S,
        sink_timeout_s: float = 5.0,
        max_output_chars: int | None = DEFAULT_MAX_OUTPUT_CHARS,
        output_caps: Mapping[str, int] | None = None,
        spill_dir: str | Path | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`gates`: rules, approvals, budgets. `resilience`: retries for tools safe to
        repeat, circuit breakers and health (on by default; `Resilience.off()` switches
        them off). `default_timeout_s` applies to tools that set no `timeout_s` (None: no
        deadline). Outputs longer than `max_output_chars` (or a tool's `output_caps` entry)
        are cut; with `spill_dir` the whole output is kept there, redacted. `sleep` waits
        between retries (a fake one makes tests instant)."""
        self.registry = registry
        self.agents = agents
        self.gates = gates
        self.resilience = resilience if resilience is not None else Resilience()
        self.resilience.listen(self._circuit_changed)  # shared or not: our sinks hear it
        self.resilience.health.listen(self._health_changed)
        self._own_run = type(self.resilience).run is not Resilience.run
        # while a call's verdict is recorded, what it changes waits for its finished event
        self._holding = False
        self._held: list[_Change] = []
        self.max_output_chars = max_output_chars
        self.output_caps = dict(output_caps or {})
        self.spill_dir = None if spill_dir is None else Path(spill_dir)
        self.sleep = sleep
        self.sinks = Fanout(sinks, timeout_s=sink_timeout_s)
        if self.sinks.sinks:
            _tell_of_registrations(registry, self)
        self.invoker = Invoker(default_timeout_s)
        self._visible: dict[
            tuple[str, frozenset[str] | None], tuple[tuple[object, ...], tuple[AnyTool, ...]]
        ] = {}

    @property
    def health(self) -> HealthTracker:
        """Recent outcomes of the tools this executor ran: `executor.health.health(name)`."""
        return self.resilience.health

    def circuit_state(self, tool_name: str) -> State | None:
        """The state of the tool's own circuit ("closed", "open", "half_open"), or None
        for an unknown tool or with breakers off."""
        tool = self.registry.find(tool_name)
        breakers = self.resilience.breakers_for(tool) if tool is not None else ()
        return breakers[0].state if breakers else None

    def visible(self, agent: str, permissions: frozenset[str] | None = None) -> tuple[AnyTool, ...]:
        """The tools `agent` may see — the ones its table, `permissions` (if given), the
        rules and the circuits would let it call. Remembered until the registry, the agent
        table or the rules change; circuits are asked each time, only while one is open."""
        rules = self.gates.rules_for(agent) if self.gates is not None else None
        stamp = (self.registry, self.registry.version, self.agents, rules)
        key = (agent, permissions)
        cached = self._visible.get(key)
        if cached is None or not _same(cached[0], stamp):
            if len(self._visible) >= 256:
                self._visible.clear()
            cached = (stamp, self._visible_now(agent, permissions))
            self._visible[key] = cached
        tools = cached[1]
        if not self.resilience.any_open:
            return tools
        hidden = self.resilience.hidden
        return tuple(t for t in tools if not hidden(t))

    def shows(self, agent: str, tool_name: str, permissions: frozenset[str]) -> bool:
        """Whether `agent` with `permissions` may see `tool_name` at all: registered, in its
        table, granted the permissions the tool declares, not denied by name. (An open
        circuit hides a tool only for a while, and is not asked.) A boundary facing an
        outside client answers a refusal of a tool it may not see as it answers a name
        no tool has, so the client cannot tell which hidden names exist."""
        tool = self.registry.find(tool_name)
        if tool is None:
            return False
        in_table = self.agents is None or self.agents.allows(agent, tool_name)
        return in_table and self._shown(tool, agent, permissions)

    def masked(self, outcome: ToolOutcome, agent: str, permissions: frozenset[str]) -> ToolOutcome:
        """`outcome` as a reader who may not learn which hidden tools exist reads it (an
        agent's model, a client): the refusal of a tool `agent` may not see (`shows`) is the
        answer to a name no tool has. The outcome returned by `run`, the events and the log
        keep the true reason."""
        name = outcome.call.name
        if (
            type(outcome.result) is not Failure
            or name not in self.registry
            or self.shows(agent, name, permissions)
        ):
            return outcome
        return replace(outcome, result=Failure(self.unknown(name, agent, permissions)))

    def unknown(
        self, name: str, agent: str, permissions: frozenset[str] | None = None
    ) -> UnknownTool:
        """The answer to `name` as to a name no tool has, suggesting only what `agent` (with
        `permissions`) may see: never a tool it would be refused."""
        return unknown_tool(name, (t.name for t in self.visible(agent, permissions)))

    def _visible_now(self, agent: str, permissions: frozenset[str] | None) -> tuple[AnyTool, ...]:
        tools = (
            tuple(self.registry)
            if self.agents is None
            else self.agents.visible(agent, self.registry)
        )
        return tuple(t for t in tools if self._shown(t, agent, permissions))

    def _shown(self, tool: AnyTool, agent: str, permissions: frozenset[str] | None) -> bool:
        """Past the permissions and the deny-by-name rules (the agent table asked apart)."""
        granted = permissions is None or tool.permissions <= permissions
        return granted and not (self.gates is not None and self.gates.hides(tool, agent))

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
        for breaker in self.resilience.breakers_for(tool):
            lines.append(f"circuit {breaker.name}: {breaker.state}")
        tracker = self.resilience.health
        health = tracker.health(tool.name)
        if health is not None:
            calls = f"{health.calls} call{'s' if health.calls != 1 else ''}"
            status = (
                health.status if health.judged else f"not judged before {tracker.min_calls} calls"
            )
            lines.append(
                f"health: {status}, {health.success_rate:.0%} ok over {calls}, "
                f"p95 {health.p95_ms:.0f} ms"
            )
        return lines

    async def resume(
        self, request_id: str, decision: Approve | Deny
    ) -> Result[ToolOutcome, LookupError]:
        """Settle a call that waits for approval: approve runs that very call (once, with a
        person's edits checked like the model's arguments), deny answers the model; a
        request can be settled only once."""
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
                asked: RawArguments = None
                if edited is not None:
                    asked = call.arguments
                    call = ToolCall(id=call.id, name=call.name, arguments=dict(edited))
                return Success(await self._run(call, ctx, approved=True, asked=asked))
            case _:
                assert_never(decision)

    def refuse(self, call: ToolCall, ctx: ExecutionContext[Any], error: ToolError) -> ToolOutcome:
        """End a call without running it, recorded like any other: for calls refused before
        they reach `run` (the orchestrator's per-turn limit, a cut-off streamed call)."""
        started_at, start = datetime.now(UTC), time.perf_counter()
        ctx = ctx.for_call(call.id)
        return self._finish(
            call, ctx, self.registry.find(call.name), Failure(error), started_at, start
        )

    def emit(self, event: ToolEvent) -> None:
        """Send an event to the sinks (the orchestrator announces streaming calls this way)."""
        self.sinks.emit(event)

    def cancel(self, call_id: str) -> bool:
        """Cancel a running call; it ends in `Failure(Cancelled)`. False if it is not running."""
        return self.invoker.cancel(call_id)

    async def run(self, call: ToolCall, ctx: ExecutionContext[Any]) -> ToolOutcome:
        """Run one call through lookup, validation, the gates and the tool; always returns
        an outcome."""
        return await self._run(call, ctx)

    async def run_many(
        self, calls: Sequence[ToolCall], ctx: ExecutionContext[Any], *, max_concurrency: int = 8
    ) -> list[ToolOutcome]:
        """Run a batch concurrently (at most `max_concurrency` at once); outcomes in call order."""
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        batch_ctx = replace(ctx, batch_id=ctx.batch_id or uuid.uuid4().hex[:12])
        if len(calls) <= max_concurrency:
            return list(await asyncio.gather(*(self._run(call, batch_ctx) for call in calls)))
        limit = asyncio.Semaphore(max_concurrency)

        async def one(call: ToolCall) -> ToolOutcome:
            async with limit:
                return await self._run(call, batch_ctx)

        return list(await asyncio.gather(*(one(call) for call in calls)))

    async def aclose(self, timeout_s: float = 5.0) -> None:
        """Let async sinks finish what they were handed, and tool bodies still cleaning up
        after their deadline end (each wait bounded by `timeout_s`)."""
        await self.invoker.settle(timeout_s)
        await self.sinks.drain()

    # --- the steps --------------------------------------------------------------------

    async def _run(
        self,
        call: ToolCall,
        ctx: ExecutionContext[Any],
        *,
        approved: bool = False,
        asked: RawArguments = None,
    ) -> ToolOutcome:
        started_at = datetime.now(UTC)
        running_at: datetime | None = started_at
        start = time.perf_counter()
        tool: AnyTool | None = None
        attempts = 1
        attached: Mapping[str, object] | None = None
        progress: _Progress | None = None
        recorded = call  # the call as its records hold it (`_recorded`), worked out once
        changed: Sequence[_Change] = ()  # circuits and health the call changed, told after it
        if self.sinks.sinks or ctx.on_progress is not None:
            progress = _Progress(self.sinks, call, self._progress_after(ctx))
            ctx = ctx.for_call(call.id, progress)
            progress.context = weakref.ref(ctx)  # weak: the context holds the reporter
        else:
            ctx = ctx.for_call(call.id)
        try:
            tool = self._lookup(call, ctx)
            if tool is None:
                result = self._refusal(call, ctx)
            else:
                recorded = _recorded(tool, call)
                if progress is not None and recorded is not call:
                    progress.hides(recorded.arguments)
                admission = self._check(tool, call, ctx)
                if self.gates is not None and isinstance(admission, Admitted):
                    passed = self.gates.admit_now(
                        tool,
                        call,
                        admission.args,
                        ctx,
                        circuit=self.resilience.refusal,
                        approved=approved,
                    )
                    if isinstance(passed, Asking):  # the only gate that may wait
                        passed = await self.gates.ask(passed, ctx)
                        running_at = None  # a person took their time: now is later
                    admission = _gated(admission, passed)
                if isinstance(admission, Admitted):
                    if asked is not None and admission.asked is not asked:
                        admission = admission._replace(asked=asked)  # a person's edit
                    tool, call, args, asked = admission
                    if asked is not None:  # a person's edit: the call that runs is new
                        recorded, asked = _recorded(tool, call), _masked(tool, asked)
                        if progress is not None:
                            progress.hides(recorded.arguments, asked)
                    if self.sinks.sinks:
                        self.sinks.emit(_started(tool, recorded, args, asked, ctx, running_at))
                    # breaker ▸ retry ▸ health around the deadline: `Resilience.run`, inline
                    # (this is every call's path) unless a subclass has its own
                    resilience = self.resilience
                    hides = recorded.arguments or asked  # what the tool's words must not say
                    if self._own_run:
                        attempt = partial(self.invoker.invoke, tool, args, call, ctx)
                        result, attempts = await resilience.run(
                            tool,
                            partial(_quiet_attempt, attempt, recorded.arguments, asked)
                            if hides
                            else attempt,
                            sleep=self.sleep,
                        )
                        attempts = max(attempts, 1)
                    elif isinstance(held := resilience.take(tool), CircuitOpen):
                        result = Failure(held)
                    else:
                        ended: Result[object, ToolError] | None = None
                        begun = time.perf_counter()
                        try:
                            began = self.invoker.begin(tool, args, call, ctx)
                            first = began if answered(began) else await began
                            if type(first) is Failure and resilience.retries(tool):
                                ended, attempts = await with_retries(
                                    # not a lambda: a closure would make cells of
                                    # these names for every call, not only this one
                                    partial(self.invoker.invoke, tool, args, call, ctx),
                                    resilience.retry,
                                    sleep=self.sleep,
                                    first=first,
                                )
                            else:
                                ended = first
                            if type(ended) is Failure and hides:  # before health records it
                                ended = _quiet(ended, recorded.arguments, asked)
                        finally:  # cancelled: no verdict, probes given back
                            self._holding = True
                            try:
                                resilience.settle(
                                    tool, held, ended, (time.perf_counter() - begun) * 1000
                                )
                            finally:
                                self._holding = False
                            if self._held:
                                changed, self._held = self._held, []
                        result = ended
                    if type(result) is Success:
                        cap = self._cap(tool)
                        if cap is not None and not fits(output := result.unwrap(), cap):
                            self._tell_changes(changed)  # now: others may settle meanwhile
                            changed = ()
                            result = await self._cut(call, output, cap)
                    attached = ctx.attached
                else:
                    result = Failure(admission)
        except asyncio.CancelledError:
            # the caller cancelled the task awaiting us: record it, then let it propagate
            self._finish(call, ctx, tool, Failure(cancelled("the caller")), started_at, start)
            self._tell_changes(changed)
            raise
        except Exception as error:
            log.exception("toolrail bug while running a call", tool=call.name, call_id=call.id)
            described = ExecutionFailed.from_exception(error)
            result = _quiet(
                Failure(
                    InternalError(
                        message=f"toolrail failed while running {call.name!r}: {described.message}",
                        details=described.traceback,
                    )
                ),
                recorded.arguments,
                asked,
            )
        outcome = self._finish(
            call, ctx, tool, result, started_at, start, attempts, asked, attached
        )
        if changed:
            self._tell_changes(changed)
        return outcome

    def _lookup(self, call: ToolCall, ctx: ExecutionContext[Any]) -> AnyTool | None:
        """The tool to run, or None if it is unknown or not this agent's to call."""
        tool = self.registry.find(call.name)
        if tool is None or self.agents is None or self.agents.allows(ctx.agent, call.name):
            return tool
        return None

    def _declaring(self, call: ToolCall) -> AnyTool | None:
        """The tool whose declared secrets a call's record masks when the call did not get
        to it (the agent may not call it); None when the registry cannot say."""
        try:
            return self.registry.find(call.name)
        except Exception:  # a registry that fails here failed the call already
            return None

    def _refusal(self, call: ToolCall, ctx: ExecutionContext[Any]) -> Result[object, ToolError]:
        """Why `_lookup` found nothing: NotAllowed, why a claimed name's source cannot serve
        it (a broken MCP server), or UnknownTool suggesting only names the agent may see
        (with the context's permissions: never a tool it would be refused)."""
        if call.name in self.registry:
            assert self.agents is not None
            return self.agents.check(ctx.agent, call.name).map(lambda _: None)
        may_call = (self.agents is None or self.agents.allows(ctx.agent, call.name)) and not (
            self.gates is not None and self.gates.hides_name(call.name, ctx.agent)
        )  # else a broken server's error would tell that a hidden name exists
        missing = self.registry.unavailable(call.name) if may_call else None
        if missing is not None:  # e.g. the tool's MCP server did not start: say so
            return Failure(missing)
        return Failure(self.unknown(call.name, ctx.agent, ctx.permissions))

    def _check(
        self, tool: AnyTool, call: ToolCall, ctx: ExecutionContext[Any]
    ) -> Admitted | ToolError:
        """Permissions, a rule denying the tool by name, and validation (and, without gates,
        the circuits): the call with its validated arguments, or why not. What hides the
        tool comes before validation, whose errors would describe its input schema."""
        if tool.permissions and not tool.permissions <= ctx.permissions:
            missing = tool.permissions - ctx.permissions
            return PermissionDenied(
                message=f"{ctx.agent} lacks the permission {', '.join(sorted(missing))} "
                f"that {tool.name} needs",
                tool=tool.name,
                missing=frozenset(missing),
            )
        if self.gates is not None:
            hidden = self.gates.denied_by_name(tool, ctx.agent)
            if hidden is not None:
                return hidden
        args = tool.parameters.check(call.arguments, tool=tool.name)
        if isinstance(args, InvalidArguments):
            return args
        if self.gates is None:  # with gates, they ask the circuits in their turn
            refused = self.resilience.refusal(tool)
            if refused is not None:
                return refused
        return _admitted(Admitted, (tool, call, args, None))

    def _progress_after(self, ctx: ExecutionContext[Any]) -> ProgressCallback | None:
        """Who else hears a call's progress: the caller's `on_progress`. A call run from
        inside another call by an executor with sinks reports as itself, not also as the
        call around it (whose reporter its context carries); without sinks it reports
        through that reporter, as the call around it."""
        after = ctx.on_progress
        if isinstance(after, _Progress) and self.sinks.sinks:
            return after.then
        return after

    def _cap(self, tool: AnyTool) -> int | None:
        """How many characters of output `tool` may return."""
        if self.output_caps:
            return self.output_caps.get(tool.name, self.max_output_chars)
        return self.max_output_chars

    async def _cut(self, call: ToolCall, output: object, cap: int) -> Result[object, ToolError]:
        """An output over its cap, cut (and spilled whole to a file, with `spill_dir`)."""
        spill = None
        if self.spill_dir is not None:  # the call id comes from a model: a plain file name
            spill = self.spill_dir / (re.sub(r"[^A-Za-z0-9_-]", "_", call.id)[:80] or "call")
        return Success(await run_sync(cap_output, output, cap, spill))

    def _circuit_changed(self, breaker: str, state: State) -> None:
        tells = self._tells(self.resilience.listeners())
        self._tell_changes(((CircuitStateChanged(breaker=breaker, state=state), tells),))

    def _health_changed(self, health: Health) -> None:
        tells = self._tells(self.resilience.health.listeners())
        self._tell_changes(((ToolHealthChanged(tool=health.tool, health=health), tells),))

    def _tell_changes(self, changes: Sequence[_Change]) -> None:
        """Emit changes of circuits and health; those a call's verdict makes wait for its
        finished event (a log reads the failure, then what it changed). A `Resilience`
        subclass with its own `run` records verdicts where the executor cannot hold them."""
        if self._holding:
            self._held += changes
            return
        for change, sinks in changes:
            self.sinks.emit(change, sinks)

    def _tells(self, listeners: Iterable[Callable[..., None]]) -> tuple[Sink, ...]:
        """Which of our sinks we tell of a change of the circuits or health we share with
        the other executors among `listeners`: those no other one tells. A sink given to
        several hears each change once, from the executor whose call made it (after that
        call's finished event), or else from the first of them listening."""
        sinks = self.sinks.sinks
        sharing = [
            executor
            for listener in listeners
            if isinstance(executor := getattr(listener, "__self__", None), Executor)
        ]
        if len(sharing) < 2:
            return sinks
        # the executor running the call that made the change holds it until the call ends
        tellers = sorted(sharing, key=lambda executor: not executor._holding)  # stable
        return tuple(
            sink for sink in sinks if next(one for one in tellers if _holds(one, sink)) is self
        )

    def _finish(
        self,
        call: ToolCall,
        ctx: ExecutionContext[Any],
        tool: AnyTool | None,
        result: Result[object, ToolError],
        started_at: datetime,
        start: float,
        attempts: int = 1,
        asked: RawArguments = None,
        attached: Mapping[str, object] | None = None,
    ) -> ToolOutcome:
        source = tool.source if tool is not None else NO_TOOL
        declaring = tool or self._declaring(call)
        if declaring is not None and declaring.parameters.secret_names:
            call, asked = _recorded(declaring, call), _masked(declaring, asked)
        metadata: dict[str, object] = (
            {**attached, "source": source} if attached else {"source": source}
        )
        if asked is not None:
            metadata["asked_arguments"] = asked
        outcome = make_outcome(
            call=call,
            result=result,
            started_at=started_at,
            duration_ms=(time.perf_counter() - start) * 1000,
            attempts=attempts,
            metadata=metadata,
        )
        if self.sinks.sinks:
            if type(result) is Failure:
                self.sinks.emit(
                    make_failed(
                        call_id=call.id,
                        tool=call.name,
                        context=ctx,
                        at=datetime.now(UTC),
                        outcome=outcome,
                        error=result.failure(),
                        source=source,
                    )
                )
            else:
                self.sinks.emit(
                    make_completed(
                        call_id=call.id,
                        tool=call.name,
                        context=ctx,
                        at=datetime.now(UTC),  # the events' own default, without its call
                        outcome=outcome,
                        source=source,
                    )
                )
        return outcome


_Change = tuple[ToolEvent, tuple[Sink, ...]]
"""A change of circuits or health, and which of an executor's sinks it tells (`_tells`)."""


def _holds(executor: Executor, sink: Sink) -> bool:
    """Whether `executor` has `sink`: the same object, or the same method of the same
    object (each `log.append` read is a method object of its own). Compared by identity
    and name: a sink's own `__eq__` may raise."""
    kind = type(sink)
    if kind not in _METHODS:
        return any(one is sink for one in executor.sinks.sinks)
    bound, name = getattr(sink, "__self__", None), getattr(sink, "__name__", None)
    return any(
        one is sink
        or (type(one) is kind and getattr(one, "__self__", None) is bound and one.__name__ == name)
        for one in executor.sinks.sinks
    )


_METHODS = (types.MethodType, types.BuiltinMethodType)


def _quiet(
    failed: Failure[ToolError], arguments: RawArguments, asked: RawArguments
) -> Result[object, ToolError]:
    """A failure without the text its call's arguments hide (`toolrail.core.hidden`): a
    tool's exception, a server's answer may quote them, and the error goes to the model,
    every sink and every log. Failures only: an output is the tool's answer, whole. The
    refusals before a tool runs are toolrail's own words (a validator's are made so by
    `Quoting`): not these. `arguments` as recorded: a declared secret's `Masked` value is
    found too."""
    hidden = hidden_texts(arguments, asked)
    if not hidden:
        return failed
    error: ToolError = failed.failure()
    quiet = error.without(hidden)
    return failed if quiet is error else Failure(quiet)


async def _quiet_attempt(
    attempt: Callable[[], Awaitable[Result[object, ToolError]]],
    arguments: RawArguments,
    asked: RawArguments,
) -> Result[object, ToolError]:
    """One attempt of a call whose arguments hide text, its failure `_quiet` before a
    `Resilience` of its own records it as the tool's health."""
    result = await attempt()
    return _quiet(result, arguments, asked) if type(result) is Failure else result


_admitted = tuple.__new__
"""`Admitted(...)` minus its generated `__new__` (made on every call)."""


def _gated(checked: Admitted, passed: Result[object | None, ToolError]) -> Admitted | ToolError:
    """The call as it will run after the gates (a person may have edited it), or why not."""
    if type(passed) is Failure:
        refusal: ToolError = passed.failure()
        return refusal
    ran = passed.unwrap()
    if ran is None:
        return checked
    call = checked.call
    edited = ToolCall(id=call.id, name=call.name, arguments=plain_arguments(ran))
    return Admitted(checked.tool, edited, ran, asked=call.arguments)


def _started(
    tool: AnyTool,
    call: ToolCall,
    args: object,
    asked: RawArguments,
    ctx: ExecutionContext[Any],
    at: datetime | None,
) -> ToolStarted:
    """The started event of `call` as recorded (`_recorded`), run with `args`; `at`, the
    call's start when nothing waited since (the gates take microseconds: the call's own
    timestamp spares reading the clock again)."""
    return make_started(
        at=at if at is not None else datetime.now(UTC),
        call_id=call.id,
        tool=tool.name,
        context=ctx,
        arguments=call.arguments,
        asked_arguments=asked,
        description=_describe(tool, args, call.arguments),
        source=tool.source,
        read_only=tool.annotations.read_only,
    )


def _recorded(tool: AnyTool, call: ToolCall) -> ToolCall:
    """The call as its records hold it: the values of the tool's declared secrets masked
    (`toolrail.core.declared`). The tool runs with the call as it came."""
    names = tool.parameters.secret_names
    if not names:
        return call
    return ToolCall(id=call.id, name=call.name, arguments=masked(call.arguments, names))


def _masked(tool: AnyTool, arguments: RawArguments) -> RawArguments:
    """`arguments` with the tool's declared secrets masked (`_recorded`)."""
    shown: RawArguments = masked(arguments, tool.parameters.secret_names)
    return shown


def _tell_of_registrations(registry: ToolRegistry, executor: Executor) -> None:
    """Emit `ToolRegistered` for the local tools the registry holds now, and
    `ToolRegistered` / `ToolUnregistered` for those added or removed later (an MCP hub
    tells of its own tools); the registry holds the executor only weakly."""
    for tool in registry:
        if tool.source == "local":
            executor.sinks.emit(ToolRegistered(tool=tool.name))
    held = weakref.ref(executor)

    def changed(change: str, tool: AnyTool) -> None:
        alive = held()
        if alive is None:
            unsubscribe()
        elif tool.source == "local":
            event_type = ToolRegistered if change == "register" else ToolUnregistered
            alive.sinks.emit(event_type(tool=tool.name))

    unsubscribe = registry.subscribe(changed)


def _same(one: tuple[object, ...], other: tuple[object, ...]) -> bool:
    """Equal item by item, by identity (a registry's version is a small int: also equal)."""
    return all(a is b or a == b for a, b in zip(one, other, strict=True))


def _describe(tool: AnyTool, args: object, arguments: RawArguments) -> str | None:
    """The tool's one-liner for the call, without what its arguments hide (it is the
    tool's own words about them)."""
    if tool.describe is None:
        return None
    try:
        return hidden_texts(arguments).without(tool.describe(args))
    except KeyboardInterrupt:
        raise
    except BaseException:  # the tool's own code: its failure of any kind is not ours to raise
        log.warning("describe() failed; falling back to the default text", tool=tool.name)
        return None


class _Progress:
    """A running call's `ctx.report_progress`: a `ToolProgress` event to the sinks, then the
    caller's own `on_progress` — both on the event loop's thread, whichever thread reports
    (a sync tool reports from a worker thread). The caller's callback failing is reported
    through the diagnostics; it never fails the tool's call."""

    __slots__ = ("_hidden", "arguments", "call", "context", "loop", "loop_thread", "sinks", "then")

    def __init__(self, sinks: Fanout, call: ToolCall, then: ProgressCallback | None) -> None:
        self.sinks, self.call, self.then = sinks, call, then
        self.arguments: tuple[RawArguments, ...] | None = None  # its messages hide: the call's
        self._hidden: Hidden | None = None
        self.context: weakref.ref[ExecutionContext[Any]] | None = None  # set once made
        self.loop = asyncio.get_running_loop()
        self.loop_thread = threading.get_ident()  # a report on it is told at once, also
        # one made while the loop is not running (a tool kept its context)

    def hides(self, *arguments: RawArguments) -> None:
        """Its messages hide what these hide: the call's arguments as recorded (a declared
        secret's value `Masked`), and the model's own once a person edited them."""
        self.arguments, self._hidden = arguments, None

    @property
    def hidden(self) -> Hidden:
        """What the call's arguments hide, worked out once, at its first message."""
        if self._hidden is None:
            arguments = self.arguments or (self.call.arguments,)
            self._hidden = hidden_texts(*arguments)
        return self._hidden

    def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        if threading.get_ident() == self.loop_thread:
            self._tell(progress, total, message)
        else:  # a sync tool in a worker thread
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody to tell
                self.loop.call_soon_threadsafe(self._tell, progress, total, message)

    def _tell(self, progress: float, total: float | None, message: str | None) -> None:
        if message is not None and type(message) is not str:  # a tool may pass any object
            message = message_text(message)
        if message:  # the tool's words: without what its arguments hide
            message = self.hidden.without(message)
        ctx = self.context() if self.context is not None else None
        if ctx is not None and self.sinks.sinks:
            self.sinks.emit(
                make_progress(
                    call_id=self.call.id,
                    tool=self.call.name,
                    context=ctx,
                    progress=progress,
                    total=total,
                    message=message,
                )
            )
        if self.then is not None:
            try:
                self.then(progress, total, message)
            except (KeyboardInterrupt, asyncio.CancelledError):
                raise
            except BaseException:  # the caller's callback: its failure is not the tool's
                log.exception("on_progress failed", tool=self.call.name, call_id=self.call.id)
