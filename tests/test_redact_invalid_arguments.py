"""An `InvalidArguments` never repeats a rejected secret: not in pydantic's words, nor in a
validator's own message however it spells the value (`{v!r}`, `{v}`, JSON), for a secret
field, a secret nested in a model, or a model-level check that quotes a secret field, and
through a JSON Schema tool too. What the model needs to fix its call stays: the path and
the reason."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, field_validator, model_validator

from toolrail.core.errors import InvalidArguments
from toolrail.core.params import JsonSchemaParameters, PydanticParameters
from toolrail.core.redact import REDACTED

SECRETS = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789&$#!%'\"\\ é",
    min_size=4,
    max_size=19,
)
# how a validator may word its refusal
SPELLINGS = [
    "{v!r} is too short",
    "{v} is too short",
    "too short: {v}",
    "{j} is too short",
    "{v!a} is too short",
    "expected 20 characters, got {n} ({v!r})",
]


def _login(spelling: int) -> type[BaseModel]:
    """A login whose password validator words its refusal the `spelling`th way."""

    class Login(BaseModel):
        user: str
        password: str
        spelling: int = 0

        @field_validator("password")
        @classmethod
        def strong(cls, v: str) -> str:
            raise ValueError(_worded(v, spelling))

    return Login


LOGINS = [PydanticParameters(_login(spelling)) for spelling in range(len(SPELLINGS))]


class Nested(BaseModel):
    class Creds(BaseModel):
        api_key: str
        spelling: int = 0

        @model_validator(mode="after")
        def check(self) -> Nested.Creds:
            raise ValueError(_worded(self.api_key, self.spelling))

    name: str
    creds: Creds


class Matching(BaseModel):
    user: str
    password: str
    spelling: int = 0

    @model_validator(mode="after")
    def not_the_user(self) -> Matching:
        raise ValueError(
            f"password must not contain the user: {_worded(self.password, self.spelling)}"
        )


class Pin(BaseModel):
    pin: int

    @field_validator("pin")
    @classmethod
    def four_digits(cls, v: int) -> int:
        raise ValueError(f"{v} is not 4 digits")


def _worded(value: str, spelling: int) -> str:
    return SPELLINGS[spelling % len(SPELLINGS)].format(v=value, j=json.dumps(value), n=len(value))


def _texts(result: object) -> str:
    assert isinstance(result, InvalidArguments)
    return "\n".join([result.message, *(f"{i.path} {i.message}" for i in result.issues)])


@settings(max_examples=200)
@given(SECRETS, st.integers(min_value=0, max_value=len(SPELLINGS) - 1), st.booleans())
def test_a_secret_fields_refusal_never_repeats_its_value(
    secret: str, spelling: int, as_json: bool
) -> None:
    spelled = (secret, repr(secret), json.dumps(secret), ascii(secret))
    for name, (parameters, raw, other) in _checks(secret, spelling).items():
        given_as = json.dumps(raw) if as_json else raw
        text = _texts(parameters.check(given_as, tool="login"))
        # a secret that is a piece of the wording itself ('ment' in "arguments") proves
        # nothing: the same refusal of another value must not hold it
        wording = _texts(parameters.check(other, tool="login"))
        assume(not any(shown in wording for shown in spelled))
        for shown in spelled:
            assert shown not in text, (name, text)
        assert "$." in text or "$ " in text or "$['" in text, text


def _checks(
    secret: str, spelling: int
) -> dict[str, tuple[PydanticParameters[Any], dict[str, object], dict[str, object]]]:
    """Each check: its parameters, the arguments holding `secret`, and the same arguments
    holding another value of its length instead."""

    def arguments(value: str) -> dict[str, object]:
        return {"user": "bob", "password": value, "spelling": spelling}

    def nested(value: str) -> dict[str, object]:
        return {"name": "n", "creds": {"api_key": value, "spelling": spelling}}

    other = "§" * len(secret)
    return {
        "field": (LOGINS[spelling], arguments(secret), arguments(other)),
        "nested": (PydanticParameters(Nested), nested(secret), nested(other)),
        "model-level": (PydanticParameters(Matching), arguments(secret), arguments(other)),
    }


def test_the_reported_refusal_keeps_its_reason() -> None:
    result = LOGINS[0].check({"user": "bob", "password": "Tr0ub4dor&3x"}, tool="login")
    text = _texts(result)
    assert "Tr0ub4dor" not in text
    assert "$['password']" in text  # `$.password: ...` would read as its value, redacted
    assert "is too short" in text  # the model can still fix its call
    assert REDACTED in text


def test_a_secret_number_and_a_json_schema_tools_secret_are_not_repeated() -> None:
    pin = _texts(PydanticParameters(Pin).check({"pin": 987654}, tool="t"))
    assert "987654" not in pin
    schema = {
        "type": "object",
        "properties": {"api_key": {"type": "string", "minLength": 40}},
    }
    refused = JsonSchemaParameters(schema).check({"api_key": "Tr0ub4dor&3x"}, tool="t")
    assert "Tr0ub4dor" not in _texts(refused)
