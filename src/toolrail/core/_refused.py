"""What a refusal of arguments may quote of them.

A validator sees one value and may quote it (`'S3cret' does not match ...`). Whether that
value is a secret can depend on its neighbours: the item after `--password` in an argv,
the second of `["X-Api-Key", v]`. So an issue's value is shown as the redacted copy of the
*whole* arguments shows it at the issue's path (`Quoting.at`), and the text of whatever
that copy hides is taken out of the validator's words (`without_secrets`). A validator
of the tool's own may also quote *other* fields (pydantic's `info.data`): its words lose
the text of whatever the copy hides anywhere (`Quoting.hidden`; `toolrail.core.hidden`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from toolrail.core.hidden import NOTHING, Hidden, all_texts, hidden_by, hidden_in
from toolrail.core.redact import MAX_DEPTH, REDACTED, TOO_DEEP, redact, redact_name


class Quoting:
    """The arguments of a refused call: what an issue at a path may quote of them."""

    __slots__ = ("_hidden", "arguments")

    def __init__(self, arguments: object) -> None:
        self.arguments = arguments
        self._hidden: Hidden | None = None

    def hidden(self) -> Hidden:
        """The text of everything the arguments' redacted copy hides, anywhere in them:
        what a validator's own words must not quote, whichever field it quotes. Made once,
        when first asked (it costs the size of the arguments)."""
        if self._hidden is None:
            self._hidden = hidden_in(self.arguments)
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
    elsewhere: Hidden = NOTHING,
) -> str:
    """`message` (a validator's own words, which may quote what it refused) without the text
    of any secret in `value`: all of it for a secret field's value (`secret`), else what its
    redacted copy `shown` hides; and without the `elsewhere` texts (`Quoting.hidden`, for
    words that may quote other fields). Where that cannot be known whole, the words are
    withheld."""
    texts: set[str] = set()
    whole = all_texts(value, texts) if secret else hidden_by(value, shown, texts)
    found = Hidden(texts, sift=not secret) if whole else Hidden.ALL
    return (found | elsewhere).without(message)
