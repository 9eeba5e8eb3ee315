"""`InvalidArguments` reads the same however often it is redacted again, and still tells a
model what to fix. Every sink, log and server redacts an error's message once more (the
JSONL log, events as JSON, OTel, the MCP server's error text, the stream handler); an issue
line `- $.password: unexpected field; remove it` read as a password's value came out as
`- $.password: [REDACTED] field; remove it`, and `- $.token: required field is missing`
as `[REDACTED] field is missing`. Whatever the field's name and value, the secret stays
hidden and the advice stays."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from toolrail.core.errors import InvalidArguments
from toolrail.core.params import JsonSchemaParameters, PydanticParameters
from toolrail.core.redact import REDACTED, is_secret_key, redact, redact_name, redact_text
from toolrail.recording.eventjson import error_data

SK = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3"


class Echo(BaseModel):
    text: str


class Login(BaseModel):
    user: str
    token: str
    counts: dict[str, int] = {}


ECHO = PydanticParameters(Echo)
LOGIN = PydanticParameters(Login)
OPEN_SCHEMA = JsonSchemaParameters(
    {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": {"type": "integer"},
    }
)
CLOSED_SCHEMA = JsonSchemaParameters(
    {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "additionalProperties": False,
    }
)

EXTRA = "unexpected field; remove it"
CANARY = "qQzZ9canary"
MISSING = "required field is missing"


def _refused(result: object) -> InvalidArguments:
    assert isinstance(result, InvalidArguments), result
    return result


def _stable(error: InvalidArguments) -> str:
    """The message, checked to read the same however it is shown again."""
    message = error.message
    assert redact_text(message) == message, message
    assert redact(message) == message
    assert error_data(error)["message"] == message  # events as JSON, the call log
    for issue in error.issues:
        assert redact_text(str(issue)) == str(issue), issue
    return message


def test_an_unexpected_secret_named_field_keeps_its_advice_when_shown_again() -> None:
    for name in ("password", "token", "api_key", "pin", "Authorization", "secret"):
        message = _stable(_refused(ECHO.check({"text": "x", name: 1})))
        assert f"'{name}']: {EXTRA}" in message or f".{name}: {EXTRA}" in message, message
        assert "[REDACTED] field" not in redact_text(message)


def test_a_missing_secret_field_keeps_its_advice_when_shown_again() -> None:
    message = _stable(_refused(LOGIN.check({"user": "u"})))
    assert f"['token']: {MISSING}" in message, message


def test_ordinary_fields_keep_their_usual_path() -> None:
    error = _refused(ECHO.check({"text": "x", "extra": 1}))
    assert [str(i) for i in error.issues] == [f"$.extra: {EXTRA}"]
    assert _stable(error).endswith(f"- $.extra: {EXTRA}")


def test_a_json_schema_tools_wording_keeps_the_unexpected_names() -> None:
    message = _stable(_refused(CLOSED_SCHEMA.check({"text": "x", "password": "was"})))
    assert "'password' was unexpected" in message, message
    message = _stable(_refused(CLOSED_SCHEMA.check({"text": "x", SK: "Additional"})))
    assert SK not in message
    assert "Additional properties are not allowed" in message, message


# names: secret words, token shapes, assignments, ordinary words and anything at all
NAMES = st.one_of(
    st.sampled_from(
        [
            "password",
            "token",
            "api_key",
            "apiKey",
            "creds",
            "pin",
            "extra",
            "count",
            "was",
            "field",
            SK,
            "password=hunter2hunter2",
            "x password",
            "user:password",
            "it's",
            "a\\b",
            "mysql -phunter22",
            "Authorization",
        ]
    ),
    st.text(min_size=1, max_size=24),
    st.builds(
        "{}{}{}".format,
        st.sampled_from(["", "db_", "x-", "my", "$."]),
        st.sampled_from(["password", "token", "secret", "auth", "value", "name"]),
        st.sampled_from(["", "_2", "=hunter2hunter2", ": hunter2hunter2", "s"]),
    ),
).filter(lambda name: name not in ("text", "user", "token", "counts"))
VALUES = st.one_of(
    st.sampled_from(
        ["unexpected", "field", "valid", "Input", "a", "be", "integer", "hunter2hunter2", SK]
    ),
    st.text(max_size=16),
    st.integers(),
)


def _hidden(name: str, value: object, message: str, canary: str) -> None:
    """A name the policy hides is not shown; under a secret name, the message is the one a
    different value gives (`canary`): nothing in it comes from the value."""
    if redact_name(name) != name:
        assert name not in message, (name, message)
    if is_secret_key(name) and value not in ("", None):  # an empty value is no secret
        same = message.replace(f'"{REDACTED}"', f"'{REDACTED}'")  # as repr() quotes it
        assert same == canary, (name, message, canary)
    assert SK not in message, message


SCHEMA_WORDS = "is not of type 'integer'"


def _integer(value: object) -> bool:
    try:
        int(str(value).strip())
    except ValueError:
        return False
    return True


def _names_the_field(name: str, message: str) -> None:
    shown = redact_name(name)
    quoted = shown.replace("\\", "\\\\").replace("'", "\\'")
    assert f".{shown}:" in message or f"['{quoted}']:" in message, (name, message)


@settings(max_examples=300, deadline=None)
@given(NAMES, VALUES, st.booleans())
def test_any_unexpected_field_reads_the_same_and_hides_its_secret(
    name: str, value: object, as_json: bool
) -> None:

    def message(value: object) -> str:
        arguments: dict[str, Any] = {"text": "x", name: value}
        return _stable(_refused(ECHO.check(json.dumps(arguments) if as_json else arguments)))

    shown = message(value)
    assert EXTRA in shown, shown
    _names_the_field(name, shown)
    _hidden(name, value, shown, message(CANARY))


@settings(max_examples=300, deadline=None)
@given(NAMES, VALUES)
def test_any_wrong_value_under_any_key_reads_the_same_and_hides_its_secret(
    name: str, value: object
) -> None:
    """A value of the wrong type under a key the model chose: pydantic's wording (`Input
    should be a valid integer`) and a JSON Schema tool's (`... is not of type 'integer'`)."""
    if isinstance(value, int):
        value = f"{value}x"  # never a valid integer
    assume(not _integer(value))

    def login(value: object) -> str:
        arguments = {"user": "u", "token": "t", "counts": {name: value}}
        return _stable(_refused(LOGIN.check(arguments)))

    def schema(value: object) -> str:
        return _stable(_refused(OPEN_SCHEMA.check({"text": "x", name: value})))

    shown = login(value)
    assert "Input should be a valid integer" in shown, shown
    _names_the_field(name, shown)
    _hidden(name, value, shown, login(CANARY))
    # jsonschema's own words are not told from what they quote: a secret that is one of
    # them ("integer") is taken out of them too (left open; the secret stays hidden)
    if name != "text" and not (isinstance(value, str) and value and value in SCHEMA_WORDS):
        shown = schema(value)
        assert "is not of type 'integer'" in shown, shown
        _hidden(name, value, shown, schema(CANARY))


def test_a_message_naming_a_key_that_assigns_reads_the_same_shown_again() -> None:
    """A key holding `=` (`CREDENTIAL=`) is hidden as an assignment in the field's path,
    leaving its quote open (`['CREDENTIAL='[REDACTED]`); shown again, the open quote read
    as a value took the rest of the message (hypothesis found it)."""
    shown = _stable(
        _refused(LOGIN.check({"user": "u", "token": "t", "counts": {"CREDENTIAL=": "x"}}))
    )
    assert "Input should be a valid integer" in shown


def test_a_key_that_assigns_is_named_whole_in_the_path() -> None:
    shown = _stable(
        _refused(LOGIN.check({"user": "u", "token": "t", "counts": {"CREDENTIAL=": "x"}}))
    )
    _names_the_field("CREDENTIAL=", shown)
