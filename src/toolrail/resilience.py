"""Failing fast and recovering: circuit breakers, retries for tools safe to repeat, and
per-tool health.

Breakers are hand-rolled: the libraries (pybreaker, aiobreaker, purgatory) count raised
exceptions, while our failures are values, and we need an injectable clock and a way to
hide an open circuit's tool from discovery. Retries use tenacity (backoff with jitter,
an injectable sleep) on Results rather than exceptions.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import threading
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

import tenacity
from returns.result import Failure, Result, Success

from toolrail._diagnostics import callable_name, get_logger
from toolrail.core.errors import (
    Cancelled,
    CircuitOpen,
    ExecutionFailed,
    InternalError,
    TimedOut,
    ToolError,
    TransportError,
)
from toolrail.core.redact import redact_text
from toolrail.core.tool import AnyTool

log = get_logger("toolrail.resilience")

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


_ALLOWED: Result[None, CircuitOpen] = Success(None)


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
    _failures: int = 0
    """How many of `_recent` are failures."""
    _opened_at: float = 0.0
    _probing: bool = False
    watch: Callable[[CircuitBreaker], None] | None = field(default=None, repr=False)
    """Told whenever the state changes (the executor's list of open circuits)."""

    def refusal(self) -> CircuitOpen | None:
        """Why a call would be refused now, without taking the half-open probe: what the
        gates ask before a person is bothered with an approval."""
        if self.state == "open" and self.clock() < self._opened_at + self.settings.cooldown_s:
            return self._open_error(self._opened_at + self.settings.cooldown_s - self.clock())
        if self.state == "half_open" and self._probing:
            return CircuitOpen(message=f"{self.name} is being probed; try later", tool=self.name)
        return None

    def release(self) -> None:
        """Give back a probe whose call ended without a verdict (cancelled)."""
        self._probing = False

    def allow(self) -> Result[None, CircuitOpen]:
        """Whether a call may go through now; in half-open state, only one probe at a time.
        A `Success` in half-open state holds the probe until `record` or `release`."""
        if self.state == "open":
            remaining = self._opened_at + self.settings.cooldown_s - self.clock()
            if remaining > 0:
                return Failure(self._open_error(remaining))
            self._set("half_open")
        if self.state == "half_open":
            if self._probing:
                return Failure(
                    CircuitOpen(message=f"{self.name} is being probed; try later", tool=self.name)
                )
            self._probing = True
        return _ALLOWED

    def record(self, ok: bool) -> None:
        if ok and not self._failures and self.state == "closed":
            # nothing failing lately: a success only fills the window (its oldest entry,
            # once full, is a success too, so the window would not change)
            if len(self._recent) < self.settings.window:
                self._recent.append(True)
            self._consecutive = 0  # (0 already, unless the window holds nothing at all)
            return
        if self.state == "half_open":
            self._probing = False
            if ok:
                self._close()
            else:
                self._open()
            return
        recent = self._recent
        recent.append(ok)
        self._failures += not ok
        if len(recent) > self.settings.window:
            self._failures -= not recent.popleft()
        if ok and not self._failures:  # the common case: nothing failing lately
            self._consecutive = 0
            return
        self._consecutive = 0 if ok else self._consecutive + 1
        rate = self.settings.failure_rate
        failing_rate = (
            rate is not None
            and len(recent) >= self.settings.min_calls
            and self._failures / len(recent) >= rate
        )
        if self._consecutive >= self.settings.consecutive_failures or failing_rate:
            self._open()

    def _open_error(self, remaining: float) -> CircuitOpen:
        return CircuitOpen(
            message=f"{self.name} failed repeatedly; calls fail fast for another {remaining:.1f}s",
            tool=self.name,
            retry_after_s=remaining,
        )

    @property
    def hidden(self) -> bool:
        """Open and still cooling down: its tool is not offered to models."""
        return self.state == "open" and self.clock() < self._opened_at + self.settings.cooldown_s

    def _open(self) -> None:
        self._opened_at = self.clock()
        self._set("open")

    def _close(self) -> None:
        self._consecutive = self._failures = 0
        self._recent.clear()
        self._set("closed")

    def _set(self, state: State) -> None:
        changed, self.state = state != self.state, state
        if changed and self.watch is not None:
            self.watch(self)


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
    first: Result[object, ToolError] | None = None,
) -> tuple[Result[object, ToolError], int]:
    """Run `attempt` until it succeeds, fails in a way retrying cannot help, or the
    attempts run out; returns the last result and how many attempts were made. `first`:
    the result of a first attempt made already (tenacity is entered only after a failure)."""
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
        nonlocal attempts, first
        attempts += 1
        if first is not None:
            made, first = first, None
            return made
        return await attempt()

    result: Result[object, ToolError] = await retrying(counted)
    return result, attempts


def _worth_retrying(result: Result[object, ToolError]) -> bool:
    return type(result) is Failure and is_breakage(result.failure())


L = TypeVar("L", bound=Callable[..., None])


class Listeners(Generic[L]):
    """Whom to tell of a change: a bound method held weakly (it does not keep its object
    alive), any other callable for as long as this lives; the dead are let go in one pass
    whenever the list has doubled since the last."""

    def __init__(self) -> None:
        self._held: list[Callable[[], L | None]] = []
        self._swept_at = 8  # listeners there were after the last sweep (at least 8)

    def add(self, listener: L) -> None:
        held = self._held
        if len(held) >= self._swept_at * 2:
            held[:] = [one for one in held if one() is not None]
            self._swept_at = max(len(held), 8)
        if inspect.ismethod(listener):
            held.append(weakref.WeakMethod(listener))
        else:
            held.append(lambda: listener)

    def tell(self, *change: object) -> None:
        """Call every listener still alive with `change`, in the order they were added. A
        listener that raises is reported through the library diagnostics: it never fails
        the call whose outcome made the change, nor keeps the others from hearing of it."""
        for one in tuple(self._held):
            told = one()
            if told is not None:  # else its owner is gone
                _tell(told, *change)

    def alive(self) -> list[L]:
        """The listeners still alive, in the order they were added."""
        return [told for one in self._held if (told := one()) is not None]

    def __len__(self) -> int:
        return len(self._held)


def _tell(listener: Callable[..., None], *change: object) -> None:
    """Tell one listener of a change; its failure is reported, never the call's."""
    try:
        listener(*change)
    except Exception:
        log.exception("change listener failed", listener=callable_name(listener))


HealthStatus = Literal["healthy", "degraded", "failing"]
_RANKS: dict[HealthStatus, int] = {"healthy": 0, "degraded": 1, "failing": 2}
_BY_RANK: tuple[HealthStatus, ...] = ("healthy", "degraded", "failing")


@dataclass(frozen=True, slots=True)
class Health:
    tool: str
    calls: int
    success_rate: float
    p50_ms: float
    p95_ms: float
    last_failure: str | None
    status: HealthStatus = "healthy"
    """What the success rate says, judged by the tracker's thresholds (`HealthTracker`)."""
    judged: bool = True
    """Whether the tracker had its `min_calls` to judge from; before, `status` is
    "healthy" by default, not by judgement (0% ok over 3 calls is not judged yet)."""


HealthListener = Callable[[Health], None]
"""Told a tool's `Health` whenever its status changes."""


class _Window:
    """One tool's recent outcomes, with what is judged from them kept up to date."""

    __slots__ = ("failures", "last_failure", "samples", "status")

    def __init__(self, size: int) -> None:
        self.samples: deque[tuple[bool, float]] = deque(maxlen=size)
        self.failures = 0
        """How many of `samples` are failures."""
        self.status: HealthStatus = "healthy"
        self.last_failure: str | None = None


class HealthTracker:
    """Recent outcomes per tool (the last `window` calls): success rate, latency
    percentiles, last failure, and a status.

    A tool is "healthy", not `judged`, until it has `min_calls` calls; then "failing" while
    its success rate is below `failing_below`, "degraded" while below `degraded_below`. It
    gets back to a better status only `recover_margin` above that status's threshold (or at
    100%), so a rate near a threshold does not flap. Each change of status is told to the listeners
    (`listen`): an executor turns it into a `ToolHealthChanged` event for its sinks."""

    def __init__(
        self,
        window: int = 200,
        *,
        min_calls: int = 5,
        degraded_below: float = 0.9,
        failing_below: float = 0.5,
        recover_margin: float = 0.05,
    ) -> None:
        if not 1 <= min_calls <= window:
            raise ValueError(
                f"a health window of {window} calls never holds min_calls={min_calls}: "
                "min_calls must be between 1 and the window"
            )
        if not 0 <= failing_below <= degraded_below <= 1:
            raise ValueError(
                f"health thresholds must be 0 <= failing_below ({failing_below}) <= "
                f"degraded_below ({degraded_below}) <= 1"
            )
        self._window = window
        self.min_calls = min_calls
        self.degraded_below = degraded_below
        self.failing_below = failing_below
        self.recover_margin = recover_margin
        self._tools: dict[str, _Window] = {}
        self._lock = threading.Lock()  # the windows' counts and statuses
        self._changes = 0  # status changes made, numbered in order
        self._telling = threading.RLock()  # (a listener may record, and tell, in turn)
        self._told: dict[str, int] = {}  # the latest change told, per tool
        self._listeners = Listeners[HealthListener]()

    def listen(self, listener: HealthListener) -> None:
        """Tell `listener` of every change of a tool's status (held as `Resilience.listen`
        holds its listeners)."""
        self._listeners.add(listener)

    def listeners(self) -> list[HealthListener]:
        """Those listening still (`listen`), in the order they began."""
        return self._listeners.alive()

    def record(self, tool: str, ok: bool, duration_ms: float, failure: str | None) -> None:
        if failure is not None and not ok:  # shown in events and `tools explain`: redacted once
            failure = redact_text(failure)
        with self._lock:  # executors on other threads may record too: counts stay true
            window = self._tools.get(tool)
            if window is None:
                window = self._tools[tool] = _Window(self._window)
            samples = window.samples
            if ok and not window.failures:  # nothing failing lately: healthy, and stays so
                samples.append((True, duration_ms))
                return
            if len(samples) == samples.maxlen and not samples[0][0]:
                window.failures -= 1  # the oldest, about to leave the window, is a failure
            samples.append((ok, duration_ms))
            if not ok:
                window.failures += 1
                if failure is not None:
                    window.last_failure = failure
            if not self._judge(window):
                return
            self._changes += 1
            change, health = self._changes, self._health_of(tool, window, self.min_calls)
        with self._telling:  # in the order the changes were made: a stale one is dropped
            if change < self._told.get(tool, 0):
                return  # a later change of this tool was told already
            self._told[tool] = change
            self._listeners.tell(health)

    def _judge(self, window: _Window) -> bool:
        """Judge the window's status again; whether it changed."""
        calls = len(window.samples)
        if calls < self.min_calls:
            return False
        rate = (calls - window.failures) / calls
        now = _RANKS[window.status]
        judged = _rank(rate, self.failing_below, self.degraded_below)
        if judged < now:  # better: only once clear of the threshold (0.9 + 0.05 > 0.95)
            margin = self.recover_margin - 1e-9
            clear = _rank(rate, self.failing_below + margin, self.degraded_below + margin)
            judged = min(now, 0 if rate == 1.0 else clear)
        if judged == now:
            return False
        window.status = _BY_RANK[judged]
        return True

    def tools(self) -> list[str]:
        """The tools with calls recorded."""
        return list(self._tools)

    def health(self, tool: str) -> Health | None:
        """The tool's record over its recent calls; None before its first."""
        with self._lock:
            window = self._tools.get(tool)
            return None if window is None else self._health_of(tool, window, self.min_calls)

    @staticmethod
    def _health_of(tool: str, window: _Window, min_calls: int) -> Health | None:
        samples = window.samples
        if not samples:
            return None
        durations = [d for _, d in samples]
        return Health(
            tool,
            len(samples),
            (len(samples) - window.failures) / len(samples),
            percentile(durations, 50),
            percentile(durations, 95),
            window.last_failure,
            window.status,
            len(samples) >= min_calls,
        )


def _rank(rate: float, failing_below: float, degraded_below: float) -> int:
    return 2 if rate < failing_below else 1 if rate < degraded_below else 0


def percentile(values: Iterable[float], pct: float) -> float:
    """Nearest-rank percentile (the one `HealthTracker` and `toolrail logs stats` share).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50), percentile([1.0, 2.0, 3.0, 4.0], 95)
    (2.0, 4.0)
    """
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


BreakerListener = Callable[[str, State], None]
"""Told `(breaker name, new state)` whenever a circuit changes state."""


class Resilience:
    """Retries, circuit breakers and health for one executor, configured here and the same
    whether or not any rules are: `Executor(registry, resilience=Resilience(...))`.

    The executor wraps one invocation in `take` … `settle` (in a `try/finally`, retries
    inside): breaker ▸ retry ▸ health. The gates only *ask* a breaker (`refusal`), which
    takes nothing; the half-open probe is taken right around the call and given back in
    `finally` — so a call refused by a later gate, or cancelled, can never keep a probe.
    """

    def __init__(
        self,
        *,
        retry: RetrySettings | None = None,
        breakers: BreakerSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
        health: HealthTracker | None = None,
        on_change: BreakerListener | None = None,
    ) -> None:
        """`retry` defaults to 3 attempts for read-only or idempotent tools, `breakers` to
        `BreakerSettings()`; `Resilience.off()` switches both off."""
        self.retry = retry if retry is not None else RetrySettings()
        self.breaker_settings = breakers if breakers is not None else BreakerSettings()
        self.breakers_enabled = True
        self.clock = clock
        self.health = health if health is not None else HealthTracker()
        self.on_change = on_change
        self._listeners = Listeners[BreakerListener]()
        self._breakers: dict[str, CircuitBreaker] = {}
        self._not_closed: set[str] = set()
        self._by_tool: dict[str, tuple[frozenset[str], tuple[CircuitBreaker, ...]]] = {}

    @classmethod
    def off(cls) -> Resilience:
        """No retries and no breakers; health is still recorded."""
        plain = cls(retry=RetrySettings(attempts=1))
        plain.breakers_enabled = False
        return plain

    def breakers_for(self, tool: AnyTool) -> tuple[CircuitBreaker, ...]:
        """The tool's own breaker, and its MCP server's if it comes from one."""
        if not self.breakers_enabled:
            return ()
        cached = self._by_tool.get(tool.name)
        if cached is not None and cached[0] is tool.tags:
            return cached[1]
        keys = [tool.name, *sorted(tag for tag in tool.tags if tag.startswith("mcp:"))]
        found = tuple(self.breaker(key) for key in keys)
        self._by_tool[tool.name] = (tool.tags, found)
        return found

    def breaker(self, key: str) -> CircuitBreaker:
        """The breaker named `key` (a tool name or "mcp:<server>"), made on first use."""
        breaker = self._breakers.get(key)
        if breaker is None:
            breaker = CircuitBreaker(key, self.breaker_settings, self.clock, watch=self._watch)
            self._breakers[key] = breaker
        return breaker

    def refusal(self, tool: AnyTool) -> CircuitOpen | None:
        """Why an open circuit would refuse this tool now; takes no probe."""
        if not self._not_closed:
            return None
        for breaker in self.breakers_for(tool):
            refused = breaker.refusal()
            if refused is not None:
                return refused
        return None

    def hidden(self, tool: AnyTool) -> bool:
        """Behind an open circuit that is still cooling down: not shown to models."""
        return bool(self._not_closed) and any(b.hidden for b in self.breakers_for(tool))

    def circuits(self) -> dict[str, State]:
        """Every circuit not closed, by name: open, or half-open (probing)."""
        return {name: self._breakers[name].state for name in self._not_closed}

    @property
    def any_open(self) -> bool:
        """Whether any circuit is open or half-open."""
        return bool(self._not_closed)

    def _watch(self, breaker: CircuitBreaker) -> None:
        if breaker.state == "closed":
            self._not_closed.discard(breaker.name)
        else:
            self._not_closed.add(breaker.name)
        if self.on_change is not None:
            _tell(self.on_change, breaker.name, breaker.state)
        self._listeners.tell(breaker.name, breaker.state)

    def listen(self, listener: BreakerListener) -> None:
        """Tell `listener` of every change of state, besides `on_change`: each executor
        sharing this `Resilience` tells its own sinks. A bound method is held weakly (it
        does not keep its object alive); any other callable, for as long as this lives."""
        self._listeners.add(listener)

    def listeners(self) -> list[BreakerListener]:
        """Those listening still (`listen`), in the order they began."""
        return self._listeners.alive()

    async def run(
        self,
        tool: AnyTool,
        attempt: Callable[[], Awaitable[Result[object, ToolError]]],
        *,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> tuple[Result[object, ToolError], int]:
        """Invoke through breaker ▸ retry ▸ health; the result and the attempts made (0 if
        an open circuit refused it). The executor runs the same steps inline."""
        held = self.take(tool)
        if isinstance(held, CircuitOpen):
            return Failure(held), 0
        result: Result[object, ToolError] | None = None
        begun = time.perf_counter()
        try:
            first = await attempt()
            if type(first) is Failure and self.retries(tool):
                result, attempts = await with_retries(attempt, self.retry, sleep=sleep, first=first)
            else:
                result, attempts = first, 1
            return result, attempts
        finally:  # cancelled: no verdict, probes given back
            self.settle(tool, held, result, (time.perf_counter() - begun) * 1000)

    def take(self, tool: AnyTool) -> tuple[CircuitBreaker, ...] | CircuitOpen:
        """Before an invocation: the tool's breakers, with a half-open one's probe taken —
        or why an open circuit refuses the call. Every `take` is followed by `settle`."""
        held = self.breakers_for(tool)
        if self._not_closed:  # a closed breaker allows every call: only these are asked
            for taken, breaker in enumerate(held):
                allowed = breaker.allow()
                if type(allowed) is Failure:
                    for earlier in held[:taken]:
                        earlier.release()
                    refused: CircuitOpen = allowed.failure()
                    return refused
        return held

    def retries(self, tool: AnyTool) -> bool:
        """Whether a failed call of `tool` is tried again: it is safe to repeat."""
        return self.retry.attempts > 1 and (
            tool.annotations.safe_to_retry or tool.name in self.retry.tools
        )

    def settle(
        self,
        tool: AnyTool,
        held: tuple[CircuitBreaker, ...],
        result: Result[object, ToolError] | None,
        duration_ms: float,
    ) -> None:
        """After the invocation: its health, and each breaker's verdict; a call cancelled
        (`None`: its task was; or `Cancelled`) counts for neither and gives probes back."""
        if type(result) is Success:  # the common case, in short
            for breaker in held:
                breaker.record(True)
            self.health.record(tool.name, True, duration_ms, None)
            return
        if result is None:
            for breaker in held:
                breaker.release()
            return
        failure = result.failure() if type(result) is Failure else None
        if isinstance(failure, Cancelled):  # stopped, not judged: no health, probes given back
            for breaker in held:
                breaker.release()
            return
        verdict = failure is None or not is_breakage(failure)
        for breaker in held:
            breaker.record(verdict)
        self.health.record(
            tool.name, failure is None, duration_ms, None if failure is None else failure.message
        )
