"""Name/value entries written as YAML (and indented JSON text), read line by line."""

from __future__ import annotations

import dataclasses
import re

from toolrail.core.redact.assignments import _BLOCK_OPENER
from toolrail.core.redact.entries import _ENTRY_KEYS
from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.names import _secret_setting
from toolrail.core.redact.reading import _with_hidden
from toolrail.core.redact.structures import _StructuresOf
from toolrail.core.redact.yaml_argv import _yaml_item

# A line's indentation, and the list items it opens (`- `, `- - `, a `-` ending the line)
_LINE_ITEMS = r"^([ \t]*+)((?:-(?=[ \t\r\n]|\Z)[ \t]*+)*+)"
_ENTRY_LINE = re.compile(_LINE_ITEMS, re.MULTILINE)
# a mapping's key opening a line (any: `a: b`, `"a b": c`, `url: http://x`), to its `:`
_YAML_KEY = re.compile(r"(?:[^:\r\n]++|:(?![ \t\r\n]|\Z))*+:(?=[ \t\r\n]|\Z)")
# an entry's key (looked up in `_ENTRY_KEYS`), quoted or not, and the spaces to its value
_ENTRY_KEY_TEXT = (
    r"(?P<quote>[\"']?+)(?P<key>[A-Za-z_]{3,15}+)(?P=quote)[ \t]*+:(?=[ \t\r\n]|\Z)[ \t]*+"
)
_ENTRY_KEY = re.compile(_ENTRY_KEY_TEXT)
# a line opening with a key as `_yaml_entries` reads it: text with no entry's name (nor
# value) key so written has no entry to hide
_ENTRY_KEY_LINE = re.compile(_LINE_ITEMS + _ENTRY_KEY_TEXT, re.MULTILINE)
_YAML_NULL = frozenset({"null", "Null", "NULL", "~"})


@dataclasses.dataclass(slots=True)
class _Entry:
    """A YAML mapping, open at its keys' column, as `_yaml_entries` reads it: whether its
    name names a secret, its values found (where each is, as it is shown hidden), and the
    one whose value is on the lines below its key, still being read (its start, how it is
    shown, where its key's line ends)."""

    column: int
    named: bool = False
    values: list[tuple[int, int, str]] = dataclasses.field(default_factory=list)
    below: tuple[int, str, int] | None = None


def _yaml_entries(text: str) -> str:
    """Each name/value entry written as a YAML mapping (`- name: DB_PASSWORD` and `value:
    X` at the same column, in either order, other keys between) whose name names a secret,
    its value hidden as `redact` hides it in the data (`_ENTRY_KEYS`, `is_secret_key`): on
    its line, plain, quoted, a flow list or mapping (to its matching bracket), or on the
    lines below it (a block scalar, a list, a mapping), to the end of text if cut off.
    Indented JSON text is read so too (a preview cut off), its value hidden as a string.

    Each line is read once: a mapping is open from its first key's line to the next line
    as deep (but another key of it) or less deep (but a list's item, `- `, at its column);
    a line opening `- ` opens a mapping of its own, at its item's column. A blank line
    passes, and a comment (but within the value below a key, when deeper than it)."""
    open_: list[_Entry] = []
    hidden: list[tuple[int, int, str]] = []
    structures: _StructuresOf | None = None
    last_end = 0  # where the last line with content ends (before its `\r`)
    read_to = -1  # where a flow list or mapping a line opened ends: its lines are read
    for line in _ENTRY_LINE.finditer(text):
        at = line.end()
        newline = text.find("\n", at)
        line_end = len(text) if newline < 0 else newline
        line_end -= line_end > at and text[line_end - 1] == "\r"
        items = line.start(2) < at
        if at == line_end and not items:
            continue  # a blank line
        if line.start() < read_to:
            last_end = line_end
            continue
        column = at - line.start()
        if text.startswith("#", at) and not items:  # a comment: within a value below a key
            if open_ and open_[-1].below is not None and column > open_[-1].column:
                last_end = line_end
            continue
        key = at < line_end and _YAML_KEY.match(text, at, line_end) is not None
        if items:  # `- `: the item's mapping, at its column, closes those as deep as it
            dash = line.start(2) - line.start()
            while open_ and open_[-1].column > dash:
                _end_below(open_.pop(), last_end, hidden)
        else:
            while open_ and (open_[-1].column > column or (open_[-1].column == column and not key)):
                _end_below(open_.pop(), last_end, hidden)
        if key:
            if open_ and open_[-1].column == column and not items:
                entry = open_[-1]
                _end_below(entry, last_end, hidden)
            else:
                entry = _Entry(column)
                open_.append(entry)
            found = _ENTRY_KEY.match(text, at, line_end)  # (as `_names_a_secret_entry`)
            names = None if found is None else _ENTRY_KEYS.get(found.group("key"))
            if names is not None:
                assert found is not None
                if structures is None and text.startswith(("[", "{"), found.end()):
                    structures = _StructuresOf(text)
                read_to = _read_entry_key(text, found, line_end, names, entry, hidden, structures)
        last_end = line_end
    while open_:
        _end_below(open_.pop(), last_end, hidden)
    return _with_hidden(text, hidden)


def _yaml_secret_name(found: re.Match[str]) -> bool:
    """`_names_a_secret_entry`'s test of a YAML name key's line, as `_yaml_entries` reads it."""
    return _secret_entry_name(found.string, found.end(), found.group("quote") == '"')


def _secret_entry_name(text: str, start: int, json_text: bool) -> bool:
    """Whether an entry's name, read on its line from `start`, names a secret."""
    value, _, quote, _ = _yaml_item(text, start)
    if not quote and json_text:
        value = value.removesuffix(",")
    return _secret_setting(value)


def _read_entry_key(
    text: str,
    found: re.Match[str],
    line_end: int,
    names: bool,
    entry: _Entry,
    hidden: list[tuple[int, int, str]],
    structures: _StructuresOf | None,
) -> int:
    """An entry's name or value key found on its line: what it tells of the entry; where
    its value ends if a flow list or mapping (its lines are its value's), else -1."""
    start = found.end()
    json_text = found.group("quote") == '"'  # indented JSON text: a value is hidden as a string
    if names:
        if not entry.named and _secret_entry_name(text, start, json_text):
            entry.named = True
            hidden += entry.values
            entry.values.clear()
        return -1
    if _BLOCK_OPENER.match(text, start) is not None:  # on the lines below
        spaced = "" if text[start - 1] in " \t" else " "
        entry.below = (start, spaced + REDACTED, line_end)
        return -1
    opening = text[start : start + 1]
    read_to = -1
    if opening == "[" or opening == "{":
        assert structures is not None
        end, _ = structures[False].end(start)
        shown = '"' + REDACTED + '"' if json_text else REDACTED
        read_to = end
    else:
        value, end, quote, closing = _yaml_item(text, start)
        if not quote and json_text and value.endswith(","):
            value, end = value[:-1], end - 1
        if not value or (not quote and value in _YAML_NULL):
            return -1  # no value, or an empty one (as `redact` keeps "" and None)
        if quote:
            shown = quote + REDACTED + closing
        else:
            shown = '"' + REDACTED + '"' if json_text else REDACTED
    (hidden if entry.named else entry.values).append((start, end, shown))
    return read_to


def _end_below(entry: _Entry, last_end: int, hidden: list[tuple[int, int, str]]) -> None:
    """The entry's value on the lines below its key ends with the line ending at
    `last_end` (the entry goes on with another key, or is closed): none if that is its
    key's line."""
    if entry.below is None:
        return
    start, shown, key_line_end = entry.below
    entry.below = None
    if last_end > key_line_end:
        (hidden if entry.named else entry.values).append((start, last_end, shown))
