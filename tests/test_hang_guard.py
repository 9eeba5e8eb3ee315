"""The hang guard the linear-time tests rely on (`tests/hang_guard.py`) does fail work that
overruns: a search holding the GIL, work that swallows the interruption, an inner guard."""

from __future__ import annotations

import contextlib
import re
import time

from tests.hang_guard import finished


def test_a_backtracking_search_is_stopped() -> None:
    started = time.monotonic()
    assert finished(lambda: re.match(r"(a+)+$", "a" * 40 + "b"), seconds=0.2) == []
    assert time.monotonic() - started < 5


def test_work_that_catches_the_interruption_still_fails() -> None:
    def stubborn() -> str:
        for _ in range(10):
            with contextlib.suppress(BaseException):  # a library's catch-all
                time.sleep(0.05)
        return "done"

    assert finished(stubborn, seconds=0.1) == []  # late, whatever it made of it


def test_an_inner_guard_leaves_the_outer_one_armed() -> None:
    def outer() -> str:
        assert finished(lambda: 1, seconds=0.05) == [1]
        time.sleep(2)
        return "outer"

    assert finished(outer, seconds=0.2) == []


def test_work_within_its_time_gives_its_result() -> None:
    assert finished(lambda: 42) == [42]
