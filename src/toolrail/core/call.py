"""What a model asked for (`ToolCall`) and what came of it (`ToolOutcome`)."""

from __future__ import annotations

import types
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

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


_V = TypeVar("_V")
_new = object.__new__
_inner_value = getattr(Success, "_inner_value", None)  # returns' one slot (on BaseContainer)
_set_inner_value = (
    _inner_value.__set__ if isinstance(_inner_value, types.MemberDescriptorType) else None
)


def success(value: _V) -> Success[_V]:
    """`Success(value)` for the call path: returns' own constructor goes through two
    `__init__`s and `object.__setattr__`, about three times the cost of setting its slot."""
    if _set_inner_value is None:  # pragma: no cover - a returns laid out otherwise
        return Success(value)
    made: Success[_V] = _new(Success)
    _set_inner_value(made, value)
    return made


def _new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:16]}"


@fast_init  # made for every call a model asks for
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
