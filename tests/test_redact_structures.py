"""A list or an object after a secret flag or name ends at its matching bracket, or where it
is cut off; finding that stays linear when many are cut off one after another, each of
which once scanned to the end of the text (`'"--password", [\\n' * n` took minutes at 1 MB).
The shortcut answers exactly as a scan of each would."""

from __future__ import annotations

import re
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hang_guard import finished
from toolrail.core.redact import REDACTED, redact_text
from toolrail.core.redact.structures import _ESCAPED_STRUCTURE, _STRUCTURE, _Structures

CUT_OFF = {  # one line of each, repeated to 600 KB
    "items": '"--password", [\n',
    "items in JSON text in a string": '\\"--password\\", [\n',
    "items with strings holding brackets": '"--token", [{"a": "[", \n',
    "objects": "'--api-key', {\n",
    "items after a closed one": '"--password", [[], [\n',
}
TAILS = {"": "", "the end of the string holding them": '"'}


@pytest.mark.parametrize("tail", sorted(TAILS))
@pytest.mark.parametrize("name", sorted(CUT_OFF))
def test_many_cut_off_structures_are_redacted_without_a_stall(name: str, tail: str) -> None:
    """Cut off by the end of the text, or (in JSON text in a string) by the string's end."""
    line = CUT_OFF[name]
    text = line * (600_000 // len(line)) + TAILS[tail]
    done = finished(lambda: redact_text(text))
    assert done, f"redacting {name!r} did not finish"
    lines = done[0].split("\n")
    assert len(lines) == text.count("\n") + 1
    assert all(REDACTED in shown for shown in lines[:-1])
    assert lines[-1] == TAILS[tail]


def _scanned_end(text: str, start: int, escaped: bool) -> tuple[int, bool]:
    """The oracle: the plain scan from `start` to the matching bracket, or to the end."""
    depth = 0
    for token in (_ESCAPED_STRUCTURE if escaped else _STRUCTURE).finditer(text, start):
        found = token.group()
        if found == '"':
            return token.start(), False
        if found in "[{":
            depth += 1
        elif found in "]}":
            depth -= 1
            if depth == 0:
                return token.end(), True
    return len(text), False


# what brackets, strings (raw, escaped, cut off at a line's end) and JSON in JSON are made of
PIECES = st.sampled_from(['"', "'", "\\", '\\"', "[", "]", "{", "}", "\n", " ", "x", ", ", '"]'])


@given(st.lists(PIECES, max_size=80).map("".join), st.booleans(), st.randoms())
def test_every_structure_ends_where_a_scan_of_it_ends(
    text: str, escaped: bool, random: Random
) -> None:
    """Asked in any order, for any opening bracket (a later one inside a kept scan's string,
    or on its line, too)."""
    openings = [found.start() for found in re.finditer(r"[\[{]", text)]
    random.shuffle(openings)
    structures = _Structures(text, escaped=escaped)
    for start in openings:
        assert structures.end(start) == _scanned_end(text, start, escaped), (text, start)


@given(st.lists(PIECES, max_size=80).map("".join), st.booleans())
def test_in_the_order_the_redaction_asks(text: str, escaped: bool) -> None:
    structures = _Structures(text, escaped=escaped)
    for found in re.finditer(r"[\[{]", text):
        assert structures.end(found.start()) == _scanned_end(text, found.start(), escaped)
