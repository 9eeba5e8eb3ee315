"""An Agent with a router: shown pinned + top-k per turn, `find_tools` for the rest."""

from __future__ import annotations

import pytest
from returns.result import Success

from toolrail import Agent, Orchestrator, Router, ScriptedModel, ScriptedTurn, tool
from toolrail.builtin import complete
from toolrail.dialects import openai
from toolrail.models.base import ModelRequest

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
