"""One JSON encoder for everything toolrail writes: orjson, with a fallback for the rest."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Set
from typing import Any, cast, get_args

import orjson
import pydantic
from returns.result import Failure, Success

from toolrail.core.errors import ToolError
from toolrail.recording.events import ToolEvent

_EVENTS: tuple[type, ...] = get_args(ToolEvent)  # the closed union's cases

# dataclasses come to `_fallback` so that a ToolError carries its `kind`
# numpy values are turned into lists by `_fallback`, not by orjson's numpy option: that
# option makes the first unusual value anywhere import numpy (~0.1 s inside a tool call)
OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS


def _fallback(value: Any) -> Any:
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return value.tolist()  # arrays and numpy scalars, without importing numpy here
    if isinstance(value, _EVENTS):  # events have one JSON form, redacted
        from toolrail.recording.eventjson import event_data

        return event_data(cast("ToolEvent", value))
    if isinstance(value, Success | Failure):  # a Result is data, never its repr
        from toolrail.recording.eventjson import result_data

        return result_data(value)
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, ToolError):
        return {"kind": value.kind, **_fields(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _fields(value)
    if isinstance(value, Set):
        return sorted(value, key=repr)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, bytes | bytearray):
        return value.decode("utf-8", errors="replace")
    return _repr(value)


def _repr(value: object) -> str:
    """`repr(value)`; a repr that raises anything (but Ctrl-C) leaves the value's type name."""
    try:
        return repr(value)
    except KeyboardInterrupt:
        raise
    except BaseException:  # what a tool returned is still written, as what it is
        return f"<{type(value).__name__} (unrepresentable)>"


def _fields(value: Any) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.repr}


def dumps(value: object, *, indent: bool = False) -> bytes:
    """JSON bytes for any value; what JSON cannot hold is written as its `repr`."""
    options = OPTIONS | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        return orjson.dumps(value, default=_fallback, option=options)
    except (TypeError, orjson.JSONEncodeError):
        # e.g. integers beyond 64 bits, nesting deeper than orjson allows, lone surrogates
        text = _repr(value)
        if len(text) > 65_536:
            text = text[:65_536] + "…"
        return orjson.dumps(text.encode("utf-8", "replace").decode("utf-8"), option=options)


def to_json_value(value: object) -> Any:
    """The same value as plain JSON data (dicts, lists, strings, numbers, booleans, null)."""
    if value is None or type(value) in (str, bool):
        return value  # already JSON data: skip the round trip
    return orjson.loads(dumps(value))
