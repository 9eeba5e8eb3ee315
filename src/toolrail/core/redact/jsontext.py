"""JSON text that is a document whole, redacted as `redact` redacts its data and written as
it was."""

from __future__ import annotations

import dataclasses
import json
import os
import re

import orjson

from toolrail.core import redact as _policy  # called back: the policy recurses
from toolrail.core.redact.markers import TOO_DEEP

_JSON_OPENING = re.compile(r"\s*+[\[{\"]")
_INDENT_OF = re.compile(r"\n([ \t]++)\S")
_SEPARATOR = re.compile(r'"(?:[^"\\]++|\\.)*+"|[,:]( ?)')  # the first `,` or `:` not in a string


@dataclasses.dataclass(frozen=True, slots=True)
class _Number:
    """A number of JSON text, as it was written (`1E5`, `1.10`, a 40-digit integer): `redact`
    passes it as it is, and it is written back in its own spelling."""

    spelling: str


class _AsWritten:
    """What `_redacted_json` writes back as it was read, marked while the data is redacted
    with a nonce no text can know: each number in its own spelling, and each key given
    twice in one object (the data holds one per key, so the others are renamed meanwhile,
    and each copy is read)."""

    def __init__(self) -> None:
        self.nonce = str(int.from_bytes(os.urandom(8), "big")).zfill(20)

    def read_object(self, pairs: list[tuple[str, object]]) -> dict[str, object]:
        made = dict(pairs)
        if len(made) == len(pairs):
            return made
        made = {}
        for index, (key, value) in enumerate(pairs):
            made[f"{key}\0K{self.nonce}{index}\0" if key in made else key] = value
        return made

    def number(self, number: object) -> str:
        """`_Number` as `json.dumps` writes it: a string `restored` turns back."""
        assert isinstance(number, _Number)
        return f"\0N{self.nonce}{number.spelling}\0"

    def restored(self, dumped: str) -> str:
        """The JSON `json.dumps` wrote, its numbers and renamed keys as they were read (a
        string in the data that looks like one of them stays as it is)."""
        if "\\u0000" not in dumped:
            return dumped
        dumped = _WRITTEN_NUMBER.sub(lambda found: self._ours(found, found.group(2)), dumped)
        return _RENAMED_KEY.sub(lambda found: self._ours(found, '"'), dumped)

    def _ours(self, found: re.Match[str], written: str) -> str:
        return written if found.group(1) == self.nonce else found.group()


_WRITTEN_NUMBER = re.compile(r'"\\u0000N(\d{20})([-+.\deE]++)\\u0000"')
_RENAMED_KEY = re.compile(r'\\u0000K(\d{20})\d++\\u0000"')
_SURROGATE = re.compile("[\ud800-\udfff]")


def _redacted_json(text: str) -> str | None:
    """JSON text (a document whole) redacted as `redact` redacts its data, and written as
    it was (indented or not, ASCII or not, each number as it was spelt) if anything goes:
    text and data agree by construction, JSON text held in its strings (at any depth) is
    read as JSON, and JSON stays JSON. None for the passes to read it as text: not JSON, or
    nesting deeper than `redact` (or the stack) goes."""
    escaped_surrogate = "\\ud" in text or "\\uD" in text
    try:
        orjson.loads(text)  # fails fast on what is not JSON
    except orjson.JSONDecodeError:  # (orjson refuses a lone surrogate, which JSON may hold)
        if not escaped_surrogate and _SURROGATE.search(text) is None:
            return None
    written = _AsWritten()
    try:
        data = json.loads(
            text, parse_float=_Number, parse_int=_Number, object_pairs_hook=written.read_object
        )
        shown = _policy.redact(data)  # (not `redacts_nothing` first: JSON text nested in it, read
    except (ValueError, RecursionError):  # twice at each depth, would cost twice at each)
        return None
    if shown == data:
        return text
    indent = _INDENT_OF.search(text) if "\n" in text.strip() else None
    separator = next((found for found in _SEPARATOR.finditer(text) if found[1] is not None), None)
    spaced = indent is not None or (separator is not None and separator[1] == " ")  # json.dumps
    dumped = json.dumps(
        shown,
        ensure_ascii=text.isascii() or escaped_surrogate,  # a lone surrogate stays escaped
        indent=indent.group(1) if indent else None,
        separators=(", " if indent is None else ",", ": ") if spaced else (",", ":"),
        default=written.number,
    )
    if TOO_DEEP in dumped and TOO_DEEP not in text:
        return None  # deeper than `redact` goes: the passes read it as text
    dumped = written.restored(dumped)
    if "\\/" in text and "/" not in text.replace("\\/", ""):  # PHP's `json_encode`: `\/`
        dumped = dumped.replace("/", "\\/")  # (a `/` is only ever in a string)
    stripped = text.strip()
    start = text.index(stripped[0])
    return text[:start] + dumped + text[start + len(stripped) :]


# an object of JSON text inside other text (after a log's prefix, in an attribute): its
# opening, and what a scan for its closing bracket reads (JSON's strings whole)
_OBJECT_OPENING = re.compile(r'\{[ \t]*+"')
_BRACKETED = re.compile(r'"(?:[^"\\\n]++|\\[^\n])*+"?|[\[\]{}]')
_HELD_OBJECT = re.compile(r'"\0\0(\d++)\0"')  # an object `_embedded_json` held out


def _embedded_json(text: str) -> tuple[str, list[str]]:
    """Each object of JSON text written inside other text (`INFO spawn {"command": ...}`,
    `<div data='{...}'>`) redacted as `_redacted_json` redacts a document, so it reads
    there as it would alone: as data. Those that change are held out of the text for the
    other passes (each is left a placeholder, a short string no pass reads), which would
    read their redaction again as text. Brackets are matched in one scan; an object that
    is not JSON is left to the passes, and nothing inside it is parsed again. Returns the
    text and the objects held."""
    parts: list[str] = []
    held: list[str] = []
    done = 0
    for start, end in _outermost_objects(text):
        written = text[start:end]
        shown = _redacted_json(written)
        if shown is not None and shown != written:
            parts += (text[done:start], f'"\0\0{len(held)}\0"')
            held.append(shown)
            done = end
    return ("".join(parts) + text[done:] if held else text), held


def _outermost_objects(text: str) -> list[tuple[int, int]]:
    """Where each object opening `{"` in the text starts and ends, outside any other such
    object: brackets matched once, left to right (one never closed is no object)."""
    opened: list[int] = []
    closed: list[tuple[int, int]] = []  # (inner ones close first)
    for token in _BRACKETED.finditer(text):
        bracket = text[token.start()]
        if bracket == "{" or bracket == "[":
            opened.append(token.start())
        elif (bracket == "}" or bracket == "]") and opened:
            start = opened.pop()
            if bracket == "}" and _OBJECT_OPENING.match(text, start):
                while closed and closed[-1][0] > start:
                    closed.pop()  # inside this one
                closed.append((start, token.end()))
    return closed


def _objects_restored(text: str, held: list[str]) -> str:
    """The text with the objects `_embedded_json` held out put back (what is left of one a
    pass cut into, `_restored` drops: it was redacted)."""
    return _HELD_OBJECT.sub(lambda found: held[int(found.group(1))], text)
