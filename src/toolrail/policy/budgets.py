"""Budgets: how many calls an agent, a conversation or a tool may make, and how fast."""

from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from returns.result import Failure, Result, Success

from toolrail.core.context import ExecutionContext
from toolrail.core.errors import BudgetExceeded

_SPENT: Result[None, BudgetExceeded] = Success(None)


@dataclass
class Budget:
    """Limits on calls; `consume` counts a call or says which limit it would break.

    Counts are per conversation: `per_agent` caps one agent's calls in a conversation,
    `per_conversation` all of them, `per_tool` one tool's; `rate` is `(calls, seconds)`
    per agent over a sliding window.
    """

    per_agent: int | None = None
    per_conversation: int | None = None
    per_tool: Mapping[str, int] = field(default_factory=dict)
    rate: tuple[int, float] | None = None
    clock: Callable[[], float] = time.monotonic
    _spent: dict[str, _Spent] = field(default_factory=dict)
    """Calls made so far, by conversation id."""
    _recent: dict[str, deque[float]] = field(default_factory=lambda: defaultdict(deque))

    def consume(self, ctx: ExecutionContext[Any], tool: str) -> Result[None, BudgetExceeded]:
        conversation, agent = ctx.conversation_id, ctx.agent
        spent = self._spent.get(conversation)
        if spent is None:
            spent = self._spent[conversation] = _Spent()
        by_agent, by_tool = spent.by_agent, spent.by_tool
        agent_calls, calls, tool_calls = by_agent.get(agent, 0), spent.calls, by_tool.get(tool, 0)
        if self.per_agent is not None and agent_calls >= self.per_agent:
            return Failure(_exceeded(("agent", conversation, agent), self.per_agent))
        if self.per_conversation is not None and calls >= self.per_conversation:
            return Failure(_exceeded(("conversation", conversation), self.per_conversation))
        tool_limit = self.per_tool.get(tool) if self.per_tool else None
        if tool_limit is not None and tool_calls >= tool_limit:
            return Failure(_exceeded(("tool", conversation, tool), tool_limit))
        if self.rate is not None:
            allowed, window = self.rate
            now = self.clock()
            recent = self._recent[ctx.agent]
            while recent and recent[0] <= now - window:
                recent.popleft()
            if len(recent) >= allowed:
                wait = recent[0] + window - now
                return Failure(
                    BudgetExceeded(
                        message=f"rate limit: {ctx.agent} may make {allowed} calls per "
                        f"{window:g}s; try again in {wait:.1f}s",
                        limit="rate",
                        resets_in_s=wait,
                    )
                )
            recent.append(now)
        by_agent[agent] = agent_calls + 1
        spent.calls = calls + 1
        by_tool[tool] = tool_calls + 1
        return _SPENT

    def remaining(self) -> dict[tuple[str, str], int]:
        """Calls left under each limit, the tightest over conversations (for metrics):
        `(limit, scope) → calls`, limit "conversation", "agent", "tool" or "rate", scope
        the agent or tool ("" for a conversation). Read without stopping callers."""
        left: dict[tuple[str, str], int] = {}

        def note(key: tuple[str, str], calls: int) -> None:
            left[key] = max(0, min(left.get(key, calls), calls))

        if self.per_conversation is not None:
            note(("conversation", ""), self.per_conversation)
        for tool, limit in tuple(self.per_tool.items()):
            note(("tool", tool), limit)
        for spent in tuple(self._spent.values()):  # copies: callers may add entries
            if self.per_conversation is not None:
                note(("conversation", ""), self.per_conversation - spent.calls)
            if self.per_agent is not None:
                for agent, count in tuple(spent.by_agent.items()):
                    note(("agent", agent), self.per_agent - count)
            for tool, count in tuple(spent.by_tool.items()):
                if tool in self.per_tool:
                    note(("tool", tool), self.per_tool[tool] - count)
        if self.rate is not None:
            allowed, window = self.rate
            since = self.clock() - window
            for agent, recent in tuple(self._recent.items()):
                note(("rate", agent), allowed - sum(1 for t in tuple(recent) if t > since))
        return left


def _exceeded(key: tuple[str, ...], limit: int) -> BudgetExceeded:
    """Which limit a call would break; written only when one is (not on every call)."""
    match key:
        case ("agent", _, agent):
            what = f"{agent} may make {limit} calls per conversation"
        case ("tool", _, tool):
            what = f"{tool} may be called {limit} times per conversation"
        case _:
            what = f"this conversation may make {limit} calls"
    return BudgetExceeded(
        message=f"budget exceeded: {what}; it resets with a new conversation", limit=key[0]
    )


class _Spent:
    """One conversation's calls: in all, by agent, by tool."""

    __slots__ = ("by_agent", "by_tool", "calls")

    def __init__(self) -> None:
        self.calls = 0
        self.by_agent: dict[str, int] = {}
        self.by_tool: dict[str, int] = {}
