"""An argv written in text as a list of quoted items (`["mysql", "-pX"]` after a log's
prefix, a Python repr, a call's argument), or a program given apart from such a list (a
repr's mapping, a call's keywords, JSON cut off: `command='mysql', args=['-pX']`), hidden
as `redact` hides the list as data (`_argv_decided`), item by item where each is written."""

from __future__ import annotations

import ast
import bisect
import json
import re

from toolrail.core.redact.argv import _ARGS_ORDER, _PROGRAM_KEYS, _argv_decided
from toolrail.core.redact.held import _content
from toolrail.core.redact.reading import _with_hidden
from toolrail.core.redact.stores import _may_store

_QUOTED = r"""(?:"(?:[^"\\\n]++|\\[^\n])*+"|'(?:[^'\\\n]++|\\[^\n])*+')"""
# an item: quoted (or, at the end of the text, cut off in its quotes), or a number
_CUT = r"""(?:"(?:[^"\\\n]++|\\[^\n])*+|'(?:[^'\\\n]++|\\[^\n])*+)\Z"""
_ITEM = re.compile(rf"{_QUOTED}|{_CUT}|-?\d++(?:\.\d++)?+(?![\w.])")
_SPACE = r"[ \t\r\n]*+"
# a list whose first item is quoted, a trailing comma allowed; or cut off with the text
_LISTED = re.compile(
    rf"\[{_SPACE}(?:{_QUOTED}|{_CUT})(?:{_SPACE},{_SPACE}(?:{_ITEM.pattern}))*+"
    rf"{_SPACE},?+{_SPACE}(?:\]|\Z)"
)


def _key(names: tuple[str, ...]) -> str:
    """A key or keyword of `names`, quoted or bare, and its `:` or `=`."""
    named = "|".join(names)
    return rf"""(?:(['"])(?:{named})\1|(?<![\w'"])(?:{named})(?![\w'"]))[ \t]*+[:=][ \t]*+"""


# what names a list a program's arguments, right before it (`'args': `, `args=`)
_ARGUMENTS_NAMED = re.compile(_key(_ARGS_ORDER) + r"\Z")
# a program named by a key of the mapping (or call) a list is in, its value quoted or bare
_PROGRAM = re.compile(_key(_PROGRAM_KEYS) + rf"(?P<program>{_QUOTED}|[\w./-]++)")
# what the text between the program's key and the list holds: strings (read whole), brackets
_BETWEEN = re.compile(_QUOTED + r"|[\[\](){}]")
_NEAR = 512
"""How far from its list a program's key is looked for (before the list's key, after it)."""


def _listed_argv(text: str) -> str:
    """Each list of quoted items in the text, hidden as `redact` hides it as an argv: with
    the program of the mapping or call it is the arguments of (`_Programs`) first."""
    hidden: list[tuple[int, int, str]] = []
    programs = _Programs(text)
    for listed in _LISTED.finditer(text):
        program = programs.of(listed.start(), listed.end())
        written = text[listed.start() : listed.end()]
        if not _may_decide(written if program is None else f"{program} {written}"):
            continue
        items = [
            (found.start(), found.end(), _value(found[0]))
            for found in _ITEM.finditer(text, listed.start() + 1, listed.end())
        ]
        values: list[object] = [value for _, _, value in items]
        first = 0 if program is None else 1
        argv = values if program is None else [program, *values]
        quote = text[items[0][0]]  # (the first item is quoted)
        for at, shown in _argv_decided(argv).items():
            if at >= first:
                start, end, _ = items[at - first]
                hidden.append((start, end, _quoted(shown, text[start:end], quote)))
    return _with_hidden(text, hidden)


def _may_decide(argv: str) -> bool:
    """Whether an argv's rules may hide anything in it, written so: each needs a flag (a
    dash, or another dash as an escape or not ASCII) or a store's word."""
    return "-" in argv or "\\u" in argv or not argv.isascii() or _may_store(argv)


def _value(item: str) -> object:
    """What a list's item holds: a JSON or a Python string's text (one cut off, as far as
    it goes), a number."""
    quote = item[0]
    if quote != '"' and quote != "'":
        return float(item) if "." in item else int(item)
    closed = len(item) > 1 and item[-1] == quote
    if quote == '"' and (content := _content(item, closed)) is not None:
        return content
    inner = item[1:-1] if closed else item[1:]
    if "\\" not in item or not closed:
        return inner
    try:
        return str(ast.literal_eval(item))
    except (ValueError, SyntaxError):
        return inner


def _quoted(shown: str, was: str, quote: str) -> str:
    """`shown` written as the item `was` is, in its quotes (a number in the list's first
    item's `quote`); closed if it was."""
    if was[0] == "'" or was[0] == '"':
        quote = was[0]
    if quote == "'":
        written = "'" + shown.replace("\\", "\\\\").replace("'", "\\'") + "'"
    else:
        written = json.dumps(shown, ensure_ascii=was.isascii())
    cut = was[0] == quote and (len(was) < 2 or was[-1] != quote)
    return written[:-1] if cut else written


class _Programs:
    """Where the text names a program by a key (`'command': 'mysql'`), found once, when a
    list named as arguments first asks."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._named = "arg" in text  # (`args`, `argv`, `arguments`: a list named so)
        self._found: list[re.Match[str]] | None = None
        self._starts: list[int] = []

    def of(self, start: int, end: int) -> str | None:
        """The program a list from `start` to `end` gives the arguments of: named by a key
        of the same mapping or call (`{'command': 'mysql', ..., 'args': [...]}`), before
        the list's own key (the nearest) or after the list (the first), with nothing
        between them but whole values of that mapping. None if the list is not named as
        arguments."""
        text = self.text
        if not self._named:
            return None
        named = _ARGUMENTS_NAMED.search(text, max(0, start - 64), start)
        if named is None:
            return None
        if self._found is None:
            self._found = list(_PROGRAM.finditer(text))
            self._starts = [found.start() for found in self._found]
        found = self._found
        after = bisect.bisect_left(self._starts, end)
        for index in range(bisect.bisect_left(self._starts, named.start()) - 1, -1, -1):
            if found[index].end() < named.start() - _NEAR:
                break
            if _level(text, found[index].end(), named.start()):
                return _program(found[index])
        for index in range(after, len(found)):
            if found[index].start() > end + _NEAR:
                break
            if _level(text, end, found[index].start()):
                return _program(found[index])
        return None


def _program(found: re.Match[str]) -> str:
    value = found["program"]
    return str(_value(value)) if value[0] in "'\"" else value


def _level(text: str, start: int, end: int) -> bool:
    """Whether the text from `start` to `end` opens and closes as many brackets as it
    closes and opens, never closing one it did not open: one mapping's members."""
    depth = 0
    for found in _BETWEEN.finditer(text, start, end):
        bracket = found[0]
        if bracket in "[({":
            depth += 1
        elif bracket in "])}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0
