"""Secret shapes free text still showed: a flag's value in a Unicode quote pair (`--token「X」`),
a name/value entry's value on one line outside a mapping's brackets (`name=DB_PASSWORD
value=X`, an XML element's attributes, a JSON fragment), an XML element named as a secret,
a flag item of an argv with a terminal code in it, a table row naming a secret, and a
reference to a secret (`secretKeyRef`), which is no secret and shows."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hang_guard import finished
from tests.test_redact import ALNUM
from toolrail.core.redact import REDACTED, is_secret_key, redact, redact_text

X = "hunter2-s3cr3t"
VALUE = st.text(alphabet=ALNUM + "!#$%*+-", min_size=6, max_size=22).map(lambda v: f"Zq{v}")
WORDS = st.lists(VALUE, min_size=1, max_size=3).map(" ".join)  # a value with spaces in it
FLAGS = ["--password", "--db-password", "-token", "--api-key", "--client-secret", "—token"]
SECRET_NAMES = ["DB_PASSWORD", "password", "API_TOKEN", "X-Api-Key", "/prod/db/password"]
QUOTE_PAIRS = [
    ("「", "」"),
    ("『", "』"),
    ("“", "”"),
    ("‘", "’"),
    ("„", "“"),
    ("«", "»"),
    ("‹", "›"),
    ("《", "》"),
    ("【", "】"),
    ("＂", "＂"),
]


# --- 1. a flag's value in a Unicode quote pair ----------------------------------------------


QUOTED = [
    (f"--token「{X}」", f"--token「{REDACTED}」"),
    (f"--token 「{X}」", f"--token 「{REDACTED}」"),
    (f"--password“{X} more”", f"--password“{REDACTED}”"),
    (f"--password “{X} more” --verbose", f"--password “{REDACTED}” --verbose"),
    (f"--token=『{X}』", f"--token=『{REDACTED}』"),
    (f"password=「{X} more」", f"password=「{REDACTED}」"),
    (f"password: “{X} more”", f"password: “{REDACTED}”"),
    (f"--password «{X}", f"--password «{REDACTED}"),  # not closed: a word
]


@given(
    st.sampled_from(FLAGS),
    WORDS,
    st.sampled_from(QUOTE_PAIRS),
    st.sampled_from(["", " ", "=", "  ", "\t"]),
    st.sampled_from(["", " --verbose", "\n", "」"]),
)
def test_a_quoted_flag_value_is_hidden_whatever_the_quotes(
    flag: str, value: str, pair: tuple[str, str], separator: str, rest: str
) -> None:
    opening, closing = pair
    text = f"tool {flag}{separator}{opening}{value}{closing}{rest}"
    shown = redact_text(text)
    for word in value.split():
        assert word not in shown, text
    assert shown == f"tool {flag}{separator}{opening}{REDACTED}{closing}{rest}"
    assert all(word not in redact_text(json.dumps({"line": text})) for word in value.split())


@given(
    st.sampled_from(["password", "DB_PASSWORD", "apiToken", "client_secret"]),
    WORDS,
    st.sampled_from(QUOTE_PAIRS),
    st.sampled_from(["=", ": ", " = ", "：", " => "]),
)
def test_an_assigned_value_in_a_unicode_quote_pair_is_hidden(
    name: str, value: str, pair: tuple[str, str], separator: str
) -> None:
    opening, closing = pair
    text = f"set {name}{separator}{opening}{value}{closing} ok"
    assert redact_text(text) == f"set {name}{separator}{opening}{REDACTED}{closing} ok"


# --- 2. a name/value entry on one line, outside a mapping's brackets ------------------------


ENTRIES = [
    (f"name=DB_PASSWORD value={X}", f"name=DB_PASSWORD value={REDACTED}"),
    (f"name=DB_PASSWORD, value={X} ok", f"name=DB_PASSWORD, value={REDACTED} ok"),
    (f"value={X} name=DB_PASSWORD", f"value={REDACTED} name=DB_PASSWORD"),
    (f"name='DB_PASSWORD' value='{X}'", f"name='DB_PASSWORD' value='{REDACTED}'"),
    (
        f'"name": "DB_PASSWORD", "value": "{X}"',
        f'"name": "DB_PASSWORD", "value": "{REDACTED}"',
    ),
    (
        f'INFO "name": "DB_PASSWORD", "value": "{X}"}}, {{"name": "HOST", "value": 5}}',
        f'INFO "name": "DB_PASSWORD", "value": "{REDACTED}"}}, {{"name": "HOST", "value": 5}}',
    ),
    ('"name": "PIN", "value": 4815', f'"name": "PIN", "value": "{REDACTED}"'),
    (
        f"EnvVar(name='DB_PASSWORD', value='{X}', value_from=None)",
        f"EnvVar(name='DB_PASSWORD', value='{REDACTED}', value_from=None)",
    ),
    (
        f"--parameters ParameterKey=DbPassword,ParameterValue={X}",
        f"--parameters ParameterKey=DbPassword,ParameterValue={REDACTED}",
    ),
    (f"Key=password,Value={X}", f"Key=password,Value={REDACTED}"),
    (f"- name: DB_PASSWORD\n  value: {X}", f"- name: DB_PASSWORD\n  value: {REDACTED}"),
]


@given(
    st.sampled_from(SECRET_NAMES),
    st.sampled_from(["name", "Name", "key", "Key", "ParameterKey"]),
    st.sampled_from(["value", "Value", "VALUE", "ParameterValue"]),
    VALUE,
    st.sampled_from(["=", ": ", " = ", ":", "=>"]),
    st.sampled_from(["", '"', "'"]),
    st.sampled_from([" ", ", ", ",", "  type=plain  "]),
    st.booleans(),
)
def test_any_spelling_of_an_entry_on_one_line_hides_its_value(
    name: str,
    name_key: str,
    value_key: str,
    value: str,
    separator: str,
    quote: str,
    between: str,
    value_first: bool,
) -> None:
    named = f"{name_key}{separator}{quote}{name}{quote}"
    valued = f"{value_key}{separator}{quote}{value}{quote}"
    pairs = f"{valued}{between}{named}" if value_first else f"{named}{between}{valued}"
    text = f"2024-01-01 INFO {pairs}\ndone"  # (`X-Api-Key done` would read `-Api-Key` a flag)
    shown = redact_text(text)
    assert value not in shown, text
    assert name in shown, shown
    assert shown.endswith("\ndone"), shown
    if quote:
        assert f"{value_key}{separator}{quote}{REDACTED}{quote}" in shown, shown


ENTRIES_STAY = [
    "name=PORT value=8080",
    "name=max_tokens value=4096",
    "name=DB_PASSWORD value=",
    "name=DB_PASSWORD value=null",
    '"name": "DB_PASSWORD", "value": ""',
    "name=DB_PASSWORD\nvalue=42",  # two lines: no one entry
    "name=DB_PASSWORD; value=42",  # two statements
    '[{"name": "DB_PASSWORD"}, {"value": "db"}] x',  # two mappings
    '"name": "DB_PASSWORD", "spec": {"value": 42}',  # another mapping's
    "name=DB_PASSWORD valueFrom=secretKeyRef",
    "title=password value=x1y2z3w4",  # not an entry's name key
    "name=HOST value=db name=PORT value=5432",
]


def test_entries_on_one_line_are_each_read_alone() -> None:
    """A name key again starts another entry: its neighbour's value is no secret."""
    text = f"name=HOST value=db name=DB_PASSWORD value={X} name=PORT value=5432"
    assert redact_text(text) == text.replace(X, REDACTED)


# --- 3. XML -----------------------------------------------------------------------------------


XML = [
    (f'<param name="password" value="{X}"/>', f'<param name="password" value="{REDACTED}"/>'),
    (f"<param name='password' value='{X}' />", f"<param name='password' value='{REDACTED}' />"),
    (
        f'<param value="{X}" name="db.password"/>',
        f'<param value="{REDACTED}" name="db.password"/>',
    ),
    (
        f'<add key="ApiToken" value="{X}" />',  # a .NET app setting
        f'<add key="ApiToken" value="{REDACTED}" />',
    ),
    (f"<password>{X}</password>", f"<password>{REDACTED}</password>"),
    (f"<db><Password>{X}</Password></db>", f"<db><Password>{REDACTED}</Password></db>"),
    (
        f"<password>\n  {X}\n</password>",
        f"<password>{REDACTED}</password>",
    ),
    (f"<api_token>{X}", f"<api_token>{REDACTED}"),  # cut off
    (f"<db password='{X}'/>", f"<db password='{REDACTED}'/>"),
    (f'<db password="{X}" user="app"/>', f'<db password="{REDACTED}" user="app"/>'),
]


XML_STAYS = [
    '<param name="port" value="8080"/>',
    '<param name="password"/><param value="x1y2z3w4"/>',  # two elements
    "<password></password>",
    "Usage: login <password> [--verbose] to sign in",  # a placeholder
    "run `tool <password>` to sign in",
    "<password/>",
]


# --- 4. an argv's flag item with a terminal code in it ----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f'["--token\x1b[0m","{X}"]',
        f'["--token\x1b[0m", "{X}"]',
        f"['--password\x1b[0m', '{X}']",
        f'["\x1b[1m--token\x1b[0m", "{X}"]',
        f'["\x1b[33m--token", "{X}", "--verbose"]',
        f'log: ["--token\\u001b[0m", "{X}"',  # JSON text cut off, its codes escaped
        f'["\\u001b[1m--api-key\\u001b[0m", "{X}"]',
    ],
)
def test_a_flag_items_value_after_a_terminal_code_is_hidden(text: str) -> None:
    shown = redact_text(text)
    assert X not in shown, text
    assert "token" in shown or "password" in shown or "api-key" in shown


@given(
    st.sampled_from(FLAGS[:5]),
    VALUE,
    st.sampled_from(["", "\x1b[0m", "\x1b[1m", "\x1b[38;5;208m", "\x1b[K"]),
    st.sampled_from(["", "\x1b[0m", "\x1b[1;31m"]),
    st.sampled_from(['"', "'"]),
    st.sampled_from([",", ", "]),
)
def test_codes_in_a_flag_item_hide_nothing(
    flag: str, value: str, before: str, after: str, quote: str, comma: str
) -> None:
    text = (
        f"[{quote}{before}{flag}{after}{quote}{comma}{quote}{value}{quote}{comma}{quote}-v{quote}]"
    )
    shown = redact_text(text)
    assert value not in shown, text
    assert shown == text.replace(value, REDACTED), shown
    assert redact([f"{before}{flag}{after}", value]) == [f"{before}{flag}{after}", REDACTED]


# --- 5. a Markdown table's row naming a secret ------------------------------------------------


TABLE_ROWS = [
    (f"| --password | {X} |", f"| --password | {REDACTED} |"),
    (f"| password | {X} |", f"| password | {REDACTED} |"),
    (f"|password|{X}|", f"|password|{REDACTED}|"),
    (f"| DB_PASSWORD | {X} |\n", f"| DB_PASSWORD | {REDACTED} |\n"),
    (
        f"| Name | Value |\n|---|---|\n| HOST | db |\n| api_token | {X} |\n",
        f"| Name | Value |\n|---|---|\n| HOST | db |\n| api_token | {REDACTED} |\n",
    ),
    (f"| password | \x1b[1m{X}\x1b[0m |", f"| password | \x1b[1m{REDACTED}\x1b[0m |"),
    (f"| password | {X}", f"| password | {REDACTED}"),  # cut off
]


@given(
    st.sampled_from(["password", "DB_PASSWORD", "apiToken", "client_secret", "--password"]),
    VALUE,
    st.sampled_from(["", " ", "  ", "\t"]),
    st.sampled_from(["|", "| x |", "|\n", "|\r\n", ""]),
)
def test_a_secret_names_value_cell_is_hidden_however_spaced(
    name: str, value: str, pad: str, rest: str
) -> None:
    text = f"|{pad}{name}{pad}|{pad}{value}{pad}{rest}"
    shown = redact_text(text)
    assert value not in shown, text
    assert shown.startswith(f"|{pad}{name}{pad}|"), shown


TABLES_STAY = [
    "| Name | Description |\n|---|---|\n| password | The password to use |\n",
    "| password | |",
    "| port | 8080 |",
    "| password |\n| next |",
    "echo password | grep x",
    "cat token || true",
]


# --- 6. a reference to a secret is no secret ---------------------------------------------------


REFERENCES_SHOW = [
    "valueFrom:\n  secretKeyRef:\n    name: db\n    key: password\n",
    "valueFrom: {secretKeyRef: {name: db, key: password}}",
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}\n",
    "- name: PW\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password\n",
    '{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}',
    "envFrom:\n- secretRef:\n    name: db-credentials\n",
    "passwordSecretRef: {name: vault, key: token}",
]


def test_a_reference_to_a_secret_shows_in_data() -> None:
    data = {
        "env": [
            {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "pw"}}},
            {"name": "API_TOKEN", "value": X},
        ]
    }
    shown = redact(data)
    assert shown == {"env": [data["env"][0], {"name": "API_TOKEN", "value": REDACTED}]}
    assert [is_secret_key(k) for k in ("secretKeyRef", "secret_ref", "passwordSecretRef")] == [
        False,
        False,
        False,
    ]
    assert [is_secret_key(k) for k in ("secretref", "refresh_token", "ref_token")] == [
        True,
        True,
        True,
    ]


@pytest.mark.parametrize(
    "text",
    [
        f"- name: DB_PASSWORD\n  value: {X}\n- name: API\n  valueFrom:\n"
        "    secretKeyRef: {name: db, key: password}\n",
        f"env: [{{name: DB_PASSWORD, value: {X}}}, {{name: API, valueFrom: {{secretKeyRef: "
        "{name: db, key: token}}}]",
        f"name=DB_PASSWORD value={X} secretKeyRef=db/password",
    ],
)
def test_a_literal_value_beside_references_is_hidden(text: str) -> None:
    shown = redact_text(text)
    assert X not in shown, text
    assert "secretKeyRef" in shown, shown
    assert "password" in shown or "token" in shown, shown


@pytest.mark.parametrize(("text", "shown"), [*QUOTED, *ENTRIES, *XML, *TABLE_ROWS])
def test_each_shape_is_hidden_as_shown(text: str, shown: str) -> None:
    """The value goes whole; its quotes, the name and what is around it stay."""
    assert redact_text(text) == shown


@pytest.mark.parametrize("text", [*ENTRIES_STAY, *XML_STAYS, *TABLES_STAY, *REFERENCES_SHOW])
def test_what_names_no_secret_or_holds_no_value_stays(text: str) -> None:
    """A placeholder, a documentation table, two lines, two elements, another mapping's
    value, a reference to where a secret is kept."""
    assert redact_text(text) == text


# --- what stays linear ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "--token「" * 200_000,
        "--token 「" + "x" * 1_000_000,
        "password: “" + "x " * 500_000,
        "name=password " * 70_000,
        "name=password value=" * 50_000,
        "name=password " + "value=[" * 100_000,
        "value='x' " * 90_000 + "name=password",
        "<password>" * 100_000,
        "<password>" + "x" * 1_000_000,
        '["\x1b[0m--token' * 80_000,
        '["--token' + "\x1b[0m" * 200_000,
        "| password |" * 80_000,
        "| password | " + "x" * 1_000_000,
    ],
)
def test_hostile_low_shapes_take_linear_time(text: str) -> None:
    assert finished(lambda: redact_text(text)), text[:40]
