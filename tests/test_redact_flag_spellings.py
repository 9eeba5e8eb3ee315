"""A secret flag's value is hidden however the flag is written: a Windows switch
(`/password x`), a dash a word processor made of `--` (`—password x`, `–token x`), an item
of a YAML flow list (`[--password, x]`), or a value on the next line after a shell's line
continuation (`--password \\` and a newline); in raw text and in JSON text holding it."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_redact import ALNUM
from toolrail.core.redact import REDACTED, hides_next, redact, redact_text

FLAGS = ["password", "db-password", "token", "api-key", "client-secret", "passphrase"]
WRITTEN = st.sampled_from(
    [
        "tool /{flag} {value} /verbose",  # a Windows switch
        "tool /{flag}={value}",
        "tool —{flag} {value} —verbose",  # an em dash made of `--`
        "tool –{flag} {value}",  # an en dash
        "tool —{flag}={value}",
        "args: [--{flag}, {value}, --verbose]",  # a YAML flow list
        "args: [ -{flag} , {value} ]",
        "tool --{flag} \\\n  {value} \\\n  --verbose",  # a shell's line continuation
        "tool --{flag}\\\n{value}",
        "tool --{flag} \\\r\n    {value}",
    ]
)
VALUE = st.text(alphabet=ALNUM, min_size=8, max_size=24)


@given(st.sampled_from(FLAGS), WRITTEN, VALUE)
def test_a_secret_flags_value_is_hidden_however_the_flag_is_written(
    flag: str, written: str, value: str
) -> None:
    text = written.format(flag=flag, value=value)
    assert value not in redact_text(text).replace(REDACTED, ""), text


@given(st.sampled_from(FLAGS), WRITTEN, VALUE, st.booleans())
def test_and_in_json_text_holding_it_which_stays_json(
    flag: str, written: str, value: str, indented: bool
) -> None:
    data = {"command": written.format(flag=flag, value=value), "n": 1}
    text = json.dumps(data, indent=2) if indented else orjson.dumps(data).decode()
    shown = redact_text(text)
    assert value not in shown.replace(REDACTED, ""), text
    assert json.loads(shown)["n"] == 1


@pytest.mark.parametrize(
    "text",
    [
        "see /etc/hosts and /usr/share/doc for details",  # paths are not switches
        "cd /srv/app && make test",
        "robocopy /mir /r 3 src dst",  # switches that hide nothing
        "a range — from one to the other — of values",
        "items: [--verbose, --quiet, --dry-run]",
        "tool --verbose \\\n  --quiet",
        "GET /api/v1/users HTTP/1.1",
    ],
)
def test_text_without_a_secret_flag_is_left_alone(text: str) -> None:
    assert redact_text(text) == text


def test_argv_data_keeps_its_own_policy() -> None:
    """In argv data a switch is an item of its own: an em-dashed secret flag hides the next
    item; a `/p` switch (findstr's, robocopy's) is no password flag."""
    assert hides_next("—password")
    assert not hides_next("/p")
    shown = orjson.dumps(redact({"argv": ["tool", "—password", "hunter22x"]})).decode()
    assert "hunter22x" not in shown
    shown = orjson.dumps(redact({"argv": ["findstr", "/p", "needle"]})).decode()
    assert "needle" in shown
