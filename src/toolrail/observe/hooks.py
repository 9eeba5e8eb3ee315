"""The orchestrator's observability hook: something around each agent's stretch of turns.

`Orchestrator(..., observer=...)` enters `observer.invoke_agent(agent, ctx)` before an
agent's turns and leaves it after them; the tool calls of those turns run inside it, so a
tracer that makes its span current there (`toolrail.observe.otel.OtelSink`) parents their
spans. Before leaving, the orchestrator calls what it yielded with how the stretch ended.
An observer is the application's code (or a tracer's processors): `Contained` keeps its
failures out of the run, as a sink's are kept out of a call. No dependency here:
`import toolrail` stays free of OpenTelemetry.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, Protocol

from toolrail._diagnostics import get_logger
from toolrail.core.context import ExecutionContext

log = get_logger("toolrail.observe")

AgentEnded = Callable[[str, str, int, int], None]
"""Told how the stretch ended: `(kind, detail, turns, tool_calls)`; `kind` is "completed"
(the agent's task is done), "resumed" (the calls a person decided on, run after a pause),
or the run's end kind ("model_error", "max_turns", ...)."""

FAILED_ENDS = frozenset(
    {"model_error", "max_turns", "max_tool_calls", "unknown_agent", "max_handoffs"}
)
"""End kinds that mean the agent failed, as opposed to finishing or pausing. The last two
end a stretch that could not start: control was handed to no agent of that name, or once
too often."""


class AgentObserver(Protocol):
    """Observes agents' stretches of turns (an `invoke_agent` span per stretch, say)."""

    def invoke_agent(
        self, agent: str, ctx: ExecutionContext[Any]
    ) -> AbstractContextManager[AgentEnded]: ...


def unobserved(kind: str, detail: str, turns: int, tool_calls: int) -> None:
    """What a stretch no observer watches is told of its end."""


class Contained(AbstractContextManager[AgentEnded]):
    """`observed` (an observer's stretch) with its failures reported through the library
    diagnostics, never raised into the run: entering, being told the end, leaving. The
    run's own exception still reaches the observer, and still propagates."""

    def __init__(self, observed: AbstractContextManager[AgentEnded]) -> None:
        self._observed = observed
        self._entered = False

    def __enter__(self) -> AgentEnded:
        try:
            ended = self._observed.__enter__()
        except Exception:
            log.exception("agent observer failed on entering")
            return unobserved
        self._entered = True

        def told(kind: str, detail: str, turns: int, tool_calls: int) -> None:
            try:
                ended(kind, detail, turns, tool_calls)
            except Exception:
                log.exception("agent observer failed on being told the end", end=kind)

        return told

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:  # never swallows the run's exception
        if self._entered:
            try:
                self._observed.__exit__(kind, error, traceback)
            except Exception:
                log.exception("agent observer failed on leaving")
