"""What a model asked for (`ToolCall`) and what came of it (`ToolOutcome`)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from returns.result import Failure, Result, Success

from toolrail.core._slots import constructor, fast_init
from toolrail.core.errors import ToolError

RawArguments = str | bytes | Mapping[str, object] | None
"""Arguments as providers deliver them: a JSON string, an already-parsed object, or nothing."""


_RESULT_CLASSES: dict[type, bool] = {Success: True, Failure: True}


def is_result(value: object) -> bool:
    """`isinstance(value, Result)`, remembered per class: `Result` is an ABC, whose checks
    cost a call path ~0.3 µs each (a subclass of `Failure` is still a `Result`)."""
    kind = type(value)
    known = _RESULT_CLASSES.get(kind)
    if known is None:
        known = isinstance(value, Result)
        if len(_RESULT_CLASSES) < 4096:
            _RESULT_CLASSES[kind] = known
    return known


def _new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:16]}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """One tool call requested by a model; `arguments` stay raw until validation."""

    name: str
    arguments: RawArguments = None
    id: str = field(default_factory=_new_call_id)


@fast_init  # made on every call
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutcome:
    """The result of one call with when it started and how long it took."""

    call: ToolCall
    result: Result[object, ToolError]
    started_at: datetime
    duration_ms: float
    attempts: int = 1
    metadata: Mapping[str, object] = field(default_factory=dict)


make_outcome = constructor(ToolOutcome)
"""The executor's constructor: the same as calling the class, a little cheaper (every call)."""
