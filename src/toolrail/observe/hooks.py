"""The orchestrator's observability hook: something around each agent's stretch of turns.

`Orchestrator(..., observer=...)` enters `observer.invoke_agent(agent, ctx)` before an
agent's turns and leaves it after them; the tool calls of those turns run inside it, so a
tracer that makes its span current there (`toolrail.observe.otel.OtelSink`) parents their
spans. Before leaving, the orchestrator calls what it yielded with how the stretch ended.
No dependency here: `import toolrail` stays free of OpenTelemetry.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from toolrail.core.context import ExecutionContext

AgentEnded = Callable[[str, str, int, int], None]
"""Told how the stretch ended: `(kind, detail, turns, tool_calls)`; `kind` is "completed"
(the agent's task is done) or the run's end kind ("model_error", "max_turns", ...)."""

FAILED_ENDS = frozenset({"model_error", "max_turns", "max_tool_calls"})
"""End kinds that mean the agent failed, as opposed to finishing or pausing."""


class AgentObserver(Protocol):
    """Observes agents' stretches of turns (an `invoke_agent` span per stretch, say)."""

    def invoke_agent(
        self, agent: str, ctx: ExecutionContext[Any]
    ) -> AbstractContextManager[AgentEnded]: ...
