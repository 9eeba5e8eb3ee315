"""Gates through the executor: permissions, approvals, budgets, breakers, retries, caps."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from returns.result import Failure, Success

from toolrail import (
    ApprovalRequired,
    BudgetExceeded,
    CircuitOpen,
    ExecutionContext,
    ExecutionFailed,
    Executor,
    PermissionDenied,
    ToolAnnotations,
    ToolCall,
    ToolRegistry,
    tool,
)
from toolrail.policy import ApprovalRequest, Approve, Budget, Deny, Gates, Rules
from toolrail.resilience import BreakerSettings, CircuitBreaker, Resilience, RetrySettings

pytestmark = pytest.mark.anyio


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


RUNS: list[str] = []


@tool(permissions=["shell:execute"])
def shell(command: list[str]) -> str:
    """Run a command."""
    RUNS.append(" ".join(command))
    return "ran " + " ".join(command)


FAILS = {"left": 0}


@tool(annotations=ToolAnnotations(read_only=True))
def flaky() -> str:
    """Fails until FAILS["left"] reaches zero."""
    if FAILS["left"] > 0:
        FAILS["left"] -= 1
        raise ConnectionError("upstream down")
    return "ok"


@tool
def unsafe_flaky() -> str:
    """Fails, and is not safe to retry."""
    raise ConnectionError("down")


@tool
def big() -> str:
    """A huge output."""
    return "z" * 10_000


CTX = ExecutionContext(agent="dev", permissions=frozenset({"shell:execute"}))


def executor(gates: Gates | None = None, **kwargs: object) -> Executor:
    RUNS.clear()
    registry = ToolRegistry([shell, flaky, unsafe_flaky, big])
    return Executor(registry, gates=gates, **kwargs)  # type: ignore[arg-type]


async def no_sleep(seconds: float) -> None:
    return None


async def test_missing_permissions_are_named() -> None:
    """A tool needing shell:execute is refused to an agent without it, and hidden."""
    ex = executor()
    outcome = await ex.run(
        ToolCall(name="shell", arguments={"command": ["ls"]}), ExecutionContext(agent="guest")
    )
    assert outcome.result == Failure(
        PermissionDenied(
            message="guest lacks the permission shell:execute that shell needs",
            tool="shell",
            missing=frozenset({"shell:execute"}),
        )
    )
    assert "shell" not in [t.name for t in ex.visible("guest", frozenset())]
    assert RUNS == []


async def test_deny_rule_hides_and_refuses() -> None:
    """Deny by name hides the tool; deny by argument refuses the call, naming the rule."""
    gates = Gates(
        rules=Rules.of(deny=["shell(rm *)"]), agent_rules={"guest": Rules.of(deny=["big"])}
    )
    ex = executor(gates)
    outcome = await ex.run(ToolCall(name="shell", arguments={"command": ["rm", "-rf", "/"]}), CTX)
    assert isinstance(outcome.result, Failure)
    assert "shell(rm *)" in outcome.result.failure().message
    assert RUNS == []
    assert "big" not in [t.name for t in ex.visible("guest")]
    assert "big" in [t.name for t in ex.visible("dev")]


async def test_approval_round_trip_runs_exactly_once() -> None:
    """ask → pending request → approve → one run; a second approval finds nothing."""
    gates = Gates(rules=Rules.of(ask=["shell(git *)"]))
    ex = executor(gates)
    call = ToolCall(name="shell", arguments={"command": ["git", "push"]})
    waiting = await ex.run(call, CTX)
    match waiting.result:
        case Failure(ApprovalRequired(request_id=request_id)):
            pass
        case other:
            raise AssertionError(other)
    assert RUNS == []  # nothing runs before approval
    [request] = gates.pending
    assert request.to_json()["arguments"] == {"command": ["git", "push"]}
    assert request.call_id == call.id
    approved = (await ex.resume(request_id, Approve())).unwrap()
    assert approved.result == Success("ran git push")
    assert approved.call.id == call.id
    assert RUNS == ["git push"]
    assert isinstance(await ex.resume(request_id, Approve()), Failure)
    assert RUNS == ["git push"]


async def test_deny_and_edit_and_always() -> None:
    """Deny answers the model; edit runs the edited call; always skips asking later."""
    gates = Gates(rules=Rules.of(ask=["shell"]))
    ex = executor(gates)
    first = await ex.run(ToolCall(name="shell", arguments={"command": ["rm", "x"]}), CTX)
    denied = (
        await ex.resume(
            first.result.failure().request_id,  # type: ignore[attr-defined]
            Deny(message="not that file"),
        )
    ).unwrap()
    assert isinstance(denied.result.failure(), PermissionDenied)
    assert "not that file" in denied.result.failure().message
    assert denied.result.failure().model_can_fix
    second = await ex.run(ToolCall(name="shell", arguments={"command": ["rm", "-rf", "/"]}), CTX)
    edited = (
        await ex.resume(
            second.result.failure().request_id,  # type: ignore[attr-defined]
            Approve(arguments={"command": ["rm", "tmp.txt"]}, always="shell(ls*)"),
        )
    ).unwrap()
    assert edited.result == Success("ran rm tmp.txt")
    third = await ex.run(ToolCall(name="shell", arguments={"command": ["ls", "-l"]}), CTX)
    assert third.result == Success("ran ls -l")  # allowed for the rest of the conversation
    other = await ex.run(
        ToolCall(name="shell", arguments={"command": ["ls"]}),
        ExecutionContext(agent="dev", permissions=CTX.permissions),
    )
    assert isinstance(other.result.failure(), ApprovalRequired)
    assert RUNS == ["rm tmp.txt", "ls -l"]


async def test_inline_approver() -> None:
    """An async approver decides while the call waits."""
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Approve | Deny:
        asked.append(request)
        await asyncio.sleep(0)
        return Deny() if "rm" in str(request.arguments) else Approve()

    ex = executor(Gates(needs_approval=("shell",), approver=approver))
    ok = await ex.run(ToolCall(name="shell", arguments={"command": ["ls"]}), CTX)
    no = await ex.run(ToolCall(name="shell", arguments={"command": ["rm", "a"]}), CTX)
    assert ok.result == Success("ran ls")
    assert isinstance(no.result.failure(), PermissionDenied)
    assert [r.tool for r in asked] == ["shell", "shell"]
    assert RUNS == ["ls"]


async def test_an_approver_that_fails_is_named() -> None:
    """The caller learns which approver failed and how; the tool did not run."""

    async def ticket_desk(request: ApprovalRequest) -> Approve | Deny:
        raise ConnectionError("desk closed")

    RUNS.clear()
    ex = executor(Gates(needs_approval=("shell",), approver=ticket_desk))
    outcome = await ex.run(ToolCall(name="shell", arguments={"command": ["ls"]}), CTX)
    error = outcome.result.failure()
    assert isinstance(error, PermissionDenied)
    assert "approver failed (ConnectionError) in " in error.message
    assert "ticket_desk" in error.message
    assert RUNS == []


async def test_budgets_and_rate_window_with_a_fake_clock() -> None:
    """Per-tool and per-conversation limits, and a sliding rate window that frees up."""
    clock = FakeClock()
    budget = Budget(per_tool={"big": 2}, rate=(3, 10.0), clock=clock)
    ex = executor(Gates(budget=budget), resilience=Resilience.off())
    call = ToolCall(name="big")
    results = [(await ex.run(call, CTX)).result for _ in range(3)]
    assert isinstance(results[2].failure(), BudgetExceeded)
    assert results[2].failure().limit == "tool"  # type: ignore[attr-defined]
    flaky_call = ToolCall(name="flaky")
    assert isinstance((await ex.run(flaky_call, CTX)).result, Success)
    limited = (await ex.run(flaky_call, CTX)).result.failure()
    assert isinstance(limited, BudgetExceeded)
    assert limited.limit == "rate"
    assert limited.resets_in_s == pytest.approx(10.0)
    clock.now += 10.5
    assert isinstance((await ex.run(flaky_call, CTX)).result, Success)


def test_each_budget_limit_says_which_it_is() -> None:
    """The message is written only when a limit is hit; it still names that limit."""
    ctx = ExecutionContext(agent="planner", conversation_id="c1")
    cases = [
        (Budget(per_agent=1), "agent", "planner may make 1 calls per conversation"),
        (Budget(per_conversation=1), "conversation", "this conversation may make 1 calls"),
        (Budget(per_tool={"big": 1}), "tool", "big may be called 1 times per conversation"),
    ]
    for budget, limit, says in cases:
        assert isinstance(budget.consume(ctx, "big"), Success)
        refused = budget.consume(ctx, "big").failure()
        assert (refused.limit, refused.message) == (
            limit,
            f"budget exceeded: {says}; it resets with a new conversation",
        )
        other = ExecutionContext(agent="planner", conversation_id="c2")
        assert isinstance(budget.consume(other, "big"), Success)


def state(breaker: CircuitBreaker) -> str:
    """Read the state afresh (mypy would keep an earlier narrowing of the attribute)."""
    return breaker.state


def hidden(breaker: CircuitBreaker) -> bool:
    return breaker.hidden


def test_breaker_state_machine_with_a_fake_clock() -> None:
    """closed → open after N failures → half-open after cool-down → closed or open again."""
    clock = FakeClock()
    breaker = CircuitBreaker(
        "t", BreakerSettings(consecutive_failures=3, failure_rate=None, cooldown_s=30), clock
    )
    for _ in range(2):
        breaker.record(False)
    assert state(breaker) == "closed"
    breaker.record(False)
    assert state(breaker) == "open"
    assert hidden(breaker)
    refused = breaker.allow()
    assert isinstance(refused.failure(), CircuitOpen)
    assert refused.failure().retry_after_s == pytest.approx(30)
    clock.now += 31
    assert not hidden(breaker)
    assert isinstance(breaker.allow(), Success)  # the probe
    assert state(breaker) == "half_open"
    assert isinstance(breaker.allow(), Failure)  # only one probe at a time
    breaker.record(False)
    assert state(breaker) == "open"
    clock.now += 31
    assert isinstance(breaker.allow(), Success)
    breaker.record(True)
    assert state(breaker) == "closed"


def test_breaker_opens_on_failure_rate() -> None:
    """Alternating failures never make N in a row, but the rate opens the circuit."""
    breaker = CircuitBreaker(
        "t",
        BreakerSettings(consecutive_failures=5, failure_rate=0.5, window=10, min_calls=10),
        FakeClock(),
    )
    for n in range(10):
        breaker.record(n % 2 == 0)
    assert state(breaker) == "open"


async def test_executor_circuit_opens_and_hides_the_tool() -> None:
    """Repeated breakage opens the tool's circuit: calls fail fast and the tool is hidden."""
    clock = FakeClock()
    resilience = Resilience(
        breakers=BreakerSettings(consecutive_failures=2, cooldown_s=60), clock=clock
    )
    ex = executor(Gates(), resilience=resilience)
    for _ in range(2):
        result = (await ex.run(ToolCall(name="unsafe_flaky"), CTX)).result
        assert isinstance(result.failure(), ExecutionFailed)
    fast = (await ex.run(ToolCall(name="unsafe_flaky"), CTX)).result
    assert isinstance(fast.failure(), CircuitOpen)
    assert "unsafe_flaky" not in [t.name for t in ex.visible("dev")]
    assert any("circuit unsafe_flaky: open" in line for line in ex.explain("dev", "unsafe_flaky"))
    clock.now += 61
    assert "unsafe_flaky" in [t.name for t in ex.visible("dev")]


async def test_retries_only_for_tools_safe_to_repeat() -> None:
    """A read-only tool is retried and its attempts recorded; an unsafe one is not."""
    FAILS["left"] = 2
    ex = executor(resilience=Resilience(retry=RetrySettings(attempts=3)), sleep=no_sleep)
    outcome = await ex.run(ToolCall(name="flaky"), CTX)
    assert (outcome.result, outcome.attempts) == (Success("ok"), 3)
    unsafe = await ex.run(ToolCall(name="unsafe_flaky"), CTX)
    assert unsafe.attempts == 1
    FAILS["left"] = 5
    exhausted = await ex.run(ToolCall(name="flaky"), CTX)
    assert exhausted.attempts == 3
    assert isinstance(exhausted.result.failure(), ExecutionFailed)
    health = ex.health.health("flaky")
    assert health is not None
    assert health.success_rate == 0.5
    assert health.last_failure == "ConnectionError: upstream down"


async def test_oversized_output_is_cut_and_spilled(tmp_path: Path) -> None:
    """Beyond the cap: a marker with a preview and the path of the whole output."""
    ex = executor(max_output_chars=100, spill_dir=tmp_path)
    outcome = await ex.run(ToolCall(name="big", id="c9"), CTX)
    marker = outcome.result.unwrap()
    assert isinstance(marker, dict)
    assert marker["truncated"] is True
    assert marker["original_chars"] == 10_000
    assert len(marker["preview"]) == 101
    spilled = await asyncio.to_thread(Path(marker["full_output_path"]).read_text)
    assert spilled == "z" * 10_000
    hostile = (await ex.run(ToolCall(name="big", id="../../escape"), CTX)).result.unwrap()
    assert isinstance(hostile, dict)
    assert Path(hostile["full_output_path"]).parent == tmp_path  # the id cannot climb out
    small = executor(output_caps={"big": 20_000}, max_output_chars=10, spill_dir=tmp_path)
    assert (await small.run(ToolCall(name="big"), CTX)).result == Success("z" * 10_000)


def test_explain_gate_by_gate() -> None:
    """explain says what each gate thinks."""
    from toolrail import AgentToolTable

    ex = Executor(
        ToolRegistry([shell, big]),
        agents=AgentToolTable({"dev": ["*"]}),
        gates=Gates(rules=Rules.of(ask=["shell(git *)"], deny=["big"])),
    )
    lines = ex.explain("dev", "shell")
    assert "agent table: allows dev" in lines
    assert "permissions: missing shell:execute" in lines
    assert any(line.startswith("approval: asked for (shell(git *))") for line in lines)
    assert "rules: deny by 'big'" in ex.explain("dev", "big")
    assert ex.explain("dev", "nope") == ["lookup: no tool named 'nope'"]


async def test_explain_does_not_call_a_tool_healthy_before_it_is_judged() -> None:
    """Three failures, five calls needed to judge: the line says so, and not "healthy"."""
    ex = Executor(
        ToolRegistry([unsafe_flaky]), resilience=Resilience(retry=RetrySettings(attempts=1))
    )
    ctx = ExecutionContext(agent="dev")
    for n in range(3):
        outcome = await ex.run(ToolCall(name="unsafe_flaky", arguments={}, id=f"c{n}"), ctx)
        assert isinstance(outcome.result, Failure)
    (line,) = [line for line in ex.explain("dev", "unsafe_flaky") if line.startswith("health")]
    assert line.startswith("health: not judged before 5 calls, 0% ok over 3 calls,"), line


async def test_stream_handler_reads_health() -> None:
    """Given the executor's health tracker, finished lines carry the tool's record."""
    from toolrail import ToolStreamHandler
    from toolrail.recording.stream import ProgressUpdate

    updates: list[ProgressUpdate] = []
    resilience = Resilience(retry=RetrySettings(attempts=1))
    handler = ToolStreamHandler(on_update=updates.append, health=resilience.health)
    ex = Executor(ToolRegistry([unsafe_flaky]), resilience=resilience, sinks=[handler])
    await ex.run(ToolCall(name="unsafe_flaky"), CTX)
    finished = [u for u in updates if u.finished]
    assert finished[-1].health is not None
    assert finished[-1].health.success_rate == 0.0
    assert finished[-1].health.last_failure == "ConnectionError: down"
