"""Budgets: how many calls an agent, a conversation or a tool may make, and how fast."""

from __future__ import annotations

import math
import time
from collections import OrderedDict, defaultdict, deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from returns.result import Failure, Result, Success

from toolrail.core.context import ExecutionContext
from toolrail.core.errors import BudgetExceeded

_SPENT: Result[None, BudgetExceeded] = Success(None)

GAUGED = 1000
"""How many of the most recent conversations `Budget.remaining` reads (a scrape's cost)."""


@dataclass
class Budget:
    """Limits on calls; `consume` counts a call or says which limit it would break.

    Counts are per conversation: `per_agent` caps one agent's calls in a conversation,
    `per_conversation` all of them, `per_tool` one tool's; `rate` is `(calls, seconds)`
    per agent over a sliding window. Every conversation is remembered, unless
    `forget_after_s` is set: a conversation with no call (made or refused) for that long
    is then forgotten, its counts dropped (should it call again, it starts afresh) — for
    a long-running server with many short conversations.
    """

    per_agent: int | None = None
    per_conversation: int | None = None
    per_tool: Mapping[str, int] = field(default_factory=dict)
    rate: tuple[int, float] | None = None
    clock: Callable[[], float] = time.monotonic
    forget_after_s: float | None = None
    _spent: OrderedDict[str, _Spent] = field(default_factory=OrderedDict)
    """Calls made so far, by conversation id, the one that called least recently first."""
    _recent: dict[str, deque[float]] = field(default_factory=lambda: defaultdict(deque))

    def consume(self, ctx: ExecutionContext[Any], tool: str) -> Result[None, BudgetExceeded]:
        conversation, agent = ctx.conversation_id, ctx.agent
        spent = self._touch(conversation)
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

    def _touch(self, conversation: str) -> _Spent:
        """The conversation's counts, made its most recent (the gauge reads the latest to
        call); idle conversations forgotten."""
        spent = self._spent
        forget, now = self.forget_after_s, 0.0
        if forget is not None:
            now = self.clock()
            while spent and next(iter(spent.values())).last <= now - forget:
                spent.popitem(last=False)
        counts = spent.get(conversation)
        if counts is None:
            counts = spent[conversation] = _Spent()
        else:
            spent.move_to_end(conversation)
        counts.last = now
        return counts

    def remaining(self) -> dict[tuple[str, str], int]:
        """Calls left under each limit, the tightest over recent conversations not idle (for
        metrics): `(limit, scope) → calls`, limit "conversation", "agent", "tool" or "rate",
        scope the agent or tool ("" for a conversation). Read without stopping callers."""
        left: dict[tuple[str, str], int] = {}

        def note(key: tuple[str, str], calls: int) -> None:
            left[key] = max(0, min(left.get(key, calls), calls))

        if self.per_conversation is not None:
            note(("conversation", ""), self.per_conversation)
        for tool, limit in tuple(self.per_tool.items()):
            note(("tool", tool), limit)
        for spent in self._recent_conversations():
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

    def _recent_conversations(self) -> Iterator[_Spent]:
        """The `GAUGED` conversations that called last and are not idle, most recent
        first (read from a copy: callers may change them meanwhile)."""
        forget = self.forget_after_s
        idle_since = -math.inf if forget is None else self.clock() - forget
        for spent in tuple(islice(reversed(self._spent.values()), GAUGED)):
            if spent.last <= idle_since:
                return
            yield spent


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

    __slots__ = ("by_agent", "by_tool", "calls", "last")

    def __init__(self) -> None:
        self.last = 0.0
        """When it last made a call or was refused one, on the budget's clock."""
        self.calls = 0
        self.by_agent: dict[str, int] = {}
        self.by_tool: dict[str, int] = {}
