"""What happens to a tool call, as a closed union of frozen events.

    ToolEvent
    ├── ToolCallRequested   the model began a call (arguments may still be streaming)
    ├── ToolStarted         arguments validated, the tool is running
    ├── ToolProgress        the tool reported progress through `ctx.report_progress`
    ├── ToolCompleted       it ended in `Success`
    ├── ToolFailed          it ended in `Failure` (carries the `ToolError`)
    ├── ToolRegistered      a tool joined a registry
    ├── ToolUnregistered    a tool left a registry
    ├── ToolDefinitionChanged  an MCP tool's definition changed after it was first seen
    ├── McpServerStateChanged  an MCP server started, broke, restarted or closed
    ├── CircuitStateChanged    a circuit breaker opened, or closed again
    └── ToolHealthChanged      a tool became degraded or failing, or healthy again

Events go to sinks: small callables that take one event. A sink that raises is reported
through the library diagnostics (`toolrail._diagnostics`) and never breaks a call; a sink
that returns an awaitable gets it run in the background under a deadline.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar, get_args

from toolrail.core._slots import constructor, fast_init
from toolrail.core.call import RawArguments, ToolOutcome
from toolrail.core.context import ExecutionContext
from toolrail.core.errors import TimedOut, ToolError
from toolrail.resilience import Health, HealthStatus


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True, kw_only=True)
class _CallEvent:
    call_id: str
    tool: str
    context: ExecutionContext = field(repr=False)
    at: datetime = field(default_factory=_now)

    @property
    def agent(self) -> str:
        return self.context.agent

    @property
    def conversation_id(self) -> str:
        return self.context.conversation_id


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallRequested(_CallEvent):
    """The model started a call; `arguments_so_far` is the partial JSON seen so far."""

    arguments_so_far: str = ""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolStarted(_CallEvent):
    """The tool is running with validated `arguments`; `description` is its one-liner."""

    arguments: RawArguments
    asked_arguments: RawArguments = None
    """The model's own arguments, when a person edited them before the call ran."""
    description: str | None = None
    source: str = "local"
    read_only: bool = False


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolProgress(_CallEvent):
    """A running tool said how far it has got."""

    progress: float
    total: float | None = None
    message: str | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCompleted(_CallEvent):
    """The call ended in `Success`; `outcome.result` holds the output."""

    outcome: ToolOutcome
    source: str = "local"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFailed(_CallEvent):
    """The call ended in `Failure(error)`; `timed_out` says whether its deadline passed."""

    outcome: ToolOutcome
    error: ToolError
    source: str = "local"

    @property
    def timed_out(self) -> bool:
        """The call ran past its deadline (`TimedOut`): for UIs and metrics, no string compare."""
        return isinstance(self.error, TimedOut)


NO_TOOL = "unknown"
"""The `source` of the finished event of a call the executor found no tool for."""

# The executor's constructors: the same as calling the class, a little cheaper (every call).
make_started = constructor(ToolStarted)
make_progress = constructor(ToolProgress)
make_completed = constructor(ToolCompleted)
make_failed = constructor(ToolFailed)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolRegistered:
    tool: str
    source: str = "local"
    at: datetime = field(default_factory=_now)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolUnregistered:
    tool: str
    source: str = "local"
    at: datetime = field(default_factory=_now)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDefinitionChanged:
    """A tool's name, description, schemas or annotations changed ("rug pull" check);
    `action` says what was done: "disabled", "needs_approval" or "accepted"."""

    tool: str
    server: str
    old_hash: str
    new_hash: str
    action: str
    at: datetime = field(default_factory=_now)


@dataclass(frozen=True, slots=True, kw_only=True)
class CircuitStateChanged:
    """A circuit breaker (a tool's, or "mcp:<server>") moved to `state`."""

    breaker: str
    state: str
    at: datetime = field(default_factory=_now)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolHealthChanged:
    """A tool's health moved to `health.status` ("healthy", "degraded", "failing"): its
    record over its recent calls (`HealthTracker` says when)."""

    tool: str
    health: Health
    at: datetime = field(default_factory=_now)

    @property
    def status(self) -> HealthStatus:
        return self.health.status


@dataclass(frozen=True, slots=True, kw_only=True)
class McpServerStateChanged:
    """An MCP server's session moved to `state` (starting, ready, broken, closed)."""

    server: str
    state: str
    detail: str = ""
    at: datetime = field(default_factory=_now)


CallEvent = ToolCallRequested | ToolStarted | ToolProgress | ToolCompleted | ToolFailed
ToolEvent = (
    CallEvent
    | ToolRegistered
    | ToolUnregistered
    | ToolDefinitionChanged
    | McpServerStateChanged
    | CircuitStateChanged
    | ToolHealthChanged
)

Sink = Callable[[ToolEvent], Awaitable[None] | None]
"""Receives every event; returning an awaitable makes it run in the background."""

_EVENT_CLASSES = get_args(ToolEvent)
R = TypeVar("R")


class EventRoutes(dict[type, Callable[[R, Any], None]], Generic[R]):
    """How a sink takes each kind of event, looked up by the event's exact type:
    `routes[type(event)](sink, event)` (a `match` of class patterns on every event, a
    chain of isinstance checks, costs a call more than a sink's own work). Filled a type
    at a time from `kinds`: an event goes to the first whose classes it is an instance of;
    any other tool event is ignored, anything else is a `TypeError`."""

    def __init__(self, *kinds: tuple[type | tuple[type, ...], Callable[[R, Any], None]]) -> None:
        super().__init__()
        self._kinds = kinds

    def __missing__(self, kind: type) -> Callable[[R, Any], None]:
        take = next((take for classes, take in self._kinds if issubclass(kind, classes)), None)
        if take is None:
            if not issubclass(kind, _EVENT_CLASSES):
                raise TypeError(f"not a tool event: {kind.__name__}")
            take = _ignored
        self[kind] = take
        return take


def _ignored(sink: object, event: ToolEvent) -> None:
    """An event of a kind the sink does not take."""
