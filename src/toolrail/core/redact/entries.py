"""A name/value entry (`{"name": "DB_PASSWORD", "value": ...}`): the keys that make one,
and whether its name names a secret."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from toolrail.core.redact.names import _secret_setting


def _names_a_secret_entry(
    text: str, keys: re.Pattern[str], names_a_secret: Callable[[re.Match[str]], bool]
) -> bool:
    """Whether `text` holds an entry's name key (found by `keys`, its key group looked up
    in `_ENTRY_KEYS`) whose name names a secret (`names_a_secret`, read as the pass reads
    it), and an entry's value key (or a value found with no key: an element's text): else
    the pass has nothing to hide."""
    value = named = False
    for found in keys.finditer(text):
        key = found.group("key")
        names = _ENTRY_KEYS.get(key) if key is not None else False
        if names is False:
            value = True
        elif names and not named:
            named = names_a_secret(found)
        if value and named:
            return True
    return False


# A name/value entry: a mapping holding one setting, its name under one of these keys and its
# value under one of these (Kubernetes' and ECS's `env` and Azure's app settings:
# `name`/`value`; HAR's and HTTP header lists: `name`/`value`; Postman's and AWS tags:
# `key`/`value`, `Key`/`Value`; CloudFormation: `ParameterKey`/`ParameterValue`; SSM and
# RDS parameters: `Name`/`Value`, `ParameterName`/`ParameterValue`). Each is known in every
# case (`NAME`, `nAmE`), the longer ones as a format may write them (`parameterKey`,
# `PARAMETER_KEY`): each key of a mapping is looked up once, as it is.
_ENTRY_NAMES = ("name", "key")
_ENTRY_VALUES = ("value",)
_ENTRY_PARAMETERS = {"key": True, "name": True, "value": False}


def _entry_keys() -> dict[str, bool]:
    keys: dict[str, bool] = {}
    for words, names in ((_ENTRY_NAMES, True), (_ENTRY_VALUES, False)):
        for word in words:
            for case in itertools.product(*({c.lower(), c.upper()} for c in word)):
                keys["".join(case)] = names
    for word, names in _ENTRY_PARAMETERS.items():
        for spelt in (
            "parameter" + word,
            "parameter" + word.title(),
            "Parameter" + word.title(),
            "PARAMETER" + word.upper(),
            "parameter_" + word,
            "PARAMETER_" + word.upper(),
        ):
            keys[spelt] = names
    return keys


_ENTRY_KEYS = _entry_keys()
_ENTRY_KEY_SET = frozenset(_ENTRY_KEYS)  # (a mapping holding none is looked at in C)


def _entry_values(mapping: dict[object, object]) -> tuple[object, ...]:
    """The keys of a name/value entry's value when its name names a secret: the entry is
    read as `{name: value}` would be, so its value is hidden whatever it is (the name, no
    secret, stays)."""
    named = False
    values: tuple[object, ...] = ()
    for key, item in mapping.items():
        names = _ENTRY_KEYS.get(key) if isinstance(key, str) else None
        if names is None:
            continue
        if not names:
            values += (key,)
        elif not named and isinstance(item, str):
            named = _secret_setting(item)
    return values if named else ()
