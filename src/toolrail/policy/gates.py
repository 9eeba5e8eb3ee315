"""The gates a call passes after its arguments validate, in this order:

    1. deny rules            → PermissionDenied (names the rule)
    2. circuit breakers      → CircuitOpen (asked, not taken: the executor's `Resilience`
                               takes a half-open probe only right around the invocation)
    3. ask rules / approval  → ApprovalRequired, or the inline approver's decision; arguments
                               a person edits are validated and checked by the deny rules again
    4. budget                → BudgetExceeded (which limit, when it resets)

(Before them the executor checks the agent table — NotAllowed — and the tool's declared
permissions — PermissionDenied naming what is missing.) Discovery uses the same gates:
a tool denied by name, missing permissions, or behind an open circuit is not shown.

An approval is bound to the one pending call it was asked for (its conversation, tool and
arguments) and is used once: `Executor.resume` runs exactly that call. Nothing keyed by a
call id — which a model chooses — lets a call past the approval gate.
"""

from __future__ import annotations

import asyncio
import fnmatch
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, assert_never

import pydantic
from returns.result import Failure, Result, Success

from toolrail._diagnostics import callable_name, get_logger
from toolrail.core.call import ToolCall
from toolrail.core.context import ExecutionContext
from toolrail.core.declared import masked, model_data, unmasked
from toolrail.core.errors import ApprovalRequired, CircuitOpen, PermissionDenied, ToolError
from toolrail.policy.approvals import ApprovalRequest, Approve, Approver, Deny
from toolrail.policy.budgets import Budget
from toolrail.policy.rules import Decision, Rule, Rules
from toolrail.registry import AnyTool

log = get_logger("toolrail.gates")


class Asking(NamedTuple):
    """A call past the deny rules and the circuits that needs a person's approval."""

    tool: AnyTool
    call: ToolCall
    plain: Mapping[str, Any]
    decision: Decision
    rules: Rules


@dataclass(frozen=True, slots=True)
class Pending:
    request: ApprovalRequest
    call: ToolCall
    context: ExecutionContext


_AS_ASKED: Result[object | None, ToolError] = Success(None)
"""What `Gates.admit` answers for a call to run as the model asked (made once)."""

Circuit = Callable[[AnyTool], CircuitOpen | None]
"""Why an open circuit would refuse a tool now (the executor's `Resilience.refusal`)."""


@dataclass
class Gates:
    """Policy for an executor: rules, approvals, budgets. The objects that own mutable state
    (budgets, pending approvals) live here, behind small methods. Retries, breakers and
    health are not policy: they are the executor's (`Executor(resilience=...)`)."""

    rules: Rules = field(default_factory=Rules)
    agent_rules: Mapping[str, Rules] = field(default_factory=dict)
    needs_approval: tuple[str, ...] = ()
    """Tool-name globs that always ask, whatever the rules say (deny still wins)."""
    approver: Approver | None = None
    budget: Budget | None = None
    _pending: dict[str, Pending] = field(default_factory=dict)
    _awaiting: int = field(default=0, init=False, repr=False, compare=False)
    _always: dict[str, list[Rule]] = field(default_factory=dict)
    _joined: dict[str, tuple[Rules, Rules | None, Rules]] = field(
        default_factory=dict, repr=False, compare=False
    )
    _asks_always: dict[str, tuple[tuple[str, ...], bool]] = field(
        default_factory=dict, repr=False, compare=False
    )

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
        """The global rules and `agent`'s own, together (joined once per agent, and again
        only when either list is replaced)."""
        own = self.agent_rules.get(agent)
        cached = self._joined.get(agent)
        if cached is not None and cached[0] is self.rules and cached[1] is own:
            return cached[2]
        joined = self.rules if own is None else self.rules + own
        self._joined[agent] = (self.rules, own, joined)
        return joined

    def hides(self, tool: AnyTool, agent: str) -> bool:
        """Denied by name for this agent."""
        return self.hides_name(tool.name, agent)

    def hides_name(self, name: str, agent: str) -> bool:
        """Denied by name for this agent, also a name no tool has now (a claimed MCP name)."""
        return self.rules_for(agent).decide(name, None).verdict == "deny"

    def denied_by_name(self, tool: AnyTool, agent: str) -> PermissionDenied | None:
        """Why a rule that names the tool alone (no argument pattern) denies it to `agent`,
        or None. The executor asks this before validating arguments: a tool hidden this
        way is refused before its input schema can show through validation errors."""
        decision = self.rules_for(agent).decide(tool.name, None)
        return _denied_by(tool, decision) if decision.verdict == "deny" else None

    async def admit(
        self,
        tool: AnyTool,
        call: ToolCall,
        arguments: object,
        ctx: ExecutionContext[Any],
        *,
        circuit: Circuit | None = None,
        approved: bool = False,
    ) -> Result[object, ToolError]:
        """Pass the gates in order; `Success` carries the arguments to run with (an
        approver may have edited them). `approved`: a person approved this very call
        (`Executor.resume`), so the approval gate does not ask again."""
        passed = self.admit_now(tool, call, arguments, ctx, circuit=circuit, approved=approved)
        if isinstance(passed, Asking):
            passed = await self.ask(passed, ctx)
        return passed.map(lambda edited: arguments if edited is None else edited)

    def admit_now(
        self,
        tool: AnyTool,
        call: ToolCall,
        arguments: object,
        ctx: ExecutionContext[Any],
        *,
        circuit: Circuit | None = None,
        approved: bool = False,
    ) -> Result[object | None, ToolError] | Asking:
        """The gates without waiting (the executor's path): `Success(None)` to run as asked,
        `Success(edited)`, or why not — or `Asking` when the call needs a person's approval
        first (then `await ask(...)`, which answers the same way)."""
        plain = _Plain(arguments)
        rules = self.rules_for(ctx.agent)
        decision = rules.decide(tool.name, plain)
        if decision.verdict == "deny":
            return Failure(_denied_by(tool, decision))
        open_circuit = circuit(tool) if circuit is not None else None
        if open_circuit is not None:
            return Failure(open_circuit)
        if not approved and self._wants_approval(tool, decision, plain, ctx):
            return Asking(tool, call, plain, decision, rules)
        return self._spend(tool, ctx, _AS_ASKED)

    async def ask(
        self, asking: Asking, ctx: ExecutionContext[Any]
    ) -> Result[object | None, ToolError]:
        """The approval gate (an approver's answer, or a pending request), then the budget."""
        tool = asking.tool
        asked = await self._ask(tool, asking.call, asking.plain, asking.decision, ctx)
        if type(asked) is Failure:
            return asked
        edited = asked.unwrap()
        if edited is not None:  # edited by a person: the deny rules again
            again = asking.rules.decide(tool.name, plain_arguments(edited))
            if again.verdict == "deny":
                return Failure(_denied_by(tool, again))
        return self._spend(tool, ctx, asked)

    def _spend(
        self, tool: AnyTool, ctx: ExecutionContext[Any], passed: Result[object | None, ToolError]
    ) -> Result[object | None, ToolError]:
        """The budget, last: a call refused by an earlier gate costs nothing."""
        if self.budget is not None:
            spent = self.budget.consume(ctx, tool.name)
            if type(spent) is Failure:
                return spent
        return passed

    def _wants_approval(
        self,
        tool: AnyTool,
        decision: Decision,
        plain: Mapping[str, Any],
        ctx: ExecutionContext[Any],
    ) -> bool:
        wants = decision.verdict == "ask" or self._always_asks(tool.name)
        return wants and not self._always_allowed(ctx, tool, plain)

    def _always_asks(self, name: str) -> bool:
        """Named by `needs_approval` (remembered per tool name)."""
        if not self.needs_approval:
            return False
        cached = self._asks_always.get(name)
        if cached is not None and cached[0] is self.needs_approval:
            return cached[1]
        asks = any(fnmatch.fnmatchcase(name, pattern) for pattern in self.needs_approval)
        self._asks_always[name] = (self.needs_approval, asks)
        return asks

    async def _ask(
        self,
        tool: AnyTool,
        call: ToolCall,
        plain: Mapping[str, Any],
        decision: Decision,
        ctx: ExecutionContext[Any],
    ) -> Result[object | None, ToolError]:
        """A person's answer: `Success(None)` to run as asked, `Success(edited)` to run
        with the edits (validated), or why not."""
        rule = decision.rule if decision.verdict == "ask" else None
        reason = f"the rule {rule!r} asks for approval" if rule else f"{tool.name} needs approval"
        request = ApprovalRequest(
            tool=tool.name,
            arguments=masked(dict(plain), tool.parameters.secret_names),
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
        try:
            answer = await self._answer(self.approver, request)
        except (KeyboardInterrupt, asyncio.CancelledError):
            raise
        except BaseException as error:  # the approver's failure, not the tool's nor ours
            approver = callable_name(self.approver)
            log.warning(
                "approver failed",
                tool=tool.name,
                approver=approver,
                error_type=type(error).__name__,
            )
            return Failure(
                PermissionDenied(
                    message=f"{tool.name} did not run: the approver failed "
                    f"({type(error).__name__}) in {approver}; no approval, no call",
                    tool=tool.name,
                )
            )
        match answer:
            case Deny(message=message):
                return Failure(denied(tool.name, message))
            case Approve(arguments=edited, always=always):
                self.remember(ctx, always)
                return Success(None) if edited is None else _revalidate(tool, edited)
            case _:
                assert_never(answer)

    async def _answer(self, approver: Approver, request: ApprovalRequest) -> Approve | Deny:
        """The approver's decision, counted in `waiting` while it is awaited."""
        self._awaiting += 1
        try:
            return await approver(request)
        finally:
            self._awaiting -= 1

    def take_pending(self, request_id: str) -> Pending | None:
        """Remove and return a pending request: each can be resolved exactly once."""
        return self._pending.pop(request_id, None)

    @property
    def pending(self) -> tuple[ApprovalRequest, ...]:
        return tuple(p.request for p in self._pending.values())

    @property
    def waiting(self) -> int:
        """Calls waiting for a person: parked in `pending`, or awaiting the approver."""
        return len(self._pending) + self._awaiting

    def remember(self, ctx: ExecutionContext, pattern: str | None) -> None:
        """Allow `pattern` without asking for the rest of this conversation."""
        if pattern:
            self._always.setdefault(ctx.conversation_id, []).append(Rule.parse(pattern))

    def _always_allowed(
        self, ctx: ExecutionContext, tool: AnyTool, plain: Mapping[str, Any]
    ) -> bool:
        return any(
            rule.allows(tool.name, plain) for rule in self._always.get(ctx.conversation_id, ())
        )

    def explain(
        self, tool: AnyTool, ctx: ExecutionContext, circuit: Circuit | None = None
    ) -> list[str]:
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
        if self.budget is not None:
            lines.append("budget: counted per call")
        return lines


def _denied_by(tool: AnyTool, decision: Decision) -> PermissionDenied:
    return PermissionDenied(
        message=f"{tool.name} is denied by the rule {decision.rule!r}", tool=tool.name
    )


def denied(tool: str, message: str) -> PermissionDenied:
    return PermissionDenied(
        message=f"a person declined {tool}: {message}", tool=tool, model_can_fix=True
    )


def plain_arguments(arguments: object) -> dict[str, Any]:
    """Validated arguments as plain JSON data, the form rules and approvals read."""
    if isinstance(arguments, pydantic.BaseModel):
        return model_data(arguments)
    if isinstance(arguments, Mapping):
        return dict(arguments)
    return {}


class _Plain(Mapping[str, Any]):
    """Validated arguments as plain JSON data, made only when a rule first reads them
    (most calls meet no rule that looks at arguments)."""

    __slots__ = ("_arguments", "_data")

    def __init__(self, arguments: object) -> None:
        self._arguments = arguments
        self._data: dict[str, Any] | None = None

    def _plain(self) -> dict[str, Any]:
        if self._data is None:
            self._data = plain_arguments(self._arguments)
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._plain()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._plain())

    def __len__(self) -> int:
        return len(self._plain())


def _revalidate(tool: AnyTool, edited: Mapping[str, Any]) -> Result[object, ToolError]:
    """Edited arguments are checked like the model's were; a declared secret the person left
    as shown (`[REDACTED]`) is the model's value again."""
    validated: Result[object, ToolError] = tool.parameters.validate(
        unmasked(dict(edited)), tool=tool.name
    )
    return validated
