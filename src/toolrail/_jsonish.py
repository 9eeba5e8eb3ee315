"""One JSON encoder for everything toolrail writes: orjson, with a fallback for the rest."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Set
from typing import Any, cast, get_args

import orjson
import pydantic
from returns.result import Failure, Success

from toolrail.core.declared import Masked
from toolrail.core.errors import ToolError
from toolrail.core.redact import TOO_DEEP, redact_text
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
        return sorted(value, key=_repr)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, bytes | bytearray):
        return value.decode("utf-8", errors="replace")
    return _repr(value)


def message_text(value: object) -> str:
    """`str(value)` for a message that came as some other object (a tool's exception as
    its progress message); one whose `str` raises leaves its type name."""
    try:
        return str(value)
    except KeyboardInterrupt:
        raise
    except BaseException:
        return f"<{type(value).__name__} (unprintable)>"


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
    """JSON bytes for any value. What orjson cannot write (an integer beyond 64 bits, a
    lone surrogate, nesting past its limit) is made writable where it is (`json_safe`),
    not by turning the whole value into one string; only if even that fails is the value
    written as its `repr`, redacted."""
    options = OPTIONS | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        return orjson.dumps(value, default=_fallback, option=options)
    except (TypeError, orjson.JSONEncodeError):
        pass
    try:
        return orjson.dumps(json_safe(value), option=options)
    except Exception:  # e.g. an event whose own fields break its JSON form
        text = redact_text(_repr(value))
        if len(text) > 65_536:
            text = text[:65_536] + "…"
        return orjson.dumps(text.encode("utf-8", "replace").decode("utf-8"), option=options)


_MAX_DEPTH = 250  # orjson's own limit is 255 levels
_INT_RANGE = range(-(2**63), 2**64)  # what orjson writes as a number


def json_safe(value: object, depth: int = 0) -> Any:
    """`value` as JSON data orjson can write: an integer beyond 64 bits as its digits (a
    string: nothing is lost), text with lone surrogates with replacement characters, what
    lies deeper than orjson goes as `TOO_DEEP`, anything else as `dumps` shows it."""
    if depth > _MAX_DEPTH:
        return TOO_DEEP
    kind = type(value)
    if value is None or kind is bool or kind is float:
        return value
    if kind is str:
        text = cast(str, value)
        return text if text.isascii() else text.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, int):  # bool returned above; an IntEnum as its number
        return int(value) if value in _INT_RANGE else _digits(int(value))
    if isinstance(value, float):
        return float(value)
    if isinstance(value, dict):
        return {
            _key(json_safe(key, depth + 1)): json_safe(item, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [json_safe(item, depth + 1) for item in value]
    if isinstance(value, str):  # a str subclass
        return json_safe(str(value), depth)
    return json_safe(_fallback(value), depth + 1)


def _digits(number: int) -> str:
    """An integer's digits; one too long for Python to print, how long it is."""
    try:
        return str(number)
    except ValueError:  # past `sys.get_int_max_str_digits()`
        return f"<an integer of {number.bit_length()} bits>"


def _key(key: object) -> object:
    """A key as orjson takes it (`OPT_NON_STR_KEYS`): str, int, float, bool or None."""
    return key if key is None or isinstance(key, str | int | float) else str(key)


def to_json_value(value: object) -> Any:
    """The same value as plain JSON data (dicts, lists, strings, numbers, booleans, null)."""
    if value is None or type(value) in (str, bool):
        return value  # already JSON data: skip the round trip
    return orjson.loads(dumps(value))


SETTLED = frozenset({str, int, float, bool, type(None)})
"""Types whose values cannot change, and are JSON data as they are (bytes are not)."""


def as_it_is(value: object) -> object:
    """`value` as it is now, for a record a writer thread makes later (the call log's, the
    span sink's): itself if it cannot change (text, a number, None), else its JSON text now
    (bytes, made as `to_json_value` makes it; `taken` reads it back). What a tool or a
    caller changes after the call returned then changes nothing recorded. A value whose
    conversion raises anything (its own code: a `repr` ending its thread) is its type's name."""
    return value if type(value) in SETTLED else _now(dumps, value)


def taken(value: object) -> Any:
    """The JSON data of a value `as_it_is` took (its JSON text read, or `to_json_value`)."""
    return orjson.loads(value) if type(value) is bytes else to_json_value(value)


def arguments_as_they_are(raw: object) -> Any:
    """A call's arguments as they are now (`as_it_is`), for `read_arguments`: text as it
    is; plain JSON data as its JSON text (bytes, which it reads as the data); other data
    as `arguments_copied` copies it."""
    if type(raw) in SETTLED or isinstance(raw, str | bytes):
        return raw
    try:
        return orjson.dumps(raw, option=_PLAIN)
    except TypeError:  # a subclass (`Masked`), a value orjson does not write as it is
        return _copied(raw, 0)


_PLAIN = orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS


def arguments_copied(raw: object) -> Any:
    """Arguments as they are now, in their own shape: dicts and lists copied, text and
    numbers kept, a declared secret's `Masked` value (read by the writer to find what the
    arguments hide) a `Masked` of its value copied; anything else its JSON data now."""
    return _copied(raw, 0)


def _copied(raw: object, depth: int) -> Any:
    kind = type(raw)
    if kind is Masked:  # its value may be a caller's own dict: copied, masked again
        value = cast(Masked, raw).get_secret_value()
        return raw if type(value) in SETTLED else Masked(_copied(value, depth + 1))
    if kind in SETTLED or isinstance(raw, str | bytes):
        return raw
    if depth < _MAX_DEPTH:
        if kind is dict:
            items = cast("dict[object, object]", raw).items()
            return {key: _copied(item, depth + 1) for key, item in items}
        if kind is list or kind is tuple:
            return [_copied(item, depth + 1) for item in cast("list[object]", raw)]
    return _now(to_json_value, raw)


def _now(make: Callable[[object], object], value: object) -> object:
    """`make(value)`; if the value's own code raises anything (a `repr` ending its thread),
    its type's name."""
    try:
        return make(value)
    except KeyboardInterrupt:
        raise
    except BaseException:
        return f"<{type(value).__name__} (unrepresentable)>"
