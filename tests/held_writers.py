"""For tests of what a recording sink's queue holds: keep what its writer thread is handed
queued until a flush, and see which finished calls' contexts are still alive."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest

from toolrail import ExecutionContext, ToolCompleted, ToolEvent, ToolFailed, _batches
from toolrail._batches import BackgroundBatches


def hold(writer: BackgroundBatches[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """`writer` waits for a flush: what it is handed stays queued."""
    monkeypatch.setattr(_batches, "_QUIET_MAX_S", 60.0)
    writer._linger = 60.0


class EndedContexts:
    """A sink remembering, weakly, the context of every call that finished."""

    def __init__(self) -> None:
        self._seen: list[weakref.ref[ExecutionContext]] = []

    def __call__(self, event: ToolEvent) -> None:
        if isinstance(event, ToolCompleted | ToolFailed):
            self._seen.append(weakref.ref(event.context))

    def alive(self) -> list[ExecutionContext]:
        """Those still alive after a full collection."""
        gc.collect()
        return [context for seen in self._seen if (context := seen()) is not None]

    def __len__(self) -> int:
        return len(self._seen)
