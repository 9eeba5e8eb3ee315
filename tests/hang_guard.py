"""A hang guard for work that must take linear time: generous, never a timing (the tests
assert none), so a backtracking pattern or a quadratic walk fails instead of stalling CI."""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType
from typing import TypeVar

T = TypeVar("T")


class _TooLong(Exception):
    pass


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise _TooLong


def finished(work: Callable[[], T], seconds: float = 20) -> list[T]:
    """`[work()]` when it returns within `seconds`; else `[]`.

    Run on the main thread under a timer signal, which interrupts a regular expression's
    search too (`re` checks for signals as it steps). A thread joined with a timeout would
    not: one search holds the GIL until it ends, however long that takes."""
    previous = signal.signal(signal.SIGALRM, _interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return [work()]
    except _TooLong:
        return []
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
