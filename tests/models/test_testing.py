"""TestModel drives a real orchestrator with arguments made from the tools' schemas; the
guard stops a provider model from sending anything."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal

import openai
import pytest
from pydantic import BaseModel, Field
from returns.result import Success

from toolrail import Agent, Orchestrator, ToolRegistry, tool
from toolrail.models.base import ModelRequest
from toolrail.models.providers import OpenAIChatModel, ProviderCallsBlocked
from toolrail.models.testing import TestModel, block_provider_calls, example_arguments

pytestmark = pytest.mark.anyio


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


class Order(BaseModel):
    quantity: Annotated[int, Field(ge=3, le=9)]
    colour: Colour
    size: Literal["s", "m"] = "m"
    note: str | None = None
    tags: Annotated[list[str], Field(min_length=2)]
    email: Annotated[str, Field(min_length=5)]


@tool
def place_order(order: Order) -> str:
    """Place an order."""
    return f"{order.quantity} {order.colour.value}"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def test_the_test_model_calls_every_tool_with_valid_arguments_then_ends() -> None:
    model = TestModel()
    orchestrator = Orchestrator(
        [Agent(name="clerk", instructions="help", model=model, tools=("*",))],
        ToolRegistry([place_order, add]),
    )
    result = await orchestrator.run("order something")
    assert result.end.kind == "completed"
    assert {o.call.name: o.result for o in result.outcomes} == {
        "place_order": Success("3 red"),
        "add": Success(0),
    }
    assert result.final_message == '{"place_order":"3 red","add":0}'
    assert len(model.requests) == 2


async def test_call_tools_and_text_choose_what_it_does() -> None:
    model = TestModel(call_tools=["add"], text="done")
    orchestrator = Orchestrator(
        [Agent(name="clerk", instructions="help", model=model, tools=("*",))],
        ToolRegistry([place_order, add]),
    )
    result = await orchestrator.run("add")
    assert [o.call.name for o in result.outcomes] == ["add"]
    assert result.final_message == "done"


def test_example_arguments_follow_refs_bounds_and_formats() -> None:
    schema = {
        "$defs": {
            "Point": {
                "type": "object",
                "properties": {"x": {"type": "number", "exclusiveMinimum": 1}},
                "required": ["x"],
            }
        },
        "type": "object",
        "properties": {
            "at": {"$ref": "#/$defs/Point"},
            "when": {"type": "string", "format": "date"},
            "maybe": {"anyOf": [{"type": "null"}, {"type": "integer", "maximum": -2}]},
        },
        "required": ["at", "when", "maybe"],
    }
    assert example_arguments(schema) == {"at": {"x": 2.0}, "when": "2024-01-01", "maybe": -2}


async def test_provider_calls_can_be_blocked() -> None:
    # a real client aimed at a closed port: without the guard this fails differently
    client = openai.AsyncOpenAI(api_key="test", base_url="http://127.0.0.1:9/v1", max_retries=0)
    model = OpenAIChatModel(client, "gpt-test")
    request = ModelRequest(
        agent="a", instructions="", messages=(), export=model.dialect.export_tools([]), body={}
    )
    with block_provider_calls(), pytest.raises(ProviderCallsBlocked, match="gpt-test"):
        await model.respond(request)
