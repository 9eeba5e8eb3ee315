"""A secret flag in a Markdown or ASCII table's cell: its value is the next cell of the row,
hidden whole when it is one word; the bars stay, and a cell of words (what the flag does,
in a documentation table) is no value."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hang_guard import finished
from tests.test_redact import ALNUM
from toolrail.core.redact import REDACTED, redact_text

VALUE = st.text(alphabet=ALNUM + "!#$%*+/", min_size=6, max_size=22).map(lambda v: f"Zq{v}")
FLAGS = ["--password", "--db-password", "-token", "--api-key", "--client-secret"]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("| --password | XSECRET1 |", f"| --password | {REDACTED} |"),
        ("| --token | XSECRET1 |", f"| --token | {REDACTED} |"),
        ("|--password|XSECRET1|", f"|--password|{REDACTED}|"),
        ("| --password | XSECRET1", f"| --password | {REDACTED}"),  # cut off
        ("| --password |  XSECRET1  | admin |\r\n", f"| --password |  {REDACTED}  | admin |\r\n"),
        ("|  --token    | XSECRET1 |", f"|  --token    | {REDACTED} |"),
        ("| --password | \x1b[1mXSECRET1\x1b[0m |", f"| --password | \x1b[1m{REDACTED}\x1b[0m |"),
    ],
)
def test_the_next_cell_of_a_flags_row_is_hidden(text: str, shown: str) -> None:
    assert redact_text(text) == shown


@given(
    st.sampled_from(FLAGS),
    VALUE,
    st.sampled_from(["", " ", "  ", "\t"]),
    st.sampled_from(["|", "| x |", "\n", "\r\n", ""]),
)
def test_a_value_cell_is_hidden_however_spaced(flag: str, value: str, pad: str, rest: str) -> None:
    text = f"|{pad}{flag}{pad}|{pad}{value}{pad}{rest}"
    shown = redact_text(text)
    assert value not in shown, text
    assert shown.startswith(f"|{pad}{flag}{pad}|"), shown


@pytest.mark.parametrize(
    "text",
    [
        "| Flag | Description |\n|---|---|\n| --password | The password to use |\n",
        "| --token | a GitHub token, with repo scope |",
        "| --password | |",
        "| --verbose | XSECRET1 |",
        "| --password |\n| next |",
        "| Flag |\n|---|\n| --password |\r\n",
        "cat f | tool --password | grep x",
    ],
)
def test_a_documentation_table_stays(text: str) -> None:
    assert redact_text(text) == text


def test_long_rows_are_read_in_linear_time() -> None:
    texts = [
        "| --password |" + " " * 1_000_000 + "x",
        "| --password | " + "x " * 500_000 + "|",
        "| --password | " * 70_000,
        "| --password | x" + "\\|" * 500_000,
    ]
    for text in texts:
        assert finished(lambda: redact_text(text)), text[:40]  # noqa: B023 (called at once)
