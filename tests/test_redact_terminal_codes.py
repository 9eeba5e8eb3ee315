"""A terminal's escape codes (a colour, `\\x1b[0m`, an erased line, `\\x1b[K`) between a secret
flag and its value hide nothing: the value goes as it goes without them, the codes around
it stay (a colour is reset as it was). In raw text, and in JSON text holding it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hang_guard import finished
from tests.test_redact import ALNUM
from toolrail.core.redact import REDACTED, redact_text

VALUE = st.text(alphabet=ALNUM, min_size=6, max_size=22).map(lambda v: f"Zq{v}")
# (ASCII dashes: a word processor's dash glued to a code is read as glued to a word)
FLAGS = ["--password", "--db-password", "-token", "--api-key", "--client-secret", "-Password"]
CODES = st.sampled_from(
    [
        "\x1b[0m",
        "\x1b[m",
        "\x1b[1m",
        "\x1b[33m",
        "\x1b[1;31m",
        "\x1b[38;5;208m",
        "\x1b[38;2;255;128;0m",
        "\x1b[K",
        "\x1b[2K",
        "\x1b[0K",
        "\x1b[?25l",
    ]
)
SOME_CODES = st.lists(CODES, min_size=1, max_size=3).map("".join)


@pytest.mark.parametrize(
    "text",
    [
        "\x1b[33m--token\x1b[0m XSECRET1",
        "\x1b[38;5;208m--password\x1b[0m XSECRET1",
        "--password\x1b[K XSECRET1",
        "--password \x1b[1m XSECRET1",
        "\x1b[1m--password\x1b[0m=XSECRET1",
        "\x1b[33m--token\x1b[0m\t\x1b[1mXSECRET1\x1b[0m ok",
        "run \x1b[1m--api-key\x1b[0m\x1b[2m \x1b[0m'XSECRET1 x' --verbose",
    ],
)
def test_a_flags_value_after_a_terminal_code_is_hidden(text: str) -> None:
    assert "XSECRET1" not in redact_text(text)


@given(
    st.sampled_from(FLAGS),
    VALUE,
    st.sampled_from([" ", "=", "\t", "  "]),
    st.tuples(*[st.one_of(st.just(""), SOME_CODES)] * 4),
)
def test_codes_anywhere_around_a_flag_hide_nothing(
    flag: str, value: str, separator: str, codes: tuple[str, str, str, str]
) -> None:
    before, after_flag, before_value, after_value = codes
    text = f"tool {before}{flag}{after_flag}{separator}{before_value}{value}{after_value} --verbose"
    shown = redact_text(text)
    assert value not in shown, text
    assert shown.endswith(f"{after_value} --verbose"), shown  # the colour is reset as it was
    assert shown.startswith(f"tool {before}{flag}{after_flag}"), shown
    for held in (json.dumps({"line": text}), "log: " + json.dumps([text, 1])):
        assert value not in redact_text(held), held


def test_a_code_alone_before_the_line_ends_is_no_value() -> None:
    text = "\x1b[1m--password\x1b[0m\n\x1b[2mthe one to use\x1b[0m"
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "\x1b[32m--verbose\x1b[0m done",
        "\x1b[1m--password\x1b[0m\x1b[K",
        "Options:\x1b[0m \x1b[1m--password\x1b[0m, \x1b[1m--token\x1b[0m",
    ],
)
def test_coloured_text_without_a_value_stays(text: str) -> None:
    assert redact_text(text) == text


def test_runs_of_codes_are_read_in_linear_time() -> None:
    texts = [
        "--password" + "\x1b[0m" * 250_000,
        "--password " + "\x1b[0m" * 250_000 + "x",
        "--password x" + "\x1b[0m" * 250_000,
        ("--password\x1b[" + "1;" * 20) * 30_000,
        "--password x\x1b[" + "1" * 1_000_000,
        ("--token\x1b[0m x\x1b[0m" + " " * 20) * 30_000,
    ]
    for text in texts:
        done = finished(lambda: redact_text(text))  # noqa: B023 (called at once)
        assert done, text[:40]
        assert REDACTED in done[0] or "x" not in text


NAMES = ["password", "token", "pin", "auth", "api_key", "DB_PASSWORD", "clientSecret"]


@pytest.mark.parametrize(
    "text",
    [
        "password: \x1b[1mXSECRET1\x1b[0m ok",
        "password=\x1b[33m XSECRET1",
        "password\x1b[0m: XSECRET1",
        "\x1b[1mpassword\x1b[0m=XSECRET1",
        "\x1b[1mpin\x1b[0m: XSECRET1",
        'token:\x1b[0m "XSECRET1"',
        "\x1b[36mDB_PASSWORD\x1b[0m\x1b[2m=\x1b[0m\x1b[1mXSECRET1\x1b[0m",
    ],
)
def test_a_named_value_after_a_terminal_code_is_hidden(text: str) -> None:
    assert "XSECRET1" not in redact_text(text)


@given(
    st.sampled_from(NAMES),
    VALUE,
    st.sampled_from(["=", ": ", " = ", ":"]),
    st.tuples(*[st.one_of(st.just(""), SOME_CODES)] * 4),
)
def test_codes_anywhere_around_a_secret_name_hide_nothing(
    name: str, value: str, separator: str, codes: tuple[str, str, str, str]
) -> None:
    before, after_name, before_value, after_value = codes
    text = f"set {before}{name}{after_name}{separator}{before_value}{value}{after_value} done"
    shown = redact_text(text)
    assert value not in shown, text
    assert shown.endswith(f"{after_value} done"), shown  # the colour is reset as it was
    for held in (json.dumps({"line": text}), "log: " + json.dumps([text, 1])):
        assert value not in redact_text(held), held
