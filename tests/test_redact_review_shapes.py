"""Secret shapes a hostile review found free text still showed: a pair entry's value in an
escaped quote (a JSON preview cut off), an argv's flag item with a terminal code spelt as an
escape (a Python repr), a flag's value in another quote not closed; a name/value entry as
XML elements or as an element's text, an element with attributes or a namespace, cut off
at `<`; a table's row in psql's, box-drawing or backticked cells. And a documentation
table's cells that are no value (a type, a schema word, a placeholder) show. A secret set
by flags (`--name /prod/db/password --value X`)."""

from __future__ import annotations

import json

import pytest

from tests.hang_guard import finished
from toolrail.core.redact import REDACTED, redact, redact_text

X = "hunter2-s3cr3t"


def _cut_after_secret(data: object) -> str:
    """JSON text of `data` cut off three characters past the secret: a preview."""
    text = json.dumps(data)
    return text[: text.index(X) + len(X) + 3]


# --- 1. a pair entry's value in an escaped quote -------------------------------------------


ESCAPED_PAIRS = [
    _cut_after_secret({"output": f'name=DB_PASSWORD value="{X}" next'}),
    _cut_after_secret({"output": f'Key=password,Value="{X}" next'}),
    _cut_after_secret({"output": f'name="DB_PASSWORD" value="{X}" next'}),
    f'log: "name=DB_PASSWORD value=\\"{X}\\" ok"',
]

ESCAPED_PAIRS_STAY = [
    _cut_after_secret({"output": f'name=PORT value="{X}" next'}),
    'log: "name=DB_PASSWORD value=\\"\\" ok"',  # an empty value
]


# --- 2. an argv's flag with a terminal code spelt as an escape ------------------------------


CODED_ARGV = ["--token\x1b[0m", X]
CODED_FLAGS = [
    repr(CODED_ARGV),
    f"running {CODED_ARGV}",
    repr(["\x1b[1m--password\x1b[0m", X, "-v"]),
    json.dumps({"line": repr(CODED_ARGV)}),  # the repr inside JSON text
    f"- --token\x1b[0m\n- {X}",  # a YAML block list
    f"args:\n  - \x1b[1m--password\x1b[0m\n  - {X}\n",
]


def test_a_flag_with_codes_hides_its_value_in_data_too() -> None:
    assert redact(["--token\x1b[0m", X]) == ["--token\x1b[0m", REDACTED]
    assert redact(["\x1b[1m--token\x1b[0m", X]) == ["\x1b[1m--token\x1b[0m", REDACTED]


# --- 3. a flag's value in another quote, not closed ------------------------------------------


UNCLOSED_QUOTES = [
    (f"--password「correct {X}", f"--password「{REDACTED}"),
    (f"--password “correct {X}“", f"--password “{REDACTED}“"),
    (f'--password “correct {X}"', f"--password “{REDACTED}"),
    (f"--password «correct {X}\nnext", f"--password «{REDACTED}\nnext"),  # to its line's end
    (f"password=「correct {X}", f"password=「{REDACTED}"),  # (as it was)
]

QUOTES_STAY = [
    "--password「」 --verbose",  # an empty value
    "--verbose「quoted words」",
]


# --- 4. XML: an entry as elements, an element's text, attributes, a namespace, cut off -------


XML_ENTRIES = [
    (
        f"<property><name>fs.s3a.secret.key</name><value>{X}</value></property>",
        f"<property><name>fs.s3a.secret.key</name><value>{REDACTED}</value></property>",
    ),
    (
        f"<property>\n  <name>fs.s3a.secret.key</name>\n  <value>{X}</value>\n</property>\n",
        f"<property>\n  <name>fs.s3a.secret.key</name>\n  <value>{REDACTED}</value>\n</property>\n",
    ),
    (  # a sibling between, value first
        f"<property><value>{X}</value><final>true</final><name>db.password</name></property>",
        f"<property><value>{REDACTED}</value><final>true</final><name>db.password</name></property>",
    ),
    (
        f'<property name="password">{X}</property>',
        f'<property name="password">{REDACTED}</property>',
    ),
    (f'<entry key="db.password">{X}</entry>', f'<entry key="db.password">{REDACTED}</entry>'),
    (
        f'<property name="password"\n          value="{X}"/>',
        f'<property name="password"\n          value="{REDACTED}"/>',
    ),
    (f'<password type="text">{X}</password>', f'<password type="text">{REDACTED}</password>'),
    (
        f'<wsse:Password Type="#PasswordText">{X}</wsse:Password>',
        f'<wsse:Password Type="#PasswordText">{REDACTED}</wsse:Password>',
    ),
    (f"<password>{X}<", f"<password>{REDACTED}<"),  # cut off at its closing tag
    (f"<password>{X}</pass", f"<password>{REDACTED}</pass"),
]

XML_HIDDEN = [json.dumps({"x": f"<password>{X}</password>"})[: len(X) + 18]]

XML_STAYS = [
    "Enter <token> here, then press OK. The app shows your balance.</p>",
    "<p>Enter <password> below.</p>",
    "<property><name>fs.s3a.endpoint</name><value>s3.example.com</value></property>",
    "<property><name>a.password</name></property><property><value>x1y2z3w4</value></property>",
    "<property>\n  <name>db.password</name>\n</property>\n<value>x1y2z3w4</value>",
    '<property name="port">8080</property>',
    '<property name="password" value="">x1y2z3w4</property>',  # the value is its attribute
    "if a > b: name=password",
    "<password> </password>",
    "login <password> [--verbose]",
    'echo "<TOKEN>"',  # a placeholder in quotes: its closing quote is no text of it
    'gh secret set X --body "<TOKEN>"',
    "printf '<api_key>'",
]


# --- 5. a table's row: psql's, box-drawing bars, backticks; a schema's cells show ------------


CELLS = [
    (
        f"   key    |     value\n----------+----------------\n password | {X}\n(1 row)\n",
        f"   key    |     value\n----------+----------------\n password | {REDACTED}\n(1 row)\n",
    ),
    (f"│ password │ {X} │", f"│ password │ {REDACTED} │"),
    (f"┃ api_token ┃ {X} ┃", f"┃ api_token ┃ {REDACTED} ┃"),
    (f"| `password` | `{X}` |", f"| `password` | `{REDACTED}` |"),
    (f"| password: | {X} |", f"| password: | {REDACTED} |"),
    (f"| --token | `{X}` |", f"| --token | `{REDACTED}` |"),
    (f"| password | {X} |", f"| password | {REDACTED} |"),  # (as it was)
]

CELLS_STAY = [
    "| Field | Type | Required |\n|---|---|---|\n| password | string | yes |",
    "| Name | Secret |\n|---|---|\n| DB_PASSWORD | yes |",
    "| Option | Metavar |\n| --token | TOKEN |",
    "| token | integer |",
    "| `api_key` | `str` | required |",
    "│ password │ bool │",
    "| password | <password> |",
    "| password | n/a |",
    "| password: | - |",
    "echo password | grep -v x",
    " password | tee the log",
]


def test_a_yaml_block_after_a_name_is_still_hidden() -> None:
    """(`: |` is no cell's bar)"""
    assert redact_text(f"password: |\n  {X}\n") == f"password: {REDACTED}\n"


# --- 6. a secret set by flags: `--name` naming a secret, `--value` its value ----------------


SSM_ARGV = ["aws", "ssm", "put-parameter", "--name", "/prod/db/password", "--value", X]
FLAG_ENTRIES = [
    " ".join(SSM_ARGV),
    f"az keyvault secret set --vault-name v --value '{X}' --name DbPassword",
    f"aws ssm put-parameter --name=API_TOKEN --type SecureString --value={X}",
    json.dumps(SSM_ARGV),  # JSON text, read as its data
]
FLAG_ENTRIES_STAY = [
    "aws ssm put-parameter --name /prod/db/host --value db.example.com",
    "tool --name password\ntool --value 42",  # two commands
]


def test_a_secret_set_by_flags_is_hidden_in_data() -> None:
    assert redact(SSM_ARGV) == [*SSM_ARGV[:-1], REDACTED]
    argv = ["az", "keyvault", "secret", "set", "--value", X, "--name", "DbPassword"]
    assert redact(argv) == [*argv[:5], REDACTED, *argv[6:]]
    kept = ["aws", "ssm", "put-parameter", "--name", "/prod/db/host", "--value", "db"]
    assert redact(kept) == kept


# --- what each shape shows, and what stays ----------------------------------------------------


SHOWN = [*UNCLOSED_QUOTES, *XML_ENTRIES, *CELLS]
HIDDEN = [
    *ESCAPED_PAIRS,
    *CODED_FLAGS,
    *XML_HIDDEN,
    *FLAG_ENTRIES,
    *(text for text, _ in SHOWN),
]


@pytest.mark.parametrize("text", HIDDEN)
def test_each_shape_hides_its_secret(text: str) -> None:
    assert X not in redact_text(text), text


@pytest.mark.parametrize(("text", "shown"), SHOWN)
def test_each_shape_is_hidden_as_shown(text: str, shown: str) -> None:
    """The value goes whole; its quotes, the name and what is around it stay."""
    assert redact_text(text) == shown


@pytest.mark.parametrize(
    "text", [*ESCAPED_PAIRS_STAY, *QUOTES_STAY, *XML_STAYS, *CELLS_STAY, *FLAG_ENTRIES_STAY]
)
def test_what_names_no_secret_or_holds_no_value_stays(text: str) -> None:
    assert redact_text(text) == text


# --- what stays linear ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'name=DB_PASSWORD value=\\"' + "x" * 1_000_000,
        'name=password value=\\"x\\" ' * 40_000,
        'value=\\"' * 150_000 + "name=password",
        "['--token\\x1b[0m', " * 60_000,
        "['--token" + "\\x1b[0m" * 150_000,
        "- --token\x1b[0m\n" * 70_000,
        "--password「" + "x " * 500_000,
        "--password “" * 200_000,
        "<password type='x'" * 60_000,
        "<wsse:Password " + "a" * 1_000_000,
        "<password>x</pass" * 60_000,
        "<token>" + "x" * 1_000_000 + "</p>",
        '<property name="password">' * 40_000,
        '<property name="password">x' * 40_000,
        '<property name="password"\n' * 40_000 + "value=x",
        "<name>password</name>" * 50_000,
        "<name>password</name>" + "<a>" * 200_000 + "<value>x</value>",
        "<name>password</name>" + "</a>" * 200_000,
        "<value>x</value>" * 60_000 + "<name>password</name>",
        "> x " * 250_000 + "name=password",
        " password | x\n" * 70_000,
        "│ password │ " * 80_000,
        "| `password` | `" + "x" * 1_000_000,
        "| password: | " * 70_000,
        "password | " + " " * 1_000_000 + "x",
        "--name password " * 60_000,
        "--name password --value " * 40_000,
        "--value x " * 100_000 + "--name password",
    ],
)
def test_hostile_review_shapes_take_linear_time(text: str) -> None:
    assert finished(lambda: redact_text(text)), text[:40]
