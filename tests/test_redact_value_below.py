"""A JSON value on the line after its key (`"password":` then `  "X"` below), in JSON cut
off or inside other text, is hidden where it is written, as on the key's line: it was
shown when the object was not whole (`{"password":\\n "X"`), and its line's break and its
quotes were lost in whole text read as YAML."""

from __future__ import annotations

import pytest

from toolrail.core.redact import redact_text

X = "Hunter2secretvalue"

BELOW = [
    '{"password":\n "%s"',
    '{"password":\n "%s", "a": 1',
    '{"a": 1,\n  "api_key":\n    "%s",\n  "b": 2',
    '"password":\n    "%s"',
    '{"password":\r\n  "%s"',
    'log {"token":\n  "%s"',
]


@pytest.mark.parametrize("text", BELOW)
def test_a_value_below_its_json_key_is_hidden_in_place(text: str) -> None:
    assert redact_text(text % X) == text % "[REDACTED]"


@pytest.mark.parametrize(
    "text",
    [
        '{"password":\n  ["%s", "x"]',
        '{"password":\n  {"a": "%s"}',
    ],
)
def test_a_list_or_object_below_is_hidden_whole(text: str) -> None:
    shown = redact_text(text % X)
    assert X not in shown
    assert shown.startswith('{"password":\n  ')


@pytest.mark.parametrize(
    "text",
    [
        '"password":\n  - a1b2c3d4\n  - e5f6g7h8\n',  # a YAML list below its quoted key
        f"password:\n  {X}\n",
    ],
)
def test_yaml_below_a_key_is_still_read_as_yaml(text: str) -> None:
    shown = redact_text(text)
    for value in (X, "a1b2c3d4", "e5f6g7h8"):
        assert value not in shown


def test_quoted_prose_past_a_blank_line_is_no_value() -> None:
    text = '"password":\n\n"Next paragraph, quoted" is prose.'
    assert redact_text(text) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("DB_PASSWORD=pa*/ss", "DB_PASSWORD=[REDACTED]"),  # a value's `*/` is its own
        ("password=*/secret", "password=[REDACTED]"),
        (f'{{"a": 1 /*password: {X}*/, "b": 2,}}', '{"a": 1 /*password: [REDACTED]*/, "b": 2,}'),
        (f"/* password: {X} */", "/* password: [REDACTED] */"),
    ],
)
def test_a_comments_close_ends_a_value_only_in_a_comment(text: str, shown: str) -> None:
    assert redact_text(text) == shown
