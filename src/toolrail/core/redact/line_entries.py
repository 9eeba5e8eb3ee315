"""Name/value entries written on one line as a mapping in JSON-like text, read by its strings
and brackets (pairs outside any brackets are `pair_entries`')."""

from __future__ import annotations

import re

from toolrail.core.redact.entries import _ENTRY_KEYS
from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.names import _secret_setting
from toolrail.core.redact.reading import _SPACES, _reach, _with_hidden


def _flow_secret_name(found: re.Match[str]) -> bool:
    """`_names_a_secret_entry`'s test of a flow mapping's name key, as `_flow_entries` reads it."""
    return _secret_flow_name(found.string, found.end())


# JSON-like text on one line (a preview cut off, JSON after a log's prefix, a Python repr, a
# YAML flow mapping, a JS object): its strings, read whole, their closing quote caught (`'`
# opens one only after no word's character: `user's` is a word), and what tells its
# structure
_FLOW_TOKEN = re.compile(
    r'"(?:[^"\\\n]++|\\[^\n])*+(")?|(?<!\w)\'(?:[^\'\\\n]++|\\[^\n])*+(\')?|[\[\]{},:]'
)
# a mapping's key that may be an entry's (looked up in `_ENTRY_KEYS`), after what opens it
_FLOW_KEY = re.compile(r"[{,]\s*+(?P<quote>[\"']?+)(?P<key>[A-Za-z_]{3,15}+)(?P=quote)\s*+:")
# an entry's name: a string, or a word to what ends it (a longer one is no setting's name)
_FLOW_KEY_AT = re.compile(_FLOW_KEY.pattern[len("[{,]") :] + r"\Z")  # the key to its `:`
_FLOW_NAME = re.compile(
    r'\s*+(?:"((?:[^"\\\n]|\\[^\n]){0,257}+)|(?<!\w)\'((?:[^\'\\\n]|\\[^\n]){0,257}+)'
    r"|([^\s,{}\[\]:\"'][^,{}\[\]\r\n]{0,256}+))"
)
_FLOW_NULL = frozenset({"null", "None", "Null", "NULL", "~"})


class _FlowMapping:
    """A mapping open in JSON-like text, as `_flow_entries` reads it: where its key being
    read starts (-1: none), the role of the key whose value is being read (`_ENTRY_KEYS`),
    its quote, and where the value starts; whether its name names a secret, and its values
    found (where each is, as it is shown hidden)."""

    __slots__ = ("key_at", "named", "quote", "role", "value_at", "values")

    def __init__(self) -> None:
        self.key_at = -1
        self.role: bool | None = None
        self.quote = ""
        self.value_at = -1
        self.named = False
        self.values: list[tuple[int, int, str]] = []


def _secret_flow_name(text: str, start: int) -> bool:
    found = _FLOW_NAME.match(text, start)
    if found is None:
        return False
    name = found.group(found.lastindex or 0).rstrip()
    return _secret_setting(name)


def _flow_entries(text: str) -> str:
    """Each name/value entry written as a mapping in JSON-like text (`{"name": "API_TOKEN",
    "value": "..."}`, `{name: API_TOKEN, value: ...}`, in either order, other keys between)
    whose name names a secret, its value hidden as `redact` hides it in the data: a string
    (its quotes kept), or anything else to the `,` or the bracket ending it (a list or a
    mapping whole, as a string where the key is quoted, so JSON stays JSON), to the end of
    the text if cut off. Each of its strings and brackets is read once."""
    # each list open (None), and each mapping: as where its key being read starts (-1:
    # none) until it has a key of an entry's, then as a `_FlowMapping`
    opened: list[_FlowMapping | int | None] = []
    hidden: list[tuple[int, int, str]] = []
    for token in _FLOW_TOKEN.finditer(text):
        first = text[token.start()]
        if first == '"' or first == "'":
            continue  # part of a key or a value, read whole where it ends
        if first == "{" or first == "[":
            opened.append(token.end() if first == "{" else None)
            continue
        mapping = opened[-1] if opened else None
        if mapping is None:
            if first == "]" and opened:
                opened.pop()
            continue
        if first == ":":
            key_at = mapping if isinstance(mapping, int) else mapping.key_at
            if key_at >= 0:
                opened[-1] = _flow_key(text, mapping, key_at, token, hidden)
        elif first == "," or first == "}":
            if isinstance(mapping, _FlowMapping):
                _end_flow_value(text, mapping, token.start(), hidden)
                mapping.key_at = token.end()
            if first == "}":
                opened.pop()
            elif isinstance(mapping, int):
                opened[-1] = token.end()
    cut = len(text.rstrip())  # (where each value cut off ends, found once)
    while opened:
        mapping = opened.pop()
        if isinstance(mapping, _FlowMapping):
            _end_flow_value(text, mapping, cut, hidden)
    return _with_hidden(text, hidden)


def _flow_key(
    text: str,
    mapping: _FlowMapping | int,
    key_at: int,
    colon: re.Match[str],
    hidden: list[tuple[int, int, str]],
) -> _FlowMapping | int:
    """A mapping's key ends at `colon`: the mapping as it is read on (`_flow_entries`), with
    the key's role, and for a name key what its name tells."""
    found = _FLOW_KEY_AT.match(text, key_at, colon.end())  # (not read past a word's length)
    role = None if found is None else _ENTRY_KEYS.get(found.group("key"))
    quote = "" if found is None else found.group("quote")
    if isinstance(mapping, int):
        if role is None:
            return -1  # (its value being read)
        mapping = _FlowMapping()
    mapping.key_at = -1
    mapping.role = role
    mapping.quote = quote
    mapping.value_at = colon.end()
    if role and not mapping.named and _secret_flow_name(text, colon.end()):
        mapping.named = True
        hidden += mapping.values
        mapping.values.clear()
    return mapping


def _end_flow_value(
    text: str, mapping: _FlowMapping, end: int, hidden: list[tuple[int, int, str]]
) -> None:
    """The value being read ends at `end`: kept to hide if it is an entry's value."""
    role, start = mapping.role, mapping.value_at
    mapping.role, mapping.value_at = None, -1
    if role is not False or start < 0:
        return
    start = _reach(_SPACES, text, start, end)
    stop = end
    while stop > start and text[stop - 1].isspace():  # (each space before `,` or `}` once)
        stop -= 1
    if stop == start or (stop - start <= 4 and text[start:stop] in _FLOW_NULL):
        return  # no value, or an empty one (as `redact` keeps None)
    opening = text[start]
    string = _FLOW_TOKEN.match(text, start) if opening in ('"', "'") else None
    if string is not None and string.end() == stop:
        if stop - start == 2 and string.lastindex is not None:
            return  # an empty string, as `redact` keeps ""
        shown = opening + REDACTED + (opening if string.lastindex is not None else "")
    elif mapping.quote:
        shown = mapping.quote + REDACTED + mapping.quote
    else:
        shown = REDACTED
    (hidden if mapping.named else mapping.values).append((start, stop, shown))
