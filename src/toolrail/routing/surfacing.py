"""Per turn, what an agent with a router is shown: pinned + top-k + what `find_tools` found."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from returns.result import Result, Success

from toolrail.core.context import ExecutionContext
from toolrail.core.errors import ToolError
from toolrail.core.messages import Handoff, Message, UserMessage
from toolrail.core.params import JsonObject, ParameterSchema
from toolrail.core.tool import AnyTool, Tool, ToolAnnotations
from toolrail.routing.router import Router

if TYPE_CHECKING:
    from toolrail.executor import Executor

FIND_TOOLS = "find_tools"
QUERY_CHARS = 2000
"""The conversation text a turn is routed on (its latest requests) and a `find_tools` query
are at most this many characters."""
MAX_CONVERSATIONS = 1024

_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "what you need a tool for",
            "maxLength": QUERY_CHARS,  # a longer one is refused, as `find_relevant_tools` does
        }
    },
    "required": ["query"],
    "additionalProperties": False,
}


def conversation_text(messages: Sequence[Message]) -> str:
    """The requests so far (user messages, hand-off summaries), latest last, bounded."""
    parts = [
        m.text if isinstance(m, UserMessage) else m.summary
        for m in messages
        if isinstance(m, UserMessage | Handoff)
    ]
    return " ".join(parts)[-QUERY_CHARS:]


class Surfacing:
    """Chooses each routed agent's tools per turn and serves its `find_tools` tool."""

    def __init__(self, executor: Executor, routers: Iterable[tuple[str, Router, int]]) -> None:
        """`routers`: (agent, its router, how many tools a turn shows besides pinned)."""
        self.executor = executor
        self.routers = {agent: (router, k) for agent, router, k in routers}
        self._found: OrderedDict[tuple[str, str], list[str]] = OrderedDict()
        if self.routers and FIND_TOOLS not in executor.registry:
            executor.registry.register(self.find_tools_tool())

    def shown(
        self, agent: str, permissions: frozenset[str], messages: Sequence[Message], ctx: Any
    ) -> tuple[AnyTool, ...]:
        """The tools shown this turn: all it may call without a router; else the routed few."""
        visible = self.executor.visible(agent, permissions)
        routed = self.routers.get(agent)
        if routed is None:
            return visible
        router, k = routed
        names = [t.name for t in visible]  # hidden tools take no place among the k
        query = conversation_text(messages)
        picked = {m.tool.name for m in router.search(query, k=k, ctx=ctx, within=names)}
        picked.update(self._found.get((ctx.conversation_id, agent), ()))
        picked.add(FIND_TOOLS)
        return tuple(t for t in visible if t.name in picked)

    def find_tools_tool(self) -> AnyTool:
        """`find_tools(query)`: brings the matching tools into view for the conversation."""

        async def find(args: JsonObject, ctx: ExecutionContext) -> Result[object, ToolError]:
            routed = self.routers.get(ctx.agent)
            if routed is None:
                return Success({"tools": [], "note": "this agent has no tool router"})
            router, k = routed
            visible = [t.name for t in self.executor.visible(ctx.agent, ctx.permissions)]
            query = str(args.get("query", ""))
            matches = router.search(query, k=k, ctx=ctx, exclude=[FIND_TOOLS], within=visible)
            tools = [m.tool for m in matches]
            key = (ctx.conversation_id, ctx.agent)
            found = self._found.setdefault(key, [])
            found.extend(t.name for t in tools if t.name not in found)
            self._found.move_to_end(key)
            if len(self._found) > MAX_CONVERSATIONS:
                self._found.popitem(last=False)
            listed = [{"name": t.name, "description": t.description} for t in tools]
            return Success({"tools": listed, "note": "these tools are now available to call"})

        return Tool(
            name=FIND_TOOLS,
            description="Search for more tools by what you need to do; the tools found become "
            "callable for the rest of the conversation.",
            parameters=ParameterSchema.from_json_schema(_SCHEMA),
            execute=find,
            annotations=ToolAnnotations(read_only=True, idempotent=True),
        )
