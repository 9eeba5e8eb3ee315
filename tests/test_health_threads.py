"""One `HealthTracker` recorded into from several threads (executors on their own event
loops sharing a `Resilience`) keeps a true count of the failures in its window."""

from __future__ import annotations

import random
import sys
import threading

from toolrail.resilience import HealthTracker


def test_failures_counted_from_many_threads_match_the_window() -> None:
    tracker = HealthTracker(window=20, min_calls=1)

    def record(seed: int) -> None:
        rnd = random.Random(seed)
        for _ in range(50_000):
            tracker.record("flaky", rnd.random() < 0.7, 1.0, "boom")

    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two steps
    try:
        threads = [threading.Thread(target=record, args=(seed,)) for seed in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switching)
    for _ in range(20):  # the whole window again, all successes: nothing failed in it
        tracker.record("flaky", True, 1.0, None)
    health = tracker.health("flaky")
    assert health is not None
    assert health.calls == 20
    assert health.success_rate == 1.0  # a count drifted by a race stays above zero
