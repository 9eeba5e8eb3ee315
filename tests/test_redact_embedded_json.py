"""JSON text inside other text (a log's prefix before it, an HTML attribute around it) is
read as data, as it is when it is the whole text; and an element's attributes are read as
names and values whatever the element is called. Both leaked before."""

from __future__ import annotations

import json
from functools import partial

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hang_guard import finished
from tests.test_redact_json_text import SECRET_KEYS, SECRET_VALUES, _documents
from toolrail.core.redact import redact, redact_text, redacts_nothing

X = "hunter2-s3cret"

# what is written before and after an object of JSON text in logs and markup
AROUND = [
    ("2026-11-29 INFO spawn ", ""),
    ("spawn: ", " done"),
    ("<div a='", "'></div>"),
    ("<div a='", "'>"),
    ("<div data-config='", '\' class="x">'),
    ("<div a=", ">"),
    ("payload=", ""),
    ("[worker-3] got ", ", retrying"),
    ('user "bob" sent ', " (2 ms)"),
    ("{broken ", " tail"),
    ("(", ")"),
]


@settings(max_examples=80)
@given(SECRET_KEYS, SECRET_VALUES, st.sampled_from(AROUND))
def test_an_object_inside_text_reads_as_it_does_alone(
    key: str, value: object, around: tuple[str, str]
) -> None:
    """Nothing of the value is left, and the object is redacted exactly as the whole text
    it would be alone (one policy), compact or spaced; the text around it stays."""
    before, after = around
    document = _documents(key, value)
    for written in (orjson.dumps(document).decode(), json.dumps(document)):
        redacted = redact_text(before + written + after)
        assert "zz" not in redacted, (written, redacted)
        assert redacted == before + redact_text(written) + after


STORED = [
    '{"command": "gh", "args": ["secret", "set", "TOKEN", "--body", "%s"]}',
    '{"command":"gh","args":["secret","set","TOKEN","-b","%s"]}',
    '{"cmd": "gh secret set X --body \\"%s\\"", "rc": 0}',
    '{"command": "docker", "args": ["login", "-u", "me", "-p", "%s", "ghcr.io"]}',
    '{"argv": ["kubectl", "create", "secret", "generic", "db", "--from-literal=password=%s"]}',
    '{"env": {"DB_PASSWORD": "%s"}, "command": "npx"}',
    '{"mcpServers": {"x": {"command": "npx", "env": {"API_KEY": "%s"}}}}',
    '{"name": "API_TOKEN", "value": "%s"}',
]


@pytest.mark.parametrize("before", [prefix for prefix, _ in AROUND])
@pytest.mark.parametrize("shape", STORED)
def test_a_command_or_setting_in_json_after_a_prefix_is_hidden(shape: str, before: str) -> None:
    """The reported leak: `{"command": "gh", "args": [...]}` was hidden as whole JSON text
    and shown after a log's prefix."""
    written = shape % X
    redacted = redact_text(before + written + " end")
    assert X not in redacted
    assert "s3cret" not in redacted
    assert redacted == before + redact_text(written) + " end"


def test_the_reported_attribute_leak() -> None:
    """JSON in a single-quoted HTML attribute closed by `>`."""
    shown = redact_text('<div a=\'{"password":"X1234567"}\'></div>')
    assert shown == '<div a=\'{"password":"[REDACTED]"}\'></div>'


def test_several_objects_and_nested_ones_each_read_once() -> None:
    text = (
        'a {"password": "first-secret"} b {"outer": {"token": "second-secret"},'
        ' "list": [1, {"c": 2}]} c {"not": json} d {"api_key": "third-secret"}'
    )
    shown = redact_text(text)
    for secret in ("first-secret", "second-secret", "third-secret"):
        assert secret not in shown
    assert '{"not": json}' in shown
    assert '"list": [1, {"c": 2}]' in shown


@pytest.mark.parametrize(
    "markup",
    [
        "<div password='%s'>",
        '<div password="%s">',
        '<a href="/x" api_key="%s">',
        "<connection user='bob' password='%s' />",
        '<input\n  name="x"\n  secret="%s"\n>',
        '<svc:config client_secret="%s">x</svc:config>',
        '<div data-token="%s">',
        '<add key="ApiKey" value="%s"/>',
        '<input type="password" name="password" value="%s">',
    ],
)
def test_an_attribute_named_as_a_secret_is_hidden_on_any_element(markup: str) -> None:
    """An element's tag was read whole to its `>`, so its attributes were never read as
    names: `<div password='X'>` showed `X` (`<password>X</password>` was hidden)."""
    shown = redact_text(markup % X)
    assert X not in shown
    assert "s3cret" not in shown
    assert shown == markup % "[REDACTED]"


@pytest.mark.parametrize(
    "markup",
    [
        '<input type="password" name="pw" class="password-field">',
        '<div class="token-list" id="tokens">x</div>',
        '<password type="text">[REDACTED]</password>',
        "<a href='https://example.com/docs/secrets'>docs</a>",
    ],
)
def test_attributes_that_hold_no_secret_stay(markup: str) -> None:
    assert redact_text(markup) == markup


@pytest.mark.parametrize(
    "hostile",
    [
        '{"a": ' * 100_000,
        '{"a": 1} ' * 50_000,
        'x {"a": [' * 60_000,
        '{"a": {"b": x}} ' * 40_000,
        "<div a='" + '{"k": "v", ' * 60_000,
        "<div " + "password='x' " * 50_000 + ">",
    ],
)
def test_many_objects_or_openings_take_linear_time(hostile: str) -> None:
    assert finished(partial(redact_text, hostile))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ('INFO {"a":1, "password": "x"}', 'INFO {"a":1, "password": "[REDACTED]"}'),
        ('INFO { "password" : "x" }', 'INFO { "password" : "[REDACTED]" }'),
        ('{"a":1, "password": "x"}', '{"a":1, "password": "[REDACTED]"}'),
        (
            '{"e": "\\u00e9", "password": "x", "u": "https:\\/\\/x", "n": [1, 2,3]} é',
            '{"e": "\\u00e9", "password": "[REDACTED]", "u": "https:\\/\\/x", "n": [1, 2,3]} é',
        ),
        ('{\t"password": "x",\n "n": 1.50}', '{\t"password": "[REDACTED]",\n "n": 1.50}'),
        ('x {"password": 12345678, "k": 1E5}', 'x {"password": "[REDACTED]", "k": 1E5}'),
        (
            '{"password": "x", "password": "y"}',
            '{"password": "[REDACTED]", "password": "[REDACTED]"}',
        ),
    ],
)
def test_only_what_is_hidden_is_written_anew(text: str, shown: str) -> None:
    """Spacing, escapes and numbers' spellings stay: the object was written anew whole,
    spaced as its first separator was (a review)."""
    assert redact_text(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        'INFO spawn {\n  "command": "gh",\n  "args": ["secret", "set", "T", "--body", "%s"]\n}',
        'he said "{"command": "gh", "args": ["secret","set","T","--body","%s"]}',
        'INFO 12" screen {"command": "gh", "args": ["secret","set","T","--body","%s"]}',
        '<div data="{"command": "gh", "args": ["secret","set","T","--body","%s"]}">',
    ],
)
def test_an_indented_object_or_one_after_a_stray_quote_is_read(text: str) -> None:
    shown = redact_text(text % X)
    assert X not in shown
    assert shown == text % "[REDACTED]"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            'INFO {"api_key":"%s", "user":"bob"} then &quot;note&quot; more text here',
            'INFO {"api_key":"[REDACTED]", "user":"bob"} then &quot;note&quot; more text here',
        ),
        (
            'INFO {"api_key":"%s", "user":"bob"} &quot;secret":"x" KEEPME',
            'INFO {"api_key":"[REDACTED]", "user":"bob"} &quot;secret":"[REDACTED]" KEEPME',
        ),
    ],
)
def test_an_object_beside_html_entities_keeps_the_text(text: str, shown: str) -> None:
    assert redact_text(text % X) == shown


def test_json_text_nested_in_objects_in_text_takes_linear_time() -> None:
    """An object's string holding text holding an object, and so on: each depth was read
    twice, as data and again as text (a review measured 6.5 s for 60 KB)."""
    text = "the password field x"
    for _ in range(18):
        text = "x " + "y" * 400 + ' {"a": ' + json.dumps(text) + "} " + "y" * 400
    assert finished(partial(redact_text, text))


@pytest.mark.parametrize(
    ("markup", "shown"),
    [
        ("<div token=%s><b>keep</b></div>", "<div token=[REDACTED]><b>keep</b></div>"),
        ("<a href=/x password=%s>link</a> after", "<a href=/x password=[REDACTED]>link</a> after"),
        ("<a password=%s/>x", "<a password=[REDACTED]/>x"),
    ],
)
def test_an_unquoted_attributes_value_ends_at_its_tags_end(markup: str, shown: str) -> None:
    """Read as a name in any element, an unquoted value ran on past `>` (a review)."""
    assert redact_text(markup % X) == shown


@pytest.mark.parametrize(
    "shape",
    [
        "INFO spawn {'command': 'gh', 'args': ['secret', 'set', 'T', '--body', '%s']}",
        'INFO {"command": "gh", "args": ["secret", "set", "T", "--body", "%s',  # cut off
        "{'command': '/usr/bin/docker', 'args': ['login', '-p', '%s', 'r.io'], 'env': {}}",
        "spawn(command='gh', argv=None) {'argv': ['x']} {'command': 'gh', 'argv': "
        "['secret', 'set', 'N', '-b', '%s']}",
    ],
)
def test_a_program_apart_from_its_arguments_as_a_repr_or_cut_off_hides_the_value(
    shape: str,
) -> None:
    """A repr (`logger.info("%s", config)`) or a preview is not JSON: the store is read
    from the program's string to the list after it (a review)."""
    assert redact_text(shape % X) == shape % "[REDACTED]"


def test_a_program_apart_from_arguments_storing_nothing_stays() -> None:
    for text in ("{'command': 'gh', 'args': ['secret', 'list']}", "{'command': 'gh', 'cwd': '/'}"):
        assert redact_text(text) == text


@pytest.mark.parametrize(
    "markup",
    [
        '<input type="password" value="%s">',
        "<input value='%s' type=password>",
        '<INPUT TYPE="PASSWORD" VALUE=%s/>',
        '<input\n  type="password"\n  value="%s"\n>',
        '<meta name="password" content="%s">',
        '<meta content="%s" name="api-key">',
        "&lt;input type=&quot;password&quot; value=&quot;%s&quot;&gt;",
    ],
)
def test_a_password_inputs_value_and_a_secret_metas_content_are_hidden(markup: str) -> None:
    """Another attribute says the value is a secret (a review found both shown)."""
    assert redact_text(markup % X) == markup % "[REDACTED]"


@pytest.mark.parametrize(
    "markup",
    [
        '<input type="text" value="bob">',
        '<input type="password" value="">',
        '<meta name="description" content="a password manager for teams">',
        '<input type="password" name="pw" class="password-field">',
    ],
)
def test_inputs_and_metas_saying_no_secret_stay(markup: str) -> None:
    assert redact_text(markup) == markup


@pytest.mark.parametrize(
    ("markup", "shown"),
    [
        ("<b>Password:</b> %s", "<b>Password:</b> [REDACTED]"),
        ("<b>Password:</b> %s<br>", "<b>Password:</b> [REDACTED]<br>"),
        ("<b>Password:</b> <i>%s</i>", "<b>Password:</b> <i>[REDACTED]</i>"),
        (
            "<tr><td>Password:</td><td>%s</td></tr>",
            "<tr><td>Password:</td><td>[REDACTED]</td></tr>",
        ),
        (
            "<td>Token:</td>\n<td><code>%s</code></td>",
            "<td>Token:</td>\n<td><code>[REDACTED]</code></td>",
        ),
        ("password: %s</p>", "password: [REDACTED]</p>"),
    ],
)
def test_a_value_labelled_in_markup_is_hidden_and_the_markup_kept(markup: str, shown: str) -> None:
    """A welcome mail's `<b>Password:</b> X` showed X; `Password:</label>` took the tag."""
    assert redact_text(markup % X) == shown


@pytest.mark.parametrize(
    "markup",
    [
        '<label for="password">Password:</label><input id="password">',
        "<p>Password:</p>",
        "<b>Password:</b>",
    ],
)
def test_a_label_with_no_value_stays(markup: str) -> None:
    assert redact_text(markup) == markup


@pytest.mark.parametrize(
    ("spawned", "arguments"),
    [
        ({"command": "mysql", "args": ["-u", "root", f"-p{X}"]}, ["-u", "root", "-p[REDACTED]"]),
        ({"command": "sshpass", "args": [f"-p{X}", "ssh", "h"]}, ["-p[REDACTED]", "ssh", "h"]),
        (
            {"command": "/usr/bin/curl", "args": ["-u", f"me:{X}", "https://x"]},
            ["-u", "me:[REDACTED]", "https://x"],
        ),
    ],
)
def test_a_program_apart_from_its_arguments_hides_what_its_argv_would(
    spawned: dict[str, object], arguments: list[str]
) -> None:
    """Not only a store's value: what the whole argv hides because of its program (a
    review found `{"command": "mysql", "args": [..., "-pX"]}` shown)."""
    assert redact(spawned) == {**spawned, "args": arguments}
    assert not redacts_nothing(spawned)
    assert X not in redact_text("INFO " + json.dumps(spawned))


def test_a_key_that_is_a_secret_is_renamed_in_place() -> None:
    """The object holding it was written anew on one line (a review)."""
    text = (
        '{\n  "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789": 1,\n  "b": {"c": "\\u0041"}\n}'
    )
    assert redact_text(text) == '{\n  "[REDACTED]": 1,\n  "b": {"c": "\\u0041"}\n}'


@pytest.mark.parametrize(
    "text",
    [
        'Authorization: {"x": "abcdefgh"}',
        'Cookie: {"a": "bcdefghij"} next',
        'mysql -uroot -p{"a": "bcdefghij"} db',
        '--token {"a": 1} --x y',
    ],
)
def test_an_object_a_pass_hid_in_part_leaves_nothing_of_itself(text: str) -> None:
    """A pass hiding a value that ran into the placeholder of an object held out left its
    pieces (`[REDACTED]"0"}`)."""
    shown = redact_text(text)
    assert '"0"' not in shown
    assert "}" not in shown
    assert "\x01" not in shown


@pytest.mark.parametrize(
    "text",
    [
        '{"mcp": {"command":"gh","env":{},"args":["secret","set","N","--body","%s"]}, }',
        'x {"servers": { // comment\n "gh": {"command": "gh", "env": {"GITHUB_TOKEN": "%s"}}}}',
        'INFO {"a": "b", "c": {"command": "gh", "env": {}, '
        '"args": ["secret", "set", "N", "-b", "%s"]}, "d": \'x\'}',
    ],
)
def test_an_object_inside_one_that_is_not_json_is_read_as_data(text: str) -> None:
    """VS Code's `mcp.json` allows comments and trailing commas: the object around a
    server's config is no JSON, so the config inside it was never read as data (a review)."""
    assert redact_text(text % X) == text % "[REDACTED]"


def test_objects_inside_ones_that_are_not_json_take_linear_time() -> None:
    nested = '{"a": {"password": 1}, ' * 50_000 + "x" + "}" * 50_000
    assert finished(partial(redact_text, "password " + nested))


def _nested_commands(depth: int) -> dict[str, object]:
    value: object = "token=1"
    for _ in range(depth):
        value = {"command": "x", "args": [value]}
    assert isinstance(value, dict)
    return value


def test_commands_nested_in_commands_take_linear_time() -> None:
    """Each level's arguments were redacted again as a whole argv: exponential (a review
    measured 9 s for 563 bytes at 20 levels)."""
    nested = _nested_commands(40)
    assert finished(partial(redact, nested))
    assert finished(partial(redacts_nothing, nested))
    assert finished(partial(redact_text, "log " + json.dumps(nested)))


def test_every_list_of_arguments_a_command_has_is_read() -> None:
    spawned = {"command": "mysql", "args": ["-pX1abcdef"], "argv": ["-pY1abcdef"]}
    assert redact(spawned) == {**spawned, "args": ["-p[REDACTED]"], "argv": ["-p[REDACTED]"]}
    assert not redacts_nothing(spawned)


@pytest.mark.parametrize(
    "spawned",
    [{"command": "curl", "args": []}, {"command": "mysql", "args": ["-h", "db"]}],
)
def test_a_command_hiding_nothing_redacts_nothing(spawned: dict[str, object]) -> None:
    assert redact(spawned) == spawned
    assert redacts_nothing(spawned)


@pytest.mark.parametrize(
    "text",
    [
        'password=x {"\\u0070assword": "%s"}',
        '{"\\u0070assword": "%s"}',
        'password=1 {"name": "DB_P\\u0041SSWORD", "value": "%s"}',
        '\x01 {"a": "b", "\\u0070assword": "%s"}',
        '\x01 x {"servers": {"command": "mysql", "args": ["-u", "root", "-p%s"]}}',
        "".join(map(chr, range(1, 18))) + ' {"password": "%s"}',
    ],
)
def test_json_escapes_and_control_characters_do_not_hide_an_object(text: str) -> None:
    """A name spelt with JSON's escapes was not read when the raw text showed no secret
    word; a `\\x01` (readline's prompt markers) turned off reading objects (a review)."""
    assert X not in redact_text(text % X)
