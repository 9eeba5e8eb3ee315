"""What a refusal of arguments may quote of them.

A validator sees one value and may quote it (`'S3cret' does not match ...`). Whether that
value is a secret can depend on its neighbours: the item after `--password` in an argv,
the second of `["X-Api-Key", v]`. So an issue's value is shown as the redacted copy of the
*whole* arguments shows it at the issue's path (`Quoting.at`), and the text of whatever
that copy hides is taken out of the validator's words (`without_secrets`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from toolrail.core.redact import REDACTED, redact

_TOO_DEEP = "[TOO DEEP]"  # what `redact` puts past its depth bound
_MAX_SECRET_TEXTS = 256
_SHORT_SECRET = 4  # shorter, a secret's text is replaced only where it stands alone


@dataclass(frozen=True, slots=True)
class Quoting:
    """The arguments of a refused call and their redacted copy, made once per refusal."""

    arguments: object
    redacted: object

    @classmethod
    def of(cls, arguments: object) -> Quoting:
        return cls(arguments, redact(arguments))

    def at(self, loc: Iterable[object], value: object) -> object:
        """`value`, refused at `loc`, as the arguments' redacted copy shows it; `value`
        redacted alone where `loc` does not lead through the arguments."""
        found = _follow(self.arguments, self.redacted, loc)
        return redact(value) if found is _LOST or found == _TOO_DEEP else found


_LOST = object()


def _follow(arguments: object, redacted: object, loc: Iterable[object]) -> object:
    """The redacted copy at `loc`, walking both side by side: `redact` keeps every entry of
    a mapping in order (a secret key under another name) and every item of a list. A name
    the mapping does not have is a step of the validator's own (a union's tag, pydantic's
    `function-after[...]`), not of the data: it is passed over."""
    original, shown = arguments, redacted
    for part in loc:
        if isinstance(original, Mapping) and isinstance(shown, dict):
            if part not in original:
                if isinstance(part, str):
                    continue
                return _LOST
            index = list(original).index(part)
            original, shown = original[part], list(shown.values())[index]
        elif isinstance(original, list | tuple) and isinstance(shown, list):
            if not isinstance(part, int) or not -len(original) <= part < len(original):
                return _LOST
            original, shown = original[part], shown[part]
        elif shown == REDACTED:
            return REDACTED  # inside a hidden value: all of it is hidden
        else:
            return _LOST
    return shown


def without_secrets(message: str, value: object, shown: object, *, secret: bool = False) -> str:
    """`message` (a validator's own words, which may quote what it refused) without the text
    of any secret in `value`: all of it for a secret field's value (`secret`), else what its
    redacted copy `shown` hides, in each spelling a message may give it (as it is, `repr`,
    JSON, `ascii`)."""
    texts: set[str] = set()
    if secret:
        _all_texts(value, texts)
    else:
        _hidden_texts(value, shown, texts)
    spellings = {
        spelled
        for text in texts
        for spelled in (text, repr(text)[1:-1], json.dumps(text)[1:-1], ascii(text)[1:-1])
        if spelled and spelled != REDACTED
    }
    if not spellings:
        return message
    alternatives = (
        re.escape(text)
        if len(text) >= _SHORT_SECRET
        else rf"(?<![A-Za-z0-9]){re.escape(text)}(?![A-Za-z0-9])"
        for text in sorted(spellings, key=len, reverse=True)
    )
    return re.sub("|".join(alternatives), REDACTED, message)


def _all_texts(value: object, into: set[str], depth: int = 0) -> None:
    """Every key's and leaf's text in `value` (bounded in count and depth)."""
    if len(into) >= _MAX_SECRET_TEXTS or depth > 64:
        return
    if isinstance(value, str):
        into.add(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        into.add(str(value))
    elif isinstance(value, bytes):
        into.add(value.decode("utf-8", "replace"))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _all_texts(key, into, depth + 1)
            _all_texts(item, into, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            _all_texts(item, into, depth + 1)


def _hidden_texts(value: object, redacted: object, into: set[str], depth: int = 0) -> None:
    """The text of what `redact` hid in `value`, found by walking both side by side."""
    if len(into) >= _MAX_SECRET_TEXTS or depth > 64:
        return
    if isinstance(redacted, str) and REDACTED in redacted:
        if redacted == REDACTED or not isinstance(value, str):
            _all_texts(value, into, depth)
            return
        kept = redacted.split(REDACTED)  # `-p[REDACTED]`, `user:[REDACTED]`: what went
        at = len(kept[0]) if value.startswith(kept[0]) else 0
        for following in kept[1:]:
            end = value.find(following, at) if following else len(value)
            into.add(value[at : end if end >= 0 else len(value)])
            at = end + len(following) if end >= 0 else len(value)
    elif isinstance(redacted, dict) and isinstance(value, Mapping):
        # `redact` keeps every entry, in order, each under its key as it shows it
        for (key, original), (shown, item) in zip(value.items(), redacted.items(), strict=False):
            if shown != key and isinstance(key, str):  # a secret written as a key
                _hidden_texts(key, shown, into, depth + 1)
            _hidden_texts(original, item, into, depth + 1)
    elif isinstance(redacted, list) and isinstance(value, list | tuple):
        for original, item in zip(value, redacted, strict=False):
            _hidden_texts(original, item, into, depth + 1)
