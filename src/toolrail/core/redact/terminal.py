"""`printable`: text a terminal shows rather than obeys."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, the bidirectional marks and overrides,
# the line and paragraph separators, and a byte order mark
_OBEYED = "\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069\\ufeff"
_CONTROL = re.compile(f"[\\x00-\\x08\\x0b-\\x1f{_OBEYED}]")
# in one line, a name: tab and newline too, and what does not show at all (a zero-width
# space, invisible operators, tag characters) but could make two names look alike; not the
# joiners (U+200C, U+200D), which Persian words and emoji sequences are written with
_CONTROL_IN_LINE = re.compile(
    f"[\\x00-\\x1f{_OBEYED}\\u200b\\u2060-\\u2064\\U000e0000-\\U000e007f]"
)


def printable(text: str, *, one_line: bool = False, json: bool = False) -> str:
    """`text` with the characters a terminal obeys rather than shows (an escape sequence
    that moves the cursor or sets the window title, a carriage return, a bidi override)
    written as escapes (`\\x1b`): what a model or a tool wrote reaches a screen as text.
    `one_line`: tabs and newlines too (a name, one line of a listing); `json`: JSON text,
    escaped as JSON escapes them (`\\u001b`), so it stays the same JSON.

    >>> printable("add\\x1b[2K\\r✔ done")
    'add\\\\x1b[2K\\\\r✔ done'
    """
    if text.isascii() and text.isprintable():  # most text, at once: no control in it
        return text
    control = _CONTROL_IN_LINE if one_line else _CONTROL
    if control.search(text) is None:
        return text
    return control.sub(_json_escaped if json else _escaped, text)


def _escaped(control: re.Match[str]) -> str:
    return repr(control.group())[1:-1]


def _json_escaped(control: re.Match[str]) -> str:
    code = ord(control.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # past the BMP: a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
