"""Whether a quote opens a quoted text or ends one, counted along a line read once."""

from __future__ import annotations

import re


def _opens(quotes_before: _QuotesBefore, quote_at: int) -> bool:
    """Whether the quote at `quote_at` opens a quoted text rather than ends one: an even
    number of such quotes precede it on its line."""
    return quotes_before(quote_at) % 2 == 0


class _QuotesBefore:
    """How many `quote`s, not escaped, precede a position on its line, in one text, asked
    at positions in the order a scan meets them: each stretch of a line is read once, so
    counting at every match stays linear however long the line (one JSON text on one
    line). A position before the last one asked is counted over a bounded look-back."""

    __slots__ = ("_at", "_counted", "quote", "text")

    def __init__(self, text: str, quote: str) -> None:
        self.text, self.quote = text, quote
        self._at = self._counted = 0  # `_counted` quotes on its line up to `_at`

    def __call__(self, at: int) -> int:
        text, last = self.text, self._at
        if at < last:
            window = max(0, at - 1024)
            return _quotes_in(text, max(text.rfind("\n", window, at) + 1, window), at, self.quote)
        newline = text.rfind("\n", last, at)
        if newline >= 0:  # a new line: counted from its start
            start, counted = newline + 1, 0
        else:  # on from the last position, with the escapes begun before it
            start, counted = last, self._counted
            run = 0  # (positions asked are never within one run: each is walked once)
            while start > run and text[start - run - 1] == "\\":
                run += 1
            start -= run
        counted += _quotes_in(text, start, at, self.quote)
        self._at, self._counted = at, counted
        return counted


def _quotes_in(text: str, start: int, end: int, quote: str) -> int:
    """How many `quote`s, not escaped, are in `text[start:end]` (`start` not within a run of
    backslashes): a quote after an even run of backslashes is not escaped (`\\"`: an escaped
    backslash, then the quote): those after 0, less those after 1 or more, plus 2 or more…"""
    found, sign, escaped = 0, 1, quote
    while (after := text.count(escaped, start, end)) and len(escaped) <= 16:
        found, sign, escaped = found + sign * after, -sign, "\\" + escaped
    if after:  # a run of backslashes longer than that: read each escape
        return _ESCAPE_OR_QUOTE[quote].findall(text, start, end).count(quote)
    return found


_ESCAPE_OR_QUOTE = {quote: re.compile(r"\\.|(" + quote + ")", re.DOTALL) for quote in "\"'"}


def _quote_counts(text: str) -> dict[str, _QuotesBefore]:
    return {quote: _QuotesBefore(text, quote) for quote in "\"'"}


def _closes_on_its_line(text: str, start: int, quote: str) -> bool:
    line_end = text.find("\n", start)
    return text.find(quote, start, line_end if line_end >= 0 else len(text)) >= 0


def _ends_a_string(quotes_before: _QuotesBefore, name_at: int, quote_at: int) -> bool:
    """Whether the quote at `quote_at`, after a name at `name_at`, ends the JSON string the
    name is in (`"export PASSWORD=", "x"`) rather than opening a value: what follows it
    closes a string, and an odd number of quotes opens the name's line."""
    return (
        bool(_CLOSES_STRING.match(quotes_before.text, quote_at + 1))
        and quotes_before(name_at) % 2 == 1
    )


_CLOSES_STRING = re.compile(r"\s*+[,}\]:]")  # what follows a quote that ends a JSON string
