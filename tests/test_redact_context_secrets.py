"""A value that is a secret only because of its neighbours (`["--password", v]`,
`["X-Api-Key", v]`, `curl -u user:pw`) is not quoted back by a refusal of it: a validator
sees the value alone, so the issue shows it as the redacted copy of the *whole* arguments
shows it at that path, whoever validates (pydantic, JSON Schema) and however the
validator words it."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, StringConstraints, field_validator
from returns.result import Failure, Result

from toolrail import ExecutionContext, Executor, ParameterSchema, Tool, ToolCall, ToolError
from toolrail.core.errors import InvalidArguments
from toolrail.core.params import JsonSchemaParameters, PydanticParameters
from toolrail.core.redact import REDACTED
from toolrail.registry import ToolRegistry

pytestmark = pytest.mark.anyio

# each holds a character no validator here accepts ("!")
SECRETS = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#%&", min_size=5, max_size=29).map(
    lambda text: text + "!"
)
# arguments where only the neighbours make `v` a secret, and the path of `v` in them
PLACES: list[tuple[str, Any]] = [
    ("argv after --password", lambda v: {"argv": ["mysql", "--password", v]}),
    ("argv after --token", lambda v: {"argv": ["gh", "--token", v]}),
    ("argv after -p", lambda v: {"argv": ["sshpass", "-p", v, "ssh", "host"]}),
    ("a header pair", lambda v: {"headers": [["X-Api-Key", v]]}),
    ("an authorization pair", lambda v: {"headers": [["Authorization", v]]}),
]
ARGV = {"type": "array", "items": {"type": "string", "pattern": "^[a-z-]+$"}}
HEADERS = {
    "type": "array",
    "items": {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z-]+$"}},
}
SCHEMA = {"type": "object", "properties": {"argv": ARGV, "headers": HEADERS}}

Word = Annotated[str, StringConstraints(pattern="^[A-Za-z-]+$")]


class Command(BaseModel):
    argv: list[Word] = []
    headers: list[list[Word]] = []


class Worded(BaseModel):
    """A validator of its own that quotes what it refuses, in its own words."""

    argv: list[str] = []
    headers: list[list[str]] = []

    @field_validator("argv")
    @classmethod
    def words(cls, argv: list[str]) -> list[str]:
        for item in argv:
            if not item.replace("-", "").isalpha():
                raise ValueError(f"not a word: {item} ({json.dumps(item)})")
        return argv

    @field_validator("headers")
    @classmethod
    def header_words(cls, headers: list[list[str]]) -> list[list[str]]:
        return [cls.words(pair) for pair in headers]


CHECKS: dict[str, ParameterSchema[Any]] = {
    "json schema": JsonSchemaParameters(SCHEMA),
    "pydantic": PydanticParameters(Command),
    "pydantic, own words": PydanticParameters(Worded),
}


def _texts(result: object) -> str:
    assert isinstance(result, InvalidArguments), result
    return "\n".join([result.message, *(f"{i.path} {i.message}" for i in result.issues)])


@settings(max_examples=60, deadline=None)
@given(SECRETS, st.sampled_from(PLACES), st.sampled_from(sorted(CHECKS)), st.booleans())
def test_a_secret_by_context_is_never_quoted(
    secret: str, place: tuple[str, Any], check: str, as_json: bool
) -> None:
    _, arguments = place
    raw = arguments(secret)
    text = _texts(CHECKS[check].check(json.dumps(raw) if as_json else raw, tool="run"))
    for spelled in (secret, repr(secret), json.dumps(secret), ascii(secret)):
        assert spelled not in text, text
    assert REDACTED in text  # the model learns the value was refused, not what it was


def test_the_neighbour_and_the_reason_stay() -> None:
    raw = {"argv": ["mysql", "--password", "S3cret!Passw0rd"], "headers": [["X-Key!", "v"]]}
    text = _texts(CHECKS["json schema"].check(raw, tool="run"))
    assert "$.argv[2]: '[REDACTED]' does not match '^[a-z-]+$'" in text
    assert "'X-Key!' does not match" in text  # a refused value no context hides is shown
    text = _texts(CHECKS["pydantic"].check(raw, tool="run"))
    assert "$.argv[2]: String should match pattern '^[A-Za-z-]+$' (got '[REDACTED]')" in text
    assert "(got 'X-Key!')" in text


class Cat(BaseModel):
    kind: Literal["cat"]
    argv: list[Word]


class Dog(BaseModel):
    kind: Literal["dog"]
    argv: list[Word]


class Pets(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]


def test_a_step_of_pydantics_own_in_the_path_is_passed_over() -> None:
    """A tagged union puts its tag into pydantic's location (`pet.cat.argv.2`); the value
    is still found in the arguments, and hidden by its neighbours there."""
    raw = {"pet": {"kind": "cat", "argv": ["login", "--password", "S3cret!Passw0rd"]}}
    text = _texts(PydanticParameters(Pets).check(raw, tool="pets"))
    assert "S3cret" not in text
    assert "(got '[REDACTED]')" in text


async def test_a_refused_call_through_the_executor_quotes_no_secret_by_context() -> None:
    async def never(_args: object, _ctx: ExecutionContext) -> Result[object, ToolError]:
        raise AssertionError("refused arguments never reach the tool")

    registry = ToolRegistry()
    registry.register(
        Tool(
            name="run",
            description="Run a program.",
            parameters=ParameterSchema.from_json_schema(SCHEMA),
            execute=never,
        )
    )
    call = ToolCall(name="run", arguments={"argv": ["mysql", "--password", "S3cret!Passw0rd"]})
    outcome = await Executor(registry).run(call, ExecutionContext())
    assert isinstance(outcome.result, Failure)
    error = outcome.result.failure()
    assert isinstance(error, InvalidArguments)
    assert "S3cret" not in str(error)
    assert "$.argv[2]" in str(error)
