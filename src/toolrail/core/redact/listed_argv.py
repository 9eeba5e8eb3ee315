"""An argv written in text as a list (`["mysql", "-pX"]` after a log's prefix, a Python
repr, a call's argument, JSONC with comments between its items), or a program given apart
from such a list or a tuple (a repr's mapping, a call's keywords, JSON cut off:
`command='mysql', args=['-pX']`), hidden as `redact` hides the list as data
(`_argv_decided`), item by item where each is written."""

from __future__ import annotations

import ast
import bisect
import json
import re

from toolrail.core.redact.argv import _ARGS_ORDER, _PROGRAM_KEYS, _argv_decided
from toolrail.core.redact.held import _content
from toolrail.core.redact.reading import _COMMENT, _SHORT_COMMENT, _with_hidden
from toolrail.core.redact.stores import _may_store

_QUOTED = r"""(?:"(?:[^"\\\n]++|\\[^\n])*+"|'(?:[^'\\\n]++|\\[^\n])*+')"""
# a string opened in text: an apostrophe within a word opens none (`it's`), but after a
# string's prefix (`b'`, `rb'`) one does
_OPENED = r"""(?:"(?:[^"\\\n]++|\\[^\n])*+"|(?<!\w)[bBrRuUfF]{0,2}+'(?:[^'\\\n]++|\\[^\n])*+')"""
# an item: quoted (or cut off in its quotes, at its line's end), a number or a literal
_CUT = r"""(?:"(?:[^"\\\n]++|\\[^\n])*+|'(?:[^'\\\n]++|\\[^\n])*+)(?=\r?\n|\Z)"""
_LITERAL = r"(?:-?\d++(?:\.\d++)?+|true|false|null|True|False|None)(?![\w.])"
_ITEM = re.compile(rf"{_QUOTED}|{_CUT}|{_LITERAL}")
# between items: spaces, lines, JSONC's comments (short: a list is looked for from every `[`)
_GAP = rf"(?:[ \t\r\n]++|{_SHORT_COMMENT})*+"


def _listed(opening: str, closing: str) -> re.Pattern[str]:
    """A list of such items, a trailing comma allowed; or cut off, with the text or its line."""
    return re.compile(
        rf"{opening}{_GAP}(?:{_ITEM.pattern})(?:{_GAP},{_GAP}(?:{_ITEM.pattern}))*+"
        rf"(?:{_GAP},?+{_GAP}(?:{closing}|\Z)|(?=\r?\n))"
    )


_LISTED = _listed(r"\[", r"\]")
_TUPLE = _listed(r"\(", r"\)")  # (read only as a program's arguments: `args=('-pX',)`)
_ITEM_OR_COMMENT = re.compile(rf"{_SHORT_COMMENT}|{_ITEM.pattern}")  # (a comment's quote no item's)
_LITERALS = {"true": True, "false": False, "null": None, "True": True, "False": False}


def _key(names: tuple[str, ...]) -> str:
    """A key or keyword of `names`, quoted or bare, and its `:` or `=`."""
    named = "|".join(names)
    quoted = rf"""(?P<quote>['"])(?:{named})(?P=quote)"""
    return rf"""(?:{quoted}|(?<![\w'"])(?:{named})(?![\w'"]))[ \t]*+[:=][ \t]*+"""


# what names a list a program's arguments, right before it (`'args': `, `args=`); a tuple
_ARGUMENTS_NAMED = re.compile(_key(_ARGS_ORDER) + r"\Z")
_TUPLE_NAMED = re.compile(r"""arg(?:s|v|uments)\b['"]?+[ \t]*+[:=][ \t]*+(?=\()""")
# a program named by a key of the mapping (or call) a list is in, its value quoted or a bare
# word (no key itself: `cmd: command='x'`); or a string, read whole (a key in it is none)
_PROGRAM = re.compile(
    rf"(?P<key>{_key(_PROGRAM_KEYS)})(?P<program>{_QUOTED}|[\w./-]++(?![ \t]*+[:=]))|{_OPENED}"
)
_RANK = {name: rank for rank, name in enumerate(_PROGRAM_KEYS)}
# what tells which mapping (or call) a place is in: strings and comments (read whole: a
# bracket in one is none), brackets
_BRACKETS = re.compile(rf"{_OPENED}|{_COMMENT}|(?<!\S)#[^\n]*+|[\[\](){{}}]")
_NEAR = 512
"""How far from its list a program's key is looked for (before the list's key, after it)."""


def _listed_argv(text: str) -> str:
    """Each list in the text, hidden as `redact` hides it as an argv: with the program of
    the mapping or call it is the arguments of (`_Programs`) first."""
    hidden: list[tuple[int, int, str]] = []
    programs = _Programs(text)
    tuples = (
        _TUPLE.match(text, named.end())
        for named in _TUPLE_NAMED.finditer(text)
        if not _in_a_word(text, named.start())  # (`cargs=(`: no name of arguments)
    )
    for listed in [*_LISTED.finditer(text), *(found for found in tuples if found)]:
        program = programs.of(listed.start(), listed.end())
        written = text[listed.start() : listed.end()]
        if not _may_decide(written if program is None else f"{program} {written}"):
            continue
        items = [
            (found.start(), found.end(), _value(found[0]))
            for found in _ITEM_OR_COMMENT.finditer(text, listed.start() + 1, listed.end())
            if found[0][0] != "/"
        ]
        values: list[object] = [value for _, _, value in items]
        first = 0 if program is None else 1
        argv = values if program is None else [program, *values]
        quote = next((text[at] for at, _, value in items if isinstance(value, str)), '"')
        for at, shown in _argv_decided(argv).items():
            if at >= first:
                start, end, _ = items[at - first]
                hidden.append((start, end, _quoted(shown, text[start:end], quote)))
    return _with_hidden(text, hidden)


def _in_a_word(text: str, at: int) -> bool:
    before = text[at - 1 : at]
    return before.isalnum() or before == "_"


def _may_list(text: str) -> bool:
    """Whether the text may hold a list (or a tuple named as a program's arguments)."""
    if "'" not in text and '"' not in text:
        return False
    if "[" in text and _LISTED.search(text) is not None:
        return True
    return "(" in text and "arg" in text and _TUPLE_NAMED.search(text) is not None


def _may_decide(argv: str) -> bool:
    """Whether an argv's rules may hide anything in it, written so: each needs a flag (a
    dash, or another dash as an escape or not ASCII) or a store's word."""
    return "-" in argv or "\\u" in argv or not argv.isascii() or _may_store(argv)


def _value(item: str) -> object:
    """What a list's item holds: a JSON or a Python string's text (one cut off, as far as
    it goes); a literal's value; a number, as one (never a flag, a program or a store's
    word: its value does not matter, and a long one is no `int`)."""
    quote = item[0]
    if quote != '"' and quote != "'":
        return _LITERALS.get(item, 0)
    closed = len(item) > 1 and item[-1] == quote
    if quote == '"' and (content := _content(item, closed)) is not None:
        return content
    inner = item[1:-1] if closed else item[1:]
    if "\\" not in item or not closed:
        return inner
    try:
        return str(ast.literal_eval(item))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return inner


def _quoted(shown: str, was: str, quote: str) -> str:
    """`shown` written as the item `was` is, in its quotes (a number or a literal in the
    list's `quote`); closed if it was."""
    if was[0] == "'" or was[0] == '"':
        quote = was[0]
    if quote == "'":
        written = "'" + shown.replace("\\", "\\\\").replace("'", "\\'") + "'"
    else:
        written = json.dumps(shown, ensure_ascii=was.isascii())
    cut = was[0] == quote and (len(was) < 2 or was[-1] != quote)
    return written[:-1] if cut else written


class _Programs:
    """Where the text names a program by a key (`'command': 'mysql'`), and which mapping or
    call each place is in: read once, when a list named as arguments first asks."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._named = "arg" in text  # (`args`, `argv`, `arguments`: a list named so)
        self._read = False
        self._keys: list[re.Match[str]] = []  # each program's key, in order
        self._starts: list[int] = []
        self._brackets: list[int] = []  # where each bracket is, in order
        self._inside: list[int] = []  # after each: where the innermost one still open opened

    def of(self, start: int, end: int) -> str | None:
        """The program a list from `start` to `end` gives the arguments of: named by a key
        of the same mapping or call as the list's own key (`{'command': 'mysql', ...,
        'args': [...]}`), within `_NEAR` of it, chosen as `redact` chooses (`command`
        first). None if the list is not named as arguments, or no such key is there."""
        if not self._named:
            return None
        text = self.text
        named = _ARGUMENTS_NAMED.search(text, max(0, start - 64), start)
        if named is None:
            return None
        if not self._read:
            self._reading()
        inside = self._inside_at(named.start())
        first = bisect.bisect_left(self._starts, named.start() - _NEAR)
        last = bisect.bisect_left(self._starts, end + _NEAR)
        chosen: re.Match[str] | None = None
        for key in self._keys[first:last]:
            if key.start() >= named.start() and key.start() < end:
                continue  # (inside the list)
            if self._inside_at(key.start()) == inside and (
                chosen is None or _rank(key) < _rank(chosen)
            ):
                chosen = key
        if chosen is None:
            return None
        program = chosen["program"]
        return str(_value(program)) if program[0] in "'\"" else program

    def _reading(self) -> None:
        text = self.text
        self._keys = [found for found in _PROGRAM.finditer(text) if found["key"] is not None]
        self._starts = [found.start() for found in self._keys]
        opened: list[int] = []
        for found in _BRACKETS.finditer(text):
            bracket = found[0]
            if bracket in "[({":
                opened.append(found.start())
            elif bracket in "])}":
                if opened:
                    opened.pop()
            else:
                continue
            self._brackets.append(found.start())
            self._inside.append(opened[-1] if opened else -1)
        self._read = True

    def _inside_at(self, at: int) -> int:
        """Where the innermost bracket open at `at` opened (-1: none)."""
        index = bisect.bisect_right(self._brackets, at) - 1
        return self._inside[index] if index >= 0 else -1


def _rank(key: re.Match[str]) -> int:
    return _RANK[key["key"].strip(" \t:='\"")]
