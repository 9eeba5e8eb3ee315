"""A circuit breaker's verdicts against a plain model of its rules: the breaker keeps its
window incrementally (and skips work while nothing fails), the model recounts it whole."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolrail.resilience import BreakerSettings, CircuitBreaker


def _model_states(outcomes: list[bool], s: BreakerSettings) -> list[str]:
    """closed → open after `consecutive_failures` in a row, or once the failing share of
    the last `window` calls reaches `failure_rate` (with `min_calls` made); no cool-down
    passes in this model, so an open circuit stays open."""
    states, history, streak, state = [], [], 0, "closed"
    for ok in outcomes:
        if state == "closed":
            history.append(ok)
            recent = history[-s.window :]
            streak = 0 if ok else streak + 1
            share = recent.count(False) / len(recent)
            rate = s.failure_rate is not None and len(recent) >= s.min_calls
            if streak >= s.consecutive_failures or (rate and share >= (s.failure_rate or 0)):
                state = "open"
        states.append(state)
    return states


@settings(max_examples=300, deadline=None)
@given(
    outcomes=st.lists(st.booleans() | st.just(True), max_size=120),
    window=st.integers(1, 25),
    min_calls=st.integers(1, 25),
    consecutive=st.integers(1, 30),
    rate=st.none() | st.floats(0.05, 1.0),
)
def test_the_breaker_opens_exactly_when_its_rules_say(
    outcomes: list[bool], window: int, min_calls: int, consecutive: int, rate: float | None
) -> None:
    s = BreakerSettings(
        window=window, min_calls=min_calls, consecutive_failures=consecutive, failure_rate=rate
    )
    breaker = CircuitBreaker("t", s, clock=lambda: 0.0)
    seen = []
    for ok in outcomes:
        if breaker.state == "closed":
            breaker.record(ok)
        seen.append(breaker.state)
    assert seen == _model_states(outcomes, s)


def test_a_breaker_with_no_window_counts_only_failures_in_a_row() -> None:
    """`window=0` keeps no recent calls: a success still ends a run of failures (the short
    path for a quiet breaker used to skip that, and the next failure opened it)."""
    settings = BreakerSettings(window=0, consecutive_failures=3, failure_rate=None)
    breaker = CircuitBreaker("t", settings, clock=lambda: 0.0)
    states = []
    for ok in (False, False, True, False, True, False, False, False):
        breaker.record(ok)
        states.append(breaker.state)
    assert states == ["closed"] * 7 + ["open"]
