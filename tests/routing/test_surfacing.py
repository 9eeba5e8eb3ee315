"""An Agent with a router: shown pinned + top-k per turn, `find_tools` for the rest."""

from __future__ import annotations

import pytest
from returns.result import Success

from toolrail import (
    Agent,
    AgentToolTable,
    ExecutionContext,
    Executor,
    Orchestrator,
    Router,
    ScriptedModel,
    ScriptedTurn,
    ToolCall,
    tool,
)
from toolrail.builtin import complete
from toolrail.core.messages import UserMessage
from toolrail.dialects import openai
from toolrail.models.base import ModelRequest
from toolrail.routing.surfacing import Surfacing

from .catalogue import registry

pytestmark = pytest.mark.anyio


@tool
def forecast(city: str) -> str:
    """Weather forecast for a city, for the coming days."""
    return f"{city}: rain"


def shown(request: ModelRequest) -> set[str]:
    return {t["function"]["name"] for t in request.export.tools}


async def test_routed_agent_sees_few_tools_and_finds_more() -> None:
    """Turn 1 shows the routed few; find_tools adds tools; an unshown allowed tool runs."""
    catalogue = registry()
    catalogue.register(forecast)
    catalogue.register(complete)
    router = Router(catalogue, pinned=["complete"])
    model = ScriptedModel(
        [
            ScriptedTurn(calls=[("find_tools", {"query": "translate text into German"})]),
            ScriptedTurn(calls=[("forecast", {"city": "Oslo"})]),
            ScriptedTurn(calls=[("complete", {"summary": "done"})]),
        ],
        dialect=openai.chat,
    )
    agent = Agent(
        name="a", instructions="help", model=model, tools=("*",), router=router, route_k=3
    )
    result = await Orchestrator([agent], catalogue).run("what's the weather in Oslo today?")
    assert result.end.kind == "completed"
    first, second, _ = (shown(r) for r in model.requests)
    assert {"complete", "find_tools", "get_current_weather"} <= first
    assert len(first) <= 3 + 2
    assert "translate_text" not in first
    assert "translate_text" in second  # brought into view by find_tools
    found, ran, _ = result.outcomes
    assert isinstance(found.result, Success)
    assert ran.result == Success("Oslo: rain")


async def test_agent_without_router_sees_everything() -> None:
    """No router: every tool the agent may call, as before."""
    catalogue = registry()
    catalogue.register(complete)
    model = ScriptedModel([ScriptedTurn(text="hi")], dialect=openai.chat)
    agent = Agent(name="a", instructions="help", model=model, tools=("*",))
    await Orchestrator([agent], catalogue).run("hello")
    assert len(shown(model.requests[0])) == len(catalogue)


@tool
def read_secret(key: str) -> str:
    """Read a secret from the vault."""
    return "s3cr3t"


@tool
def read_file(path: str) -> str:
    """Read a file's text."""
    return "text"


async def test_hidden_tools_take_no_place_among_the_routed_few() -> None:
    """A router made without the executor (the README's way) ranks a hidden tool first for
    "read a secret"; it must not take one of the k places, nor empty `find_tools`' answer:
    a model could tell that a hidden tool exists (found by an outside review)."""
    catalogue = registry()
    catalogue.register(read_secret)
    catalogue.register(read_file)
    executor = Executor(catalogue, agents=AgentToolTable({"a": ["*", "!read_secret"]}))
    surfacing = Surfacing(executor, [("a", Router(catalogue), 1)])
    ctx = ExecutionContext(agent="a")
    turn = surfacing.shown("a", frozenset(), [UserMessage(text="read a secret")], ctx)
    assert [t.name for t in turn] == ["read_file", "find_tools"]
    found = await executor.run(
        ToolCall(name="find_tools", arguments={"query": "read a secret"}), ctx
    )
    answer = found.result.unwrap()
    assert isinstance(answer, dict)
    assert [t["name"] for t in answer["tools"]] == ["read_file"]
