"""Executors sharing one `Resilience` (a router's and an agent loop's, or the one replayed
from the log) share its circuits: each one's sinks hear every change, whichever executor
ran the calls, and the `Resilience` keeps none of them alive."""

from __future__ import annotations

import gc
import weakref

import pytest
from returns.result import Failure, Result

from toolrail import (
    CircuitStateChanged,
    ExecutionContext,
    ExecutionFailed,
    Executor,
    ToolCall,
    ToolError,
    ToolEvent,
    ToolFailed,
    ToolHealthChanged,
    ToolRegistry,
    tool,
)
from toolrail.resilience import HealthTracker, Resilience

pytestmark = pytest.mark.anyio


@tool
async def flaky() -> Result[str, ToolError]:
    """Breaks every time."""
    return Failure(ExecutionFailed(message="down", model_can_fix=False))


def _states(events: list[ToolEvent]) -> list[str]:
    return [event.state for event in events if isinstance(event, CircuitStateChanged)]


async def test_every_executor_sharing_a_resilience_hears_its_circuits() -> None:
    shared = Resilience()
    first_heard: list[ToolEvent] = []
    second_heard: list[ToolEvent] = []
    user_heard: list[tuple[str, str]] = []
    shared.on_change = lambda breaker, state: user_heard.append((breaker, state))
    registry = ToolRegistry([flaky])
    first = Executor(registry, resilience=shared, sinks=[first_heard.append])
    second = Executor(registry, resilience=shared, sinks=[second_heard.append])
    for _ in range(5):
        await second.run(ToolCall(name="flaky"), ExecutionContext())

    assert _states(second_heard) == ["open"]  # it ran the calls: it heard
    assert _states(first_heard) == ["open"]  # it ran none: its calls are refused now too
    assert user_heard == [("flaky", "open")]  # the application's own listener too
    assert first.circuit_state("flaky") == "open"


async def test_a_resilience_keeps_no_executor_alive() -> None:
    shared = Resilience()
    gone = weakref.ref(Executor(ToolRegistry([flaky]), resilience=shared))
    gc.collect()
    assert gone() is None
    kept = Executor(ToolRegistry([flaky]), resilience=shared)
    for _ in range(5):
        await kept.run(ToolCall(name="flaky"), ExecutionContext())
    assert kept.circuit_state("flaky") == "open"


async def test_a_plain_function_may_listen_too() -> None:
    shared = Resilience()
    heard: list[tuple[str, str]] = []
    shared.listen(lambda breaker, state: heard.append((breaker, state)))
    executor = Executor(ToolRegistry([flaky]), resilience=shared)
    for _ in range(5):
        await executor.run(ToolCall(name="flaky"), ExecutionContext())
    assert heard == [("flaky", "open")]


def test_executors_let_go_leave_no_listeners_behind() -> None:
    """An executor made per request on one `Resilience`: its listener goes with it, in
    sweeps, so a change of state never walks a list as long as every request so far."""
    shared = Resilience()
    registry = ToolRegistry([flaky])
    for _ in range(2000):
        Executor(registry, resilience=shared)
    assert len(shared._listeners) <= 32


async def test_a_sink_given_to_executors_sharing_a_resilience_hears_each_change_once() -> None:
    """A router's executor and an agent loop's, sharing circuits and one call log: the log
    hears the circuit open once, after the finished event of the call that opened it (the
    executor that ran it tells it); each executor's own sinks hear it too."""
    shared = Resilience()
    log: list[ToolEvent] = []
    first_own: list[ToolEvent] = []
    second_own: list[ToolEvent] = []
    registry = ToolRegistry([flaky])
    first = Executor(registry, resilience=shared, sinks=[log.append, first_own.append])
    second = Executor(registry, resilience=shared, sinks=[second_own.append, log.append])
    for _ in range(5):
        await second.run(ToolCall(name="flaky"), ExecutionContext())

    assert _states(log) == ["open"]
    assert _states(first_own) == ["open"]
    assert _states(second_own) == ["open"]
    health = [event for event in log if isinstance(event, ToolHealthChanged)]
    assert [event.status for event in health] == ["failing"]
    opened = next(i for i, event in enumerate(log) if isinstance(event, CircuitStateChanged))
    assert isinstance(log[opened - 1], ToolFailed)  # the call that opened it, first

    for _ in range(3):  # the first executor's calls are refused now: no change, no news
        await first.run(ToolCall(name="flaky"), ExecutionContext())
    assert _states(log) == ["open"]


class _NamedSink:
    """A sink with a hand-written `__eq__` that raises for anything but its own kind."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.heard: list[ToolEvent] = []

    def __call__(self, event: ToolEvent) -> None:
        self.heard.append(event)

    def __eq__(self, other: object) -> bool:
        return bool(self.name == other.name)  # type: ignore[attr-defined]

    __hash__ = object.__hash__


async def test_a_sink_whose_eq_raises_costs_no_executor_its_news() -> None:
    shared = Resilience()
    log: list[ToolEvent] = []
    own: list[ToolEvent] = []
    named = _NamedSink("audit")
    first = Executor(ToolRegistry([flaky]), resilience=shared, sinks=[log.append])
    second = Executor(ToolRegistry([flaky]), resilience=shared, sinks=[own.append, named])
    for _ in range(5):
        await second.run(ToolCall(name="flaky"), ExecutionContext())
    assert _states(log) == _states(own) == _states(named.heard) == ["open"]
    assert first.circuit_state("flaky") == "open"


async def test_a_sink_given_to_executors_sharing_health_alone_hears_each_change_once() -> None:
    """Two `Resilience`s with one `HealthTracker` (breakers apart, health shared)."""
    health = HealthTracker()
    log: list[ToolEvent] = []
    first = Executor(
        ToolRegistry([flaky]), resilience=Resilience(health=health), sinks=[log.append]
    )
    second = Executor(
        ToolRegistry([flaky]), resilience=Resilience(health=health), sinks=[log.append]
    )
    for _ in range(5):
        await second.run(ToolCall(name="flaky"), ExecutionContext())
    statuses = [event.status for event in log if isinstance(event, ToolHealthChanged)]
    assert statuses == ["failing"]
    assert _states(log) == ["open"]  # the second's own breaker
    assert first.circuit_state("flaky") == "closed"
