"""An argv written as a YAML block list (a Kubernetes container's `args:`, a compose file's
`command:`) hides what the same list hides as data: a secret flag's value is the next `- `
item at the same indentation, plain or quoted, and curl's `-u` item keeps the user of the
next one. A Markdown bullet list of flags, or of flags with what they do, stays as it is."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hang_guard import finished
from tests.test_redact import ALNUM
from toolrail.core.redact import REDACTED, redact, redact_text

# "Zq" opens no flag nor any word of the texts around it: a value is never a piece of them
VALUE = st.text(alphabet=ALNUM, min_size=6, max_size=22).map(lambda v: f"Zq{v}")
FLAGS = ["--password", "--db-password", "-token", "--api-key", "--client-secret", "—password"]


def quoted(item: str, quote: str) -> str:
    """An item as YAML writes it: plain, "double-quoted" (JSON's escapes), 'single' (`''`)."""
    if quote == '"':
        return json.dumps(item, ensure_ascii=False)
    if quote == "'":
        return "'" + item.replace("'", "''") + "'"
    return item


def block_list(
    items: list[str], *, indent: str = "  ", quote: str = "", newline: str = "\n"
) -> str:
    return "".join(f"{indent}- {quoted(item, quote)}{newline}" for item in items)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("args:\n  - --password\n  - hunter2secret\n", "hunter2secret"),
        ('args:\n  - "--token"\n  - "abcdef123456"\n', "abcdef123456"),
        ("args:\n  - '--token'\n  - 'abcdef123456'\n", "abcdef123456"),
        ("args:\n- --password\n- hunter2secret", "hunter2secret"),  # items at the key's indent
        ("command:\n  - curl\n  - -u\n  - me:pw1234\n  - https://x\n", "pw1234"),
        ('command: \r\n    - "curl"\r\n    - "-u"\r\n    - "me:pw1234"\r\n', "pw1234"),
        ("args:\n  - --password\n  - hunter2 secret words\n", "secret words"),  # one scalar
        ("args:\n  - --password   # the admin's\n  - hunter2secret  # rotated\n", "hunter2"),
        ("args:\n  - --password\n\n  # the admin's\n  - hunter2secret\n", "hunter2secret"),
        ("args:\n  - --password\n  - |\n    hunter2secret\n    more\n", "hunter2secret"),
        ("args:\n  - --password\n  - 'it''s hunter2'\n", "hunter2"),
        ("args:\n\t- --password\n\t- hunter2secret\n", "hunter2secret"),
        (
            "spec:\n  containers:\n    - name: app\n      args:\n"
            "        - --token\n        - tok3nZ\n",
            "tok3nZ",
        ),
        ("args:\n  - --token\n  - --password\n  - hunter2secret\n", "hunter2secret"),
        ("args:\n  - --password\n  - hunt", "hunt"),  # cut off
        ('args:\n  - --password\n  - "hunter2 secr', "secr"),
    ],
)
def test_a_yaml_list_items_value_is_hidden(text: str, secret: str) -> None:
    assert secret not in redact_text(text), text


def test_what_shows_around_a_hidden_yaml_item() -> None:
    text = "args:\n  - --password\n  - hunter2secret\n  - --verbose\nenv: prod\n"
    assert redact_text(text) == f"args:\n  - --password\n  - {REDACTED}\n  - --verbose\nenv: prod\n"
    text = 'args:\n  - "--token"\n  - "abcdef123456"  # rotated\n'
    assert redact_text(text) == f'args:\n  - "--token"\n  - "{REDACTED}"  # rotated\n'
    text = "command:\n  - curl\n  - -u\n  - 'me:pw1234'\n"
    assert redact_text(text) == f"command:\n  - curl\n  - -u\n  - 'me:{REDACTED}'\n"
    text = "args:\n  - --password\n  - |\n    hunter2secret\n    more\n  - --verbose\n"
    assert redact_text(text) == f"args:\n  - --password\n  - {REDACTED}\n  - --verbose\n"


@given(
    st.sampled_from(FLAGS),
    VALUE,
    st.sampled_from(["", '"', "'"]),
    st.sampled_from(["", "  ", "    ", "\t"]),
    st.sampled_from(["\n", "\r\n"]),
    st.lists(st.sampled_from(["tool", "--verbose", "-v", "run"]), max_size=3),
)
def test_a_yaml_argv_hides_what_its_data_hides(
    flag: str, value: str, quote: str, indent: str, newline: str, before: list[str]
) -> None:
    argv = ["tool", *before, flag, value, "--host", "db"]
    text = "args:" + newline + block_list(argv, indent=indent, quote=quote, newline=newline)
    assert REDACTED in json.dumps(redact(argv))
    shown = redact_text(text)
    assert value not in shown, text
    assert shown.endswith(block_list(["--host", "db"], indent=indent, quote=quote, newline=newline))
    assert redact_text(json.dumps({"manifest": text})) == json.dumps({"manifest": shown})


def test_the_yaml_test_lists_are_yaml() -> None:
    yaml: Any = pytest.importorskip("yaml")
    for quote in ("", '"', "'"):
        argv = ["curl", "-u", "me:p'w\"1", "—password", "it's"]
        assert yaml.safe_load("args:\n" + block_list(argv, quote=quote)) == {"args": argv}


@pytest.mark.parametrize("cut", range(1, 60))
def test_a_yaml_list_cut_anywhere_shows_no_piece_of_the_value(cut: int) -> None:
    text = "args:\n  - --password\n  - hunter2secret\n  - --verbose\n"[:cut]
    shown = redact_text(text)
    secret = "hunter2secret"
    assert not any(secret[:n] in shown for n in range(4, len(secret) + 1)), shown


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # Markdown: a list of flags, of flags with what they do, of flags as items of prose
        ("Options:\n- --password\n- --token\n- --verbose\n", "- --token\n- --verbose\n"),
        ("- --password: the password to use\n- --verbose: say more\n", "- --verbose: say more"),
        ("- --password\n  The password to use.\n- --verbose\n", "The password to use.\n- --v"),
        ("- --token\n- --password\n", "- --token\n- --password\n"),
        # not the same list: a deeper item, or one after the list ends
        ("args:\n  - --password\nenv:\n  - name\n", "env:\n  - name\n"),
        ("- --password\n  - nested item\n", "  - nested item\n"),
        ("- --password\n    - nested item\n  - other\n", "- other\n"),
        # a port, not mysql's password (`-p` hides its value in text only quoted, as data)
        ("ports:\n  - -p\n  - 8080:80\n", "- 8080:80\n"),
        ("steps:\n  - run tests\n  - deploy to prod\n", "- deploy to prod\n"),
    ],
)
def test_yaml_and_markdown_lists_without_a_value_stay(text: str, kept: str) -> None:
    assert kept in redact_text(text)


def test_a_long_yaml_list_is_read_in_linear_time() -> None:
    """Every line an item after a secret flag, or a deeper line of one, or a list nesting
    one level deeper each line: each line is read once."""
    texts = [
        "args:\n" + "  - --password\n" * 80_000,
        "args:\n" + "  - --password\n  - x\n" * 40_000,
        "- --password\n" + "  deeper\n" * 120_000,
        "".join(" " * n + "- --password\n" for n in range(1_400)),
        "- --password\n- '" + "''" * 500_000,
        "- --password\n" + "-\n" * 400_000,
    ]
    for text in texts:
        done = finished(lambda: redact_text(text))  # noqa: B023 (called at once)
        assert done, text[:40]


FLOW_STORES = [
    "args: [gh, secret, set, N, --body, {v}]",
    "command: [docker, login, -u, me, -p, {v}, reg.io]",
    "args: [ gh , secret , set , N , -b , {v} ]",
    "  - [fly, secrets, set, STRIPE={v}]",
    "args: [gh, secret, set, N, --body, {v}",  # cut off
    'args: [gh, secret, set, N, --body, "{v}", --repo, o/r]',
]


@pytest.mark.parametrize("shape", FLOW_STORES)
def test_a_store_written_as_a_yaml_flow_list_hides_the_value(shape: str) -> None:
    """A flow list's items need no quotes, so a store's argv written so showed its value."""
    assert redact_text(shape.format(v="Zq-hunter2")) == shape.format(v=REDACTED)


@given(VALUE)
def test_any_value_in_a_flow_list_store_is_hidden(value: str) -> None:
    for shape in FLOW_STORES:
        assert value not in redact_text(shape.format(v=value))


@pytest.mark.parametrize(
    "text",
    ["x = [gh, secret, list]", "[gh, secret, set, N]", "deps: [docker, login-helper, -p, x]"],
)
def test_a_flow_list_storing_no_value_stays(text: str) -> None:
    assert redact_text(text) == text


def test_many_flow_list_programs_take_linear_time() -> None:
    assert finished(lambda: redact_text("[gh, secret, set, N, " * 40_000))
    assert finished(lambda: redact_text("[docker, login " + " " * 200_000 + "x"))


def test_a_flow_list_over_lines_hides_the_value() -> None:
    text = "args: [\n  gh,\n  secret,\n  set,\n  N,\n  --body,\n  Zq-hunter2\n]"
    assert redact_text(text) == text.replace("Zq-hunter2", REDACTED)
