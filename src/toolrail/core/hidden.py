"""What a call's arguments hide, kept out of every other word about the call.

The one redaction policy (`toolrail.core.redact`) hides a call's secrets in its arguments:
a `password` field, the item after `--token`, a header pair's value. Words about the same
call may quote them again: a tool's exception (`login refused for bob with hunter22`),
its progress messages, its one-line description, its output in a log, a validator's
refusal. A secret of that kind carries no mark of its own there, so it is found by its
text: `hidden_texts(arguments)` is what the policy hides in them, and `without(text, ...)`
(`without_in` for JSON data) takes each of those texts out, in every spelling a message
may give it (as it is, `repr`, JSON, `ascii`), regardless of case and outer spaces.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import pydantic_core

from toolrail.core.redact import MAX_DEPTH, REDACTED, redact, redacts_nothing

MAX_TEXTS = 256
"""Past this many hidden texts, words that may quote them are withheld whole."""
WITHHELD = "(its wording is withheld: it quotes values that are hidden)"
_SHORT = 8  # shorter, a hidden text is replaced only where it stands alone
_WINDOW = 1_000_000  # of a text searched; past it a text is cut (every recorder cuts shorter)
NOTHING: frozenset[str] = frozenset()


def read_arguments(raw: object) -> object:
    """Raw arguments as data: JSON text as pydantic reads it (it allows `NaN`, `Infinity`),
    none as `{}`; text that is not JSON is no data (nothing in it can be found hidden)."""
    if isinstance(raw, str | bytes):
        try:
            return pydantic_core.from_json(raw, allow_inf_nan=True) if raw.strip() else {}
        except ValueError:
            return object()
    return {} if raw is None else raw


def hidden_texts(arguments: object) -> frozenset[str]:
    """The text of everything a call's redacted arguments hide, anywhere in them (raw JSON
    text is read first, `read_arguments`)."""
    return hidden_in(read_arguments(arguments))


def hidden_in(data: object) -> frozenset[str]:
    """`hidden_texts` of data read already. Nothing, at the cost of one look, when nothing
    is hidden; nothing, too, for data whose own code raises when it is looked at (an
    `__eq__` that raises: no JSON reads so), as the policy itself shows it."""
    try:
        if redacts_nothing(data):
            return NOTHING
        texts: set[str] = set()
        hidden_by(data, redact(data), texts)
    except Exception:
        return NOTHING
    return frozenset(texts)


def without(text: str, texts: frozenset[str] | set[str]) -> str:
    """`text` without any of `texts`; withheld whole past `MAX_TEXTS` of them."""
    if not texts or not text:
        return text
    if len(texts) >= MAX_TEXTS:
        return WITHHELD
    text = text[:_WINDOW]
    spellings = {
        spelled
        for hidden in texts
        for spelled in (hidden, repr(hidden)[1:-1], json.dumps(hidden)[1:-1], ascii(hidden)[1:-1])
        if spelled and spelled != REDACTED
    }
    # as a model's settings may have changed it before a validator quoted it
    # (`str_to_lower`, `str_strip_whitespace`): found regardless of case and outer spaces
    spellings = {spelled.strip() or spelled for spelled in spellings}
    for spelled in sorted(spellings, key=len, reverse=True):
        text = _replaced(text, spelled)
    return text


def without_in(value: object, texts: frozenset[str], depth: int = 0) -> object:
    """JSON data (`to_json_value`'s) with every string and key `without(texts)`."""
    if not texts:
        return value
    if depth > MAX_DEPTH:
        return value  # `redact` shows no more than this deep
    if isinstance(value, str):
        return without(value, texts)
    if isinstance(value, dict):
        return {
            without(key, texts) if isinstance(key, str) else key: without_in(item, texts, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [without_in(item, texts, depth + 1) for item in value]
    if isinstance(value, int | float) and not isinstance(value, bool) and str(value) in texts:
        return REDACTED
    return value


def _replaced(message: str, text: str) -> str:
    """`message` with `text` replaced: anywhere when it is long, else only where it stands
    alone (a short value hidden by its context, `mail`, is not taken out of `email`)."""
    alone = len(text) < _SHORT
    searched, sought = message.lower(), text.lower()
    if len(searched) != len(message) or len(sought) != len(text):  # a case of another length
        searched, sought = message, text
    if sought not in searched:
        return message
    parts: list[str] = []
    done = at = 0
    while (found := searched.find(sought, at)) >= 0:
        end = found + len(text)
        if alone and (_glued(message, found - 1, text[0]) or _glued(message, end, text[-1])):
            at = found + 1
            continue
        parts += (message[done:found], REDACTED)
        done = at = end
    return "".join(parts) + message[done:] if parts else message


def _glued(message: str, at: int, edge: str) -> bool:
    """Whether the character at `at` runs on from a text's word character `edge`."""
    return 0 <= at < len(message) and edge.isalnum() and message[at].isalnum()


def all_texts(value: object, into: set[str], depth: int = 0) -> None:
    """Every key's and leaf's text in `value` (bounded in count and depth)."""
    if len(into) >= MAX_TEXTS or depth > MAX_DEPTH:
        return
    if isinstance(value, str):
        into.add(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        into.add(str(value))
    elif isinstance(value, bytes):
        into.add(value.decode("utf-8", "replace"))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            all_texts(key, into, depth + 1)
            all_texts(item, into, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            all_texts(item, into, depth + 1)


def hidden_by(value: object, redacted: object, into: set[str], depth: int = 0) -> None:
    """The text of what `redact` hid in `value` (its copy `redacted`), found by walking both
    side by side."""
    if len(into) >= MAX_TEXTS or depth > MAX_DEPTH:
        return
    if isinstance(redacted, str) and REDACTED in redacted:
        if redacted == REDACTED or not isinstance(value, str):
            all_texts(value, into, depth)
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
                hidden_by(key, shown, into, depth + 1)
            hidden_by(original, item, into, depth + 1)
    elif isinstance(redacted, list) and isinstance(value, list | tuple):
        for original, item in zip(value, redacted, strict=False):
            hidden_by(original, item, into, depth + 1)
