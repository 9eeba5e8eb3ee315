"""`EventRoutes`: how the stream handler and the OTel sink find their method for an event."""

from __future__ import annotations

from typing import Any

import pytest

from toolrail.recording.events import (
    CircuitStateChanged,
    EventRoutes,
    ToolCompleted,
    ToolFailed,
    ToolRegistered,
    ToolStarted,
)


class Taker:
    def __init__(self) -> None:
        self.took: list[tuple[str, object]] = []

    def started(self, event: Any) -> None:
        self.took.append(("started", event))

    def finished(self, event: Any) -> None:
        self.took.append(("finished", event))


ROUTES: EventRoutes[Taker] = EventRoutes(
    (ToolStarted, Taker.started), ((ToolCompleted, ToolFailed), Taker.finished)
)


def test_an_event_goes_to_its_kinds_method_also_a_subclass_and_other_events_are_ignored() -> None:
    class LateFailure(ToolFailed):  # a subclass goes where its class goes
        pass

    taker = Taker()
    for kind in (ToolStarted, ToolFailed, LateFailure, ToolRegistered, CircuitStateChanged):
        ROUTES[kind](taker, kind)
    assert taker.took == [
        ("started", ToolStarted),
        ("finished", ToolFailed),
        ("finished", LateFailure),
    ]
    assert ROUTES[LateFailure] is Taker.finished  # remembered for its exact type


def test_something_that_is_no_tool_event_is_an_error() -> None:
    with pytest.raises(TypeError, match="not a tool event: dict"):
        ROUTES[dict]
