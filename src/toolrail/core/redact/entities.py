"""Text holding HTML entities (`{&quot;password&quot;: &quot;X&quot;}`, `password&#61;X`),
read by the passes with its entities decoded, and what they hide put back in the text's own
spelling: each hidden span of the decoded text replaces its original spelling, entities
included, and the text around it stays as it was written. Text escaped more than once
(`&amp;quot;`, `&#38;#34;`: HTML-escaped text escaped again) is read a level at a time:
`redact_text` reads each decoding as text of its own, which may hold entities in turn (see
`text.py`), so every level is read, a value's own entity included (`&lt;password&gt;a&amp;lt;b
&lt;/password&gt;`: `a&lt;b`, in markup escaped once)."""

from __future__ import annotations

import bisect
import html
import re
from html.entities import html5

from toolrail.core.redact.markers import REDACTED

# `&` then `#` or a letter, and later `;`: where an entity may be (a cheap check first)
_MAY_HOLD = re.compile(r"&[#A-Za-z][^&;\s]{0,32}+;")
# an entity whole: a decimal or hex character reference, or a name (looked up in `html5`)
_ENTITY = re.compile(r"&(?:#(?:[0-9]{1,8}+|[xX][0-9a-fA-F]{1,7}+)|[A-Za-z][A-Za-z0-9]{0,31}+);")


class _Decoded:
    """Text with its entities decoded, and where each entity was: `starts[k]`/`ends[k]` in
    the decoded text, `at[k]`/`to[k]` in the text as written."""

    def __init__(self, written: str) -> None:
        self.written = written
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.at: list[int] = []
        self.to: list[int] = []
        self._spellings: dict[int, str] | None = None  # (made once `_respelt` needs it)
        parts: list[str] = []
        done = length = 0
        for found in _ENTITY.finditer(written):
            spelt = found.group()
            read = html.unescape(spelt) if spelt[1] == "#" else html5.get(spelt[1:])
            if read is None:
                continue  # not an entity (`&unknown;`)
            length += found.start() - done
            parts += (written[done : found.start()], read)
            self.starts.append(length)
            length += len(read)
            self.ends.append(length)
            self.at.append(found.start())
            self.to.append(found.end())
            done = found.end()
        self.text = "".join(parts) + written[done:] if parts else written

    def spelt(self, start: int, end: int) -> str:
        """The decoded text's `[start, end)` as it was written: each entity whole in it in its
        own spelling (one it cuts into, `&fjlig;`'s two characters, as decoded)."""
        if start >= end:
            return ""
        first, last = self._boundary(start, up=True), self._boundary(end, up=False)
        if first >= last:
            return self.text[start:end]
        return (
            self.text[start:first]
            + self.written[self._written_at(first) : self._written_at(last)]
            + self.text[last:end]
        )

    def _boundary(self, at: int, up: bool) -> int:
        """`at`, or the nearest edge of the entity decoded around it (up: its end)."""
        k = bisect.bisect_right(self.starts, at) - 1
        if k < 0 or at <= self.starts[k] or at >= self.ends[k]:
            return at
        return self.ends[k] if up else self.starts[k]

    def _written_at(self, at: int) -> int:
        """Where `at`, an edge in the decoded text, is in the text as written."""
        k = bisect.bisect_right(self.starts, at) - 1
        if k < 0:
            return at
        if at == self.starts[k]:
            return self.at[k]
        return self.to[k] + (at - self.ends[k])

    def restored(self, shown: str) -> str:
        """The text as written with what the passes hid in the decoded text (`shown`) hidden:
        the text both share at their start and end, and each piece of `shown` between two
        `REDACTED` found in the decoded text in order, in its own spelling; the rest of
        `shown` as the passes wrote it. So the result read decoded is `shown`, whatever the
        passes did (a JSON string written again, a space put in); each piece is searched for
        once, and once one is not found the rest goes as written: linear."""
        decoded = self.text
        if shown == decoded:
            return self.written
        head = _common_length(decoded, shown, from_end=False)
        tail = _common_length(decoded[head:], shown[head:], from_end=True)
        pieces = shown[head : len(shown) - tail].split(REDACTED)
        respelt = self._respelt
        parts = [self.spelt(0, head), respelt(pieces[0])]
        at, end = head, len(decoded) - tail
        searching = True
        for piece in pieces[1:-1]:
            found = decoded.find(piece, at, end) if searching and piece else -1
            searching = searching and (found >= 0 or not piece)
            if found >= 0:
                parts += (REDACTED, self.spelt(found, found + len(piece)))
                at = found + len(piece)
            else:
                parts += (REDACTED, respelt(piece))
        if len(pieces) > 1:
            parts += (REDACTED, respelt(pieces[-1]))
        parts.append(self.spelt(len(decoded) - tail, len(decoded)))
        return "".join(parts)

    def _respelt(self, piece: str) -> str:
        """Text the passes wrote anew (JSON written again: `\\/` as `/`), each character the
        text spelt as an entity in that entity's spelling (the first seen): the text as
        written reads alike throughout, never a raw `"` among `&quot;`s opening a string no
        quote closes for the passes over it."""
        if not piece:
            return piece
        if self._spellings is None:
            self._spellings = {}
            for start, end, at, to in zip(self.starts, self.ends, self.at, self.to, strict=True):
                if end - start == 1:
                    self._spellings.setdefault(ord(self.text[start]), self.written[at:to])
        return piece.translate(self._spellings)


def _common_length(one: str, other: str, from_end: bool) -> int:
    """How many characters `one` and `other` share at their start (or end), found by halving
    (each comparison in C): O(n log n) at worst."""
    low, high = 0, min(len(one), len(other))
    while low < high:
        middle = (low + high + 1) // 2
        if from_end:
            same = one[len(one) - middle :] == other[len(other) - middle :]
        else:
            same = one[:middle] == other[:middle]
        low, high = (middle, high) if same else (low, middle - 1)
    return low


def _decoded(text: str) -> _Decoded | None:
    """The text read with its entities decoded; None if it holds none."""
    if _MAY_HOLD.search(text) is None:
        return None
    decoded = _Decoded(text)
    return decoded if decoded.starts else None
