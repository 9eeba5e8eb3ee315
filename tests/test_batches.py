"""`BackgroundBatches`, the one off-the-call-path writer both recording sinks use."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import pytest

from toolrail import _batches
from toolrail._batches import BackgroundBatches


def running(name: str) -> bool:
    return name in {thread.name for thread in threading.enumerate()}


class Slow:
    """A handler that takes its time and remembers every batch it was given."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.batches: list[list[int]] = []

    def __call__(self, batch: list[int]) -> None:
        time.sleep(self.delay)
        self.batches.append(list(batch))

    @property
    def items(self) -> list[int]:
        return [item for batch in self.batches for item in batch]


def test_flush_waits_for_every_item_put_so_far() -> None:
    handler = Slow(delay=0.01)
    batches = BackgroundBatches(handler, name="test-batches", linger=0.05)
    for n in range(50):
        batches.put(n)
    assert batches.flush(timeout=10)
    assert handler.items == list(range(50))
    assert len(handler.batches) < 50  # a burst is handled in batches, not item by item
    batches.close()


def test_flush_with_nothing_put_returns_at_once() -> None:
    batches = BackgroundBatches(Slow(), name="test-batches", linger=1.0)
    started = time.monotonic()
    assert batches.flush(timeout=5)
    assert time.monotonic() - started < 0.5


def test_a_flush_cuts_the_linger_short() -> None:
    handler = Slow()
    batches = BackgroundBatches(handler, name="test-batches", linger=30.0)
    batches.put(1)
    started = time.monotonic()
    assert batches.flush(timeout=10)
    assert time.monotonic() - started < 5
    assert handler.items == [1]


def test_flush_times_out_while_a_batch_is_still_being_handled() -> None:
    release = threading.Event()

    def held(_: list[int]) -> None:
        release.wait(10)

    batches = BackgroundBatches(held, name="test-batches", linger=0.0)
    batches.put(1)
    assert not batches.flush(timeout=0.05)
    release.set()
    assert batches.flush(timeout=10)


def test_the_thread_ends_when_idle_and_the_next_put_starts_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_batches, "_IDLE_S", 0.05)
    handler = Slow()
    batches = BackgroundBatches(handler, name="test-batches-idle", linger=0.0)
    batches.put(1)
    assert batches.flush(timeout=10)
    deadline = time.monotonic() + 5
    while running("test-batches-idle") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not running("test-batches-idle")
    batches.put(2)
    assert running("test-batches-idle")
    assert batches.flush(timeout=10)
    assert handler.items == [1, 2]


def test_a_handler_that_raises_is_reported_and_later_batches_are_handled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[int] = []

    def handle(batch: list[int]) -> None:
        if 0 in batch:
            raise ValueError("no zeros")
        seen.extend(batch)

    batches = BackgroundBatches(handle, name="test-batches", linger=0.0)
    with caplog.at_level(logging.WARNING, logger="toolrail"):
        batches.put(0)
        assert batches.flush(timeout=10)  # the flush is released all the same
        batches.put(1)
        batches.put(2)
        assert batches.flush(timeout=10)
    assert seen == [1, 2]
    [record] = [r for r in caplog.records if r.name == "toolrail.batches"]
    assert record.levelno == logging.ERROR
    assert "ValueError: no zeros" in record.getMessage()
    assert "test-batches" in record.getMessage()


def test_puts_from_many_threads_are_all_handled() -> None:
    handler = Slow()
    batches = BackgroundBatches(handler, name="test-batches", linger=0.001)

    def put_some(start: int) -> None:
        for n in range(start, start + 500):
            batches.put(n)

    threads = [threading.Thread(target=put_some, args=(k * 500,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert batches.flush(timeout=10)
    assert sorted(handler.items) == list(range(4000))


def test_a_stuck_handler_holds_at_most_max_queued_items_and_drops_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An exporter or disk that hangs: memory stays bounded, the drops are counted and
    reported (not once per item), and what was queued is handled once it recovers."""
    stuck = threading.Event()
    handled: list[int] = []

    def handle(batch: list[int]) -> None:
        stuck.wait()
        handled.extend(batch)

    batches = BackgroundBatches(handle, name="test-stuck", linger=0.0, max_queued=100, stall_s=0.1)
    batches.put(-1)  # the thread takes it and hangs
    deadline = time.monotonic() + 5
    while batches._queue and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)  # stalled now: it has finished no batch for longer than stall_s
    with caplog.at_level(logging.WARNING, logger="toolrail.batches"):
        for n in range(1000):
            batches.put(n)
    assert batches.dropped == 900
    warnings = [r for r in caplog.records if "dropped" in r.getMessage()]
    assert 1 <= len(warnings) <= 11
    stuck.set()
    assert batches.flush(timeout=5)
    assert handled == [-1, *range(100)]


def test_a_burst_that_outruns_a_working_handler_loses_nothing() -> None:
    """Ten times `max_queued` put at once before a slow but working handler catches up:
    it is not stalled, so nothing is dropped (a call log on a healthy disk keeps every line)."""
    handled: list[int] = []

    def slow(batch: list[int]) -> None:
        time.sleep(0.01)
        handled.extend(batch)

    batches = BackgroundBatches(slow, name="test-burst", linger=0.0, max_queued=100, stall_s=5)
    for n in range(999):
        batches.put(n)
    assert batches.flush(timeout=10)
    assert batches.dropped == 0
    assert handled == list(range(999))


def _wait_for(condition: Callable[[], bool], seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)
    return condition()


def test_a_burst_is_handled_once_it_pauses_in_one_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """While items keep coming (each well within `linger` of the last) the thread handles
    nothing: it takes no GIL from the calls still running. Once they pause, it handles
    them all, as one batch, with no flush asked."""
    monkeypatch.setattr(_batches, "_QUIET_MAX_S", 60.0)
    handler = Slow()
    batches = BackgroundBatches(handler, name="test-quiet", linger=0.5)
    for n in range(10):
        batches.put(n)
        time.sleep(0.01)
    assert handler.batches == []
    assert _wait_for(lambda: handler.items == list(range(10)))
    assert handler.batches == [list(range(10))]


def test_items_that_never_pause_are_handled_every_quiet_max(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A steady stream is not held without end: what a `kill -9` may lose stays bounded."""
    monkeypatch.setattr(_batches, "_QUIET_MAX_S", 0.05)
    handler = Slow()
    batches = BackgroundBatches(handler, name="test-quiet-max", linger=0.5)
    for n in range(40):
        batches.put(n)
        time.sleep(0.01)
    assert handler.batches  # handled while items still came
    assert batches.flush(timeout=10)
    assert handler.items == list(range(40))
