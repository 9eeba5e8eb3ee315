"""Failing fast and recovering: circuit breakers, retries for tools safe to repeat, and
per-tool health.

Breakers are hand-rolled: the libraries (pybreaker, aiobreaker, purgatory) count raised
exceptions, while our failures are values, and we need an injectable clock and a way to
hide an open circuit's tool from discovery. Retries use tenacity (backoff with jitter,
an injectable sleep) on Results rather than exceptions.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

import tenacity
from returns.result import Failure, Result, Success

from toolrail.core.errors import (
    CircuitOpen,
    ExecutionFailed,
    InternalError,
    TimedOut,
    ToolError,
    TransportError,
)

State = Literal["closed", "open", "half_open"]


def is_breakage(error: ToolError) -> bool:
    """Failures of the machinery, not of the model's request: these trip breakers and
    may be retried."""
    match error:
        case TimedOut() | TransportError() | InternalError():
            return True
        case ExecutionFailed(model_can_fix=False):
            return True
        case _:
            return False


@dataclass(frozen=True, slots=True, kw_only=True)
class BreakerSettings:
    consecutive_failures: int = 5
    failure_rate: float | None = 0.5
    """Open when this share of the last `window` calls failed (once `min_calls` were made)."""
    window: int = 20
    min_calls: int = 10
    cooldown_s: float = 30.0


@dataclass
class CircuitBreaker:
    """closed → open (after N consecutive failures or a failure rate) → half-open (one probe
    after the cool-down) → closed on success, open again on failure."""

    name: str
    settings: BreakerSettings = field(default_factory=BreakerSettings)
    clock: Callable[[], float] = time.monotonic
    state: State = "closed"
    _consecutive: int = 0
    _recent: deque[bool] = field(default_factory=deque)
    _opened_at: float = 0.0
    _probing: bool = False

    def allow(self) -> Result[None, CircuitOpen]:
        """Whether a call may go through now; in half-open state, only one probe at a time."""
        if self.state == "open":
            remaining = self._opened_at + self.settings.cooldown_s - self.clock()
            if remaining > 0:
                return Failure(
                    CircuitOpen(
                        message=f"{self.name} failed repeatedly; calls fail fast for another "
                        f"{remaining:.1f}s",
                        tool=self.name,
                        retry_after_s=remaining,
                    )
                )
            self.state = "half_open"
        if self.state == "half_open":
            if self._probing:
                return Failure(
                    CircuitOpen(message=f"{self.name} is being probed; try later", tool=self.name)
                )
            self._probing = True
        return Success(None)

    def record(self, ok: bool) -> None:
        if self.state == "half_open":
            self._probing = False
            if ok:
                self._close()
            else:
                self._open()
            return
        self._recent.append(ok)
        if len(self._recent) > self.settings.window:
            self._recent.popleft()
        self._consecutive = 0 if ok else self._consecutive + 1
        rate = self.settings.failure_rate
        failing_rate = (
            rate is not None
            and len(self._recent) >= self.settings.min_calls
            and self._recent.count(False) / len(self._recent) >= rate
        )
        if self._consecutive >= self.settings.consecutive_failures or failing_rate:
            self._open()

    @property
    def hidden(self) -> bool:
        """Open and still cooling down: its tool is not offered to models."""
        return self.state == "open" and self.clock() < self._opened_at + self.settings.cooldown_s

    def _open(self) -> None:
        self.state, self._opened_at = "open", self.clock()

    def _close(self) -> None:
        self.state, self._consecutive = "closed", 0
        self._recent.clear()


@dataclass(frozen=True, slots=True, kw_only=True)
class RetrySettings:
    attempts: int = 3
    initial_s: float = 0.2
    max_s: float = 5.0
    jitter_s: float = 0.2
    tools: frozenset[str] = frozenset()
    """Tools to retry even without a read-only or idempotent annotation."""


async def with_retries(
    attempt: Callable[[], Awaitable[Result[object, ToolError]]],
    settings: RetrySettings,
    *,
    sleep: Callable[[float], Awaitable[None]] | None = None,
) -> tuple[Result[object, ToolError], int]:
    """Run `attempt` until it succeeds, fails in a way retrying cannot help, or the
    attempts run out; returns the last result and how many attempts were made."""
    retrying = tenacity.AsyncRetrying(
        stop=tenacity.stop_after_attempt(settings.attempts),
        wait=tenacity.wait_exponential_jitter(
            initial=settings.initial_s, max=settings.max_s, jitter=settings.jitter_s
        ),
        retry=tenacity.retry_if_result(_worth_retrying),
        retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
        sleep=sleep if sleep is not None else asyncio.sleep,
    )
    attempts = 0

    async def counted() -> Result[object, ToolError]:
        nonlocal attempts
        attempts += 1
        return await attempt()

    result: Result[object, ToolError] = await retrying(counted)
    return result, attempts


def _worth_retrying(result: Result[object, ToolError]) -> bool:
    return isinstance(result, Failure) and is_breakage(result.failure())


@dataclass(frozen=True, slots=True)
class Health:
    tool: str
    calls: int
    success_rate: float
    p50_ms: float
    p95_ms: float
    last_failure: str | None


class HealthTracker:
    """Recent outcomes per tool: success rate, latency percentiles, last failure."""

    def __init__(self, window: int = 200) -> None:
        self._window = window
        self._samples: dict[str, deque[tuple[bool, float]]] = {}
        self._last_failure: dict[str, str] = {}

    def record(self, tool: str, ok: bool, duration_ms: float, failure: str | None) -> None:
        self._samples.setdefault(tool, deque(maxlen=self._window)).append((ok, duration_ms))
        if failure is not None:
            self._last_failure[tool] = failure

    def health(self, tool: str) -> Health | None:
        samples = self._samples.get(tool)
        if not samples:
            return None
        durations = sorted(d for _, d in samples)
        ok = sum(1 for good, _ in samples if good)
        return Health(
            tool,
            len(samples),
            ok / len(samples),
            durations[len(durations) // 2],
            durations[min(len(durations) - 1, int(len(durations) * 0.95))],
            self._last_failure.get(tool),
        )
