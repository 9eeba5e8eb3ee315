"""What a call's arguments hide, kept out of every other word about the call.

The one redaction policy (`toolrail.core.redact`) hides a call's secrets in its arguments:
a `password` field, the item after `--token`, a header's value, a URL's password. Words
about the same call may quote them again: a tool's exception (`login refused for bob with
hunter22`), its progress messages, its one-line description, its output in a log, a
validator's refusal. A secret of that kind carries no mark of its own there, so it is found
by its text: `hidden_texts(arguments)` is a `Hidden`, what the policy hides in them, and
`Hidden.without(text)` (`without_in` for JSON data) takes each of those texts out.

- A text is sought in every spelling a message may give it: as it is, `repr`, JSON,
  `ascii`, URL-quoted, shell-quoted, as `bytes`, regardless of case and outer spaces; a
  long one also by its first and last 24 characters (pydantic's way of shortening an
  input), and by its start where a text was cut (`…`).
- A value hidden whole (`Bearer tok`, a cookie, a DSN) gives its secret-looking words too
  (a tool may quote the token alone); one hidden in part (`user:pw` in a URL, `"pin": 1`
  in JSON text) gives the words its redacted copy lost.
- A value hidden whole is sought whatever its length (a short one only where it stands
  alone), unless it holds no letter or digit (a password `" "` would take every space out
  of a message); a piece of one (a word, a run between what its copy kept) only from
  `MIN_CHARS` characters: shorter, it carries too little to hide and would take ordinary
  words out of every message.
- It fails closed: arguments it cannot read whole (nested past the policy's depth, data
  whose own code raises) give `Hidden.ALL`, which withholds every word about the call.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping
from typing import ClassVar
from urllib.parse import quote, quote_plus, unquote, unquote_plus

import orjson
import pydantic_core

from toolrail.core.redact import MAX_DEPTH, REDACTED, TOO_DEEP, redact, redacts_nothing

MAX_TEXTS = 256
"""Past this many hidden texts, words that may quote them are withheld whole."""
MIN_CHARS = 4
"""A piece of a hidden value shorter than this is not sought on its own."""
WITHHELD = "(its wording is withheld: it quotes values that are hidden)"
_SHORT = 8  # shorter, a hidden text is replaced only where it stands alone
_ABBREVIATED = 24  # pydantic shows a long input as its first and last 24 characters
_WINDOW = 1_000_000  # of a text searched; past it a text is cut (every recorder cuts shorter)
_CUT_MARKS = 20  # at most this many `…` in a text are looked behind for a secret's start
_WORDS = re.compile(r"[^\s\"'`,;:=&?@/\\()\[\]{}<>|]+")


class Hidden:
    """The texts a call's arguments hide, each spelled every way a message may give it
    (worked out once, when first needed), ready to be taken out of words about the call."""

    __slots__ = ("_spellings", "texts", "withhold")

    ALL: ClassVar[Hidden]
    """Withholds every word: the arguments could not be read whole."""

    def __init__(
        self, texts: Iterable[str] = (), *, withhold: bool = False, sift: bool = True
    ) -> None:
        """`sift`: leave out texts with no letter or digit (not for a value known to be a
        secret field's, which goes whatever it is)."""
        self.texts = frozenset(t for t in texts if t and (not sift or any(map(str.isalnum, t))))
        self.withhold = withhold or len(self.texts) >= MAX_TEXTS
        self._spellings: tuple[str, ...] | None = None

    def __bool__(self) -> bool:
        return self.withhold or bool(self.texts)

    def __or__(self, other: Hidden) -> Hidden:
        if not other:
            return self
        if not self:
            return other
        withhold = self.withhold or other.withhold
        return Hidden(self.texts | other.texts, withhold=withhold, sift=False)  # sifted once

    def __repr__(self) -> str:
        return "Hidden.ALL" if self.withhold else f"Hidden({len(self.texts)} texts)"

    def without(self, text: str) -> str:
        """`text` without any of the hidden texts (withheld whole for `Hidden.ALL`)."""
        if not self or not text:
            return text
        if self.withhold:
            return WITHHELD
        spellings = self.spellings
        if len(text) < len(spellings[-1]):
            return text  # shorter than the shortest: nothing to find
        return _replaced(text[:_WINDOW], spellings)

    def without_in(self, value: object, depth: int = 0) -> object:
        """JSON data (`to_json_value`'s) with every string and key `without` the texts, and
        a number whose digits are hidden replaced."""
        if not self:
            return value
        if depth > MAX_DEPTH:
            return TOO_DEEP
        if isinstance(value, str):
            return self.without(value)
        if isinstance(value, dict):
            return {self._key(key): self.without_in(item, depth + 1) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.without_in(item, depth + 1) for item in value]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number and (self.withhold or str(value) in self.texts):
            return REDACTED
        return value

    def _key(self, key: object) -> object:
        # withheld, keys stay apart: they are names, and the policy shows them
        return self.without(key) if isinstance(key, str) and not self.withhold else key

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every spelling sought, lower-case, the longest first."""
        if self._spellings is None:
            found: set[str] = set()
            for text in self.texts:
                found.update(_spelled(text))
            kept = {s.strip() or s for s in found if s}
            self._spellings = tuple(sorted((s.lower() for s in kept), key=len, reverse=True))
        return self._spellings


Hidden.ALL = Hidden(withhold=True)
NOTHING = Hidden()


def _spelled(text: str) -> Iterable[str]:
    yield text
    yield repr(text)[1:-1]
    yield json.dumps(text)[1:-1]
    yield ascii(text)[1:-1]
    yield quote(text, safe="")
    yield quote_plus(text)
    if "%" in text or "+" in text:  # URL-quoted in the arguments, decoded by the tool
        yield unquote(text)
        yield unquote_plus(text)
    if "'" in text:  # else shell-quoted is only quoted: the quotes can stay
        yield shlex.quote(text)
    yield repr(text.encode("utf-8", "replace"))[2:-1]
    if len(text) > 2 * _ABBREVIATED:
        yield text[:_ABBREVIATED]
        yield text[-_ABBREVIATED:]


def _replaced(text: str, spellings: tuple[str, ...]) -> str:
    """`text` with each spelling (lower-case, longest first) replaced: anywhere when it is
    long, else only where it stands alone (`mail`, hidden, is not taken out of `email`);
    and the start of one that a cut (`…`) ends. Linear in the text for each spelling."""
    searched = text.lower()
    if len(searched) != len(text):  # a letter whose lower case is longer (`İ`)
        searched = text
    covered = bytearray(len(text))  # 1 where a longer spelling was found already
    taken: list[tuple[int, int]] = []
    for sought in spellings:
        if sought not in searched:
            continue
        alone = len(sought) < _SHORT
        at = 0
        while (found := searched.find(sought, at)) >= 0:
            end = found + len(sought)
            at = found + 1
            if alone and (_glued(text, found - 1, sought[0]) or _glued(text, end, sought[-1])):
                continue
            if covered.find(1, found, end) < 0:
                taken.append((found, end))
                covered[found:end] = b"\x01" * (end - found)
                at = end
    if "…" in text:
        taken += _cut_starts(searched, spellings, covered)
    if not taken:
        return text
    parts: list[str] = []
    done = 0
    for start, stop in sorted(taken):
        if start < done:
            continue
        parts += (text[done:start], REDACTED)
        done = stop
    return "".join(parts) + text[done:]


def _cut_starts(
    searched: str, spellings: tuple[str, ...], covered: bytearray
) -> list[tuple[int, int]]:
    """The starts of long spellings (at least `_SHORT` characters of them) that a cut
    ends: `… (8026 characters, cut)` after the first part of a secret."""
    spans: list[tuple[int, int]] = []
    at = 0
    for _ in range(_CUT_MARKS):
        mark = searched.find("…", at)
        if mark < 0:
            break
        at = mark + 1
        for sought in spellings:
            if len(sought) < _SHORT + 1:
                break  # the longest first: none after this is long enough
            window = searched[max(0, mark - len(sought) + 1) : mark]
            head = sought[:_SHORT]
            start = window.find(head)
            while start >= 0:
                piece = window[start:]
                if sought.startswith(piece):
                    begin = mark - len(piece)
                    if covered.find(1, begin, mark) < 0:
                        spans.append((begin, mark))
                        covered[begin:mark] = b"\x01" * (mark - begin)
                    break
                start = window.find(head, start + 1)
    return spans


def _glued(message: str, at: int, edge: str) -> bool:
    """Whether the character at `at` runs on from a text's word character `edge`."""
    return 0 <= at < len(message) and edge.isalnum() and message[at].isalnum()


def read_arguments(raw: object) -> object:
    """Raw arguments as data: JSON text as pydantic reads it (it allows `NaN`, `Infinity`),
    none as `{}`; text that is not JSON is kept as text."""
    if isinstance(raw, str | bytes):
        try:
            return pydantic_core.from_json(raw, allow_inf_nan=True) if raw.strip() else {}
        except ValueError:
            pass
        try:
            return orjson.loads(raw)  # deeper than pydantic reads (a JSON Schema tool's reader)
        except orjson.JSONDecodeError:
            return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return {} if raw is None else raw


def hidden_texts(*arguments: object) -> Hidden:
    """What a call's redacted arguments hide, anywhere in them (raw JSON text is read
    first, `read_arguments`): in each of `arguments` (the call's as it ran, and the model's
    own when a person edited them; None is no arguments)."""
    hidden = NOTHING
    for raw in arguments:
        if raw is not None:
            hidden |= hidden_in(read_arguments(raw))
    return hidden


def hidden_in(data: object) -> Hidden:
    """`hidden_texts` of data read already. Nothing, at the cost of one look, when nothing
    is hidden; `Hidden.ALL` for data it cannot read whole: nested past the policy's depth
    (what lies below is shown by no one, and not known here), or whose own code raises
    when it is looked at (an `__eq__`, a `__str__`: no JSON reads so)."""
    try:
        if redacts_nothing(data):
            return NOTHING
        texts: set[str] = set()
        if not hidden_by(data, redact(data), texts):
            return Hidden.ALL
    except Exception:
        return Hidden.ALL
    return Hidden(texts)


def all_texts(value: object, into: set[str], depth: int = 0) -> bool:
    """Every leaf's text in `value` (a pydantic secret's too), and the secret-looking words
    of each; False past the depth bound."""
    if len(into) >= MAX_TEXTS:
        return True
    if depth > MAX_DEPTH:
        return False
    if type(value) is not str and callable(reveal := getattr(value, "get_secret_value", None)):
        return all_texts(reveal(), into, depth + 1)  # SecretStr, a declared secret's `Masked`
    if isinstance(value, str):
        into.add(value)
        into.update(w for w in _WORDS.findall(value) if _looks_secret(w))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        into.add(str(value))
    elif isinstance(value, bytes):
        return all_texts(value.decode("utf-8", "replace"), into, depth)
    elif isinstance(value, Mapping):  # its values: its keys are names
        return all(all_texts(item, into, depth + 1) for item in value.values())
    elif isinstance(value, list | tuple):
        return all(all_texts(item, into, depth + 1) for item in value)
    return True


def _looks_secret(word: str) -> bool:
    """A word of a hidden value that is worth seeking alone: long, with a digit or with
    both cases (`opaqueTok3n…`, `S3cretPassw0rd`; not `Bearer`, `localhost`)."""
    return len(word) >= _SHORT and (
        any(c.isdigit() for c in word) or (not word.islower() and not word.isupper())
    )


def hidden_by(value: object, redacted: object, into: set[str], depth: int = 0) -> bool:
    """The text of what `redact` hid in `value` (its copy `redacted`), found by walking both
    side by side; False where the copy stopped at the depth bound (`TOO_DEEP`)."""
    if len(into) >= MAX_TEXTS:
        return True
    if depth > MAX_DEPTH or redacted == TOO_DEEP:
        return False
    if isinstance(redacted, str) and REDACTED in redacted:
        if redacted == REDACTED or not isinstance(value, str):
            return all_texts(value, into, depth)
        # hidden in part (`-p[REDACTED]`, `user:[REDACTED]@`, `"pin": "[REDACTED]"`): the
        # words the copy lost
        kept = set(_WORDS.findall(redacted))
        into.update(w for w in _WORDS.findall(value) if w not in kept and len(w) >= MIN_CHARS)
        for run in redacted.split(REDACTED):  # and the runs between what stayed
            value = value.replace(run, "\0") if len(run) >= MIN_CHARS else value
        into.update(p for p in value.split("\0") if len(p.strip()) >= MIN_CHARS)
    elif isinstance(redacted, dict) and isinstance(value, Mapping):
        # `redact` keeps every entry, in order, each under its key as it shows it
        for (key, original), (shown, item) in zip(value.items(), redacted.items(), strict=False):
            if shown != key and isinstance(key, str) and not hidden_by(key, shown, into, depth):
                return False
            if not hidden_by(original, item, into, depth + 1):
                return False
    elif isinstance(redacted, list) and isinstance(value, list | tuple):
        for original, item in zip(value, redacted, strict=False):
            if not hidden_by(original, item, into, depth + 1):
                return False
    return True
