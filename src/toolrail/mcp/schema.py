"""Validation of a server's input schema whose regular expressions cannot stall the loop.

jsonschema checks `pattern` with Python's backtracking `re`: a server's `^(a+)+$` and a
model's long near-match hold the event loop for minutes. Here `pattern` and
`patternProperties` are matched by jsonschema-rs's Rust engines (linear, or
backtracking under a step limit), as its fast path already does.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import jsonschema_rs

from toolrail.core.params import JsonSchemaParameters


class ServerSchemaParameters(JsonSchemaParameters):
    """`JsonSchemaParameters` whose slow path (the one that words issues) is ReDoS-safe."""

    __slots__ = ()

    def __post_init__(self) -> None:
        JsonSchemaParameters.__post_init__(self)
        import jsonschema

        base = jsonschema.validators.validator_for(
            self.schema, default=jsonschema.Draft202012Validator
        )
        safe = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
            base, {"pattern": _pattern, "patternProperties": _pattern_properties}
        )
        object.__setattr__(self, "_validator", safe(self.schema))


@functools.lru_cache(maxsize=512)
def _matcher(pattern: str) -> Any:
    try:
        return jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
    except Exception:  # a pattern Rust cannot take: the server checks its own input
        return None


def _search(pattern: str, text: str) -> bool:
    matcher = _matcher(pattern)
    if matcher is None:
        return True
    try:
        return bool(matcher.is_valid(text))
    except Exception:  # e.g. a backtracking limit reached: undecided, so not refused here
        return True


def _pattern(validator: Any, pattern: str, instance: object, schema: object) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, str(instance)):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: object, schema: object
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    assert isinstance(instance, dict)
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)
