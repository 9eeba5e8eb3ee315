"""An argv written in text as a YAML block list, hidden as `redact` hides the list."""

from __future__ import annotations

import json
import re

from toolrail.core.redact.argv import _argv_shown
from toolrail.core.redact.held import _content
from toolrail.core.redact.reading import _ANY_DASH, _CODES, _with_hidden

# A YAML block list's item opening its line with a dash (`  - --password`, `- "-u"`): an
# argv written as YAML has one wherever its policy hides anything (a flag, curl's `-u`,
# `mysql -pX`), so text without one has no YAML argv to read
# (terminal codes before its dash, `- \x1b[1m--password`, set nothing apart)
_YAML_DASHED_ITEM = re.compile(r"^[ \t]*+-[ \t]++[\"']?+" + _CODES + _ANY_DASH, re.MULTILINE)
# a line with content (not blank, not a comment): its indentation, and, if it is a list's
# item (`-` and a space, or the line's end), the dash and where its value opens
_YAML_LINE = re.compile(r"^([ \t]*+)(?:(-)(?=[ \t\r\n]|\Z)[ \t]*+|(?=[^\s#]))", re.MULTILINE)
# an item's value on its line: plain, to a comment (` #`) or the line's end, or quoted, to
# the closing quote (JSON's escapes in `"`, `''` in `'`) or, cut off, the line's end
_YAML_PLAIN = re.compile(r"(?:[^ \t\r\n]++|[ \t]++(?![#\r\n]|\Z))*+")
_YAML_QUOTED = {
    '"': re.compile(r'"(?:[^"\\\r\n]++|\\[^\r\n])*+(")?'),
    "'": re.compile(r"'(?:[^'\r\n]++|'')*+(')?"),
}


def _yaml_argv(text: str) -> str:
    """Each YAML block list in the text (a container's `args:`, a compose service's
    `command:`) hidden as `redact` hides it as an argv (`_argv_shown`, `in_text`): a secret
    flag's value is the next item of the list, at the same indentation, plain, quoted, or on
    the lines below it (`- |`, read whole). Each line is read once: a list closes at a line
    not deeper than its items (unless another item of it); a blank line or a comment
    passes; a list opening deeper is one within an item."""
    # the open lists, each deeper than the last: its indentation, where each item's value
    # opens, and the last line below each item (-1: none, its value is on its line)
    lists: list[tuple[int, list[int], list[int]]] = []
    hidden: list[tuple[int, int, str]] = []
    last_line = -1  # where the last line with content starts
    for line in _YAML_LINE.finditer(text):
        indent = line.end(1) - line.start()
        item = line.start(2) >= 0
        while lists and (lists[-1][0] > indent or (lists[-1][0] == indent and not item)):
            _close_yaml_list(text, lists.pop(), last_line, hidden)
        if item:
            if lists and lists[-1][0] == indent:
                starts, below = lists[-1][1], lists[-1][2]
                if last_line > starts[-1]:
                    below[-1] = last_line
                starts.append(line.end())
                below.append(-1)
            else:
                lists.append((indent, [line.end()], [-1]))
        last_line = line.start()
    while lists:
        _close_yaml_list(text, lists.pop(), last_line, hidden)
    return _with_hidden(text, hidden)


def _close_yaml_list(
    text: str,
    closed: tuple[int, list[int], list[int]],
    last_line: int,
    hidden: list[tuple[int, int, str]],
) -> None:
    """The items of a list closed after the line starting at `last_line` that its argv
    policy hides, where each is written and as it is then written."""
    _, starts, below = closed
    if last_line > starts[-1]:
        below[-1] = last_line
    if len(starts) < 2:
        return
    items = [
        _yaml_item(text, start) if under < 0 else None
        for start, under in zip(starts, below, strict=True)
    ]
    argv: list[object] = [{} if item is None else item[0] for item in items]
    for at, shown in _argv_shown(argv, in_text=True).items():
        start, item = starts[at], items[at]
        if item is None:  # on the lines below: to the end of the last one, read whole
            newline = text.find("\n", below[at])
            end = len(text) if newline < 0 else newline
            end -= text[end - 1] == "\r"
            quote, closing = "", ""
        else:
            _, end, quote, closing = item
            if end == start:
                continue  # an empty item: nothing to hide
        if quote == '"':
            shown = json.dumps(shown, ensure_ascii=text[start:end].isascii())[:-1] + closing
        elif quote == "'":
            shown = "'" + shown.replace("'", "''") + closing
        elif text[start - 1] == "-":  # `-` alone on its line, the value below it
            shown = " " + shown
        hidden.append((start, end, shown))


def _yaml_item(text: str, start: int) -> tuple[str, int, str, str]:
    """An item's value opening at `start` and read on its line: what it holds, where it
    ends, its quote and its closing quote (none if cut off)."""
    quote = text[start : start + 1]
    if quote in _YAML_QUOTED:
        found = _YAML_QUOTED[quote].match(text, start)
        assert found is not None  # (matches its opening quote at least)
        closing = found.group(1) or ""
        literal = found.group()
        inner = literal[1 : len(literal) - len(closing)]
        if quote == "'":
            return inner.replace("''", "'"), found.end(), quote, closing
        # JSON's escapes, as YAML's are; as written if it has others
        value = _content(literal, bool(closing))
        return (inner if value is None else value), found.end(), quote, closing
    plain = _YAML_PLAIN.match(text, start)
    end = start if plain is None else plain.end()
    return text[start:end], end, "", ""
