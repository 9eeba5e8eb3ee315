"""ParameterSchema: pydantic models and raw JSON Schema, arguments in any delivered shape."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, field_validator
from returns.result import Failure, Success

from toolrail import InvalidArguments, ParameterSchema


class Item(BaseModel):
    sku: str
    qty: int = Field(ge=1)


class Order(BaseModel):
    customer: str
    items: list[Item]
    note: str | None = None


class Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")
    a: int


ORDER = ParameterSchema.from_model(Order)
RAW = ParameterSchema.from_json_schema(
    {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "minimum": 1},
        },
        "required": ["city"],
        "additionalProperties": False,
    }
)


def issues(result: object) -> list[tuple[str, str]]:
    match result:
        case Failure(InvalidArguments(issues=found)):
            return [(i.path, i.message) for i in found]
        case _:
            raise AssertionError(f"expected InvalidArguments, got {result!r}")


def test_json_string_and_dict_validate_the_same() -> None:
    """Providers send JSON text or objects; both give the same model."""
    text = '{"customer": "ada", "items": [{"sku": "a", "qty": 2}]}'
    from_text = ORDER.validate(text).unwrap()
    from_dict = ORDER.validate({"customer": "ada", "items": [{"sku": "a", "qty": 2}]}).unwrap()
    from_bytes = ORDER.validate(text.encode()).unwrap()
    assert from_text == from_dict == from_bytes
    assert from_text.items[0].qty == 2


def test_every_issue_is_listed_with_its_json_path() -> None:
    """Wrong types, missing and extra fields, nested: all reported at once."""
    found = issues(
        ORDER.validate({"items": [{"sku": "a", "qty": 0}, {"qty": "x"}], "extra": True}, tool="o")
    )
    paths = [path for path, _ in found]
    assert paths == ["$.customer", "$.items[0].qty", "$.items[1].sku", "$.items[1].qty", "$.extra"]
    messages = dict(found)
    assert messages["$.customer"] == "required field is missing"
    assert messages["$.extra"] == "unexpected field; remove it"
    assert "greater than or equal to 1" in messages["$.items[0].qty"]


def test_bad_json_is_an_issue_not_a_crash() -> None:
    """Truncated JSON gets a message saying what to send."""
    [(path, message)] = issues(ORDER.validate('{"customer": "ada", "items": ['))
    assert path == "$"
    assert "not valid JSON" in message
    assert "JSON object" in message


@pytest.mark.parametrize("raw", ["[1, 2]", "42", '"text"', "null", [1, 2], 3.5])
def test_non_objects_are_refused_with_what_was_sent(raw: object) -> None:
    """Arguments must be one JSON object; anything else says what it was."""
    [(path, message)] = issues(ORDER.validate(raw))  # type: ignore[arg-type]
    assert path == "$"
    assert "must be a JSON object" in message


@pytest.mark.parametrize("raw", [None, "", "  ", b""])
def test_no_arguments_mean_an_empty_object(raw: str | bytes | None) -> None:
    """Empty arguments validate as `{}`: fine for tools without required inputs."""
    assert isinstance(ParameterSchema.from_model(Item).validate(raw), Failure)
    optional = ParameterSchema.from_json_schema({"type": "object"})
    assert optional.validate(raw) == Success({})


def test_models_that_choose_their_extra_policy_keep_it() -> None:
    """A model that says `extra="ignore"` is respected; others refuse unknown fields."""
    lenient = ParameterSchema.from_model(Lenient)
    assert lenient.validate({"a": 1, "b": 2}).unwrap().a == 1


def test_pydantic_schema_export() -> None:
    """The exported schema forbids extra fields and keeps nested definitions."""
    schema = ORDER.json_schema()
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["customer", "items"]
    assert "Item" in schema["$defs"]  # type: ignore[operator]


def test_raw_json_schema_validation() -> None:
    """Raw JSON Schema: every error with its path, success gives a plain dict."""
    assert RAW.validate('{"city": "Oslo", "days": 2}') == Success({"city": "Oslo", "days": 2})
    found = issues(RAW.validate({"days": 0, "zzz": 1}))
    assert [p for p, _ in found] == ["$", "$", "$.days"]
    assert any("'city' is a required property" in m for _, m in found)
    assert any("'zzz' was unexpected" in m for _, m in found)
    assert RAW.json_schema()["required"] == ["city"]


@pytest.mark.parametrize("schema", [{"type": "not-a-type"}, {"type": "string", "pattern": "(("}])
def test_malformed_json_schema_fails_at_definition(schema: dict[str, object]) -> None:
    """A schema that is not a schema (or holds a broken regex) is refused up front."""
    with pytest.raises(ValueError, match="invalid JSON Schema"):
        ParameterSchema.from_json_schema(schema)


def test_unresolvable_schema_is_a_value() -> None:
    """A schema jsonschema cannot apply (dangling $ref) gives InvalidArguments, not a crash."""
    bad = ParameterSchema.from_json_schema(
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}
    )
    [(path, message)] = issues(bad.validate({"a": "x"}))
    assert path == "$"
    assert "could not check" in message


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(JSONISH)
def test_any_jsonish_value_gives_a_result(value: object) -> None:
    """Whatever arrives, validation returns Success or InvalidArguments."""
    for schema in (ORDER, RAW):
        result = schema.validate(value)  # type: ignore[arg-type]
        assert isinstance(result, Success) or isinstance(result.failure(), InvalidArguments)


@given(st.text(max_size=200) | st.binary(max_size=200))
def test_any_text_gives_a_result(text: str | bytes) -> None:
    """Arbitrary text or bytes as arguments never raise."""
    for schema in (ORDER, RAW):
        result = schema.validate(text)
        assert isinstance(result, Success) or isinstance(result.failure(), InvalidArguments)


ANTHROPIC_KEY = "sk-ant-api03-ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210-_zzzz"


class Keyed(BaseModel):
    key: str

    @field_validator("key")
    @classmethod
    def refuse(cls, value: str) -> str:
        raise ValueError(f"key {value!r} is not valid")  # a validator repeating the value


def test_a_validator_repeating_a_rejected_key_does_not_show_it() -> None:
    """Custom validators word their refusals with the value; the issue the model reads is
    redacted, raw JSON or a dict alike."""
    schema = ParameterSchema.from_model(Keyed)
    for raw in ({"key": ANTHROPIC_KEY}, f'{{"key": "{ANTHROPIC_KEY}"}}'):
        error = schema.check(raw, tool="t")
        assert isinstance(error, InvalidArguments)
        assert ANTHROPIC_KEY not in error.message
        assert all(ANTHROPIC_KEY not in issue.message for issue in error.issues)
        assert "$.key" in error.message  # which field, still readable


def test_a_json_schema_issue_does_not_show_a_rejected_key() -> None:
    schema = ParameterSchema.from_json_schema(
        {"type": "object", "properties": {"mode": {"enum": ["a", "b"]}}}
    )
    error = schema.check({"mode": f"x{ANTHROPIC_KEY}"}, tool="t")
    assert isinstance(error, InvalidArguments)
    assert ANTHROPIC_KEY[7:] not in error.message
    assert "$.mode" in error.message
