"""A quote that closes the string a secret's name is in, with the value joined on after it
as a shell joins words (`-d 'password='X`, `'token='"X"`), and a quoted value left open
whose start an earlier pass hid (`password='<token> more`): both showed the value after a
review's fixes for field paths (`['CREDENTIAL=']`), which must still read the same."""

from __future__ import annotations

import pytest

from toolrail.core.redact import REDACTED, redact_text

X = "hunter2X"
R = REDACTED


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"curl -d 'password='{X} https://x", f"curl -d 'password='{R} https://x"),
        (f"docker run -e 'DB_PASSWORD='{X} img", f"docker run -e 'DB_PASSWORD='{R} img"),
        (f"echo 'token='{X}'' > .env", f"echo 'token='{R}'' > .env"),
        (f"curl -d 'password='\"{X}\"", f"curl -d 'password='\"{R}\""),
        (f"curl -d 'password='$'{X}'", f"curl -d 'password='$'{R}'"),
        (f'"password="{X}', f'"password="{R}'),
        (f"curl -d password=''{X} https://x", f"curl -d password=''{R} https://x"),
        (f'PASSWORD=""{X} cmd', f'PASSWORD=""{R} cmd'),
        (f"export PASSWORD=''{X}", f"export PASSWORD=''{R}"),
        # joined onto a double quote, the words after it kept
        (f'curl -d "password="{X} https://x', f'curl -d "password="{R} https://x'),
        (f'curl -d "password=""{X}" y', f'curl -d "password=""{R}" y'),
        # a quote in the value, written as the shell's `'\''` (close, an escaped quote, open)
        (f"curl -d 'password='\\''{X}' https://x", f"curl -d 'password='\\''{R}' https://x"),
        (f"sh -c 'export TOKEN='\\''{X}'", f"sh -c 'export TOKEN='\\''{R}'"),
    ],
)
def test_a_value_joined_onto_the_names_closing_quote_is_hidden(text: str, shown: str) -> None:
    assert redact_text(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        f"password='ghp_0123456789abcdefghijABCDEFGHIJ012345 {X}",
        f"token='Bearer {X} extra",
        f"password='{R}{X}",
        f'password="ghp_0123456789abcdefghijABCDEFGHIJ012345 {X}',
    ],
)
def test_the_rest_of_an_open_value_whose_start_was_hidden_goes_too(text: str) -> None:
    shown = redact_text(text)
    assert X not in shown
    assert R in shown


@pytest.mark.parametrize(
    "text",
    [
        "['CREDENTIAL=']: Input should be a valid integer",
        "counts.['CREDENTIAL='][REDACTED]: Input should be a valid integer",
        "'password=' + pw",
        'x = "password=" + pw',  # (its ` + pw` was hidden as a string cut off)
        "f('password=', x)",
        "['password='] and ['token=']",
        '{"password": "", "a": 1}',
        "password='' next",
    ],
)
def test_a_name_in_a_string_with_nothing_joined_on_stays(text: str) -> None:
    assert redact_text(text) == text
