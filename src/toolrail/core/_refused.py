"""What a refusal of arguments may quote of them.

A validator sees one value and may quote it (`'S3cret' does not match ...`). Whether that
value is a secret can depend on its neighbours: the item after `--password` in an argv,
the second of `["X-Api-Key", v]`. So an issue's value is shown as the redacted copy of the
*whole* arguments shows it at the issue's path (`Quoting.at`), and the text of whatever
that copy hides is taken out of the validator's words (`without_secrets`). A validator
of the tool's own may also quote *other* fields (pydantic's `info.data`): its words lose
the text of whatever the copy hides anywhere (`Quoting.hidden`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from toolrail.core.redact import MAX_DEPTH, REDACTED, TOO_DEEP, redact, redact_name

_MAX_SECRET_TEXTS = 256
_SHORT_SECRET = 8  # shorter, a secret's text is replaced only where it stands alone
_WINDOW = 1_000_000  # of a validator's message: more is never shown (`ArgumentIssue` cuts)
_WITHHELD = "(its wording is withheld: it quotes values that are hidden)"


class Quoting:
    """The arguments of a refused call: what an issue at a path may quote of them."""

    __slots__ = ("_hidden", "arguments")

    def __init__(self, arguments: object) -> None:
        self.arguments = arguments
        self._hidden: frozenset[str] | None = None

    def hidden(self) -> frozenset[str]:
        """The text of everything the arguments' redacted copy hides, anywhere in them:
        what a validator's own words must not quote, whichever field it quotes. Made once,
        when first asked (it costs the size of the arguments)."""
        if self._hidden is None:
            texts: set[str] = set()
            _hidden_texts(self.arguments, redact(self.arguments), texts)
            self._hidden = frozenset(texts)
        return self._hidden

    def at(self, loc: Iterable[object], value: object) -> object:
        """`value`, refused at `loc`, as the arguments' redacted copy shows it there; the
        arguments along the way are redacted with it, so its neighbours count (only their
        plain values: a sibling's subtree cannot make it a secret). A key refused at its
        mapping is shown as a name is; a value the arguments do not hold at `loc` (data
        reshaped by a validator) is not shown at all."""
        steps = _walk(self.arguments, loc)
        if steps is None:
            return REDACTED
        node = steps[-1][0] if steps else self.arguments
        if not _same(node, value):
            if isinstance(value, str) and (
                (isinstance(node, Mapping) and value in node)  # `propertyNames`
                or (steps and steps[-1][2] == value)  # a key's validator: `env.K.[key]`
            ):
                return redact_name(value)  # a key, shown as every name is
            return REDACTED
        pruned, indices = _pruned(self.arguments, steps)
        shown = redact(pruned)
        for index in indices:
            if isinstance(shown, dict):
                shown = next(iter(shown.values()))  # the one entry kept (its key may be renamed)
            elif isinstance(shown, list):
                shown = shown[index]
            else:  # inside a value hidden whole, or past redaction's depth bound
                return REDACTED
        return REDACTED if shown == TOO_DEEP else shown


def _walk(arguments: object, loc: Iterable[object]) -> list[tuple[object, int, object]] | None:
    """The nodes along `loc`, each with its key and (in a list) position; None where `loc`
    leaves the arguments. A name the node does not have is a step of the validator's own
    (a union member, `function-after[...]`, a discriminator's tag), not of the data: it
    is passed over. Deeper than `redact` looks is None too (nothing there is shown)."""
    steps: list[tuple[object, int, object]] = []
    node = arguments
    for part in loc:
        if len(steps) > MAX_DEPTH:
            return None
        if isinstance(node, Mapping) and part in node:
            index = 0  # a mapping is walked by key (`_pruned` keeps that entry alone)
            node = node[part]
        elif isinstance(node, list | tuple) and type(part) is int:
            if not -len(node) <= part < len(node):
                return None
            index = part % len(node)
            node = node[part]
        elif isinstance(part, str):
            continue
        else:
            return None
        steps.append((node, index, part))
    return steps


def _same(node: object, value: object) -> bool:
    try:
        return node is value or bool(node == value)
    except Exception:  # an `__eq__` of its own that raises
        return False


def _pruned(arguments: object, steps: list[tuple[object, int, object]]) -> tuple[object, list[int]]:
    """The arguments cut to what can decide the refused value's redaction, and its place in
    them: along the path, a mapping keeps only the entry on it (a value's redaction depends
    on its own key alone); a list keeps its first item (a program's name) and the item
    before the one on the path (a flag), padded so that no list of two (a pair) is made
    that was not one; the value stays whole. Its cost is the path's, not the arguments'."""
    if not steps:
        return arguments, []
    (child, index, key), rest = steps[0], steps[1:]
    inner, indices = _pruned(child, rest)
    if isinstance(arguments, Mapping):
        return {key: inner}, [0, *indices]
    assert isinstance(arguments, list | tuple)
    if len(arguments) <= 3:
        kept = [inner if at == index else _plain(item) for at, item in enumerate(arguments)]
        return kept, [index, *indices]
    first = inner if index == 0 else _plain(arguments[0])
    if index <= 1:
        return [first, inner if index == 1 else None, None], [index, *indices]
    return [first, None, _plain(arguments[index - 1]), inner], [3, *indices]


def _plain(value: object) -> object:
    return None if isinstance(value, Mapping | list | tuple) else value


def without_secrets(
    message: str,
    value: object,
    shown: object,
    *,
    secret: bool = False,
    elsewhere: frozenset[str] = frozenset(),
) -> str:
    """`message` (a validator's own words, which may quote what it refused) without the text
    of any secret in `value`: all of it for a secret field's value (`secret`), else what its
    redacted copy `shown` hides, in each spelling a message may give it (as it is, `repr`,
    JSON, `ascii`); and without the `elsewhere` texts (`Quoting.hidden`, for words that may
    quote other fields). Past what can be found (too many hidden values), the words are
    withheld."""
    texts: set[str] = set(elsewhere)
    if secret:
        _all_texts(value, texts)
    else:
        _hidden_texts(value, shown, texts)
    if not texts:
        return message
    if len(texts) >= _MAX_SECRET_TEXTS:
        return _WITHHELD
    message = message[:_WINDOW]
    spellings = {
        spelled
        for text in texts
        for spelled in (text, repr(text)[1:-1], json.dumps(text)[1:-1], ascii(text)[1:-1])
        if spelled and spelled != REDACTED
    }
    # as a model's settings may have changed it before a validator quoted it
    # (`str_to_lower`, `str_strip_whitespace`): found regardless of case and outer spaces
    spellings = {spelled.strip() or spelled for spelled in spellings}
    for text in sorted(spellings, key=len, reverse=True):
        message = _replaced(message, text)
    return message


def _replaced(message: str, text: str) -> str:
    """`message` with `text` replaced: anywhere when it is long, else only where it stands
    alone (a short value hidden by its context, `mail`, is not taken out of `email`)."""
    alone = len(text) < _SHORT_SECRET
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


def _all_texts(value: object, into: set[str], depth: int = 0) -> None:
    """Every key's and leaf's text in `value` (bounded in count and depth)."""
    if len(into) >= _MAX_SECRET_TEXTS or depth > MAX_DEPTH:
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
    if len(into) >= _MAX_SECRET_TEXTS or depth > MAX_DEPTH:
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
