"""The gates a call passes after its arguments validate, in this order:

    1. deny rules            → PermissionDenied (names the rule)
    2. circuit breakers      → CircuitOpen (the tool's, and its MCP server's)
    3. ask rules / approval  → ApprovalRequired, or the inline approver's decision
    4. budget                → BudgetExceeded (which limit, when it resets)

(Before them the executor checks the agent table — NotAllowed — and the tool's declared
permissions — PermissionDenied naming what is missing.) Discovery uses the same gates:
a tool denied by name, missing permissions, or behind an open circuit is not shown.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, assert_never

import pydantic
from returns.result import Failure, Result, Success

from toolrail.core.call import ToolCall
from toolrail.core.context import ExecutionContext
from toolrail.core.errors import ApprovalRequired, PermissionDenied, ToolError
from toolrail.policy.approvals import ApprovalRequest, Approve, Approver, Deny
from toolrail.policy.budgets import Budget
from toolrail.policy.rules import Rule, Rules
from toolrail.registry import AnyTool
from toolrail.resilience import BreakerSettings, CircuitBreaker, HealthTracker, RetrySettings


@dataclass(frozen=True, slots=True)
class Pending:
    request: ApprovalRequest
    call: ToolCall
    context: ExecutionContext


@dataclass
class Gates:
    """Policy for an executor; the objects that own mutable state (breakers, budgets,
    pending approvals, health) live here, behind small methods."""

    rules: Rules = field(default_factory=Rules)
    agent_rules: Mapping[str, Rules] = field(default_factory=dict)
    needs_approval: tuple[str, ...] = ()
    """Tool-name globs that always ask, whatever the rules say (deny still wins)."""
    approver: Approver | None = None
    budget: Budget | None = None
    breakers: BreakerSettings | None = field(default_factory=BreakerSettings)
    retry: RetrySettings = field(default_factory=RetrySettings)
    clock: Callable[[], float] = time.monotonic
    health: HealthTracker = field(default_factory=HealthTracker)
    _pending: dict[str, Pending] = field(default_factory=dict)
    _always: dict[str, list[Rule]] = field(default_factory=dict)
    _approved: set[str] = field(default_factory=set)
    _breakers: dict[str, CircuitBreaker] = field(default_factory=dict)

    @classmethod
    def from_config(cls, policy: Mapping[str, Any], agents: Mapping[str, Any]) -> Gates:
        """`[policy] allow/ask/deny` and `[agents.<name>] allow/ask/deny` of a toolrail.toml."""

        def rules(section: Mapping[str, Any]) -> Rules:
            return Rules.of(
                allow=section.get("allow", ()),
                ask=section.get("ask", ()),
                deny=section.get("deny", ()),
            )

        return cls(
            rules=rules(policy),
            agent_rules={name: rules(spec) for name, spec in agents.items()},
            needs_approval=tuple(policy.get("needs_approval", ())),
        )

    def rules_for(self, agent: str) -> Rules:
        """The global rules and `agent`'s own, together."""
        return self.rules + self.agent_rules.get(agent, Rules())

    def hides(self, tool: AnyTool, agent: str) -> bool:
        """Denied by name for this agent, or behind an open circuit."""
        rules = self.rules_for(agent)
        if rules.decide(tool.name, None).verdict == "deny":
            return True
        return any(breaker.hidden for breaker in self.breakers_for(tool))

    def breakers_for(self, tool: AnyTool) -> tuple[CircuitBreaker, ...]:
        """The tool's own breaker, and its MCP server's if it comes from one."""
        if self.breakers is None:
            return ()
        keys = [tool.name, *(tag for tag in sorted(tool.tags) if tag.startswith("mcp:"))]
        return tuple(self._breaker(key) for key in keys)

    def _breaker(self, key: str) -> CircuitBreaker:
        if key not in self._breakers:
            assert self.breakers is not None
            self._breakers[key] = CircuitBreaker(key, self.breakers, self.clock)
        return self._breakers[key]

    async def admit(
        self, tool: AnyTool, call: ToolCall, arguments: object, ctx: ExecutionContext
    ) -> Result[object, ToolError]:
        """Pass the gates in order; `Success` carries the arguments to run with (an
        approver may have edited them)."""
        plain = _plain(arguments)
        decision = self.rules_for(ctx.agent).decide(tool.name, plain)
        if decision.verdict == "deny":
            return Failure(
                PermissionDenied(
                    message=f"{tool.name} is denied by the rule {decision.rule!r}", tool=tool.name
                )
            )
        for breaker in self.breakers_for(tool):
            allowed = breaker.allow()
            if isinstance(allowed, Failure):
                return allowed
        wants_approval = decision.verdict == "ask" or any(
            fnmatch.fnmatchcase(tool.name, pattern) for pattern in self.needs_approval
        )
        approved = call.id in self._approved
        if wants_approval and not approved and not self._always_allowed(ctx, tool, plain):
            asked = await self._ask(tool, call, arguments, ctx, decision.rule)
            if isinstance(asked, Failure):
                return asked
            arguments = asked.unwrap()
        if self.budget is not None:
            spent = self.budget.consume(ctx, tool.name)
            if isinstance(spent, Failure):
                return spent
        return Success(arguments)

    async def _ask(
        self,
        tool: AnyTool,
        call: ToolCall,
        arguments: object,
        ctx: ExecutionContext,
        rule: str | None,
    ) -> Result[object, ToolError]:
        plain = _plain(arguments)
        reason = f"the rule {rule!r} asks for approval" if rule else f"{tool.name} needs approval"
        request = ApprovalRequest(
            tool=tool.name,
            arguments=plain,
            reason=reason,
            agent=ctx.agent,
            conversation_id=ctx.conversation_id,
            call_id=call.id,
        )
        if self.approver is None:
            self._pending[request.id] = Pending(request, call, ctx)
            return Failure(
                ApprovalRequired(
                    message=f"{tool.name} waits for a person's approval ({reason}); "
                    f"request {request.id}",
                    tool=tool.name,
                    request_id=request.id,
                )
            )
        decision = await self.approver(request)
        match decision:
            case Deny(message=message):
                return Failure(denied(tool.name, message))
            case Approve(arguments=edited, always=always):
                self.remember(ctx, always)
                return Success(arguments) if edited is None else _revalidate(tool, edited)
            case _:
                assert_never(decision)

    @contextmanager
    def approved(self, call_id: str) -> Iterator[None]:
        """While this lasts, the call with this id passes the approval gate."""
        self._approved.add(call_id)
        try:
            yield
        finally:
            self._approved.discard(call_id)

    def take_pending(self, request_id: str) -> Pending | None:
        """Remove and return a pending request: each can be resolved exactly once."""
        return self._pending.pop(request_id, None)

    @property
    def pending(self) -> tuple[ApprovalRequest, ...]:
        return tuple(p.request for p in self._pending.values())

    def remember(self, ctx: ExecutionContext, pattern: str | None) -> None:
        """Allow `pattern` without asking for the rest of this conversation."""
        if pattern:
            self._always.setdefault(ctx.conversation_id, []).append(Rule.parse(pattern))

    def _always_allowed(
        self, ctx: ExecutionContext, tool: AnyTool, plain: Mapping[str, Any]
    ) -> bool:
        return any(
            rule.matches(tool.name, plain) for rule in self._always.get(ctx.conversation_id, ())
        )

    def explain(self, tool: AnyTool, ctx: ExecutionContext) -> list[str]:
        """What each gate says about this tool for this agent, before any arguments."""
        rules = self.rules_for(ctx.agent)
        verdict = rules.decide(tool.name, None)
        lines = [
            f"rules: {verdict.verdict} by {verdict.rule!r}"
            if verdict.verdict
            else "rules: no rule names this tool alone (argument rules may still apply)"
        ]
        asks = [r.text for r in rules.ask if fnmatch.fnmatchcase(tool.name, r.tool)]
        if asks or any(fnmatch.fnmatchcase(tool.name, p) for p in self.needs_approval):
            lines.append(f"approval: asked for ({', '.join(asks) or 'needs_approval'})")
        for breaker in self.breakers_for(tool):
            lines.append(f"circuit {breaker.name}: {breaker.state}")
        health = self.health.health(tool.name)
        if health is not None:
            lines.append(
                f"health: {health.success_rate:.0%} ok over {health.calls} calls, "
                f"p95 {health.p95_ms:.0f} ms"
            )
        return lines


def denied(tool: str, message: str) -> PermissionDenied:
    return PermissionDenied(
        message=f"a person declined {tool}: {message}", tool=tool, model_can_fix=True
    )


def _plain(arguments: object) -> dict[str, Any]:
    if isinstance(arguments, pydantic.BaseModel):
        return arguments.model_dump(mode="json", by_alias=True)
    if isinstance(arguments, Mapping):
        return dict(arguments)
    return {}


def _revalidate(tool: AnyTool, edited: Mapping[str, Any]) -> Result[object, ToolError]:
    """Edited arguments are checked like the model's were."""
    validated: Result[object, ToolError] = tool.parameters.validate(dict(edited), tool=tool.name)
    return validated
