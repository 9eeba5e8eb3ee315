"""JSON with comments and trailing commas (VS Code's `mcp.json`, `settings.json`, tsconfig:
"JSONC") is read as data, as JSON is: the object holding a command and its arguments, or a
secret key, was read only as text when the comma or comment stood inside it, and a server's
`args` list leaked its password. The comments are kept, read as text."""

from __future__ import annotations

import json
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hang_guard import finished
from toolrail.core.redact import redact_text

X = "Hunter2secretvalue"

LEAKED = [
    # a trailing comma inside the very object holding the command
    '{"command": "mysql", "args": ["-uroot", "-p%s"],}',
    '{"command": "mysql", "args": ["-uroot", "-p%s",]}',
    'spawn {"command": "mysql", "args": ["-p%s"], }',
    # a comment inside it
    '{"command": "mysql", // the database\n "args": ["-p%s"]}',
    '{"command": "mysql", /* db */ "args": ["-p%s"]}',
    '{\n  // servers\n  "servers": {\n    "db": {\n      "command": "sshpass",\n'
    '      "args": ["-p", "%s", "ssh", "db"], // login\n    },\n  },\n}',
    '{"command": "gh", "args": ["secret", "set", "N", "--body", "%s"], /* a */}',
    '{"argv": ["docker", "login", "-p", "%s"],}',
    '<div a=\'{"command": "mysql", "args": ["-p%s"],}\'>',
]


@pytest.mark.parametrize("text", LEAKED)
def test_a_command_in_jsonc_hides_its_secret(text: str) -> None:
    shown = redact_text(text % X)
    assert X not in shown, shown
    assert "[REDACTED]" in shown


def test_only_the_value_is_written_anew_and_the_comments_stay() -> None:
    text = (
        '{\n  // the database, see docs/db.md\n  "command": "mysql",\n'
        '  "args": ["-uroot", "-p%s"],  /* local only */\n}'
    )
    assert redact_text(text % X) == text % "[REDACTED]"


@pytest.mark.parametrize(
    "comment",
    ["// password: %s\n", "/* token=%s */", "// export API_KEY=%s\n"],
)
def test_a_comment_is_read_as_text(comment: str) -> None:
    text = '{"command": "ls", ' + comment + ' "args": ["-la"],}'
    shown = redact_text(text % X)
    assert X not in shown
    assert shown == text % "[REDACTED]"


@pytest.mark.parametrize(
    "text",
    [
        '{"url": "https://example.com/a//b", "n": 1,}',
        '{"a": "/* not a comment */", "b": [1, 2,],}',
        '{"a": "x", // c\n}',
        "{} // nothing",
    ],
)
def test_jsonc_hiding_nothing_stays_as_it_was(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, /* never closed "password": "%s"}',
        '{"a": [1,, 2], "password": "%s"}',
        '{"a": 1 "password": "%s"}',
    ],
)
def test_text_that_is_not_jsonc_either_is_still_read_as_text(text: str) -> None:
    assert X not in redact_text(text % X)


@settings(max_examples=60)
@given(
    st.dictionaries(
        st.sampled_from(["command", "name", "env", "cwd", "type"]),
        st.sampled_from(["mysql", "npx", "x", 1, None]),
        max_size=3,
    ),
    st.sampled_from(["", "// note\n", "/* c */ "]),
    st.booleans(),
)
def test_a_commented_document_hides_what_the_plain_one_does(
    fields: dict[str, object], comment: str, trailing: bool
) -> None:
    """The args of a command, in a document with comments and trailing commas, show as
    they do in the same document as plain JSON."""
    document = {**fields, "command": "mysql", "args": ["-h", "db", f"-p{X}"]}
    plain = json.dumps(document)
    commented = "{" + comment + plain[1:-1] + ("," if trailing else "") + "}"
    shown = redact_text(commented)
    assert X not in shown
    assert shown.replace(comment, "").replace(",}", "}") == redact_text(plain)


def test_many_comments_take_linear_time() -> None:
    text = '{"a": 1, ' + "/* c */ // d\n" * 40_000 + '"command": "mysql", "args": ["-pX1"],}'
    assert finished(partial(redact_text, text))


# a review's: a comment read alone lost the command around it; an object opening with a
# comment, or a comment holding a bracket or a quote, was not found inside other text
IN_CONTEXT = [
    '{"command": "mysql", // -p%s\n "args": []}',
    '["mysql", "-u", "root"] // then add -p%s',
    '["sshpass", // -p %s\n "ssh", "db",]',
    '{"command": "curl", "args": ["https://x"], /* -u me:%s */}',
    'config loaded: {\n  // servers\n  "command": "mysql",\n  "args": [\n    "-uroot",\n'
    '    // password\n    "-p%s"\n  ]\n}',
    'log {// c\n "command": "mysql", "args": ["-u", /* c */ "-p%s"]}',
    'log {"command": "mysql", // closing }\n "args": ["-u", /* c */ "-p%s"]}',
    'log {"command": "mysql", // list: [a, b\n "args": ["-u", "-p%s"]}',
    'x({"command": "npx", "arguments": ["--name", "/prod/db/password", "--value", /* " */ "%s"]})',
]


@pytest.mark.parametrize("text", IN_CONTEXT)
def test_a_comment_is_read_in_its_context_and_found_inside_text(text: str) -> None:
    assert X not in redact_text(text % X)


# a second review's: JSONC read again as text hid a key after a flag-like value, and ate a
# comment's opener between a key and its value; comments were read from every bracket
@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ('{"a": {"opt": "--password", "user": "bob"},}', None),
        (
            '{"u": [{"env": "--token", "api_key": 1234}],}',
            '{"u": [{"env": "--token", "api_key": "[REDACTED]"}],}',
        ),
        ('{"token": // set below\n "%s"}', '{"token": // set below\n "[REDACTED]"}'),
        ('{"password": /* c */\n "%s",}', '{"password": /* c */\n "[REDACTED]",}'),
    ],
)
def test_jsonc_reads_as_the_same_json_does(text: str, shown: str | None) -> None:
    assert redact_text(text.replace("%s", X)) == (shown or text)


@pytest.mark.parametrize("unit", ['"[/* ', "{//", "[//", "{ //"])
def test_comment_openers_everywhere_take_linear_time(unit: str) -> None:
    assert finished(partial(redact_text, "password: x\n" + unit * 300_000))


def test_comments_on_one_long_line_take_linear_time() -> None:
    """Each comment's line was looked back over to its start: quadratic on minified JSONC."""
    text = "{" + '"password": 1, /* -pc mysql */ ' * 50_000 + '"z": 1,}'
    assert finished(partial(redact_text, text))
