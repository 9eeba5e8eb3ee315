"""The published JSON Schemas hold for what toolrail produces, and stay in step with code."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from toolrail._definitions import tool_definition
from toolrail._jsonish import to_json_value
from toolrail.builtin import ALL
from toolrail.config import Config

SCHEMAS = Path(__file__).parent.parent / "schemas"


def load(name: str) -> dict[str, object]:
    schema: dict[str, object] = json.loads((SCHEMAS / name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


@pytest.mark.parametrize("tool", ALL, ids=lambda t: t.name)
def test_tool_definitions_are_valid(tool: object) -> None:
    """Every built-in tool's definition is valid against tool-definition.schema.json."""
    jsonschema.validate(
        to_json_value(tool_definition(tool)),  # type: ignore[arg-type]
        load("tool-definition.schema.json"),
    )


def test_config_schema_matches_the_code() -> None:
    """schemas/toolrail-config.schema.json is what the Config model says (regenerate with
    `python -m toolrail.config > schemas/toolrail-config.schema.json`)."""
    assert load("toolrail-config.schema.json") == Config.json_schema()


def test_example_config_is_valid() -> None:
    """The example toolrail.toml is valid against the published config schema."""
    import tomllib

    data = tomllib.loads((SCHEMAS.parent / "examples" / "toolrail.toml").read_text())
    jsonschema.validate(data, load("toolrail-config.schema.json"))
