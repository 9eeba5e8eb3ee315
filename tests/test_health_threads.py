"""One `HealthTracker` recorded into from several threads (executors on their own event
loops sharing a `Resilience`) keeps true counts: of the calls, and of the failures in its
window."""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable

import pytest

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


def test_the_last_status_told_is_the_status_now() -> None:
    """Changes made on several threads are told in the order they were made: a listener
    (a metrics gauge, a UI) is never left with a status the tool no longer has."""
    for _ in range(20):
        heard, now = flipped_from_many_threads()
        assert heard[-1] == now


def flipped_from_many_threads() -> tuple[list[str], str]:
    """What a listener heard of a tool flipping between failing and healthy on four
    threads, and its status at the end."""
    tracker = HealthTracker(window=1, min_calls=1)
    heard: list[str] = []
    tracker.listen(lambda health: heard.append(health.status))

    def flip(n: int) -> None:
        for step in range(2_000):
            tracker.record("flaky", (step + n) % 2 == 0, 1.0, "boom")

    in_threads(flip)
    now = tracker.health("flaky")
    assert now is not None
    return heard, now.status


@pytest.mark.parametrize("window", [1, 2, 3])
def test_small_windows_keep_true_counts_from_many_threads(window: int) -> None:
    tracker = HealthTracker(window=window, min_calls=1)

    def record(seed: int) -> None:
        rnd = random.Random(seed)
        for _ in range(20_000):
            tracker.record("flaky", rnd.random() < 0.5, 1.0, "boom")

    in_threads(record)
    for _ in range(window):
        tracker.record("flaky", True, 1.0, None)
    health = tracker.health("flaky")
    assert health is not None
    assert health.success_rate == 1.0
