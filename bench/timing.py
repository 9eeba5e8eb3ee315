"""Timing helpers shared by the benchmarks: per-call latency of async callables."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from toolrail.resilience import percentile

AsyncCall = Callable[[], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class Timing:
    name: str
    median_us: float
    p99_us: float


async def measure(
    calls: dict[str, AsyncCall],
    *,
    rounds: int = 5,
    per_round: int = 2000,
    settle: Mapping[str, Callable[[], object]] | None = None,
) -> list[Timing]:
    """Time each callable per call, interleaving rounds so drift hits all of them alike.

    `settle[name]`, untimed after each of that contender's rounds, waits for work it left
    running in the background (a call log's writer thread), so that work never lands in
    another contender's round. Its cost is measured apart (`log_throughput.py`)."""
    settle = settle or {}
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():  # warm up caches, imports and JITs of the libraries
        for _ in range(200):
            await call()
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            for name, call in calls.items():
                bucket = samples[name]
                for _ in range(per_round):
                    start = time.perf_counter_ns()
                    await call()
                    bucket.append((time.perf_counter_ns() - start) / 1000)
                if name in settle:
                    settle[name]()
    finally:
        gc.enable()
    return [_summary(name, values) for name, values in samples.items()]


async def back_to_back(
    calls: dict[str, AsyncCall],
    *,
    rounds: int = 5,
    per_round: int = 20_000,
    settle: Mapping[str, Callable[[], object]] | None = None,
) -> list[Timing]:
    """Time each callable per call as a busy program meets it: `per_round` calls back to
    back with the garbage collector on, and, timed too, `settle[name]` (the work left to
    writer threads) at the end of each round. A median of rounds; p99 is the worst round."""
    settle = settle or {}
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        for _ in range(200):
            await call()
    for _ in range(rounds):
        for name, call in calls.items():
            gc.collect()
            start = time.perf_counter_ns()
            for _ in range(per_round):
                await call()
            if name in settle:
                settle[name]()
            samples[name].append((time.perf_counter_ns() - start) / 1000 / per_round)
    return [
        Timing(name, statistics.median(values), max(values)) for name, values in samples.items()
    ]


def _summary(name: str, values: list[float]) -> Timing:
    return Timing(name, statistics.median(values), percentile(values, 99))


def report(title: str, timings: list[Timing], *, baseline: str, also: str | None = None) -> None:
    """Print a table of timings with ratios against `baseline` (and against `also`)."""
    base = next(t for t in timings if t.name == baseline)
    second = next((t for t in timings if t.name == also), None)
    extra = f" {'× ' + second.name:>16}" if second is not None else ""
    print(f"\n{title}")
    print(f"  {'':50} {'median µs':>10} {'p99 µs':>10} {'× ' + baseline:>16}{extra}")
    for t in timings:
        ratio = f" {t.median_us / second.median_us:16.2f}" if second is not None else ""
        print(
            f"  {t.name:50} {t.median_us:10.1f} {t.p99_us:10.1f} "
            f"{t.median_us / base.median_us:16.2f}{ratio}"
        )
