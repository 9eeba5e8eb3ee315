"""A hang guard for work that must take linear time: generous, never a timing (the tests
assert none), so a backtracking pattern or a quadratic walk fails instead of stalling CI."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def finished(work: Callable[[], T], seconds: float = 20) -> list[T]:
    """`[work()]`, run on a thread, when it returns within `seconds`; else `[]`."""
    done: list[T] = []
    worker = threading.Thread(target=lambda: done.append(work()), daemon=True)
    worker.start()
    worker.join(timeout=seconds)
    return done
