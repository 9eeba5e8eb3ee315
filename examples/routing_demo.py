"""Tool routing with a large catalogue: the model sees the few tools that matter each turn.

An agent with a few hundred tools (MetaTool's catalogue when $TOOLRAIL_METATOOL or the shared
data folder has it, else ~300 REST-like tools built here) answers one request with a
scripted model: it calls the routed refund tool, asks `find_tools` for an email tool,
calls it, and ends. Each turn prints the bytes of tool definitions sent against sending all.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import orjson
from returns.result import Result, Success

from toolrail import (
    Agent,
    ExecutionContext,
    Orchestrator,
    ParameterSchema,
    Router,
    ScriptedModel,
    ScriptedTurn,
    Tool,
    ToolError,
    ToolRegistry,
    ToolStreamHandler,
)
from toolrail.builtin import end_conversation
from toolrail.dialects import openai
from toolrail.models import ModelRequest
from toolrail.routing.catalogue import safe_tool_name

JsonObject = dict[str, object]
AnyTool = Tool[Any, Any]
METATOOL = Path(
    os.environ.get(
        "TOOLRAIL_METATOOL",
        Path(__file__).resolve().parents[2] / "shared/data/tool-retrieval/metatool",
    )
)
VERBS = ("get", "list", "create", "update", "delete", "search", "send", "cancel", "refund")
NOUNS = [
    "user",
    "order",
    "invoice",
    "payment",
    "customer",
    "ticket",
    "repository",
    "commit",
    "branch",
    "issue",
    "file",
    "folder",
    "calendar",
    "event",
    "email",
    "message",
    "channel",
    "report",
    "chart",
    "metric",
    "alert",
    "incident",
    "deployment",
    "container",
    "image",
    "volume",
    "secret",
    "token",
    "webhook",
    "subscription",
]


def runnable(name: str, description: str, schema: JsonObject) -> AnyTool:
    """A tool that answers what it was asked to do (a stand-in for a real API call)."""

    async def run(args: JsonObject, _ctx: ExecutionContext) -> Result[object, ToolError]:
        return Success({"done": name, "with": args})

    return Tool(
        name=safe_tool_name(name),
        description=description,
        parameters=ParameterSchema.from_json_schema(schema),
        execute=run,
    )


def catalogue() -> tuple[str, list[AnyTool]]:
    """MetaTool's plugins when their data is here, else REST-like tools built in code."""
    described = METATOOL / "plugin_des.json"
    empty: JsonObject = {"type": "object", "properties": {}}
    if described.is_file():
        plugins = json.loads(described.read_text())
        return "MetaTool", [runnable(name, text, empty) for name, text in plugins.items()]
    tools = []
    for verb in VERBS:
        for noun in NOUNS:
            schema: JsonObject = {
                "type": "object",
                "properties": {
                    f"{noun}_id": {"type": "string", "description": f"which {noun}"},
                    "note": {"type": "string", "description": "free text for the record"},
                },
            }
            tools.append(runnable(f"{verb}_{noun}", f"{verb.title()} a {noun} by id.", schema))
    return "synthetic", tools


def sent_names(request: ModelRequest) -> list[str]:
    return [t["function"]["name"] for t in request.body.get("tools", [])]


class Turns:
    """Prints each turn's definition bytes; the scripted model's steps read what it was shown."""

    def __init__(self, everything: int) -> None:
        self.everything = everything
        self.turn = 0

    def shown(self, request: ModelRequest) -> list[str]:
        self.turn += 1
        sent = len(orjson.dumps(request.body.get("tools", [])))
        names = sent_names(request)
        print(
            f"turn {self.turn}: {len(names)} tools, {sent:,} B of definitions "
            f"(all tools: {self.everything:,} B, {sent / self.everything:.1%})"
        )
        return names


def best(names: list[str], *words: str) -> str:
    """The first shown tool whose name has every word (the router ranked them), else the
    first routed one."""
    routed = [n for n in names if n not in ("find_tools", "end_conversation")]
    return next((n for n in routed if all(w in n.lower() for w in words)), routed[0])


def script(
    turns: Turns, first: tuple[str, ...], second: tuple[str, ...], final: str
) -> ScriptedModel:
    def refund(request: ModelRequest) -> ScriptedTurn:
        name = best(turns.shown(request), *first)
        return ScriptedTurn(calls=[(name, {})])

    def find(request: ModelRequest) -> ScriptedTurn:
        turns.shown(request)
        return ScriptedTurn(calls=[("find_tools", {"query": " ".join(second)})])

    def email(request: ModelRequest) -> ScriptedTurn:
        return ScriptedTurn(calls=[(best(turns.shown(request), *second), {})])

    def finish(request: ModelRequest) -> ScriptedTurn:
        turns.shown(request)
        done = {"reason": "done", "final_message": final}
        return ScriptedTurn(calls=[("end_conversation", done)])

    return ScriptedModel([refund, find, email, finish])


async def main() -> None:
    source, tools = catalogue()
    registry = ToolRegistry([*tools, end_conversation])
    everything = len(orjson.dumps(openai.chat.export_tools(list(registry)).tools))
    print(f"{source} catalogue: {len(registry)} tools, all definitions {everything:,} B")
    first: tuple[str, ...]
    second: tuple[str, ...]
    if source == "MetaTool":
        request, first, second, final = (
            "Plan a trip to Lisbon for me, then tell me the weather there",
            ("trip",),
            ("weather",),
            "Trip planned; the weather is in.",
        )
    else:
        request, first, second, final = (
            "Refund the payment 4821 of the customer, then email them a receipt",
            ("refund", "payment"),
            ("send", "email"),
            "Refunded and told the customer.",
        )
    turns = Turns(everything)
    router = Router(registry, pinned=["end_conversation"])
    agent = Agent(
        name="assistant",
        instructions="Use the tools shown; ask find_tools for more.",
        model=script(turns, first, second, final),
        tools=("*",),
        router=router,
        route_k=8,
    )
    loop = Orchestrator(
        [agent], registry, sinks=[ToolStreamHandler(on_update=lambda u: print("  ", u.text))]
    )
    print(f"request: {request}")
    result = await loop.run(request)
    print(result.end.kind, "—", result.final_message)


if __name__ == "__main__":
    asyncio.run(main())
