"""A name/value entry: a mapping holding one setting as its name under one key and its value
under another (Kubernetes' and ECS's `env`, HAR's and HTTP header lists, AWS tags,
CloudFormation's parameters, SSM's parameters). Its value is hidden when its name names a
secret, as `{name: value}` would be: in data, in JSON text, and written as YAML (a
manifest, `kubectl get -o yaml`). The name stays: it is no secret, and it tells a reader
what was hidden. An entry whose name names no secret stays as it is."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hang_guard import finished
from toolrail.core.hidden import hidden_texts
from toolrail.core.redact import REDACTED, redact, redact_text, redacts_nothing

SECRET_NAMES = [
    "DB_PASSWORD",
    "X-Api-Key",
    "password",
    "DbPassword",
    "API_TOKEN",
    "apiToken",
    "Authorization",
    "client_secret",
    "/prod/db/password",  # an SSM parameter's name
    "session_token",
    "AWS_SECRET_ACCESS_KEY",
]
# the keys an entry's name and value are under, as the formats spell them
NAME_KEYS = ["name", "Name", "NAME", "key", "Key", "ParameterKey", "ParameterName", "parameterName"]
VALUE_KEYS = ["value", "Value", "VALUE", "ParameterValue", "parameterValue"]

# Every secret leaf starts with "zz", and nothing outside a secret value holds "zz"
SECRET_LEAF = st.text(alphabet="abcdefghijklmnop0123456789 \"'\\[]{}:,\n\t/éß", max_size=12).map(
    "zz".__add__
)
SECRET_VALUES = st.recursive(
    SECRET_LEAF | st.integers(min_value=10**9, max_value=10**12).map(lambda n: -n),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.dictionaries(SECRET_LEAF, inner, min_size=1, max_size=3)
    ),
    max_leaves=6,
)


def _shown(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize(
    ("data", "secret"),
    [
        ({"env": [{"name": "DB_PASSWORD", "value": "hunter2secret"}]}, "hunter2secret"),
        ({"headers": [{"name": "X-Api-Key", "value": "abcd1234efgh"}]}, "abcd1234efgh"),
        ({"Tags": [{"Key": "password", "Value": "hunter2secret"}]}, "hunter2secret"),
        (
            {"Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": "x1y2z3w4"}]},
            "x1y2z3w4",
        ),
        (
            {"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": "p4ss"}},
            "p4ss",
        ),
        ({"env": [{"value": "hunter2secret", "name": "DB_PASSWORD"}]}, "hunter2secret"),
        ({"env": [{"name": "PIN", "value": 48151623}]}, "48151623"),
        ({"env": [{"name": "API_TOKEN", "value": ["tok-one", "tok-two"]}]}, "tok-"),
        ({"env": [{"name": "API_TOKEN", "value": {"primary": "tok-one"}}]}, "tok-one"),
        ({"containers": [{"env": [{"NAME": "apiToken", "VALUE": "tok3nvalue"}]}]}, "tok3nvalue"),
        ([{"name": "app", "key": "password", "value": "hunter2secret"}], "hunter2secret"),
    ],
)
def test_a_secret_named_entrys_value_is_hidden(data: Any, secret: str) -> None:
    assert secret not in _shown(redact(data)), data
    assert secret not in redact_text(json.dumps(data)), data
    assert secret not in redact_text(json.dumps(data, indent=2)), data
    assert not redacts_nothing(data)


def test_what_shows_of_a_hidden_entry() -> None:
    """The name stays, and every key and the entry's other fields: only the value goes."""
    data = {"env": [{"name": "DB_HOST", "value": "db"}, {"name": "DB_PASSWORD", "value": 42}]}
    shown = {
        "env": [{"name": "DB_HOST", "value": "db"}, {"name": "DB_PASSWORD", "value": REDACTED}]
    }
    assert redact(data) == shown
    assert json.loads(redact_text(json.dumps(data))) == shown
    assert redact_text(json.dumps(data, indent=2)) == json.dumps(shown, indent=2)
    tags = {"Key": "password", "Value": "hunter2secret", "ResourceId": "i-0abc"}
    assert redact(tags) == {"Key": "password", "Value": REDACTED, "ResourceId": "i-0abc"}


@settings(max_examples=150)
@given(
    st.sampled_from(SECRET_NAMES),
    st.sampled_from(NAME_KEYS),
    st.sampled_from(VALUE_KEYS),
    SECRET_VALUES,
    st.booleans(),
)
def test_any_spelling_of_a_secret_entry_hides_its_value(
    name: str, name_key: str, value_key: str, value: object, value_first: bool
) -> None:
    """In data and in JSON text, compact, spaced and pretty: nothing of the value is left,
    and the text decodes to what `redact` makes of the data (one policy)."""
    entry = {name_key: name, value_key: value}
    if value_first:
        entry = {value_key: value, name_key: name}
    data = {"kind": "Pod", "env": [{"name": "HOST", "value": "db"}, entry], "replicas": 2}
    redacted = redact(data)
    assert "zz" not in _shown(redacted)
    assert redacted["env"][1] == {name_key: name, value_key: REDACTED}  # type: ignore[index]
    assert not redacts_nothing(data)
    for text in (json.dumps(data), json.dumps(data, ensure_ascii=False, separators=(",", ":"))):
        assert json.loads(redact_text(text)) == redacted
    assert json.loads(redact_text(json.dumps(data, indent=2))) == redacted


@pytest.mark.parametrize(
    "data",
    [
        {"name": "port", "value": "8080"},
        {"env": [{"name": "DB_HOST", "value": "db.internal"}, {"name": "LOG_LEVEL", "value": 3}]},
        {"name": "max_tokens", "value": 4096},
        {"name": "tokenizer", "value": "cl100k_base"},
        {"key": "password", "value": ""},  # nothing to hide, as `{"password": ""}` shows it
        {"name": "DB_PASSWORD", "value": None},
        # a reference to where the value is kept, not the value
        {"name": "DB_PASSWORD", "valueFrom": {"configMapKeyRef": {"name": "db", "key": "pw"}}},
        {"configMapKeyRef": {"name": "db-settings", "key": "password"}},
        # a tool's parameter as a schema lists it: no value
        {"name": "password", "type": "string", "description": "the account's password"},
        {"name": 5, "value": "x1y2z3w4"},
        {"name": ["password"], "value": "x1y2z3w4"},
        {"title": "password", "value": "x1y2z3w4"},  # not a name key of an entry
        {"name": "password", "text": "x1y2z3w4"},  # nor a value key
    ],
)
def test_an_entry_naming_no_secret_stays(data: dict[str, object]) -> None:
    assert redact(data) == data
    assert redacts_nothing(data)
    assert redact_text(json.dumps(data)) == json.dumps(data)
    assert redact_text(json.dumps(data, indent=2)) == json.dumps(data, indent=2)


def test_an_entry_names_its_secret_as_a_key_would() -> None:
    """One notion of a secret name: an entry named `password_min_length` hides its value as
    `{"password_min_length": 12}` does (`is_secret_key` calls it secret)."""
    entry = {"name": "password_min_length", "value": 12}
    assert redact({"password_min_length": 12}) == {"password_min_length": REDACTED}
    assert redact(entry) == {"name": "password_min_length", "value": REDACTED}


@settings(max_examples=100)
@given(
    st.dictionaries(
        st.sampled_from([*NAME_KEYS, *VALUE_KEYS, "type", "id"]),
        st.sampled_from(["port", "DB_PASSWORD", "", "8080", "x1y2z3w4"]) | st.none() | st.just(7),
        max_size=4,
    )
)
def test_redacts_nothing_agrees_with_redact_on_entries(entry: dict[str, object]) -> None:
    assert redacts_nothing(entry) == (redact(entry) == entry)
    assert redacts_nothing([entry]) == (redact([entry]) == [entry])


def test_many_entries_take_linear_time() -> None:
    data = {"env": [{"name": f"SECRET_{i}", "value": f"v{i}"} for i in range(50_000)]}
    shown = finished(lambda: redact(data))
    assert shown
    assert shown[0]["env"][-1]["value"] == REDACTED  # type: ignore[index]
    assert finished(lambda: redact_text(json.dumps(data)))


def test_words_about_a_call_keep_out_an_entrys_hidden_value() -> None:
    """A tool's error quoting the value of an entry its arguments hide loses it too."""
    arguments = {
        "env": [
            {"name": "DB_PASSWORD", "value": "hunter2secret"},
            {"name": "PIN", "value": 48151623},
        ]
    }
    hidden = hidden_texts(arguments)
    assert hidden.without("login failed with hunter2secret, pin 48151623") == (
        f"login failed with {REDACTED}, pin {REDACTED}"
    )


# --- written as YAML: a manifest, `kubectl get -o yaml`, a CloudFormation template ----------

ZQ = st.text(alphabet="abcdefghijkmnopqrstuvwxyz0123456789", min_size=4, max_size=16).map(
    "Zq".__add__
)


def _yaml_scalar(value: str, quote: str) -> str:
    if quote == '"':
        return json.dumps(value)
    if quote == "'":
        return "'" + value.replace("'", "''") + "'"
    return value


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("env:\n  - name: DB_PASSWORD\n    value: hunter2secret\n", "hunter2secret"),
        ('- name: API_TOKEN\n  value: "hunter2secret"', "hunter2secret"),
        ("- name: API_TOKEN\n  value: 'hunter2secret'\n", "hunter2secret"),
        ("- value: hunter2secret\n  name: API_TOKEN\n", "hunter2secret"),
        (
            "env:\n- name: DB_PASSWORD\n  value: hunter2secret\n- name: HOST\n  value: db\n",
            "hunter2",
        ),
        ("Tags:\n  - Key: password\n    Value: hunter2secret\n", "hunter2secret"),
        ("Parameters:\n  - ParameterKey: DbPassword\n    ParameterValue: x1y2z3w4\n", "x1y2z3w4"),
        (
            "Parameter:\n  Name: /prod/db/password\n  Type: SecureString\n  Value: p4ssw0rdZ\n",
            "p4ss",
        ),
        ("- name: DB_PASSWORD  # rotated\n  value: hunter2secret  # monthly\n", "hunter2secret"),
        ("- name: DB_PASSWORD\n  description: the db's\n  value: hunter2secret\n", "hunter2"),
        ("- name: PIN\n  value: 48151623\n", "48151623"),
        ('- "name": "DB_PASSWORD"\n  "value": "hunter2secret"\n', "hunter2secret"),
        ("env:\r\n  - name: DB_PASSWORD\r\n    value: hunter2secret\r\n", "hunter2secret"),
        ("- name: TLS_PASSPHRASE\n  value: |\n    hunter2secret\n    more\n- name: X\n", "hunter2"),
        (
            "- name: TLS_PASSPHRASE\n  value: >-\n    hunter2secret\n    # not a comment\n",
            "comment",
        ),
        ("- name: DB_PASSWORD\n  value:\n    hunter2secret\n", "hunter2secret"),
        ("- name: DB_PASSWORD\r\n  value: |\r\n    hunter2secret\r\n", "hunter2secret"),
        ("- name: DB_PASSWORD\n  value: &pw\n    hunter2secret\n", "hunter2secret"),
        ("- name: API_TOKEN\n  value:\n    - tok-one\n    - tok-two\n", "tok-"),
        ("- name: API_TOKEN\n  value:\n  - tok-one\n  - tok-two\nnext: 1\n", "tok-"),
        ("- name: API_TOKEN\n  value: [tok-one, tok-two]\n", "tok-"),
        ("- name: API_TOKEN\n  value: {primary: tok-one,\n    second: tok-two}\n", "tok-"),
        ("- name: DB_PASSWORD\n  value: hunt", "hunt"),  # cut off
        ('- name: DB_PASSWORD\n  value: "hunter2 se', "hunter2"),
        ("-\n  name: DB_PASSWORD\n  value: hunter2secret\n", "hunter2secret"),
        (
            "spec:\n  containers:\n    - name: app\n      image: nginx\n      env:\n"
            "        - name: HOST\n          value: db\n"
            "        - name: DB_PASSWORD\n          value: hunter2secret\n"
            "      ports:\n        - containerPort: 80\n",
            "hunter2secret",
        ),
    ],
)
def test_a_secret_named_entrys_value_is_hidden_in_yaml(text: str, secret: str) -> None:
    shown = redact_text(text)
    assert secret not in shown, text
    assert "name: " in shown.lower() or "key: " in shown.lower() or '"name": ' in shown


def test_what_shows_of_a_hidden_yaml_entry() -> None:
    text = (
        "env:\n  - name: DB_HOST\n    value: db\n  - name: DB_PASSWORD\n    value: hunter2secret\n"
        "  - name: LOG_LEVEL\n    value: info\n"
    )
    assert redact_text(text) == text.replace("hunter2secret", REDACTED)
    text = '- name: API_TOKEN  # the CI\'s\n  value: "hunter2secret"  # rotated\n- name: X\n'
    assert redact_text(text) == text.replace("hunter2secret", REDACTED)
    text = "- value: 'hunter2secret'\n  name: API_TOKEN\n"
    assert redact_text(text) == text.replace("hunter2secret", REDACTED)
    text = "- name: TLS_PASSPHRASE\n  value: |\n    hunter2secret\n    more\n\n- name: HOST\n"
    assert redact_text(text) == f"- name: TLS_PASSPHRASE\n  value: {REDACTED}\n\n- name: HOST\n"
    text = "- name: DB_PASSWORD\n  value:\n    hunter2secret\n  type: plain\n"
    assert redact_text(text) == f"- name: DB_PASSWORD\n  value: {REDACTED}\n  type: plain\n"
    text = '- name: DB_PASSWORD\n  value: "hunter2'
    assert redact_text(text) == f'- name: DB_PASSWORD\n  value: "{REDACTED}'


@pytest.mark.parametrize(
    "text",
    [
        "env:\n  - name: DB_HOST\n    value: db.internal\n  - name: LOG_LEVEL\n    value: info\n",
        '- name: port\n  value: "8080"\n',
        "- name: max_tokens\n  value: 4096\n",
        # a reference to where the value is kept, not the value
        "- name: API_TOKEN\n  valueFrom:\n    configMapKeyRef:\n      name: ci\n      key: tok\n",
        "- name: DB_PASSWORD\n  valueFrom: x\n- name: HOST\n  value: db\n",  # another entry's
        "name: DB_PASSWORD\nspec:\n  value: 42\n",  # another mapping's
        '- name: DB_PASSWORD\n  value: ""\n',
        "- name: DB_PASSWORD\n  value: ''\n",
        "- name: DB_PASSWORD\n  value:\n- name: HOST\n  value: db\n",
        "- name: DB_PASSWORD\n  value: null\n",
        "- name: DB_PASSWORD\n  value: ~\n",
        "- name: the password\n- value: 12\n",  # a list's items, not one entry's
        "name: password reset\nThe value: 30 minutes\n",
        "- name: DB_PASSWORD\n  # value: 42\n",
    ],
)
def test_a_yaml_entry_naming_no_secret_or_no_value_stays(text: str) -> None:
    assert redact_text(text) == text


def test_a_secret_reference_is_no_entry_s_value() -> None:
    """`valueFrom:` is no value key: what it holds is read as any mapping is."""
    text = "- name: API_TOKEN\n  valueFrom:\n    configMapKeyRef:\n      name: ci\n      key: tok\n"
    assert redact_text(text) == text
    shown = redact_text(
        "- name: API_TOKEN\n  valueFrom:\n    secretKeyRef:\n      name: ci\n      key: tok\n"
    )
    assert shown.startswith("- name: API_TOKEN\n  valueFrom:\n")


@settings(max_examples=150)
@given(
    st.sampled_from(SECRET_NAMES),
    st.sampled_from(NAME_KEYS),
    st.sampled_from(VALUE_KEYS),
    ZQ,
    st.sampled_from(["", '"', "'"]),
    st.sampled_from(["", '"', "'"]),
    st.sampled_from(["", "  ", "    ", "\t"]),
    st.booleans(),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(["", "  # a comment"]),
)
def test_any_yaml_spelling_of_a_secret_entry_hides_its_value(
    name: str,
    name_key: str,
    value_key: str,
    value: str,
    name_quote: str,
    value_quote: str,
    indent: str,
    value_first: bool,
    newline: str,
    comment: str,
) -> None:
    """In a block list of entries, between others: the value goes, cut off anywhere too,
    and every other line stays."""
    if indent == "\t":
        indent = ""  # (YAML indents with spaces only)
    lines = [
        f"{name_key}: {_yaml_scalar(name, name_quote)}{comment}",
        f"{value_key}: {_yaml_scalar(value, value_quote)}{comment}",
    ]
    if value_first:
        lines.reverse()
    entry = f"{indent}- {lines[0]}{newline}{indent}  {lines[1]}{newline}"
    other = f"{indent}- name: HOST{newline}{indent}  value: db.internal{newline}"
    text = f"env:{newline}{other}{entry}{other}"
    shown = redact_text(text)
    assert "Zq" not in shown
    # (a comment after `X-Api-Key` is read as a flag's value by another pass: not checked)
    for got, want in zip(shown.split("\n"), text.replace(value, REDACTED).split("\n"), strict=True):
        assert got == want or _yaml_scalar(name, name_quote) in want
    # (the value first: a cut before its name is whole shows no secret's name)
    named = text.index(_yaml_scalar(name, name_quote), len(f"env:{newline}{other}"))
    for length in range(
        named + len(_yaml_scalar(name, name_quote)) if value_first else 0, len(text) + 1
    ):
        assert "Zq" not in redact_text(text[:length]), text[:length]


@settings(max_examples=60)
@given(st.sampled_from(SECRET_NAMES), SECRET_VALUES)
def test_pretty_json_text_cut_off_keeps_no_piece_of_an_entrys_value(
    name: str, value: object
) -> None:
    """A preview or partial arguments of an indented JSON document: the value is hidden as
    far as the text goes."""
    data = {"env": [{"name": "HOST", "value": "db"}, {"name": name, "value": value}], "n": 2}
    text = json.dumps(data, indent=2)
    for length in range(len(text) + 1):
        assert "zz" not in redact_text(text[:length]), text[:length]


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "env:\n" + "  - name: DB_PASSWORD\n    value: hunter2secret\n" * (n // 40),
        lambda n: "- value: x\n  name: DB_PASSWORD\n" * (n // 32),
        lambda n: "- name: DB_PASSWORD\n  value: |\n" + "    hunter2secret\n" * (n // 18),
        lambda n: "- name: DB_PASSWORD\n  value: " + "a " * (n // 2),
        lambda n: "- name: DB_PASSWORD\n  value: " + " " * n + "x",
        lambda n: "- name: DB_PASSWORD\n  value: [" + "[" * n,
        lambda n: (
            "- name: DB_PASSWORD\n  value:\n"
            + "".join(" " * k + "value:\n" for k in range(1, 1400))
        ),
        lambda n: "".join(" " * k + "- value:\n" for k in range(1, 1400)) + "name: password\n",
        lambda n: "- name: password\n" + "".join(" " * k + "- value: x\n" for k in range(1, 1400)),
        lambda n: "- name: DB_PASSWORD\n  value: |\n" + "  # c\n" * (n // 6),
        lambda n: "name: password\n" + "-\n" * (n // 2),
        lambda n: "name: password\nvalue:" + " \n" * (n // 2),
        lambda n: "name: password\n" + "value: x\n" * (n // 9),
        lambda n: "name: password\nvalue: " + "a:" * (n // 2),
        lambda n: "- name: DB_PASSWORD\n" + "  value: [\n" * (n // 16) + "  ]\n" * (n // 16),
        lambda n: "- name: DB_PASSWORD\n" + "  value: {a: 1,\n" * (n // 20) + "  }\n" * (n // 20),
        lambda n: '{\n "name": "DB_PASSWORD",\n' + ' "value": [\n' * (n // 16) + " ]\n" * (n // 16),
        lambda n: "- name: HOST\n  value: db\n" * (n // 24) + "password: x\n",
        lambda n: (
            "name: password\n" + "".join(" " * (k % 2000) + "value: x\n" for k in range(1000))
        ),
    ],
)
def test_hostile_yaml_entries_take_linear_time(make: Any) -> None:
    text = make(1_000_000)
    assert finished(lambda: redact_text(text))


def test_indented_json_in_a_log_line_hides_an_entrys_value_as_a_string() -> None:
    """Not a document whole (a log's prefix before it): read line by line, the value is
    hidden as JSON text hides a string, so what follows it stays JSON."""
    data = {"env": [{"name": "PIN", "value": 4815}, {"name": "API_TOKEN", "value": {"a": [1]}}]}
    shown = redact_text("response:\n" + json.dumps(data, indent=2))
    assert shown.startswith("response:\n")
    assert json.loads(shown.removeprefix("response:\n")) == {
        "env": [{"name": "PIN", "value": REDACTED}, {"name": "API_TOKEN", "value": REDACTED}]
    }


# --- on one line: JSON text cut off or after a prefix, a Python repr, a YAML flow mapping --


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('{"env": [{"name": "DB_PASSWORD", "value": "hunter2secret', "hunter2"),  # cut off
        ('{"env": [{"name": "DB_PASSWORD", "value": "hunter2secret"}, {"na', "hunter2secret"),
        ('INFO env={"env": [{"name": "DB_PASSWORD", "value": "hunter2secret"}]}', "hunter2"),
        ("{'env': [{'name': 'DB_PASSWORD', 'value': 'hunter2secret'}]}", "hunter2secret"),
        ("- {name: DB_PASSWORD, value: hunter2secret}\n", "hunter2secret"),
        ('x {"Name": "/prod/db/password", "Type": "SecureString", "Value": "p4ssw0rdZ"}', "p4ss"),
        ('x [{"value": "hunter2secret", "name": "API_TOKEN"}]', "hunter2secret"),
        ('x {"name": "PIN", "value": 48151623}', "48151623"),
        ('x {"name": "API_TOKEN", "value": {"a": ["tok-one", {"b": "tok-two"}]}}', "tok-"),
        ('x {"name": "API_TOKEN", "value": ["tok-one", "tok-two"', "tok-"),
        ('x {"Key": "password", "Value": "hunter2secret", "Other": 1}', "hunter2secret"),
    ],
)
def test_a_secret_named_entrys_value_is_hidden_on_one_line(text: str, secret: str) -> None:
    shown = redact_text(text)
    assert secret not in shown, text
    assert "ame" in shown or "Key" in shown  # the name stays


def test_what_shows_of_an_entry_hidden_on_one_line() -> None:
    text = 'INFO env=[{"name": "HOST", "value": "db"}, {"name": "PIN", "value": 4815}] ok'
    assert redact_text(text) == text.replace("4815", f'"{REDACTED}"')
    text = "{'name': 'DB_PASSWORD', 'value': 'hunter2secret', 'type': 'x'}"
    assert redact_text(text) == text.replace("hunter2secret", REDACTED)
    text = "- {name: DB_PASSWORD, value: hunter2secret}"
    assert redact_text(text) == text.replace("hunter2secret", REDACTED)
    text = '{"env": [{"name": "DB_PASSWORD", "value": "hunter2sec'
    assert redact_text(text) == f'{{"env": [{{"name": "DB_PASSWORD", "value": "{REDACTED}'


@pytest.mark.parametrize(
    "text",
    [
        'INFO env=[{"name": "HOST", "value": "db"}, {"name": "port", "value": 8080}] password',
        "{'name': 'DB_PASSWORD', 'value': None} and password",
        '{"name": "DB_PASSWORD", "value": ""} x',
        '{"name": "DB_PASSWORD", "valueFrom": {"configMapKeyRef": {"name": "x"}}} x',
        '[{"name": "DB_PASSWORD"}, {"value": "db"}] x',  # two mappings
        '{"name": "DB_PASSWORD", "spec": {"value": 42}} x',  # another mapping's
    ],
)
def test_an_entry_on_one_line_naming_no_secret_or_no_value_stays(text: str) -> None:
    assert redact_text(text) == text


@settings(max_examples=60)
@given(st.sampled_from(SECRET_NAMES), SECRET_VALUES, st.booleans())
def test_json_text_of_entries_cut_off_anywhere_keeps_no_piece_of_a_value(
    name: str, value: object, value_first: bool
) -> None:
    """Compact, spaced, as a repr: cut at every length from its name on."""
    entry = {"value": value, "name": name} if value_first else {"name": name, "value": value}
    data = {"env": [{"name": "HOST", "value": "db"}, entry], "n": 2}
    for text in (json.dumps(data), orjson.dumps(data).decode(), repr(data)):
        named = text.index(name) + len(name) + 1 if value_first else 0
        for length in range(named, len(text) + 1):
            assert "zz" not in redact_text(text[:length]), text[:length]


@pytest.mark.parametrize(
    "make",
    [
        lambda n: '{"name": "password", "value": ' + "{" * n,
        lambda n: '{"name": "password", "value": ' + "[" * n,
        lambda n: '{"name": "password", "value": 1' + ", " * n,
        lambda n: '{"name": "password", "value": "x"}' * (n // 35),
        lambda n: '{"name": "password", "value": "x", ' + '"a": ' * (n // 5),
        lambda n: '{"name": "password", ' + '"value": 1, ' * (n // 12),
        lambda n: '{"name": "password", "value": ' + ":" * n,
        lambda n: "{name: password, value: " + "a" * n,
        lambda n: '{"name": "password", "value": "x"} ' + "{'" * (n // 2),
        lambda n: '{"name": "password", "value": 1} ' + "{" * (n // 4) + "x" + "}:" * (n // 4),
        lambda n: '{"name": "password", "value": ' + '{"value": ' * (n // 20) + " " * (n // 2),
        lambda n: '{"name": "password", "value": ' + '{"value": 1}, ' * (n // 14),
        lambda n: '{"name": "password", "value": ' + '{"value": ' * (n // 10) + "}" * (n // 10),
    ],
)
def test_hostile_entries_on_one_line_take_linear_time(make: Any) -> None:
    text = make(1_000_000)
    assert finished(lambda: redact_text(text))
