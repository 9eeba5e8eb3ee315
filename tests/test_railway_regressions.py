"""Defects found by using toolrail from outside (issues 9 and 10), one test each; every one
of them failed on the railway before it was rewired."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest
from pydantic import BaseModel
from returns.result import Failure, Result, Success

from toolrail import (
    Agent,
    ApprovalRequired,
    BudgetExceeded,
    Cancelled,
    CircuitOpen,
    ExecutionContext,
    ExecutionFailed,
    Executor,
    InvalidArguments,
    JsonlCallLog,
    Orchestrator,
    PermissionDenied,
    ScriptedModel,
    ScriptedTurn,
    TimedOut,
    ToolAnnotations,
    ToolCall,
    ToolError,
    ToolRegistry,
    ToolStreamHandler,
    tool,
)
from toolrail.policy import ApprovalRequest, Approve, Budget, Deny, Gates, Rules
from toolrail.recording.events import ToolEvent, ToolStarted
from toolrail.resilience import BreakerSettings, Resilience

pytestmark = pytest.mark.anyio

RAN: list[str] = []


@tool(permissions=["shell:execute"])
def shell(command: str) -> str:
    """Run a command (records it instead)."""
    RAN.append(command)
    return f"ran {command}"


@tool
def down() -> str:
    """A service that is down."""
    raise ConnectionError("service down")


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


CTX = ExecutionContext(agent="dev", permissions=frozenset({"shell:execute"}))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def _clear() -> None:
    RAN.clear()


async def test_a_refused_call_never_keeps_the_half_open_probe() -> None:
    """#10.1: a call refused after the breaker allowed it (approval pending or denied,
    budget exceeded) once locked the tool out for good with 'being probed'."""
    clock = Clock()
    resilience = Resilience(
        breakers=BreakerSettings(consecutive_failures=1, cooldown_s=10), clock=clock
    )
    gates = Gates(rules=Rules.of(ask=["down"]))
    ex = Executor(ToolRegistry([down]), gates=gates, resilience=resilience)
    first = await ex.run(ToolCall(name="down"), CTX)
    assert isinstance(first.result.failure(), ApprovalRequired)
    request_id = first.result.failure().request_id  # type: ignore[attr-defined]
    assert isinstance((await ex.resume(request_id, Approve())).unwrap().result, Failure)
    assert ex.circuit_state("down") == "open"
    clock.now += 11  # cool-down over: the next call is the probe
    for _ in range(3):  # each one waits for approval: none may keep the probe
        pending = await ex.run(ToolCall(name="down"), CTX)
        assert isinstance(pending.result.failure(), ApprovalRequired)
    assert not isinstance((await ex.run(ToolCall(name="down"), CTX)).result, CircuitOpen)
    refused = await ex.resume(request_id, Deny())
    assert isinstance(refused, Failure)  # already settled once
    assert "down" in [t.name for t in ex.visible("dev")]


async def test_the_record_shows_the_arguments_that_ran(tmp_path: Path) -> None:
    """#10.2: an approver's edit ran, but ToolStarted and the log kept the model's."""
    events: list[ToolEvent] = []

    async def edit(request: ApprovalRequest) -> Approve:
        return Approve(arguments={"command": "git status"})

    log = JsonlCallLog(tmp_path)
    gates = Gates(rules=Rules.of(ask=["shell"]), approver=edit)
    ex = Executor(ToolRegistry([shell]), gates=gates, sinks=[events.append, log])
    outcome = await ex.run(ToolCall(name="shell", arguments={"command": "git push"}), CTX)
    await ex.aclose()
    log.close()
    assert outcome.result == Success("ran git status")
    assert RAN == ["git status"]
    [started] = [e for e in events if isinstance(e, ToolStarted)]
    assert started.arguments == {"command": "git status"}
    assert started.asked_arguments == {"command": "git push"}
    assert outcome.call.arguments == {"command": "git status"}
    [line] = next(tmp_path.glob("tool-calls-*.jsonl")).read_bytes().splitlines()
    assert orjson.loads(line)["args"] == {"command": "git status"}


async def test_edits_by_a_person_are_checked_by_the_deny_rules_again() -> None:
    """#9: an approver's edit to `rm -rf /` ran; deny rules now see the edited call."""

    async def edit(request: ApprovalRequest) -> Approve:
        return Approve(arguments={"command": "rm -rf /"})

    gates = Gates(rules=Rules.of(ask=["shell"], deny=["shell(rm *)"]), approver=edit)
    ex = Executor(ToolRegistry([shell]), gates=gates)
    outcome = await ex.run(ToolCall(name="shell", arguments={"command": "ls"}), CTX)
    assert isinstance(outcome.result.failure(), PermissionDenied)
    assert "shell(rm *)" in outcome.result.failure().message
    pending_gates = Gates(rules=Rules.of(ask=["shell"], deny=["shell(rm *)"]))
    ex = Executor(ToolRegistry([shell]), gates=pending_gates)
    asked = await ex.run(ToolCall(name="shell", arguments={"command": "ls"}), CTX)
    request_id = asked.result.failure().request_id  # type: ignore[attr-defined]
    resumed = await ex.resume(request_id, Approve(arguments={"command": "rm -rf /"}))
    assert isinstance(resumed.unwrap().result.failure(), PermissionDenied)
    assert RAN == []


async def test_an_approval_is_bound_to_its_call_and_used_once() -> None:
    """#9: a later call reusing an approved call id, in another conversation, ran."""
    gates = Gates(rules=Rules.of(ask=["shell"]))
    ex = Executor(ToolRegistry([shell]), gates=gates)
    call = ToolCall(id="call_1", name="shell", arguments={"command": "deploy"})
    asked = await ex.run(call, CTX)
    request_id = asked.result.failure().request_id  # type: ignore[attr-defined]
    other = ExecutionContext(agent="dev", permissions=frozenset({"shell:execute"}))
    replay = ToolCall(id="call_1", name="shell", arguments={"command": "rm -rf /"})

    async def during_approval() -> Result[object, ToolError]:
        return (await ex.run(replay, other)).result

    approved, meanwhile = await asyncio.gather(ex.resume(request_id, Approve()), during_approval())
    assert approved.unwrap().result == Success("ran deploy")
    assert isinstance(meanwhile.failure(), ApprovalRequired)
    assert isinstance((await ex.run(replay, other)).result.failure(), ApprovalRequired)
    assert RAN == ["deploy"]


async def test_refused_input_never_feeds_a_breaker() -> None:
    """#9: a model's invalid arguments opened the circuit for every agent."""
    resilience = Resilience(breakers=BreakerSettings(consecutive_failures=2, failure_rate=None))
    ex = Executor(
        ToolRegistry([divide]),
        resilience=resilience,
        gates=Gates(rules=Rules.of(deny=["divide(a:13)"]), budget=Budget(per_tool={"divide": 100})),
    )
    for bad in ({"a": "x", "b": 1}, {"a": 13, "b": 1}, {}, {"a": 1}):
        failed = await ex.run(ToolCall(name="divide", arguments=bad), CTX)
        assert isinstance(failed.result.failure(), InvalidArguments | PermissionDenied)
    assert ex.circuit_state("divide") == "closed"
    assert (await ex.run(ToolCall(name="divide", arguments={"a": 6, "b": 3}), CTX)).result == (
        Success(2.0)
    )


async def test_an_approver_that_raises_is_the_approvers_failure(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """#10.4: InternalError('toolrail bug'), and the password printed 11 times."""

    async def broken(request: ApprovalRequest) -> Approve:
        raise RuntimeError("approval service unreachable")

    gates = Gates(rules=Rules.of(ask=["shell"]), approver=broken)
    ex = Executor(ToolRegistry([shell]), gates=gates)
    secret = {"command": "login --password hunter2-very-secret"}
    outcome = await ex.run(ToolCall(name="shell", arguments=secret), CTX)
    error = outcome.result.failure()
    assert isinstance(error, PermissionDenied)
    assert "approver failed (RuntimeError)" in error.message
    assert RAN == []
    out, err = capfd.readouterr()
    assert out == ""
    assert "hunter2" not in out + err


def test_a_library_diagnostic_never_reaches_stdout(tmp_path: Path) -> None:
    """#10.5: structlog's default printed `[debug] ...` lines to stdout."""
    program = textwrap.dedent(
        """
        import asyncio
        from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool

        def broken_sink(event):
            raise RuntimeError("sink broke, token=sk-abcdefghijklmnopqrstuvwxyz0123")

        @tool(describe=lambda args: 1 / 0)
        def hello() -> str:
            '''Say hello.'''
            return "hello"

        ex = Executor(ToolRegistry([hello]), sinks=[broken_sink])
        print(asyncio.run(ex.run(ToolCall(name="hello"), ExecutionContext())).result)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "<Success: hello>\n"  # the program's output, nothing else
    assert "sink failed" in done.stderr  # a warning, on stderr
    assert "sk-abcdefghijklmnopqrstuvwxyz0123" not in done.stderr


async def test_every_tool_has_a_deadline_and_resilience_needs_no_gates() -> None:
    """#10.11: no default deadline; retries only when `gates=Gates()` smuggled them in."""
    attempts: list[int] = []

    @tool(annotations=ToolAnnotations(read_only=True))
    def flaky() -> str:
        """Fails with a transport error."""
        attempts.append(1)
        raise ConnectionError("reset")

    async def no_sleep(_: float) -> None:
        return None

    plain = Executor(ToolRegistry([flaky]), sleep=no_sleep)
    gated = Executor(ToolRegistry([flaky]), gates=Gates(), sleep=no_sleep)
    assert (await plain.run(ToolCall(name="flaky"), CTX)).attempts == 3
    assert (await gated.run(ToolCall(name="flaky"), CTX)).attempts == 3
    assert plain.invoker.default_timeout_s == 60.0


async def test_a_refused_streamed_batch_ends_every_announced_call(tmp_path: Path) -> None:
    """#10.14: calls refused by max_tool_calls stayed 'Preparing ...' and were never logged."""
    lines: list[str] = []
    log = JsonlCallLog(tmp_path)
    model = ScriptedModel([ScriptedTurn(calls=[("divide", {"a": 1, "b": 1})] * 3)])
    loop = Orchestrator(
        [
            Agent(
                name="a", instructions="", model=model, tools=("divide",), max_tool_calls_per_turn=2
            )
        ],
        ToolRegistry([divide]),
        sinks=[ToolStreamHandler(on_update=lambda u: lines.append(u.text)), log],
    )
    result = await loop.run("go")
    log.close()
    assert result.end.kind == "max_tool_calls"
    assert [type(o.result.failure()) for o in result.outcomes] == [BudgetExceeded] * 3
    logged = next(tmp_path.glob("tool-calls-*.jsonl")).read_bytes().splitlines()
    assert len(logged) == 3
    assert not any(line.startswith("💭") for line in lines[-3:])  # each line ended


def test_a_context_takes_what_users_pass() -> None:
    """#10.15: `project_root="proj"` failed later with AttributeError after 3 retries."""
    ctx = ExecutionContext(project_root="proj", permissions={"fs:read"})  # type: ignore[arg-type]
    assert ctx.project_root == Path("proj")
    assert ctx.permissions == frozenset({"fs:read"})


class Exploding(BaseException):
    """Not an Exception: asyncio lets such things out of a task."""


async def test_no_base_exception_escapes_run() -> None:
    """#9: GeneratorExit and custom BaseExceptions raised by a tool escaped run."""

    @tool
    async def generator_exit() -> str:
        """Raises GeneratorExit."""
        raise GeneratorExit

    @tool
    async def custom() -> str:
        """Raises a custom BaseException."""
        raise Exploding("boom")

    @tool
    def exits() -> str:
        """Calls sys.exit in a worker thread."""
        raise SystemExit(3)

    ex = Executor(ToolRegistry([generator_exit, custom, exits]))
    outcomes = await ex.run_many(
        [ToolCall(name=n) for n in ("generator_exit", "custom", "exits")], CTX
    )
    assert [o.result.failure().exception_type for o in outcomes] == [  # type: ignore[attr-defined]
        "GeneratorExit",
        "Exploding",
        "SystemExit",
    ]


async def test_a_tool_that_swallows_cancellation_times_out_at_its_deadline() -> None:
    """#9: it ran past a 0.3 s deadline and returned Success after 2 s."""

    finished = asyncio.Event()

    @tool(timeout_s=0.2)
    async def stubborn() -> str:
        """Ignores cancellation."""
        for _ in range(40):
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                continue
        finished.set()
        return "finished anyway"

    ex = Executor(ToolRegistry([stubborn]))
    outcome = await ex.run(ToolCall(name="stubborn"), CTX)
    assert isinstance(outcome.result.failure(), TimedOut)
    assert not finished.is_set()  # the outcome came at the deadline, not when the body ended


async def test_a_sync_functional_tool_works() -> None:
    """#9: `def f(args, ctx) -> Result` always failed ('can't be used in await')."""

    class Pair(BaseModel):
        a: int
        b: int

    @tool
    def add(args: Pair, ctx: ExecutionContext) -> Result[int, ToolError]:
        """Add two integers."""
        return Success(args.a + args.b)

    assert (
        await Executor(ToolRegistry([add])).run(
            ToolCall(name="add", arguments={"a": 2, "b": 3}), CTX
        )
    ).result == Success(5)


async def test_stuck_sync_tools_do_not_starve_the_rest_nor_block_exit() -> None:
    """#9: stuck sync tools held every worker thread and kept the process alive 20 s."""
    program = textwrap.dedent(
        """
        import asyncio, threading, time
        from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool

        release = threading.Event()

        @tool(timeout_s=0.1)
        def stuck() -> str:
            '''Blocks until released (never).'''
            release.wait(600)
            return "late"

        @tool
        def quick() -> str:
            '''Answers at once.'''
            return "quick"

        async def main():
            ex = Executor(ToolRegistry([stuck, quick]))
            ctx = ExecutionContext()
            stuck_calls = [ToolCall(name="stuck") for _ in range(40)]
            outcomes = await ex.run_many(stuck_calls, ctx, max_concurrency=40)
            print(sorted({o.result.failure().kind for o in outcomes}))
            print((await ex.run(ToolCall(name="quick"), ctx)).result)

        asyncio.run(main())
        """
    )
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # the stuck threads wait 600 s: had exit waited for them, the 60 s bound above would
    # have stopped the run; it returned, with its output
    assert done.stdout.splitlines() == ["['timed_out']", "<Success: quick>"]


async def test_cancel_ends_a_call_even_if_the_tool_ignores_it() -> None:
    @tool(timeout_s=30)
    async def ignores() -> str:
        """Ignores cancellation (for a while: the test's event loop must end)."""
        for _ in range(20):
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                continue
        return "finished anyway"

    ex = Executor(ToolRegistry([ignores]))
    running = asyncio.create_task(ex.run(ToolCall(id="c", name="ignores"), CTX))
    await asyncio.sleep(0.05)
    assert ex.cancel("c")
    outcome = await asyncio.wait_for(running, 5)
    assert isinstance(outcome.result.failure(), Cancelled)


def test_typed_dependencies_reach_the_tool() -> None:
    class Db:
        def lookup(self, key: str) -> str:
            return key.upper()

    class Key(BaseModel):
        key: str

    @tool
    async def find(args: Key, ctx: ExecutionContext[Db]) -> Result[str, ToolError]:
        """Look a key up."""
        return Success(ctx.deps.lookup(args.key))

    ctx = ExecutionContext(deps=Db())
    outcome = asyncio.run(
        Executor(ToolRegistry([find])).run(ToolCall(name="find", arguments={"key": "k"}), ctx)
    )
    assert outcome.result == Success("K")


async def test_the_tools_own_breakage_still_opens_its_circuit() -> None:
    """Breakage of the tool itself still opens the circuit (the breaker still works)."""
    resilience = Resilience(breakers=BreakerSettings(consecutive_failures=2, failure_rate=None))
    ex = Executor(ToolRegistry([down]), resilience=resilience)
    kinds = [(await ex.run(ToolCall(name="down"), CTX)).result.failure() for _ in range(3)]
    assert [type(k) for k in kinds] == [ExecutionFailed, ExecutionFailed, CircuitOpen]


@pytest.mark.parametrize(
    "root", [None, b"proj", 5, "pro\x00j", ["proj"]], ids=["none", "bytes", "int", "nul", "list"]
)
def test_a_context_refuses_a_root_that_is_not_a_path(root: object) -> None:
    """#10.15: None, bytes or a number became a root named 'None', "b'proj'" or '5'."""
    with pytest.raises((TypeError, ValueError)):
        ExecutionContext(project_root=root)  # type: ignore[arg-type]


@pytest.mark.parametrize("granted", [5, None, [1, 2], {"fs:read", 3}])
def test_a_context_refuses_permissions_that_are_not_strings(granted: object) -> None:
    with pytest.raises(TypeError):
        ExecutionContext(permissions=granted)  # type: ignore[arg-type]
