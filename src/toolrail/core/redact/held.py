"""JSON strings in text, each redacted as the text it holds and held out of the text while
the other passes read it."""

from __future__ import annotations

import json
import re
from typing import cast

import orjson

from toolrail.core import redact as _policy  # called back: the policy recurses
from toolrail.core.redact.tokens import _SHORTEST_SECRET

# a JSON string, its escapes read as escapes; one not closed on its line is passed over
# whole (`closed` unset), not searched again from each quote in it
_JSON_STRING = re.compile(r'"(?:[^"\\\n]++|\\[^\n])*+(?:(?P<closed>")|\\\Z)?')
_HELD = re.compile(r'"\0(\d++)\0"')  # a string `_held_strings` took out of the text


def _held_strings(text: str) -> tuple[str, list[str]]:
    """Each JSON string in the text redacted as the text it holds, as `redact` redacts the
    string in the data: decoded, so its quotes, a value cut off at its end and JSON text held
    in it (at any depth) read as they are written there; then encoded again (as ASCII if it
    was). A string cut off at the end of the text (a preview) is read as far as it goes.
    Those that change are held out of the text for the other passes (each is left a
    placeholder), so no pass reads their redaction as raw text: a value cut off there would
    run on past the string's end. Returns the text and the strings held."""
    parts: list[str] = []
    held: list[str] = []
    done = 0
    for found in _JSON_STRING.finditer(text):
        literal = found.group()
        closed = found.group("closed") is not None
        if not closed and found.end() < len(text):
            continue  # not JSON's: a JSON string has no line break
        if len(literal) < _SHORTEST_SECRET + 1 or (content := _content(literal, closed)) is None:
            continue
        shown = _policy.redact_text(content)
        if shown != content:
            encoded = json.dumps(shown, ensure_ascii=literal.isascii())
            parts += (text[done : found.start()], f'"\0{len(held)}\0"')
            held.append(encoded if closed else encoded[:-1])
            done = found.end()
    return ("".join(parts) + text[done:] if parts else text), held


def _content(literal: str, closed: bool) -> str | None:
    """What a JSON string holds; one cut off, as far as it goes (less an escape cut in two:
    `\\`, `\\u00`, `\\ud83d\\ude`, cut at one of its last backslashes); None if it is
    not JSON's (an escape JSON has not)."""
    if "\\" not in literal:
        return literal[1:-1] if closed else literal[1:]
    attempts = [literal if closed else literal + '"']
    end, floor = len(literal), max(1, len(literal) - 12)
    while not closed and len(attempts) < 4 and (end := literal.rfind("\\", floor, end)) >= 0:
        attempts.append(literal[:end] + '"')
    for attempt in attempts:
        try:
            return cast("str", orjson.loads(attempt))
        except orjson.JSONDecodeError:
            continue
    return None


def _held_content(literal: str) -> tuple[str | None, bool]:
    """What a string `_held_strings` held out holds, and whether it was closed."""
    closed = (string := _JSON_STRING.fullmatch(literal)) is not None and bool(string["closed"])
    return _content(literal, closed), closed


def _restored(text: str, held: list[str]) -> str:
    """The text with the strings `_held_strings` held out put back (what is left of one a
    pass cut into is dropped: it was redacted)."""
    return _HELD.sub(lambda found: held[int(found.group(1))], text).replace("\0", "")
