"""Where a list or an object written in text ends: its matching bracket, or where it is
cut off, found in linear time however many are cut off."""

from __future__ import annotations

import bisect
import re

# inside a list or an object: its strings (read as strings, so a bracket in one is not
# one), and its brackets; in JSON text, or in JSON text held in a JSON string (`\"`)
_STRUCTURE = re.compile(r'"(?:[^"\\\n]++|\\[^\n])*+"?|\'(?:[^\'\\\n]++|\\[^\n])*+\'?|[\[\]{}]')
# (there, an escaped backslash is read whole, and a quote not escaped ends the string the
# JSON text is in: a list or object cut off in it ends there)
_ESCAPED_STRUCTURE = re.compile(
    r'\\"(?:[^"\\\n]++|\\[^"\\\n]|\\\\(?:[^"\\\n]|\\[^\n]))*+(?:\\")?|\\\\|[\[\]{}"]'
)
# a list or an object whose first string is written `\"`: JSON text in a JSON string
_ESCAPED_OPENING = re.compile(r'[\[{](?:[ \t]|\\[nrt])*+\\"')
_JSON_SCALAR = re.compile(r"(?:-?[\d.eE+-]++|true|false|null)(?![\w\"'])")  # a number, a literal


def _bare_end(structures: _Structures, start: int) -> int:
    """Where the bare JSON value (a number, a literal, a list, an object) at `start` ends;
    `start` if there is none. A list or object cut off ends with its line."""
    text = structures.text
    if text[start] in "[{":
        end, whole = structures.end(start)
        if not whole and (newline := text.find("\n", start, end)) >= 0:
            return newline
        return end
    found = _JSON_SCALAR.match(text, start)
    return found.end() if found is not None else start


class _Structures:
    """Where the lists and objects opening in one text end: after the matching bracket, or
    where cut off (the end of the text, or of the JSON string holding one: `escaped`).

    Asked in the order they open, this stays linear when many are cut off one after another
    (`'"--password", [\\n' * n`), which scanning each to where it is cut off makes quadratic.
    Strings do not run over a newline, so scans from any two openings read the same
    brackets once past the first newline after both. A scan that finds its structure cut
    off keeps the level after each of its brackets, the lowest level from there on, and
    where it was cut off. A later scan, once past its own first newline, reaches one of
    those brackets; if the level never comes back down to where the later structure would
    close, the later structure is cut off there too, told at once. If it does come back
    down, the scan goes on to the close, and the caller goes past it. A scan opening past
    where the kept one was cut off keeps its own in its place."""

    __slots__ = ("_cut", "_from", "_levels", "_lowest", "_starts", "pattern", "text")

    def __init__(self, text: str, *, escaped: bool) -> None:
        self.text = text
        self.pattern = _ESCAPED_STRUCTURE if escaped else _STRUCTURE
        self._cut = -1  # where the kept scan was cut off (none kept yet)
        self._from = len(text)  # the kept scan's first newline: it is shared past this
        self._starts: list[int] = []  # the kept scan's brackets
        self._levels: list[int] = []  # its level after each of them
        self._lowest: list[int] = []  # the lowest level from each of them on

    def end(self, start: int) -> tuple[int, bool]:
        """Where the list or object opening at `start` ends, and whether it is closed."""
        text = self.text
        depth, keeping = 0, start > self._cut
        starts: list[int] = []
        levels: list[int] = []
        newline = -1  # the first newline after `start`, once the scan has passed one
        searched = start
        for token in self.pattern.finditer(text, start):
            found = token.group()
            if found == '"':  # (escaped) the end of the string the JSON text is in
                if keeping:
                    self._keep(start, starts, levels, token.start())
                return token.start(), False
            if found == "[" or found == "{":
                depth += 1
            elif found == "]" or found == "}":
                depth -= 1
                if depth == 0:
                    return token.end(), True
            else:
                continue
            at = token.start()
            if keeping:
                starts.append(at)
                levels.append(depth)
            elif newline < 0:
                newline = text.find("\n", searched, at)
                searched = at
                if newline >= 0 and at > self._from and self._cut_off(at, depth):
                    return self._cut, False
        if keeping:
            self._keep(start, starts, levels, len(text))
        return len(text), False

    def _cut_off(self, at: int, depth: int) -> bool:
        """Whether the kept scan, from its bracket at `at`, never comes back down by `depth`
        levels: so a structure `depth` deep there is never closed (asked once per scan)."""
        index = bisect.bisect_left(self._starts, at)
        if index == len(self._starts) or self._starts[index] != at:
            return False  # not one of its brackets (cannot be, past both newlines)
        return self._lowest[index] > self._levels[index] - depth

    def _keep(self, start: int, starts: list[int], levels: list[int], cut: int) -> None:
        newline = self.text.find("\n", start, cut)
        if newline < 0:
            return  # nothing past a newline to share
        lowest = levels.copy()
        for index in range(len(lowest) - 2, -1, -1):
            lowest[index] = min(lowest[index], lowest[index + 1])
        self._cut, self._from = cut, newline
        self._starts, self._levels, self._lowest = starts, levels, lowest


class _StructuresOf(dict[bool, _Structures]):
    """A text's `_Structures`, in JSON text (False) and in JSON text held in a JSON string
    (True), each made when first asked for."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def __missing__(self, escaped: bool) -> _Structures:
        made = self[escaped] = _Structures(self.text, escaped=escaped)
        return made
