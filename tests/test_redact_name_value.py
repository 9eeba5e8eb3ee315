"""A name/value entry: a mapping holding one setting as its name under one key and its value
under another (Kubernetes' and ECS's `env`, HAR's and HTTP header lists, AWS tags,
CloudFormation's parameters, SSM's parameters). Its value is hidden when its name names a
secret, as `{name: value}` would be: in data, in JSON text, and written as YAML (a
manifest, `kubectl get -o yaml`). The name stays: it is no secret, and it tells a reader
what was hidden. An entry whose name names no secret stays as it is."""

from __future__ import annotations

import json
from typing import Any

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
