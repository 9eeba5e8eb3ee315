"""Secrets a tool declares: parameters whose schema says `"writeOnly": true` or
`"format": "password"` (pydantic's `SecretStr` and `SecretBytes` say both).

The redaction policy knows secrets by their names (`password`, `api_key`, ...); a declared
secret may have any name (`blob`, `material`). The executor records a call with the values
of its tool's declared secrets `masked`: the log, events, stream lines, spans, approval
requests and the outcome's call all hold a `Masked` value, which reads as `[REDACTED]` and
gives its value only to `toolrail.core.hidden` (to find it where the tool's words quote
it). The tool itself gets the value whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import orjson
import pydantic

from toolrail.core.redact import MAX_DEPTH, REDACTED


class Masked(str):
    """A declared secret's value as a record holds it: the text `[REDACTED]` (as a string,
    in JSON, in a repr), with its value for `get_secret_value()` alone (pydantic's name, so
    the walkers that reveal a `SecretStr` to `hidden` reveal this too)."""

    _value: object

    def __new__(cls, value: object) -> Masked:
        made = super().__new__(cls, REDACTED)
        made._value = value
        return made

    def get_secret_value(self) -> object:
        return self._value

    def __repr__(self) -> str:
        return repr(REDACTED)

    def __reduce__(self) -> tuple[Any, ...]:  # a copy or a pickle keeps no value
        return (str, (REDACTED,))


def secret_names(schema: Mapping[str, object]) -> frozenset[str]:
    """The names of the properties `schema` declares secret, at any depth (nested objects,
    list items, `anyOf` options such as `Optional[SecretStr]`, `$defs`)."""
    found: set[str] = set()
    _walk(schema, found, 0)
    return frozenset(found)


def _walk(node: object, found: set[str], depth: int) -> None:
    if depth > MAX_DEPTH or not isinstance(node, Mapping):
        return
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        for name, sub in properties.items():
            if isinstance(name, str) and _declares_secret(sub, depth + 1):
                found.add(name)
            _walk(sub, found, depth + 1)
    for key in ("items", "additionalProperties", "prefixItems", "anyOf", "oneOf", "allOf"):
        sub = node.get(key)
        for option in sub if isinstance(sub, list) else [sub]:
            _walk(option, found, depth + 1)
    defs = node.get("$defs")
    if isinstance(defs, Mapping):
        for sub in defs.values():
            _walk(sub, found, depth + 1)


def _declares_secret(node: object, depth: int) -> bool:
    """The property's schema, or one of its options, says it is written, never read back."""
    if depth > MAX_DEPTH or not isinstance(node, Mapping):
        return False
    if node.get("writeOnly") is True or node.get("format") == "password":
        return True
    return any(
        _declares_secret(option, depth + 1)
        for key in ("anyOf", "oneOf", "allOf")
        if isinstance(options := node.get(key), list)
        for option in options
    )


def masked(arguments: object, names: frozenset[str]) -> Any:
    """`arguments` (JSON text or data) with the value under each of `names`, at any depth,
    `Masked`; as given when no name is declared or the text is no JSON."""
    if not names or arguments is None:
        return arguments
    if isinstance(arguments, str | bytes):
        try:
            arguments = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return arguments  # no call runs with it: validation refused it
    return _masked(arguments, names, 0)


def _masked(value: object, names: frozenset[str], depth: int) -> object:
    if depth > MAX_DEPTH:
        return REDACTED  # deeper than the policy reads: shown as nothing
    if isinstance(value, Mapping):
        return {
            key: Masked(item)
            if key in names and item is not None and not isinstance(item, Masked)
            else _masked(item, names, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_masked(item, names, depth + 1) for item in value]
    return value


def model_data(model: pydantic.BaseModel) -> dict[str, Any]:
    """Validated pydantic arguments as JSON data, with each secret's value `Masked`:
    pydantic's own dump writes `**********`, a value `hidden` could then not find where a
    tool quotes it (arguments a person edited are known only this way)."""
    data: dict[str, Any] = model.model_dump(mode="json", by_alias=True)
    if not _has_secrets(type(model)):
        return data
    revealed = _revealed(data, model.model_dump(by_alias=True), 0)
    assert isinstance(revealed, dict)
    return revealed


@lru_cache(maxsize=1024)
def _has_secrets(model: type[pydantic.BaseModel]) -> bool:
    try:
        return bool(secret_names(model.model_json_schema()))
    except Exception:  # a model whose schema cannot be made: look at its values
        return True


def _revealed(data: object, python: object, depth: int) -> object:
    """`data` (JSON mode) with a secret of `python` (the same dump in Python mode) in place."""
    if depth > MAX_DEPTH:
        return data
    if isinstance(python, pydantic.SecretStr | pydantic.SecretBytes):
        value = python.get_secret_value()
        return Masked(value.decode("utf-8", "replace") if isinstance(value, bytes) else value)
    if isinstance(data, dict) and isinstance(python, dict):
        return {key: _revealed(item, python.get(key), depth + 1) for key, item in data.items()}
    if isinstance(data, list) and isinstance(python, list | tuple) and len(data) == len(python):
        return [_revealed(a, b, depth + 1) for a, b in zip(data, python, strict=True)]
    return data
