"""`redact` of JSON-like data, `redacts_nothing` (the same answer without a copy), and
`redact_name` for a name someone supplied."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from toolrail.core.redact.argv import (
    _ARGS_KEYS,
    _ARGS_ORDER,
    _GLUED_P_PROGRAMS,
    _PROGRAM_KEYS,
    _argv_decided,
    _entry_flag,
    _hiding_flag,
    _secret_pair,
)
from toolrail.core.redact.curl import _is_curl
from toolrail.core.redact.entries import _ENTRY_KEY_SET, _entry_values
from toolrail.core.redact.markers import MAX_DEPTH, REDACTED, TOO_DEEP
from toolrail.core.redact.names import _REMEMBERED_NAME, is_secret_key
from toolrail.core.redact.stores import _argv_values
from toolrail.core.redact.text import _STACK_RAN_OUT, redact_text


def redact(value: object, *, depth: int = 0) -> object:
    """A copy of JSON-like data with secrets replaced (see the module docstring)."""
    if depth > MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):  # JSON data: plain dicts and lists, checked without ABCs
        shown: dict[object, object] = {}
        entry_values = () if _ENTRY_KEY_SET.isdisjoint(value) else _entry_values(value)
        for key in value:
            item = value[key]
            if isinstance(key, str):
                hidden = (is_secret_key(key) or key in entry_values) and item not in (None, "")
                name = redact_name(key)
                if name != key:  # a secret written as a key: it goes, the entry stays
                    name = _unused(name, value, shown)
                shown[name] = REDACTED if hidden else redact(item, depth=depth + 1)
            else:
                shown[key] = redact(item, depth=depth + 1)
        if not _ARGS_KEYS.isdisjoint(value):
            for spawned in _spawned(value):
                _hide_spawned(shown, *spawned)
        return shown
    if isinstance(value, list | tuple):
        return _redact_argv(value, depth)
    if isinstance(value, Mapping):
        return redact(dict(value), depth=depth)
    return value


def redact_name(name: str) -> str:
    """A name someone supplied, as it may be shown: a mapping's key (a model's arguments),
    the tool a model asked for when no tool answers to it. Untrusted text, so it goes
    through `redact_text` (`sk-...` as a key, `password=...` as a tool name); the same
    names come back call after call, so short ones are remembered."""
    if len(name) > _REMEMBERED_NAME:
        return redact_text(name)
    try:
        return _redact_short_name(name)
    except _NotRemembered as answer:
        return answer.shown


@functools.lru_cache(maxsize=4096)
def _redact_short_name(name: str) -> str:
    ran_out = _STACK_RAN_OUT.count
    shown = redact_text(name)
    if _STACK_RAN_OUT.count != ran_out:  # went whole for want of stack: not for ever
        raise _NotRemembered(shown)
    return shown


class _NotRemembered(Exception):  # not an error: the answer, not to be remembered
    def __init__(self, shown: str) -> None:
        self.shown = shown


def _unused(name: str, original: Mapping[object, object], shown: Mapping[object, object]) -> str:
    """`name` (a redacted key), or `name (2)`, `(3)`, ...: a key the copy does not hold yet
    and the original does not have, so no entry is lost to another one."""
    candidate, n = name, 1
    while candidate in shown or candidate in original:
        n += 1
        candidate = f"{name} ({n})"
    return candidate


def _spawned(value: dict[object, object]) -> list[tuple[object, list[object], list[object]]]:
    """A command given as a program and its arguments apart, as spawning APIs and MCP
    server configs take it (`{"command": "gh", "args": ["secret", "set", "N", "--body",
    "X"]}`): for each list of arguments it has, its key, the arguments, and the whole argv."""
    program = next((value[key] for key in _PROGRAM_KEYS if key in value), None)
    if not isinstance(program, str):
        return []
    return [
        (key, arguments, [program, *arguments])
        for key in _ARGS_ORDER
        if isinstance(arguments := value.get(key), list)
    ]


def _hide_spawned(
    shown: dict[object, object], key: object, arguments: list[object], argv: list[object]
) -> None:
    """What a command given apart from its arguments (`_spawned`) hides in them as a whole
    argv would, its program said (`mysql -pX`, `curl -u me:X`, a store's value): the
    argv's own rules only (`_argv_decided`), each argument having been redacted alone."""
    held = shown.get(key)
    if not isinstance(held, list) or len(held) != len(arguments):
        return
    decided = _argv_decided(argv)
    if decided.keys() - {0}:  # (the program: never a value)
        shown[key] = [decided.get(at, item) for at, item in enumerate(held, start=1)]


def _redact_argv(items: list[object] | tuple[object, ...], depth: int) -> list[object]:
    """A list, where a secret-named flag (`--password`, `-token`) hides the next item, a
    pair `["Authorization", "..."]` hides its second, `curl -u user:pw` its password, and a
    command storing a secret the value (`["gh", "secret", "set", "N", "--body", "X"]`)."""
    if _secret_pair(items):  # the name is text still (`["export --password X", "..."]`)
        return [redact(items[0], depth=depth + 1), REDACTED]
    shown = _argv_decided(items)
    return [
        shown[at] if at in shown else redact(item, depth=depth + 1) for at, item in enumerate(items)
    ]


# whose `str()` is never a program's name (`{...}`, `[...]`, a number, True, False, None)
_STR_NAMES_NO_PROGRAM = frozenset({dict, list, int, float, bool, type(None)})
_KEPT = frozenset({int, float, bool, type(None)})  # what `redact` returns as it is


def redacts_nothing(value: object, depth: int = 0) -> bool:
    """Whether `redact(value)` equals `value` (of the same types), found without copying:
    False when it would replace something, and for any shape it might change (a tuple, a
    mapping that is not a dict, an argv with a flag that hides what follows, ...)."""
    if depth > MAX_DEPTH:
        return False
    kind = type(value)
    if kind in _KEPT:
        return True
    if kind is str:
        return redact_text(value) == value  # type: ignore[arg-type]
    if kind is dict:
        for key, item in value.items():  # type: ignore[attr-defined]
            if isinstance(key, str) and (
                (is_secret_key(key) and item not in (None, "")) or redact_name(key) != key
            ):
                return False
        if not _ENTRY_KEY_SET.isdisjoint(value):  # type: ignore[arg-type]
            for key in _entry_values(value):  # type: ignore[arg-type]
                if value[key] not in (None, ""):  # type: ignore[index]
                    return False
        spawned = [] if _ARGS_KEYS.isdisjoint(value) else _spawned(value)  # type: ignore[arg-type]
        for _, _, argv in spawned:
            if any(argv[at] != item for at, item in _argv_decided(argv).items()):
                return False
        return _items_redact_nothing(value.values(), depth)  # type: ignore[attr-defined]
    if kind is list:
        items: list[object] = value  # type: ignore[assignment]
        if _secret_pair(items):
            return False
        if items:  # `_redact_argv` reads the program from `str(items[0])`
            first = items[0]
            if isinstance(first, str):
                program = first.rsplit("/", 1)[-1]
                if program in _GLUED_P_PROGRAMS:
                    return False
            elif type(first) not in _STR_NAMES_NO_PROGRAM:
                return False
        if any(_hiding_flag(item) or _is_curl(item) or _entry_flag(item) for item in items):
            return False
        if _argv_values(items):
            return False
        return _items_redact_nothing(items, depth)
    # other objects come back as they are; subclasses of what `redact` rebuilds, and other
    # mappings, may not
    return not isinstance(value, str | dict | list | tuple | Mapping)


def _items_redact_nothing(items: Iterable[object], depth: int) -> bool:
    """`redacts_nothing` for each of a container's items; the leaves checked here, without
    a call per leaf."""
    for item in items:
        kind = type(item)
        if depth >= MAX_DEPTH or not (kind in _KEPT or kind is str):
            if not redacts_nothing(item, depth + 1):
                return False
        elif kind is str and redact_text(item) != item:  # type: ignore[arg-type]
            return False
    return True
