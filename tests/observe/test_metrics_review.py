"""Metrics defects found by an outside review, each scraped over real HTTP."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import anyio
import anyio.abc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry, tool
from toolrail.core.errors import BudgetExceeded
from toolrail.observe.metrics import PrometheusSink, serve_metrics
from toolrail.policy.approvals import ApprovalRequest, Approve
from toolrail.policy.budgets import GAUGED, Budget
from toolrail.policy.gates import Gates

pytestmark = pytest.mark.anyio

Scrape = Callable[[], dict[tuple[str, tuple[tuple[str, str], ...]], float]]


@tool
def deploy(env: str) -> str:
    """Deploy to env."""
    return env


@tool
def search(q: str) -> str:
    """Search for q."""
    return q


@contextmanager
def _served(sink: PrometheusSink, **options: float) -> Iterator[tuple[int, Scrape]]:
    """`/metrics` served on a free port, and a function that scrapes and parses it."""
    server = serve_metrics(sink, port=0, **options)  # type: ignore[arg-type]
    port: int = server.server_address[1]

    def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        url = f"http://127.0.0.1:{port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            text = response.read().decode()
        return {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
        }

    try:
        yield port, scrape
    finally:
        server.shutdown()
        server.server_close()


PENDING = ("toolrail_approvals_pending", ())


async def test_calls_awaiting_an_approver_are_pending_until_answered_or_cancelled() -> None:
    """Calls waiting on an approver count as pending (under `toolrail serve` every wait for
    a person is one), until the person answers or the call is cancelled."""
    asked, answer = anyio.Event(), anyio.Event()
    waiting = 0

    async def approver(request: ApprovalRequest) -> Approve:
        nonlocal waiting
        waiting += 1
        if waiting == 5:
            asked.set()
        await answer.wait()
        return Approve()

    gates = Gates(needs_approval=("deploy",), approver=approver)
    sink = PrometheusSink(gates=gates)
    executor = Executor(ToolRegistry([deploy]), sinks=[sink], gates=gates)
    calls = [ToolCall(name="deploy", arguments={"env": "prod"}) for _ in range(5)]
    with _served(sink) as (_, scrape):

        async def five_asked_then(end: Callable[[anyio.abc.TaskGroup], None]) -> None:
            """Five calls wait for the approver, are pending, then `end` them: none is."""
            nonlocal asked, answer, waiting
            asked, answer, waiting = anyio.Event(), anyio.Event(), 0
            with anyio.fail_after(10):
                async with anyio.create_task_group() as group:
                    for call in calls:
                        group.start_soon(executor.run, call, ExecutionContext())
                    await asked.wait()
                    assert (await anyio.to_thread.run_sync(scrape))[PENDING] == 5
                    end(group)
            assert (await anyio.to_thread.run_sync(scrape))[PENDING] == 0

        await five_asked_then(lambda group: answer.set())  # the person answers
        await five_asked_then(lambda group: group.cancel_scope.cancel())  # the calls stop


def test_clients_trickling_headers_cannot_lock_a_scrape_out() -> None:
    """A connection that has not sent a whole request within `idle_timeout_s` is closed,
    however often it sends a byte: trickling clients held every slot for ever."""
    stop = threading.Event()
    with _served(PrometheusSink(), idle_timeout_s=0.5, max_connections=2) as (port, scrape):

        def trickle() -> None:
            with socket.create_connection(("127.0.0.1", port)) as held:
                try:
                    held.sendall(b"GET /metrics HTTP/1.1\r\n")
                    while not stop.wait(0.1):  # a header line well within the idle timeout
                        held.sendall(b"X-a: b\r\n")
                except OSError:
                    pass

        slow = [threading.Thread(target=trickle, daemon=True) for _ in range(2)]
        for client in slow:
            client.start()
        try:
            assert ("toolrail_tools_running", ()) in _scrape_within(scrape, 5.0, stop)
        finally:
            stop.set()
            for client in slow:
                client.join(5)


def _scrape_within(
    scrape: Scrape, seconds: float, stop: threading.Event
) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The first scrape that succeeds within `seconds` (the slow clients hold the slots
    until the server closes them)."""
    until = time.monotonic() + seconds
    while True:
        try:
            return scrape()
        except OSError:
            if time.monotonic() > until:
                raise
            stop.wait(0.05)


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


REMAINING = "toolrail_budget_remaining"
CONVERSATION = (("limit", "conversation"), ("scope", ""))


async def test_budget_gauge_reads_recent_conversations_only() -> None:
    """A conversation that spent its budget and went idle no longer holds the gauge at 0
    (it read 0 for ever); a live one still does, and is still refused."""
    clock = _Clock()
    gates = Gates(
        budget=Budget(per_conversation=3, per_tool={"search": 3}, clock=clock, forget_after_s=3600)
    )
    sink = PrometheusSink(gates=gates)
    executor = Executor(ToolRegistry([search]), sinks=[sink], gates=gates)
    old = ExecutionContext(agent="bot", conversation_id="old")
    outcomes = [
        await executor.run(ToolCall(name="search", arguments={"q": "x"}), old) for _ in range(4)
    ]
    assert isinstance(outcomes[-1].result.failure(), BudgetExceeded)
    with _served(sink) as (_, scrape):
        clock.now += 30  # still live: the gauge reads 0 and the budget refuses
        assert (await anyio.to_thread.run_sync(scrape))[(REMAINING, CONVERSATION)] == 0
        again = await executor.run(ToolCall(name="search", arguments={"q": "x"}), old)
        assert isinstance(again.result.failure(), BudgetExceeded)

        clock.now += 3600  # idle for an hour now: forgotten
        new = ExecutionContext(agent="bot", conversation_id="new")
        await executor.run(ToolCall(name="search", arguments={"q": "x"}), new)
        samples = await anyio.to_thread.run_sync(scrape)
        assert samples[(REMAINING, CONVERSATION)] == 2
        assert samples[(REMAINING, (("limit", "tool"), ("scope", "search")))] == 2


def test_idle_conversations_are_forgotten_live_ones_kept() -> None:
    """Spending is kept while a conversation makes calls, however many others come and go,
    and forgotten once it has been idle for `forget_after_s` (so memory stays bounded)."""
    clock = _Clock()
    budget = Budget(per_conversation=1, clock=clock, forget_after_s=3600)
    live = ExecutionContext(conversation_id="live")
    assert budget.consume(live, "search").value_or(False) is None
    for step in range(1000):
        clock.now += 10
        assert isinstance(budget.consume(live, "search").failure(), BudgetExceeded)
        budget.consume(ExecutionContext(conversation_id=f"c{step}"), "search")
    assert len(budget._spent) <= 362  # the last hour's
    clock.now += 3600
    assert budget.consume(live, "search").value_or(False) is None  # starts afresh


def test_budget_gauge_reads_a_bounded_number_of_conversations() -> None:
    """Only the `GAUGED` most recent conversations are read, however many are live (each
    scrape walked every conversation ever seen)."""
    budget = Budget(per_conversation=3)
    spent = ExecutionContext(conversation_id="spent")
    for _ in range(3):
        budget.consume(spent, "search")
    assert budget.remaining()[("conversation", "")] == 0
    for step in range(GAUGED):
        budget.consume(ExecutionContext(conversation_id=f"c{step}"), "search")
    assert budget.remaining()[("conversation", "")] == 2
    assert isinstance(budget.consume(spent, "search").failure(), BudgetExceeded)


def test_the_gauge_reads_the_conversations_that_called_last() -> None:
    """A long conversation that runs out after a thousand newer ones began is what the
    gauge reads: the conversations that called last, not those that began last."""
    budget = Budget(per_conversation=10)
    long = ExecutionContext(conversation_id="long")
    budget.consume(long, "search")
    for n in range(GAUGED):
        budget.consume(ExecutionContext(conversation_id=f"c{n}"), "search")
    for _ in range(9):
        budget.consume(long, "search")
    assert budget.remaining()[("conversation", "")] == 0
