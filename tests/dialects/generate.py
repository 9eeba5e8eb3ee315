"""Hypothesis strategies for the JSON Schema subset the exports use.

hypothesis-jsonschema (0.23) no longer runs on current hypothesis, so this is its small
equivalent: every value drawn conforms to the schema (a keyword it does not know fails
loudly instead of drawing values that might not)."""

from __future__ import annotations

import operator
import string
from datetime import datetime, time
from functools import partial
from typing import Any

from hypothesis import strategies as st

_KNOWN = frozenset(
    {
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "description",
        "title",
        "default",
        "discriminator",
    }
)


# `datetimes()` imports a hypothesis module on first draw; imported deep inside a draw,
# pytest's assertion rewriting parses it there and CPython 3.11 fails ("AST constructor
# recursion depth mismatch"): import it now, at the top of the stack
st.randoms().validate()


# named functions, not lambdas: hypothesis describes lambdas by parsing their source, which
# CPython 3.11 can fail at deep in a draw ("AST constructor recursion depth mismatch")
def _utc(value: datetime | time) -> str:
    return value.isoformat() + "Z"


def _not_in(taken: frozenset[str], key: str) -> bool:
    return key not in taken


def _merge(pair: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    return {**pair[1], **pair[0]}


def _no_final_newline(text: str) -> bool:
    return not text.endswith("\n")


def _length_within(low: int, high: int | None, text: str) -> bool:
    return len(text) >= low and (high is None or len(text) <= high)


_FORMATS: dict[str, st.SearchStrategy[str]] = {
    "date-time": st.datetimes().map(_utc),
    "date": st.dates().map(str),
    "time": st.times().map(_utc),
    "uuid": st.uuids().map(str),
    "uri": st.from_regex(r"\Ahttps://[a-z]{1,8}\.example/[a-z0-9]{0,8}\Z"),
    "email": st.from_regex(r"\A[a-z]{1,8}@[a-z]{1,8}\.example\Z"),
    "binary": st.text(max_size=8),
}
_SAFE = (-(2**53) + 1, 2**53 - 1)
"""Integers every JSON peer reads exactly (RFC 7493, I-JSON)."""
_TEXT = st.text(alphabet=string.ascii_letters + string.digits + " _-", max_size=10)


def from_schema(schema: Any) -> st.SearchStrategy[Any]:
    """Values valid against `schema`."""
    if schema is True or schema == {}:
        return _any()
    if schema is False or schema == {"not": {}}:
        return st.nothing()
    assert isinstance(schema, dict), schema
    unknown = set(schema) - _KNOWN
    assert not unknown, f"cannot generate for {unknown} in {schema}"
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            rest = {k: v for k, v in schema.items() if k != key}
            return st.one_of([from_schema({**rest, **member}) for member in schema[key]])
    if "allOf" in schema:
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for member in schema["allOf"]:
            merged.update(member)
        return from_schema(merged)
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}) for k in kind])
    match kind:
        case "object":
            return _object(schema)
        case "array":
            return _array(schema)
        case "string":
            return _string(schema)
        case "integer":
            return _integer(schema)
        case "number":
            return _number(schema)
        case "boolean":
            return st.booleans()
        case "null":
            return st.none()
        case None:
            return _any()
        case _:
            raise AssertionError(f"unknown type {kind!r}")


def _any() -> st.SearchStrategy[Any]:
    return st.none() | st.booleans() | st.integers(-5, 5) | _TEXT


def _object(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    properties = schema.get("properties", {})
    required = [n for n in schema.get("required", []) if n in properties]
    optional = {n: from_schema(p) for n, p in properties.items() if n not in required}
    fixed = st.fixed_dictionaries(
        {n: from_schema(properties[n]) for n in required}, optional=optional
    )
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and extra:
        keys = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=5).filter(
            partial(_not_in, frozenset(properties))
        )
        more = st.dictionaries(keys, from_schema(extra), max_size=3)
        return st.tuples(fixed, more).map(_merge)
    return fixed


def _array(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    low = schema.get("minItems", 0)
    high = min(schema.get("maxItems", low + 3), low + 3)
    prefix = schema.get("prefixItems")
    if prefix:
        return st.tuples(*(from_schema(p) for p in prefix)).map(list)
    items = from_schema(schema.get("items", {}))
    if items.is_empty:  # a recursion closed off: only the empty array is left
        return st.just([]) if low == 0 else st.nothing()
    unique = schema.get("uniqueItems", False)
    return st.lists(items, min_size=low, max_size=high, unique_by=_key if unique else None)


def _key(value: Any) -> str:
    return repr(value)


def _string(schema: dict[str, Any]) -> st.SearchStrategy[str]:
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    fmt = schema.get("format")
    if fmt in _FORMATS and fmt != "binary":
        base = _FORMATS[fmt]
    elif "pattern" in schema:  # ECMA-262's `$` is the end, Python's also before a last \n
        base = st.from_regex(schema["pattern"]).filter(_no_final_newline)
    else:
        base = st.text(
            alphabet=string.ascii_letters + string.digits + " _-",
            min_size=low,
            max_size=high if high is not None else low + 10,
        )
    return base.filter(partial(_length_within, low, high))


def _integer(schema: dict[str, Any]) -> st.SearchStrategy[int]:
    low = schema.get("minimum")
    if "exclusiveMinimum" in schema:
        low = int(schema["exclusiveMinimum"]) + 1
    high = schema.get("maximum")
    if "exclusiveMaximum" in schema:
        high = int(schema["exclusiveMaximum"]) - 1
    step = schema.get("multipleOf")
    if step:
        lo = -1000 if low is None else low
        hi = 1000 if high is None else high
        return st.integers(-(-lo // step), hi // step).map(partial(operator.mul, step))
    return st.integers(_SAFE[0] if low is None else low, _SAFE[1] if high is None else high)


def _number(schema: dict[str, Any]) -> st.SearchStrategy[float]:
    return st.floats(
        min_value=schema.get("minimum", schema.get("exclusiveMinimum")),
        max_value=schema.get("maximum", schema.get("exclusiveMaximum")),
        exclude_min="exclusiveMinimum" in schema,
        exclude_max="exclusiveMaximum" in schema,
        allow_nan=False,
        allow_infinity=False,
    )
