"""The context a tool runs in: who is calling, in which conversation, and a progress line."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ProgressCallback = Callable[[float, float | None, str | None], None]
"""Receives `(progress, total, message)` from a running tool."""


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True, kw_only=True)  # no slots: `for_call` copies its __dict__ in one go
class ExecutionContext:
    """Frozen facts about a call's surroundings; the executor adds the call id and progress.

    `call_stack` holds the ids of the calls this one runs inside, outermost first, ending
    with its own: a tool that calls other tools through the executor passes its `ctx` on.

    >>> ExecutionContext(agent="planner", permissions=frozenset({"fs:read"})).agent
    'planner'
    """

    agent: str = "default"
    permissions: frozenset[str] = frozenset()
    conversation_id: str = field(default_factory=_new_id)
    phase: str | None = None
    project_root: Path = field(default_factory=Path)
    request_id: str | None = None
    trace_id: str | None = None
    call_id: str | None = None
    call_stack: tuple[str, ...] = ()
    batch_id: str | None = None
    on_progress: ProgressCallback | None = field(default=None, repr=False, compare=False)

    def for_call(
        self, call_id: str, on_progress: ProgressCallback | None = None
    ) -> ExecutionContext:
        """This context for one call (the executor's hot path: cheaper than `replace`)."""
        copy = _new(ExecutionContext)
        fields = copy.__dict__
        fields.update(self.__dict__)
        fields["call_id"] = call_id
        if self.call_id != call_id:  # a call made from inside another call nests under it
            fields["call_stack"] = (*self.call_stack, call_id)
        if on_progress is not None:
            fields["on_progress"] = on_progress
        return copy

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell whoever is watching how far the tool has got; safe from any thread."""
        if self.on_progress is not None:
            self.on_progress(progress, total, message)


_new = object.__new__
