"""JSON text (and JSONC: comments, trailing commas), a document whole or an object inside
other text, redacted as `redact` redacts its data and written as it was."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from collections.abc import Callable

import orjson

from toolrail.core import redact as _policy  # called back: the policy recurses
from toolrail.core.redact.markers import TOO_DEEP
from toolrail.core.redact.reading import _COMMENT, _SHORT_COMMENT
from toolrail.core.redact.structures import _StructuresOf

_JSON_OPENING = re.compile(r"\s*+[\[{\"]")
_JSON_STRING = r'"(?:[^"\\]++|\\.)*+"'  # (read whole: what is in one is no JSON of its own)
_SEPARATOR = re.compile(_JSON_STRING + r"|[,:]( ?)")  # the first `,` or `:` not in a string


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
    it was: only what the data hides is written anew, in place (`_InPlace`), so spacing,
    escapes and each number's spelling stay. Text and data agree by construction, JSON
    text held in its strings (at any depth) is read as JSON, and JSON stays JSON. JSONC
    (VS Code's `mcp.json`) is read as the JSON it is with its comments and trailing commas
    blank (`_blanked`), then each comment as text, in its line's context (`_comments_read`).
    None for the passes to read it as text: not JSON(C), or nesting deeper than `redact`
    (or the stack) goes."""
    escaped_surrogate = "\\ud" in text or "\\uD" in text
    source = text
    try:
        orjson.loads(text)  # fails fast on what is not JSON
    except orjson.JSONDecodeError:  # (orjson refuses a lone surrogate, which JSON may hold)
        if not escaped_surrogate and _SURROGATE.search(text) is None:
            text = _blanked(source)  # JSONC: read with its comments and trailing commas blank
            if text is source:
                return None
            try:
                orjson.loads(text)
            except orjson.JSONDecodeError:
                return None
    written = _AsWritten()
    try:
        data = json.loads(
            text, parse_float=_Number, parse_int=_Number, object_pairs_hook=written.read_object
        )
        # (not `redacts_nothing` first: JSON text nested in it, read twice at each depth,
        # would cost twice at each)
        shown = _policy.redact(data)
        rewritten = (
            source if shown == data else _InPlace(text, written, source).rewrite(data, shown)
        )
    except (ValueError, RecursionError):
        return None
    if TOO_DEEP in rewritten and TOO_DEEP not in text:
        return None  # deeper than `redact` goes: the passes read it as text
    return rewritten if text is source else _comments_read(rewritten)


# JSON with comments and trailing commas ("JSONC": VS Code's `settings.json` and `mcp.json`,
# tsconfig), read as JSON with them blank: JSON's strings whole, a comment (one never closed
# runs to the end), a comma before a closing bracket
_COMMENTED = re.compile(_JSON_STRING + r"|//[^\n]*+|/\*.*?(?:\*/|\Z)", re.DOTALL)
_TRAILING_COMMA = re.compile(_JSON_STRING + r"|,(?=[ \t\n\r]*+[}\]])")


def _blanked(text: str) -> str:
    """`text` with its comments and trailing commas made spaces, each where it was (so the
    data read from it is found in `text` where it is read); `text` itself if it has none,
    or a comment never closed."""
    if "/" not in text and "," not in text:
        return text
    parts: list[str] = []
    done = 0
    for pattern in (_COMMENTED, _TRAILING_COMMA):
        for found in pattern.finditer(text):
            written = found[0]
            if written[0] == '"':
                continue
            if written.startswith("/*") and (len(written) < 4 or not written.endswith("*/")):
                return text  # never closed: no JSONC
            parts += (text[done : found.start()], " " * len(written))
            done = found.end()
        if parts:
            text, parts, done = "".join(parts) + text[done:], [], 0
    return text


def _comments_read(text: str) -> str:
    """JSONC with each comment read as text: one holding a flag after what its line says
    before it, if that names a program whose flags' values may be secrets (80 characters at
    most: `"mysql", // -pX`, `["sshpass", // -p X`), as the passes read a line, unless that
    reading keeps no comment (`"token": // -note`, read as a key's value); any other
    alone. (Read with a mark between the two, a control character the text has not, which
    tells where the comment's reading starts.)"""
    parts: list[str] = []
    done = 0
    mark = next((mark for mark in _MARKS if mark not in text), "")
    for found in _COMMENTED.finditer(text):
        comment = found[0]
        if comment[0] == '"':
            continue
        read = None
        if mark and "-" in comment:  # a flag (`-pX`, `-u me:X`): its line's program?
            reach = max(0, found.start() - _CONTEXT)
            before = text[text.rfind("\n", reach, found.start()) + 1 or reach : found.start()]
            if _PROGRAM_BEFORE.search(before):
                shown = _policy.redact_text(before + mark + comment)
                after = shown.partition(mark)[2] if shown.count(mark) == 1 else ""
                if after.startswith(comment[:2]) and (comment[1] == "/" or after.endswith("*/")):
                    read = after
        if read is None:
            read = _policy.redact_text(comment)
        if read == comment:
            continue
        parts += (text[done : found.start()], read)
        done = found.end()
    return "".join(parts) + text[done:] if parts else text


_CONTEXT = 80
# what a comment's flag may be read after (what makes a flag's value a secret there)
_PROGRAM_BEFORE = re.compile(
    r"(?i)mysql|mariadb|sshpass|curl|secret|vault|login|config|env|variable|auth|set"
)


_SPACE = re.compile(r"[ \t\n\r]*+")
_STRING = re.compile(_JSON_STRING)
_SCALAR = re.compile(r"[-+.\deE]++|true|false|null|NaN|-?Infinity")


class _InPlace:
    """JSON text with the values its redacted data changed written anew where they stand,
    read alongside the data: a mapping or list the redaction kept the shape of is gone into,
    member by member; any other changed value (a string, a number hidden, a whole list
    hidden) is written in its place, in the text's own escaping (ASCII if the text is, `\\/`
    if the text writes it); what did not change is copied as it is."""

    def __init__(self, text: str, written: _AsWritten, source: str) -> None:
        """`text`, read; `source`, copied: the same but for what `_blanked` blanked."""
        self.text = text
        self.source = source
        self.written = written
        self.structures = _StructuresOf(text)  # (where each list or mapping ends)
        self.parts: list[str] = []
        self.done = 0  # the text up to here is in `parts` or replaced

    def rewrite(self, data: object, shown: object) -> str:
        self.value(_spaces_end(self.text, 0), data, shown)
        return "".join(self.parts) + self.source[self.done :]

    def value(self, at: int, data: object, shown: object) -> int:
        """Where the value at `at` (`data`, redacted as `shown`) ends, written as it shows."""
        text = self.text
        if shown is data or shown == data:
            return self.end(at)
        opening = text[at]
        if (
            opening == "{"
            and type(data) is dict
            and type(shown) is dict
            and len(data) == len(shown)
        ):
            names = ([*data], [*shown])
            return self.members(at, [*data.values()], [*shown.values()], "}", names)
        if (
            opening == "["
            and type(data) is list
            and type(shown) is list
            and len(data) == len(shown)
        ):
            return self.members(at, data, shown, "]", None)
        end = self.end(at)
        self.parts += (self.source[self.done : at], self.dumped(shown, text[at:end]))
        self.done = end
        return end

    def members(
        self,
        at: int,
        data: list[object],
        shown: list[object],
        closing: str,
        names: tuple[list[object], list[object]] | None,
    ) -> int:
        """Where the list or mapping at `at` ends, each member written as it shows; a
        mapping's `names`, as read and as shown (a key that is a secret itself is renamed:
        `redact_name`)."""
        text = self.text
        at += 1
        for index, (item, shown_item) in enumerate(zip(data, shown, strict=True)):
            at = _spaces_end(text, at)
            if names is not None:  # the key, and its `:`
                key = _STRING.match(text, at)
                if key is None:
                    raise ValueError("not the JSON text the data was read from")
                if names[1][index] != names[0][index]:
                    self.parts += (
                        self.source[self.done : at],
                        self.dumped(names[1][index], key[0]),
                    )
                    self.done = key.end()
                at = _spaces_end(text, _spaces_end(text, key.end()) + 1)
            at = _spaces_end(text, self.value(at, item, shown_item))
            if text.startswith(",", at):
                at += 1
        at = _spaces_end(text, at)
        if not text.startswith(closing, at):
            raise ValueError("not the JSON text the data was read from")
        return at + 1

    def end(self, at: int) -> int:
        """Where the value at `at` ends."""
        text = self.text
        opening = text[at]
        if opening == '"':
            found = _STRING.match(text, at)
        elif opening == "{" or opening == "[":
            end, whole = self.structures[False].end(at)
            if not whole:
                raise ValueError("not the JSON text the data was read from")
            return end
        else:
            found = _SCALAR.match(text, at)
        if found is None:
            raise ValueError("not the JSON text the data was read from")
        return found.end()

    def dumped(self, shown: object, was: str) -> str:
        """`shown` as JSON text where `was` was written: in its escaping, and spaced as the
        text is (a list or a mapping hidden in part but reshaped)."""
        dumped = json.dumps(
            shown,
            ensure_ascii=was.isascii(),
            separators=self.separators if isinstance(shown, dict | list) else None,
            default=self.written.number,
        )
        dumped = self.written.restored(dumped)
        if "\\/" in was:  # PHP's `json_encode`: `\/` (a `/` is only ever in a string)
            dumped = dumped.replace("/", "\\/")
        return dumped

    @functools.cached_property
    def separators(self) -> tuple[str, str]:
        """`json.dumps`'s separators as the text writes its first `,` or `:`."""
        found = (found for found in _SEPARATOR.finditer(self.text) if found[1] is not None)
        spaced = next(found, None)
        return (", ", ": ") if spaced is not None and spaced[1] == " " else (",", ":")


def _spaces_end(text: str, at: int) -> int:
    """Where the spaces JSON allows from `at` on end."""
    found = _SPACE.match(text, at)
    return found.end() if found is not None else at


# an object of JSON text inside other text (after a log's prefix, in an attribute): its
# opening, and what a scan for its closing bracket reads (JSON's strings whole)
# (and JSONC's comments whole: a bracket or a quote in one is none; before the first key too)
_OBJECT_OPENING = re.compile(rf'\{{(?:\s++|{_SHORT_COMMENT})*+"')
_BRACKETED = re.compile(rf'"(?:[^"\\\n]++|\\[^\n])*+"?|{_COMMENT}|[\[\]{{}}]')
# what marks an object `_embedded_json` holds out: a control character the text has not
# (the strings `held` holds out are marked with NUL)
_MARKS = "\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11"


@functools.cache
def _held_objects(mark: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """An object held out under `mark`, and what is left of one a pass cut into."""
    return (
        re.compile(r'\{"' + mark * 2 + r"(\d++)" + mark + r'"\}'),
        re.compile(r'\{?+"?+' + mark + r"*+\d*+" + mark + r'"?+\}?+|\{?+"?+' + mark + "++"),
    )


def _embedded_json(text: str, may_hide: Callable[[str], bool]) -> tuple[str, list[str], str]:
    """Each object of JSON text written inside other text (`INFO spawn {"command": ...}`,
    `<div data='{...}'>`) redacted as `_redacted_json` redacts a document, so it reads
    there as it would alone: as data. Each is then held out of the text for the other
    passes, which would read it again as text (at each depth of JSON held in its strings:
    twice per depth is exponential), and left a placeholder, `{"\x01\x01N\x01"}` (its
    mark a control character the text has not): an object, so a pass hiding a value that
    is one hides it as one (`Authorization: {...}`).
    One holding nothing a pass would hide (`may_hide`: most hold nothing) is held as it is,
    unread. One that is not JSON, nor JSONC (single quotes, a bare word, one cut off) has
    the objects inside it read so in turn, `_RETRIED` levels deep at most; what is left is
    the passes'. Returns the text, the objects held and their mark."""
    mark = next((mark for mark in _MARKS if mark not in text), "")
    if not mark:
        return text, [], ""
    parts: list[str] = []
    held: list[str] = []
    done = 0
    objects = [(start, end, 0) for start, end in _outermost_objects(text, 0, len(text))]
    objects.reverse()  # (a stack: the next object last)
    while objects:
        start, end, level = objects.pop()
        written = text[start:end]
        shown = _redacted_json(written) if may_hide(written) else written
        if shown is None:
            if level < _RETRIED:
                inside = _outermost_objects(text, start + 1, end - 1)
                objects += [(first, last, level + 1) for first, last in reversed(inside)]
            continue
        parts += (text[done:start], f'{{"{mark}{mark}{len(held)}{mark}"}}')
        held.append(shown)
        done = end
    return ("".join(parts) + text[done:] if held else text), held, mark


_RETRIED = 3  # (each level reads what it holds again: linear still)


def _outermost_objects(text: str, at: int, end: int) -> list[tuple[int, int]]:
    """Where each object opening `{"` in `text[at:end]` starts and ends, outside any other
    such object. Brackets are matched from each opening outside the last one read, so
    quotes in the text between them (`12" screen {...}`) are not read; one never closed is
    no object, and each character is read once."""
    found: list[tuple[int, int]] = []
    while (opening := _OBJECT_OPENING.search(text, at, end)) is not None:
        opened: list[int] = []
        inner: list[tuple[int, int]] = []  # (inner ones close first)
        at = end  # (never closed: read to the end)
        for token in _BRACKETED.finditer(text, opening.start(), end):
            bracket = text[token.start()]
            if bracket == "{" or bracket == "[":
                opened.append(token.start())
            elif bracket == "}" or bracket == "]":
                start = opened.pop()
                if bracket == "}" and _OBJECT_OPENING.match(text, start):
                    while inner and inner[-1][0] > start:
                        inner.pop()  # inside this one
                    inner.append((start, token.end()))
                if not opened:
                    at = token.end()
                    break
        found += inner
    return found


def _objects_restored(text: str, held: list[str], mark: str) -> str:
    """The text with the objects `_embedded_json` held out under `mark` put back; what is
    left of one a pass cut into is dropped (it was redacted)."""
    placeholder, remnant = _held_objects(mark)
    text = placeholder.sub(lambda found: held[int(found.group(1))], text)
    return remnant.sub("", text) if mark in text else text
