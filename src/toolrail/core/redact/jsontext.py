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
