"""The smallest agent loop: one agent, one tool, a scripted model, progress and a log.

Copy it and swap ScriptedModel for OpenAIChatModel / AnthropicModel / GeminiModel from
toolrail.models.providers to talk to a real model.
"""

from __future__ import annotations

import asyncio
import os

from toolrail import (
    Agent,
    JsonlCallLog,
    Orchestrator,
    ScriptedModel,
    ScriptedTurn,
    ToolRegistry,
    ToolStreamHandler,
    tool,
)
from toolrail.builtin import complete, end_conversation


@tool
def weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: the city's name
    """
    return f"{city}: 4°C, light rain"


async def main() -> None:
    model = ScriptedModel(
        [
            ScriptedTurn(calls=[("weather", {"city": "Oslo"})]),
            ScriptedTurn(
                calls=[("end_conversation", {"reason": "answered", "final_message": "Oslo: 4°C."})]
            ),
        ]
    )
    loop = Orchestrator(
        [
            Agent(
                name="planner",
                instructions="Answer weather questions.",
                model=model,
                tools=("weather", "end_conversation"),
            )
        ],
        ToolRegistry([weather, complete, end_conversation]),
        sinks=[
            ToolStreamHandler(on_update=lambda u: print(u.text)),
            JsonlCallLog(os.environ.get("TOOLRAIL_LOG_DIR", "logs")),
        ],
    )
    result = await loop.run("Weather in Oslo?")
    print(result.end.kind, "—", result.final_message)  # end_conversation — Oslo: 4°C.


if __name__ == "__main__":
    asyncio.run(main())
