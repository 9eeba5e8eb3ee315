"""A tool's health changes are events: `ToolHealthChanged` when its recent success rate
makes it degraded or failing, and when it recovers; serialised as data, redacted, counted
by the metrics sink, and never sent for a call that changes nothing."""

from __future__ import annotations

import asyncio
import gc
import random
import socket
import urllib.request
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from toolrail import (
    CircuitStateChanged,
    ExecutionContext,
    Executor,
    JsonlCallLog,
    ToolCall,
    ToolEvent,
    ToolHealthChanged,
    ToolRegistry,
    tool,
)
from toolrail._jsonish import dumps
from toolrail.observe.metrics import PrometheusSink, serve_metrics
from toolrail.recording.eventjson import event_data
from toolrail.recording.logreader import recent_entries, recorded_resilience
from toolrail.resilience import (
    BreakerSettings,
    Health,
    HealthTracker,
    Resilience,
    RetrySettings,
)

pytestmark = pytest.mark.anyio

_plan: list[bool] = []  # what each next call of `shaky` does: succeed (True) or fail


@tool
def shaky(n: int) -> int:
    """Succeed or fail as planned."""
    if not _plan.pop(0):
        raise RuntimeError("backend said no; password=hunter2 was rejected")
    return n


def _executor(sinks: list[object]) -> Executor:
    # breakers off: a failing tool keeps being called, so its health keeps moving
    return Executor(ToolRegistry([shaky]), resilience=Resilience.off(), sinks=sinks)  # type: ignore[arg-type]


async def _run(executor: Executor, outcomes: list[bool]) -> None:
    _plan[:] = outcomes
    for n in range(len(outcomes)):
        await executor.run(ToolCall(name="shaky", arguments={"n": n}), ExecutionContext())


def _health_events(events: list[ToolEvent]) -> list[ToolHealthChanged]:
    return [event for event in events if isinstance(event, ToolHealthChanged)]


async def test_a_failing_tool_is_announced_once_per_change_and_again_when_it_recovers() -> None:
    events: list[ToolEvent] = []
    executor = _executor([events.append])
    await _run(executor, [True] * 20)
    assert _health_events(events) == []  # healthy from the start: nothing to tell

    await _run(executor, [False] * 21)  # below 90% ok → degraded; below 50% → failing
    changes = _health_events(events)
    assert [event.status for event in changes] == ["degraded", "failing"]
    assert changes[0].tool == "shaky"
    assert changes[0].health.success_rate < 0.9
    assert changes[1].health.success_rate < 0.5
    assert changes[1].health.calls == 41

    await _run(executor, [True] * 200)  # the window fills with successes: healthy again
    assert [event.status for event in _health_events(events)] == [
        "degraded",
        "failing",
        "degraded",
        "healthy",
    ]
    health = executor.health.health("shaky")
    assert health is not None
    assert health.status == "healthy"
    assert health.success_rate == 1.0


async def test_the_event_is_data_with_its_last_failure_redacted() -> None:
    events: list[ToolEvent] = []
    await _run(_executor([events.append]), [False] * 5)
    (change,) = _health_events(events)
    data = event_data(change)
    assert data["type"] == "tool_health_changed"
    assert data["tool"] == "shaky"
    assert data["status"] == "failing"
    assert data["calls"] == 5
    assert data["success_rate"] == 0.0
    assert "backend said no" in data["last_failure"]
    assert "hunter2" not in data["last_failure"]
    assert orjson.loads(dumps(change)) == orjson.loads(orjson.dumps(data))

    # a tracker fed by hand (or replayed from a log) may hold a raw message: redacted as data
    tracker = HealthTracker(min_calls=1)
    tracker.listen(lambda health: events.append(ToolHealthChanged(tool="t", health=health)))
    tracker.record("t", False, 1.0, "login failed: --password hunter2 api_key=sk-abcdef0123456789")
    shown = event_data(events[-1])["last_failure"]
    assert "hunter2" not in shown
    assert "sk-abcdef0123456789" not in shown


async def test_every_executor_sharing_a_tracker_tells_its_own_sinks() -> None:
    shared = Resilience.off()
    first: list[ToolEvent] = []
    second: list[ToolEvent] = []
    kept = Executor(ToolRegistry([shaky]), resilience=shared, sinks=[first.append])
    executor = Executor(ToolRegistry([shaky]), resilience=shared, sinks=[second.append])
    await _run(executor, [False] * 5)
    assert [e.status for e in _health_events(first)] == ["failing"]
    assert [e.status for e in _health_events(second)] == ["failing"]
    del kept


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _unhealthy(body: bytes) -> dict[str, float]:
    return {
        sample.labels["tool"]: sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
        if sample.name == "toolrail_tool_unhealthy"
    }


def _scrape(port: int) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        body: bytes = response.read()
        return body


async def test_the_metrics_endpoint_shows_each_tools_health() -> None:
    sink = PrometheusSink()
    executor = _executor([sink])
    port = _free_port()
    server = serve_metrics(sink, port)
    try:
        await _run(executor, [True] * 5)
        assert _unhealthy(await asyncio.to_thread(_scrape, port)) == {}
        await _run(executor, [False] * 2)  # 5 of 7: degraded
        assert _unhealthy(await asyncio.to_thread(_scrape, port)) == {"shaky": 1.0}
        await _run(executor, [False] * 6)  # 5 of 13: failing
        assert _unhealthy(await asyncio.to_thread(_scrape, port)) == {"shaky": 2.0}
        await _run(executor, [True] * 200)
        assert _unhealthy(await asyncio.to_thread(_scrape, port)) == {"shaky": 0.0}
    finally:
        server.shutdown()
        server.server_close()


def test_a_rate_hovering_at_a_threshold_does_not_flap() -> None:
    """Nine calls in ten succeed, in a window of 95: the rate goes 90.5%, 89.5%, 90.5%, …
    around the 90% threshold, every ten calls. Told once it is degraded, not 400 times."""
    told: list[Health] = []
    tracker = HealthTracker(window=95)
    tracker.listen(told.append)
    for _ in range(400):
        for ok in [True] * 9 + [False]:
            tracker.record("t", ok, 1.0, None if ok else "no")
    assert [health.status for health in told] == ["degraded"]


@given(
    outcomes=st.lists(st.booleans(), max_size=300),
    window=st.integers(min_value=3, max_value=50),
)
def test_the_status_follows_the_rate_and_each_change_is_told_once(
    outcomes: list[bool], window: int
) -> None:
    told: list[Health] = []
    tracker = HealthTracker(window=window, min_calls=3)
    tracker.listen(told.append)
    status = "healthy"
    for ok in outcomes:
        tracker.record("t", ok, 1.0, None if ok else "no")
        health = tracker.health("t")
        assert health is not None
        if health.status != status:  # told, as it changed
            assert told[-1].status == health.status
            status = health.status
        rate = health.success_rate
        if health.calls < 3:
            assert health.status == "healthy"
            continue
        # never better than the rate allows, nor worse than it says (give or take the margin)
        if rate < 0.5:
            assert health.status == "failing"
        elif rate < 0.9:
            assert health.status in ("degraded", "failing")
        if rate >= 0.95 and status != "failing":  # (failing climbs a status at a time)
            assert health.status == "healthy"
        if health.status == "failing":
            assert rate < 0.55
    changes = [h.status for h in told]
    assert all(a != b for a, b in zip(["healthy", *changes], changes, strict=False))
    assert (told[-1].status if told else "healthy") == status


def test_the_success_rate_is_the_windows_own() -> None:
    rng = random.Random(3)
    tracker = HealthTracker(window=30)
    outcomes = [rng.random() < 0.7 for _ in range(500)]
    for seen, ok in enumerate(outcomes, start=1):
        tracker.record("t", ok, float(seen), None)
        health = tracker.health("t")
        assert health is not None
        recent = outcomes[max(0, seen - 30) : seen]
        assert health.calls == len(recent)
        assert health.success_rate == sum(recent) / len(recent)


def test_a_listening_executor_let_go_is_not_kept_alive() -> None:
    tracker = HealthTracker()
    resilience = Resilience(health=tracker)
    for _ in range(100):
        Executor(ToolRegistry([shaky]), resilience=resilience)
    gc.collect()
    assert len(tracker._listeners) <= 32
    for _ in range(5):
        tracker.record("shaky", False, 1.0, "no")  # told to nobody gone, without error


def test_a_tool_at_a_full_success_rate_is_healthy_whatever_the_thresholds() -> None:
    """A threshold within the margin of 100% (here 99% + 5 points) still lets a tool with
    no failure left in its window recover."""
    told: list[Health] = []
    tracker = HealthTracker(window=10, min_calls=3, degraded_below=0.99)
    tracker.listen(told.append)
    for ok in [True] * 5 + [False] + [True] * 10:
        tracker.record("t", ok, 1.0, None if ok else "no")
    assert [health.status for health in told] == ["degraded", "healthy"]


def test_a_rate_exactly_the_margin_above_a_threshold_recovers() -> None:
    """19 of 20 is 95%: clear of 90% by the 5-point margin (0.9 + 0.05 is a hair above
    0.95 in floating point)."""
    tracker = HealthTracker(window=20)
    for ok in [True] * 17 + [False] * 3:  # 85%: degraded
        tracker.record("t", ok, 1.0, None if ok else "no")
    for _ in range(19):  # the window slides until one failure is left in it: 19 of 20
        tracker.record("t", True, 1.0, None)
    health = tracker.health("t")
    assert health is not None
    assert health.success_rate == 0.95
    assert health.status == "healthy"


def test_a_window_that_can_never_judge_is_refused() -> None:
    with pytest.raises(ValueError, match="min_calls"):
        HealthTracker(window=4)  # min_calls is 5


class _Secret:
    value = "Model-S3cret-Value"


@tool
async def connect(host: str, blob: SecretStr) -> str:
    """Connect to a host."""
    raise RuntimeError(f"cannot connect to {host} with {blob.get_secret_value()}")


async def test_a_declared_secret_the_tool_quoted_is_not_in_its_health() -> None:
    """The tool's failure quotes a declared secret: its health, event and explanation hide
    it as the failed call's outcome does."""
    events: list[ToolEvent] = []
    executor = Executor(ToolRegistry([connect]), resilience=Resilience.off(), sinks=[events.append])
    for _ in range(5):
        call = ToolCall(name="connect", arguments={"host": "h", "blob": _Secret.value})
        outcome = await executor.run(call, ExecutionContext())
        assert _Secret.value not in outcome.result.failure().message
    (change,) = _health_events(events)
    assert change.health.last_failure is not None
    assert "cannot connect to h" in change.health.last_failure
    assert _Secret.value not in change.health.last_failure
    assert _Secret.value not in dumps(change).decode()
    assert _Secret.value not in repr(change)


class _Quoting(Resilience):
    """A `Resilience` with a `run` of its own: the executor hands it the attempts."""

    async def run(self, tool, attempt, *, sleep=None):  # type: ignore[no-untyped-def]
        return await super().run(tool, attempt, sleep=sleep)


async def test_and_not_with_a_resilience_of_its_own_either() -> None:
    resilience = _Quoting(retry=RetrySettings(attempts=1))
    executor = Executor(ToolRegistry([connect]), resilience=resilience)
    for _ in range(5):
        call = ToolCall(name="connect", arguments={"host": "h", "blob": _Secret.value})
        await executor.run(call, ExecutionContext())
    health = executor.health.health("connect")
    assert health is not None
    assert health.last_failure is not None
    assert _Secret.value not in health.last_failure


@tool
def fine() -> str:
    """Succeed."""
    return "ok"


def _raise(*change: object) -> None:
    raise ZeroDivisionError(f"a listener's bug, told {change}")


async def test_a_listener_that_raises_neither_fails_the_call_nor_sticks_a_circuit() -> None:
    """A health listener (or a circuit's) that raises is reported; the call keeps its own
    outcome and the breaker its verdict, so a probe is not held forever."""
    now = [0.0]
    tracker = HealthTracker(min_calls=6)
    resilience = Resilience(
        breakers=BreakerSettings(consecutive_failures=5, cooldown_s=1),
        health=tracker,
        clock=lambda: now[0],
        on_change=_raise,
    )
    executor = Executor(ToolRegistry([shaky, fine]), resilience=resilience)
    tracker.listen(_raise)
    resilience.listen(_raise)
    await _run(executor, [False] * 5)  # the circuit opens
    assert executor.circuit_state("shaky") == "open"
    now[0] += 2
    _plan[:] = [True]  # the probe succeeds, and health changes on it (its sixth call)
    outcome = await executor.run(ToolCall(name="shaky", arguments={"n": 7}), ExecutionContext())
    assert outcome.result.unwrap() == 7
    assert executor.circuit_state("shaky") == "closed"
    for _ in range(6):
        outcome = await executor.run(ToolCall(name="fine"), ExecutionContext())
        assert outcome.result.unwrap() == "ok"


async def test_metrics_start_from_the_health_and_circuits_a_log_left(tmp_path: Path) -> None:
    """A new process (`toolrail serve`) replays the log: a tool that was failing, and its
    open circuit, read so from the first scrape, before any call changes them."""
    log = JsonlCallLog(tmp_path)
    executor = Executor(ToolRegistry([shaky]), sinks=[log])
    await _run(executor, [False] * 6)
    log.close()
    replayed = recorded_resilience(recent_entries(tmp_path))
    sink = PrometheusSink()
    sink.start_from(replayed)
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(sink.text().decode())
        for sample in family.samples
    }
    assert samples[("toolrail_tool_unhealthy", (("tool", "shaky"),))] == 2
    assert samples[("toolrail_circuit_open", (("breaker", "shaky"),))] == 1


class _Unprintable:
    """A listener's owner whose repr raises, as a half-built object's may."""

    def __repr__(self) -> str:
        raise ValueError("repr broke")

    def heard(self, *change: object) -> None:
        raise RuntimeError(f"a listener's bug, told {change}")


async def test_a_listener_that_cannot_even_be_named_is_reported_all_the_same() -> None:
    owner = _Unprintable()
    tracker = HealthTracker()
    resilience = Resilience(health=tracker)
    tracker.listen(owner.heard)
    resilience.listen(owner.heard)
    executor = Executor(ToolRegistry([shaky]), resilience=resilience)
    _plan[:] = [False] * 5
    for n in range(5):  # health turns failing at the fifth, and the circuit opens
        outcome = await executor.run(ToolCall(name="shaky", arguments={"n": n}), ExecutionContext())
        assert outcome.result.failure().kind == "execution_failed"
    assert executor.circuit_state("shaky") == "open"


@pytest.mark.parametrize(("failing_below", "degraded_below"), [(0.9, 0.5), (-0.1, 0.5), (0.5, 1.5)])
def test_thresholds_out_of_order_are_refused(failing_below: float, degraded_below: float) -> None:
    with pytest.raises(ValueError, match="thresholds"):
        HealthTracker(failing_below=failing_below, degraded_below=degraded_below)


class _Proxy:
    """A callable whose attributes raise what a proxy's may: not AttributeError."""

    def __getattr__(self, name: str) -> object:
        raise KeyError(name)

    def __call__(self, *change: object) -> None:
        raise RuntimeError("the proxy's target is gone")


async def test_a_listener_whose_attributes_raise_is_reported_all_the_same() -> None:
    now = [0.0]
    tracker = HealthTracker()
    resilience = Resilience(
        breakers=BreakerSettings(consecutive_failures=5, cooldown_s=1),
        health=tracker,
        clock=lambda: now[0],
    )
    proxy = _Proxy()
    tracker.listen(proxy)
    resilience.listen(proxy)
    executor = Executor(ToolRegistry([shaky]), resilience=resilience)
    await _run(executor, [False] * 5)
    assert executor.circuit_state("shaky") == "open"
    now[0] += 2
    _plan[:] = [True]
    outcome = await executor.run(ToolCall(name="shaky", arguments={"n": 5}), ExecutionContext())
    assert outcome.result.unwrap() == 5
    assert executor.circuit_state("shaky") == "closed"


async def test_a_sink_whose_attributes_raise_never_breaks_a_call() -> None:
    """The sink's failure is reported under a name found without asking the sink, as a
    listener's is (one helper names both)."""
    executor = Executor(ToolRegistry([shaky]), sinks=[_Proxy()])
    _plan[:] = [True]
    outcome = await executor.run(ToolCall(name="shaky", arguments={"n": 3}), ExecutionContext())
    assert outcome.result.unwrap() == 3


async def test_what_a_call_changes_is_told_after_the_call_has_ended() -> None:
    """A log or a UI reads a call's failure first, then what it changed: the health and
    circuit events a call causes come after its own finished event, not between its start
    and its end."""
    events: list[ToolEvent] = []
    executor = Executor(ToolRegistry([shaky]), sinks=[events.append])  # breakers on
    await _run(executor, [True] * 3 + [False] * 8)
    kinds = [type(event).__name__ for event in events]
    assert "ToolHealthChanged" in kinds
    assert "CircuitStateChanged" in kinds
    last_of_a_call = None
    for kind in kinds:
        if kind in ("ToolStarted", "ToolCompleted", "ToolFailed"):
            last_of_a_call = kind
        elif kind in ("ToolHealthChanged", "CircuitStateChanged"):
            assert last_of_a_call == "ToolFailed", kinds


async def test_the_last_circuit_state_told_is_the_circuits_own_under_concurrent_calls() -> None:
    """A probe that succeeds with an output too long (cut, which awaits) while another call
    fails meanwhile: the changes are told in the order they happened, so the last state a
    sink hears is the circuit's state."""
    now = [0.0]

    @tool
    async def probed(n: int) -> str:
        """Fails for n < 0; else n characters."""
        if n < 0:
            raise RuntimeError("backend down")
        return "y" * n

    shared = Resilience(
        retry=RetrySettings(attempts=1),
        breakers=BreakerSettings(consecutive_failures=1, failure_rate=None, cooldown_s=1.0),
        clock=lambda: now[0],
    )
    events: list[ToolEvent] = []
    executor = Executor(
        ToolRegistry([probed]), resilience=shared, sinks=[events.append], max_output_chars=1000
    )
    await executor.run(ToolCall(name="probed", arguments={"n": -1}), ExecutionContext())  # opens
    now[0] += 5

    closed = asyncio.Event()
    shared.listen(lambda _breaker, state: closed.set() if state == "closed" else None)

    async def failing_once_closed() -> None:
        await closed.wait()  # the probe's verdict closed the circuit; its output is cut now
        await executor.run(ToolCall(name="probed", arguments={"n": -1}), ExecutionContext())

    probe = executor.run(ToolCall(name="probed", arguments={"n": 2_000_000}), ExecutionContext())
    await asyncio.gather(probe, failing_once_closed())
    told = [event.state for event in events if isinstance(event, CircuitStateChanged)]
    assert told[-1] == executor.circuit_state("probed") == "open", told


def test_a_tool_with_fewer_calls_than_min_calls_is_not_judged() -> None:
    """Three failures are not "healthy" by judgement: `judged` says the status is a default."""
    tracker = HealthTracker(min_calls=5)
    for _ in range(3):
        tracker.record("flaky", False, 1.0, "boom")
    early = tracker.health("flaky")
    assert early is not None
    assert (early.calls, early.success_rate, early.judged) == (3, 0.0, False)
    for _ in range(2):
        tracker.record("flaky", False, 1.0, "boom")
    judged = tracker.health("flaky")
    assert judged is not None
    assert (judged.calls, judged.status, judged.judged) == (5, "failing", True)
