"""One `HealthTracker` recorded into from several threads (executors on their own event
loops sharing a `Resilience`) keeps true counts: of the calls, and of the failures in its
window."""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable

from toolrail.resilience import HealthTracker


def in_threads(work: Callable[[int], None], count: int = 4) -> None:
    """`work(n)` on `count` threads at once, switching between any two steps."""
    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(n,)) for n in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switching)


def test_failures_counted_from_many_threads_match_the_window() -> None:
    tracker = HealthTracker(window=20, min_calls=1)

    def record(seed: int) -> None:
        rnd = random.Random(seed)
        for _ in range(50_000):
            tracker.record("flaky", rnd.random() < 0.7, 1.0, "boom")

    in_threads(record)
    for _ in range(20):  # the whole window again, all successes: nothing failed in it
        tracker.record("flaky", True, 1.0, None)
    health = tracker.health("flaky")
    assert health is not None
    assert health.calls == 20
    assert health.success_rate == 1.0  # a count drifted by a race stays above zero


def test_first_calls_of_a_tool_from_many_threads_are_all_counted() -> None:
    tracker = HealthTracker()
    tools = [f"tool_{n}" for n in range(2_000)]

    def record(_: int) -> None:
        for name in tools:
            tracker.record(name, True, 1.0, None)

    in_threads(record)
    counted = [tracker.health(name) for name in tools]
    assert all(health is not None and health.calls == 4 for health in counted)
