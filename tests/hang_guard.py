"""A hang guard for work that must take linear time: generous, never a timing (the tests
assert none), so a backtracking pattern or a quadratic walk fails instead of stalling CI."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from types import FrameType
from typing import TypeVar

T = TypeVar("T")

_AGAIN_S = 0.05
"""After the deadline, the work is interrupted again this often until it stops."""


class _TooLong(BaseException):  # not an Exception: code under test catching those keeps none
    pass


def finished(work: Callable[[], T], seconds: float = 20) -> list[T]:
    """`[work()]` when it returns within `seconds`; else `[]`.

    Run on the main thread under a timer signal, which interrupts a regular expression's
    search too (`re` checks for signals as it steps). A thread joined with a timeout would
    not: one search holds the GIL until it ends, however long that takes. Once the deadline
    passes the answer is `[]` whatever the work does with the interruption (one it catches
    is repeated until it stops); a timer already armed (an outer guard's) is re-armed after."""
    fired = False

    def interrupt(signum: int, frame: FrameType | None) -> None:
        nonlocal fired
        fired = True
        raise _TooLong

    outer_left, outer_interval = signal.getitimer(signal.ITIMER_REAL)
    began = time.monotonic()
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds, _AGAIN_S)
    done: list[T] = []
    try:
        done.append(work())
    except _TooLong:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_left:  # what the outer timer had left, less what this took (at least 1 µs)
            left = max(outer_left - (time.monotonic() - began), 1e-6)
            signal.setitimer(signal.ITIMER_REAL, left, outer_interval)
    return [] if fired else done
