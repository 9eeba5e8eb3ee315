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

import contextlib
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, get_args

import pydantic

from toolrail.core.hidden import read_arguments
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
    list items, `anyOf` options such as `Optional[SecretStr]`, `$defs` and local `$ref`s).
    A property holding secrets (`dict[str, SecretStr]`, `list[SecretStr]`) is secret whole.
    Never raises: a schema it cannot read declares nothing."""
    found: set[str] = set()
    try:
        _walk(schema, schema, found, set(), 0)
    except Exception:
        return frozenset()
    return frozenset(found)


_CONTAINED = ("items", "additionalProperties", "prefixItems", "anyOf", "oneOf", "allOf")


def _subschemas(node: Mapping[str, object], *, defs: bool) -> list[object]:
    """The schemas `node` holds besides its named properties (with `defs`, its `$defs`)."""
    found: list[object] = []
    for key in _CONTAINED:
        sub = node.get(key)
        found.extend(sub if isinstance(sub, list) else [sub])
    for key in ("patternProperties", "$defs", "definitions") if defs else ("patternProperties",):
        sub = node.get(key)
        if isinstance(sub, Mapping):
            found.extend(sub.values())
    return found


def _walk(
    node: object, root: Mapping[str, object], found: set[str], seen: set[int], depth: int
) -> None:
    node = _resolved(node, root)
    if depth > MAX_DEPTH or not isinstance(node, Mapping) or id(node) in seen:
        return
    seen.add(id(node))  # each schema once: a recursive `$ref` is read one time
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        for name, sub in properties.items():
            if isinstance(name, str) and _declares_secret(sub, root, set(), depth + 1):
                found.add(name)
            _walk(sub, root, found, seen, depth + 1)
    for sub in _subschemas(node, defs=True):
        _walk(sub, root, found, seen, depth + 1)


def _declares_secret(node: object, root: Mapping[str, object], seen: set[int], depth: int) -> bool:
    """The property's schema says it is written, never read back; or one of its options,
    or what it holds (items, values), says so."""
    node = _resolved(node, root)
    if depth > MAX_DEPTH or not isinstance(node, Mapping) or id(node) in seen:
        return False
    seen.add(id(node))
    if node.get("writeOnly") is True or node.get("format") == "password":
        return True
    return any(
        _declares_secret(sub, root, seen, depth + 1) for sub in _subschemas(node, defs=False)
    )


def _resolved(node: object, root: Mapping[str, object]) -> object:
    """`node`, or what its local `$ref` (`#/$defs/Name`) points at."""
    if not isinstance(node, Mapping):
        return node
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#"):
        return node
    target: object = root
    for part in ref[1:].split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or part not in target:
            return node
        target = target[part]
    return target


def model_names(model: type[pydantic.BaseModel], names: frozenset[str]) -> frozenset[str]:
    """`names` (read from the model's schema, where a field is spelled by its alias) with
    every other spelling a request may use for those fields: the field's own name
    (`populate_by_name`) and each of its validation aliases (`AliasChoices`)."""
    found = set(names)
    with contextlib.suppress(Exception):  # a model it cannot read: its schema's names stay
        _spellings(model, names, found, set())
    return frozenset(found)


def _spellings(
    model: type[pydantic.BaseModel], names: frozenset[str], found: set[str], seen: set[type]
) -> None:
    if model in seen:
        return
    seen.add(model)
    for name, info in model.model_fields.items():
        spelled = {name, *_aliases(info.alias), *_aliases(info.validation_alias)}
        if spelled & names:
            found.update(spelled)
        for inner in _models_in(info.annotation, 0):
            _spellings(inner, names, found, seen)


def _aliases(alias: object) -> list[str]:
    if isinstance(alias, str):
        return [alias]
    if isinstance(alias, pydantic.AliasChoices):
        return [s for choice in alias.choices for s in _aliases(choice)]
    if isinstance(alias, pydantic.AliasPath) and alias.path and isinstance(alias.path[0], str):
        return [alias.path[0]]
    return []


def _models_in(annotation: object, depth: int) -> list[type[pydantic.BaseModel]]:
    """The pydantic models an annotation holds (`Vault`, `list[Vault]`, `Vault | None`)."""
    if depth > MAX_DEPTH:
        return []
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg, depth + 1)]


def masked(arguments: object, names: frozenset[str]) -> Any:
    """`arguments` (JSON text or data) with the value under each of `names`, at any depth,
    `Masked`; as given when no name is declared. Text that cannot be read (cut off, not
    JSON) is masked whole: what in it is secret is not known."""
    if not names or arguments is None:
        return arguments
    try:
        if isinstance(arguments, str | bytes):
            read = read_arguments(arguments)
            if isinstance(read, str | bytes):  # no JSON: all of it may be the secret
                return Masked(arguments)
            arguments = read
        return _masked(arguments, names, 0)
    except Exception:  # arguments whose own code raises when read: shown as nothing
        return Masked(arguments)


def unmasked(value: object, depth: int = 0) -> Any:
    """`value` with each `Masked` back to its value: a person's edit of an approval request
    copies what it was shown, and the tool must get what the model sent."""
    if isinstance(value, Masked):
        return value.get_secret_value()
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, dict):
        return {key: unmasked(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [unmasked(item, depth + 1) for item in value]
    return value


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
