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
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError
from returns.result import Failure, Result

from tests.hang_guard import finished
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


# -- found by an outside review of the first version --

HIDDEN = "S3cretPassw0rd!"


class StrOrList(BaseModel):
    argv: Word | list[Word]


class Shell(BaseModel):
    kind: Literal["argv"]
    argv: list[Word]


class Other(BaseModel):
    kind: Literal["other"]


class Tagged(BaseModel):
    cmd: Annotated[Shell | Other, Field(discriminator="kind")]


class Reshaped(BaseModel):
    cmd: list[Word]

    @model_validator(mode="before")
    @classmethod
    def joined(cls, data: dict[str, Any]) -> dict[str, Any]:
        return {"cmd": [data["program"], *data["args"]]}


class Deep(BaseModel):
    c: Deep | None = None
    argv: list[Word] = []


class LastWord(BaseModel):
    argv: list[str]

    @model_validator(mode="after")
    def last(self) -> LastWord:
        raise ValueError(f"bad last argument {self.argv[-1]}")


class Lowered(BaseModel):
    model_config = ConfigDict(str_to_lower=True)
    argv: list[str]

    @field_validator("argv")
    @classmethod
    def words(cls, argv: list[str]) -> list[str]:
        raise ValueError(f"not a word: {argv[-1]!r}")


def _deep(levels: int) -> dict[str, object]:
    value: dict[str, object] = {"argv": ["mysql", "--password", HIDDEN]}
    for _ in range(levels):
        value = {"c": value}
    return value


LEAKS: dict[str, tuple[ParameterSchema[Any], object]] = {
    "a union member's name after a list": (
        PydanticParameters(StrOrList),
        {"argv": ["mysql", "--password", HIDDEN]},
    ),
    "a discriminator's tag that is also a key": (
        PydanticParameters(Tagged),
        {"cmd": {"kind": "argv", "argv": ["mysql", "--password", HIDDEN]}},
    ),
    "JSON text with NaN, which pydantic reads": (
        PydanticParameters(Command),
        '{"argv": ["mysql", "--password", "' + HIDDEN + '"], "n": NaN}',
    ),
    "data reshaped by a before-validator": (
        PydanticParameters(Reshaped),
        {"program": "mysql", "args": ["--password", HIDDEN]},
    ),
    "nested past redaction's depth bound": (PydanticParameters(Deep), _deep(70)),
    "more hidden values than are looked for": (
        PydanticParameters(LastWord),
        {"argv": [x for i in range(300) for x in ("--token", f"tok{i:04d}{HIDDEN}")]},
    ),
    "a value lowered by the model's settings": (
        PydanticParameters(Lowered),
        {"argv": ["mysql", "--password", HIDDEN]},
    ),
    "a key refused by propertyNames": (
        JsonSchemaParameters({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}),
        {f"-u bob:{HIDDEN} curl": 1},
    ),
}


@pytest.mark.parametrize("case", sorted(LEAKS))
def test_no_way_round_the_context(case: str) -> None:
    parameters, raw = LEAKS[case]
    text = _texts(parameters.check(raw, tool="t"))  # type: ignore[arg-type]
    for spelled in (HIDDEN, HIDDEN.lower(), "tok0299"):
        assert spelled not in text, text


def test_a_short_hidden_value_is_not_taken_out_of_the_schemas_words() -> None:
    """A pair hides `mail` (its name says auth); the allowed `email` still reads whole."""
    schema = {
        "type": "object",
        "properties": {
            "columns": {
                "type": "array",
                "items": {"enum": ["auth_method", "user_name", "email"]},
            }
        },
    }
    text = _texts(JsonSchemaParameters(schema).check({"columns": ["auth_method", "mail"]}))
    assert "'email'" in text
    assert "e[REDACTED]" not in text


def test_huge_hidden_values_are_taken_out_without_a_stall() -> None:
    """20 hidden values of 200,000 characters each; and 10 MB of arguments with one bad
    field (only the path to a refused value is redacted, not all of the arguments)."""
    argv = [x for i in range(20) for x in ("--password", "é" * 200_000 + str(i))]
    huge = {"argv": ["ok"], "n": "x", "data": [{"k": "v" * 100, "i": i} for i in range(100_000)]}
    done = finished(
        lambda: [
            CHECKS["pydantic"].check({"argv": argv}),
            CHECKS["json schema"].check({"argv": argv}),
            PydanticParameters(Sized).check(huge),
        ],
        seconds=60,
    )
    assert done, "refusing did not finish"
    assert all(isinstance(result, InvalidArguments) for result in done[0])


class Sized(BaseModel):
    argv: list[str]
    n: int
    data: list[dict[str, object]]


class Short(BaseModel):
    argv: list[Annotated[str, Field(max_length=3)]]


def test_many_refusals_in_a_long_list_cost_their_paths_not_the_list() -> None:
    """Each of the 20 listed issues redacts its own path (the list's first item, the one
    before it and itself), not the 100,000 items again."""
    refused = {"argv": ["--password", "x" * 10] * 50_000}
    done = finished(lambda: PydanticParameters(Short).check(refused), seconds=60)
    assert done, "refusing did not finish"
    text = _texts(done[0])
    assert "xxxxxxxxxx" not in text
    assert "$.argv[1]: String should have at most 3 characters (got '[REDACTED]')" in text


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class Plain(BaseModel):
    x: int


def test_a_refused_value_whose_repr_raises_is_still_a_refusal() -> None:
    result = PydanticParameters(Plain).check({"x": Unprintable()})
    assert isinstance(result, InvalidArguments)
    assert "cannot be shown" in _texts(result)


class Confirmed(BaseModel):
    """Validators that quote *another* field than the one they refuse (`info.data`)."""

    password: str = ""
    argv: list[str] = []
    headers: list[list[str]] = []
    confirm: str = ""
    note: str = ""

    @field_validator("confirm")
    @classmethod
    def same_as_password(cls, confirm: str, info: ValidationInfo) -> str:
        if confirm != info.data.get("password"):
            raise ValueError(f"{confirm!r} is not {info.data.get('password')!r}")
        return confirm

    @field_validator("note")
    @classmethod
    def names_the_command(cls, note: str, info: ValidationInfo) -> str:
        if note == "bad":
            raise PydanticCustomError("note", "no note for {cmd}", {"cmd": str(info.data)})
        if note:
            raise ValueError(f"no note for {info.data.get('argv')} {info.data.get('headers')}")
        return note


@settings(max_examples=40, deadline=None)
@given(SECRETS, st.sampled_from(PLACES), st.sampled_from(["x", "bad"]), st.booleans())
def test_a_validator_quoting_another_field_does_not_show_its_secret(
    secret: str, place: tuple[str, Any], note: str, as_json: bool
) -> None:
    """A field's validator may quote the fields validated before it (`info.data`): what
    the arguments' redacted copy hides anywhere is not in its words either."""
    _, arguments = place
    raw = {**arguments(secret), "note": note}
    text = _texts(PydanticParameters(Confirmed).check(json.dumps(raw) if as_json else raw))
    for spelled in (secret, repr(secret)[1:-1], json.dumps(secret)[1:-1], ascii(secret)[1:-1]):
        assert spelled not in text, text
    assert "no note for" in text  # the validator's verdict stays


def test_a_confirmation_validator_does_not_show_the_password() -> None:
    raw = {"password": "Hunter2-Passw0rd!", "confirm": "hunter2-typo"}
    text = _texts(PydanticParameters(Confirmed).check(raw))
    assert "Hunter2-Passw0rd!" not in text
    assert "$.confirm: Value error, 'hunter2-typo' is not '[REDACTED]'" in text
