"""Name/value entries written as pairs outside any brackets (`name=DB_PASSWORD value=X`, a
repr's, XML's attributes and elements), read pair by pair."""

from __future__ import annotations

import re

from toolrail.core.redact.entries import _ENTRY_KEYS
from toolrail.core.redact.line_entries import _FLOW_NULL, _FLOW_TOKEN
from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.names import _REMEMBERED_NAME, _secret_setting
from toolrail.core.redact.reading import (
    _CONTINUATION,
    _ESCAPED_QUOTED,
    _ESCAPED_QUOTES,
    _ESCAPES_NO_QUOTE,
    _element_text,
    _with_hidden,
)
from toolrail.core.redact.structures import _StructuresOf

# Pairs on one line outside a mapping's brackets (`name=DB_PASSWORD value=X` in a log, a
# pydantic model's or a dataclass's repr, an XML element's attributes, AWS's shorthand
# `Key=password,Value=X`, a JSON fragment `"name": "DB_PASSWORD", "value": "X"`): a key, not
# glued to a word before it, and its separator (`=`, `:`, `=>`, not `==`); or a command's
# flags (`aws ssm put-parameter --name /prod/db/password --value X`), the value
# after `=`, spaces or a line continuation as a space (`--name \\` then the value), or in
# an argv's items written out (`'--name', '/prod/db/password'`, in JSON's quotes too:
# `item`, its value the `next` item or glued, `'--value=X'`);
# or XML's: an element named as a key (`<name>DB_PASSWORD</name>`, its text the pair's
# value), or the text of an element (`text`, a value's role) whose tag holds its name
# (`<entry key="db.password">X</entry>`)
# PowerShell's parameters (`Write-SSMParameter -Name /prod/db/password -Value X`,
# `New-ItemProperty -Path ... -Name Password -Value X`) are such flags too, one dash and
# any case (`ps`: `-Name`, `-Key`, `-Value`, `-Name:X`), `-String` (`string`) a value's,
# after a space (a command's words, not an item of a list written out: `'-Value:x'`);
# an entry holds one kind of flag only (`-key k.pem && aws ... --value X --name ...`: two)
_PS_KEY = r"(?i:name|key|value)(?=[: \t\r\n`])"
_PAIR_KEY = re.compile(
    r"(?:(?P<open><)"
    r"|(?<!\S)(?P<ps>-)(?=" + _PS_KEY + r")"
    r"|(?<![\w.-])(?P<item>\\[\"']|[\"'])?+(?P<flag>--)"
    r"|(?<![\w.-])(?P<quote>\\[\"']|[\"']?+))"
    r"(?P<key>[A-Za-z_]{3,15}+)"
    r"(?(open)>|(?(ps)(?::|[ \t]++(?:"
    + _CONTINUATION
    + r"[ \t]*+)?+)|(?(flag)(?(item)(?:(?P=item)\s*+(?P<next>,)\s*+|=)|(?:=|[ \t]++(?:"
    + _CONTINUATION
    + r"[ \t]*+)?+))|(?P=quote)[ \t]*+(?:=>|[:=](?!=))[ \t]*+)))"
    r"|(?<![=/-])(?P<text>>)(?=\s*+(?:[^\s<]|<!\[CDATA\[))"
    r"|(?<!\S)(?P<string>-(?i:string))(?::|[ \t]++(?:" + _CONTINUATION + r"[ \t]*+)?+)"
)
_ESCAPED_STRING = re.compile(_ESCAPED_QUOTED)
# in every value key of `_ENTRY_KEYS`, or an element's text, or PowerShell's `-String`
_PAIR_VALUE_MARK = re.compile("[vV][aA][lL][uU][eE]|>|-[sS][tT][rR][iI][nN][gG]")
# a value not quoted: to what ends a pair, or a line continuation (`X \\`), or an escaped
# quote (`\\"X\\"` in JSON text)
_PAIR_WORD = re.compile(r"""(?:[^\s"',;&<>(){}\[\]\\]++|""" + _ESCAPES_NO_QUOTE + ")++")
# a flag's value not quoted (`--value X,more`, `-Value X`): a shell's word, to a space or a
# shell's operator, quotes inside it joining (`hun'ter 2X'`) to their closing quote on the
# line, passing no space before a dash (no flag goes in a word: `X" --name N`); a quote not
# so closed is a character of the word (`hun'ter2X`); none that ends a string the command
# is in (`"... --value X", ...`, `X" && ...`), nor an escaped quote (`\\"` in JSON text)
_ENDS_A_STRING = r"(?![ \t]*+(?:[,:}\])&|;]|\r?\n|\Z))"
_SHELL_WORD = re.compile(
    r"""(?:[^\s"'|&;<>()\\]++"""
    + r"|'"
    + _ENDS_A_STRING
    + r"(?:(?:[^'\s]++|[ \t]++(?!-))*+')?+"
    + r'|"'
    + _ENDS_A_STRING
    + r'(?:(?:[^"\\\s]++|\\[^\r\n]|[ \t]++(?!-))*+")?+'
    + "|"
    + _ESCAPES_NO_QUOTE
    + ")++"
)
_DOLLAR_QUOTES = ("$'", '$"')
# between two pairs, what ends an entry: a line's end (not continued), a statement's, a
# bracket, a tag; between two in one tag, a newline is a space (`<property name="password"\n
# value="X"/>`); between two items of a list written out, only what is no item of it is
_PAIR_BREAK = re.compile(r"(?P<continued>" + _CONTINUATION + r")|[\n;(){}<]|(?<![=-])>")
_TAG_BREAK = re.compile(r"[;(){}]")
# between two elements of an entry: whole elements (siblings), not the parent's closing tag
_TAG = re.compile(r"<(/?+)[A-Za-z_][^<>]*+>")
_TAG_NAME = re.compile(r"[A-Za-z_][\w.:-]{0,63}+")


def _pair_value(
    text: str,
    start: int,
    key_quote: str,
    structures: _StructuresOf,
    end: int | None = None,
    *,
    shell: bool = False,
) -> tuple[str | None, int, str | None]:
    """A pair's value at `start`: what it holds (None for a list or a mapping), where it
    ends, and how it is shown hidden (None: nothing to hide, empty or null); a value not
    a string is shown as a string where the key is quoted `"` or `\\"` (JSON stays JSON).
    `end`: read no further (a string or a word there is read as cut off). `shell`: a flag's
    value, a shell's word (`_SHELL_WORD`; `$'...'` a string, its `$` kept)."""
    end = len(text) if end is None else end
    if shell and text.startswith(_DOLLAR_QUOTES, start) and start + 1 < end:
        held, value_end, shown = _pair_value(text, start + 1, "", structures, end)
        return held, value_end, None if shown is None else "$" + shown
    escaped = text.startswith(_ESCAPED_QUOTES, start)
    opening = text[start : start + 2] if escaped else text[start : start + 1]
    quote = key_quote if key_quote in ('"', '\\"') else ""
    as_string = quote + REDACTED + quote
    if opening == '"' or opening == "'" or escaped:
        # (`\"`: a string in text held in a JSON string, `\'` in a Python repr, read with
        # its escapes)
        string = (_ESCAPED_STRING if len(opening) == 2 else _FLOW_TOKEN).match(text, start, end)
        assert string is not None  # (matches its opening quote at least)
        closing = opening if string.lastindex is not None else ""
        held = text[start + len(opening) : string.end() - len(closing)]
        return held, string.end(), (opening + REDACTED + closing) if held else None
    if opening == "[" or opening == "{":
        end, _ = structures[False].end(start)
        return None, end, as_string
    word = (_SHELL_WORD if shell else _PAIR_WORD).match(text, start, end)
    if word is None:
        return "", start, None
    held = word.group()
    return held, word.end(), None if held in _FLOW_NULL else as_string


def _key_value(
    found: re.Match[str], structures: _StructuresOf, end: int | None = None
) -> tuple[str | None, int, str | None]:
    """The value of a pair whose key `_PAIR_KEY` found, as `_pair_value` tells (read to
    `end` at most); one glued to its flag in an item (`'--value=X'`) is the rest of the
    item's string, read as it is."""
    text, start, item = found.string, found.end(), found.group("item")
    if not item or found.group("next"):
        shell = not item and (found.group("flag") or found.group("ps") or found.group("string"))
        quote = item or found.group("quote") or ""
        return _pair_value(text, start, quote, structures, end, shell=bool(shell))
    string = (_ESCAPED_STRING if len(item) == 2 else _FLOW_TOKEN).match(
        text, found.start(), len(text) if end is None else end
    )
    assert string is not None  # (matches its opening quote at least)
    end = string.end() - (len(item) if string.lastindex is not None else 0)
    held = text[start:end]
    return held, end, REDACTED if held else None


def _element_value(text: str, start: int, tag: str) -> tuple[str, int, int, int, str | None]:
    """An element's text at `start` as a pair's value (`_element_text`): what it holds
    (stripped), where what is hidden starts and ends (a CDATA section's content), where
    the text ends, and how it is shown hidden (None: it has none)."""
    found = _element_text(text, start, tag)
    if found is None:
        return "", start, start, start, None
    hidden_start, hidden_end, end = found
    return text[hidden_start:hidden_end].strip(), hidden_start, hidden_end, end, REDACTED


def _pair_secret_name(found: re.Match[str]) -> bool:
    """`_names_a_secret_entry`'s test of a pair's name key, as `_pair_entries` reads it."""
    text, start = found.string, found.end()
    if found.group("open"):
        name: str | None = _element_value(text, start, found.group("key"))[0]
    elif text.startswith(("[", "{"), start):
        return False  # a list or a mapping names nothing
    else:  # (a name no longer than a setting's is read: each key's own, not the text's rest)
        name = _key_value(found, _StructuresOf(text), start + _REMEMBERED_NAME + 4)[0]
    return name is not None and _secret_setting(name)


class _TagsBefore:
    """Where the tag open at a position starts (-1: none), asked in the order a scan meets
    positions: each stretch of text is read once."""

    __slots__ = ("_at", "_open", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._at, self._open = 0, -1

    def __call__(self, at: int) -> int:
        text, last = self.text, self._at
        opening, closing = text.rfind("<", last, at), text.rfind(">", last, at)
        if opening > closing:
            self._open = opening if _TAG_NAME.match(text, opening + 1) else -1
        elif closing >= 0:
            self._open = -1
        self._at = max(at, last)
        return self._open


def _closes_parent(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]`, between two elements, closes an element it did not open."""
    depth = 0
    for tag in _TAG.finditer(text, start, end):
        if tag.group(1):
            depth -= 1
            if depth < 0:
                return True
        elif not tag.group().endswith("/>"):
            depth += 1
    return False


def _pair_entries(text: str) -> str:
    """Each name/value entry written as pairs outside a mapping's brackets (`_PAIR_KEY`:
    `name=DB_PASSWORD value=X`, `<param name="password" value="X"/>`, `<name>DB_PASSWORD
    </name><value>X</value>`, `<entry key="password">X</entry>`), in either order, other
    pairs between, whose name names a secret: its value hidden as `redact` hides it in the
    data (`_ENTRY_KEYS`, `_secret_setting`). An entry ends where a key of the same role
    comes again (`name=A value=1 name=B value=2` is two), or between two pairs: in one tag,
    at a statement's end or a bracket (`_TAG_BREAK`); between elements (or from a tag to an
    element in it), at the closing tag of their parent; else where `_ends_entry` tells.
    An element's text is a value only after a pair in its own start tag. Each pair's
    value is read once, and each stretch between two pairs. PowerShell's parameters and
    the other keys are read apart: neither ends the other's entry, nor starts one
    (`--value X -String 1 --name N` is one entry, `-Key k.pem && ... --value X --name N`
    too)."""
    found_keys: tuple[list[re.Match[str]], list[re.Match[str]]] = ([], [])
    for found in _PAIR_KEY.finditer(text):
        found_keys[bool(found.group("ps") or found.group("string"))].append(found)
    hidden = _entries_hidden(text, found_keys[0])
    if found_keys[1]:
        hidden += _entries_hidden(text, found_keys[1])
    return _with_hidden(text, hidden)


def _entries_hidden(text: str, keys: list[re.Match[str]]) -> list[tuple[int, int, str]]:
    """What `_pair_entries` hides of the entries whose keys (`_PAIR_KEY`) are `keys`."""
    hidden: list[tuple[int, int, str]] = []
    values: list[tuple[int, int, str]] = []  # the entry's, while no name names a secret
    named = False
    roles: set[bool] = set()
    structures = _StructuresOf(text)
    tags = _TagsBefore(text)
    last_end = 0  # where the last entry's pair ends
    last_tag = -2  # where the tag holding it starts (-1: none; -2: an element, closed)
    last_item = False  # whether its key is an item of a list written out
    for found in keys:
        role = (
            _ENTRY_KEYS.get(found.group("key"))
            if not (found.group("text") or found.group("string"))
            else False
        )
        if role is None or found.start() < last_end:
            continue  # another key, or one within the value read last
        ps = bool(found.group("ps") or found.group("string"))
        tag = tags(found.start())
        between: object = None  # what ends the entry between its last pair and this one
        if found.group("text"):
            if not roles or tag < 0 or tag != last_tag:
                continue  # the text of an element holding no pair of an entry
        elif found.group("open") and last_tag != -1 and roles:
            between = _closes_parent(text, last_end, found.start())
        elif tag >= 0 and tag == last_tag:
            between = _TAG_BREAK.search(text, last_end, found.start())
        else:
            items = last_item + bool(found.group("item"))
            between = _ends_entry(text, last_end, found.start(), items)
            if roles and not between and (ps or (found.group("flag") and not items)):
                # (a command's flags: a pipeline, `&&`, is another command)
                between = _PIPELINE.search(text, last_end, found.start())
        if role in roles or between:
            named, roles, values = False, set(), []
        roles.add(role)
        start = found.end()
        if found.group("open") or found.group("text"):
            element = found.group("key") or _tag_name(text, tag)
            held: str | None
            held, start, end, last_end, shown = _element_value(text, start, element)
            if found.group("open") and shown is not None:  # past its closing tag
                last_end = text.find(">", last_end) + 1 or len(text)
            last_tag = -2
            last_item = False
        else:
            held, end, shown = _key_value(found, structures)
            last_end, last_tag = end, tag
            if item := found.group("item"):
                last_item = True
                if not found.group("next") and text.startswith(item, end):
                    last_end += len(item)  # (past the item glued to its flag, `'--value=X'`)
            else:
                last_item = False
        if role:
            if not named and held is not None and _secret_setting(held):
                named = True
                hidden += values
        elif shown is not None:
            (hidden if named else values).append((start, end, shown))
    return hidden


def _ends_entry(text: str, start: int, end: int, items: int) -> bool:
    """Whether what lies between two pairs (`text[start:end]`) ends their entry: what
    `_PAIR_BREAK` finds, not a continued line's end (`--name X \\` then `--value Y`: one
    command). Of two items of one list written out (`items`: how many of the two pairs are
    an item), only what is no item of it (a bracket, a key's `:`; a string read whole:
    `'Items[0]'` is one), a newline none (JSON text indented); from an item to a pair not
    one, a bracket too (`['--name', 'x'] --value y`)."""
    if items == 2:
        for token in _FLOW_TOKEN.finditer(text, start, end):
            if text[token.start()] in _LIST_EDGES:
                return True
        return False
    for found in (_PAIR_BREAK if items == 0 else _ITEM_EDGE).finditer(text, start, end):
        if found.lastgroup != "continued":
            return True
    return False


_LIST_EDGES = frozenset("[]{}:")
_PIPELINE = re.compile(r"(?<!\S)(?:\|{1,2}|&{1,2})(?!\S)")  # between a command's flags: `|`, `&&`
_ITEM_EDGE = re.compile(_PAIR_BREAK.pattern + r"|[\[\]]")


def _tag_name(text: str, tag: int) -> str:
    found = _TAG_NAME.match(text, tag + 1)
    return "" if found is None else found.group()
