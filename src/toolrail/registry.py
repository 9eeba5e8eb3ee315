"""`ToolRegistry` (every tool, by name) and `AgentToolTable` (who may see and call what)."""

from __future__ import annotations

import difflib
import fnmatch
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from returns.result import Failure, Result, Success

from toolrail.core.errors import NotAllowed, ToolError, UnknownTool
from toolrail.core.redact import shown_name
from toolrail.core.tool import AnyTool as AnyTool


class DuplicateToolError(ValueError):
    """Two tools were registered under one name; raised at set-up time, not during calls."""


RegistryListener = Callable[[str, AnyTool], None]
"""Told of each registry change: `("register" | "unregister", tool)`."""

Explainer = Callable[[str], ToolError | None]
"""Says why a claimed name has no tool right now (its server is down), or None."""


class ToolRegistry:
    """Every tool an executor can run, by name.

    >>> from toolrail import tool
    >>> @tool
    ... def ping() -> str:
    ...     "Answer pong."
    ...     return "pong"
    >>> ToolRegistry([ping]).get("ping").unwrap().name
    'ping'
    """

    def __init__(self, tools: Iterable[AnyTool] = ()) -> None:
        self._tools: dict[str, AnyTool] = {}
        self.version = 0
        """Counts changes (register, unregister): what caches of the tool list key on."""
        self._listeners: list[RegistryListener] = []
        self._claims: dict[str, Explainer] = {}
        for item in tools:
            self.register(item)

    def register(self, tool: AnyTool) -> AnyTool:
        """Add a tool; a name already taken raises `DuplicateToolError` with a fix."""
        existing = self._tools.get(tool.name)
        if existing is not None:
            raise DuplicateToolError(
                f"a tool named {tool.name!r} is already registered (from {existing.source}); "
                f"rename one, e.g. @tool(name='{tool.name}_2'), or unregister the old one first"
            )
        self._tools[tool.name] = tool
        self.version += 1
        for listener in tuple(self._listeners):
            listener("register", tool)
        return tool

    def unregister(self, name: str) -> Result[AnyTool, UnknownTool]:
        """Remove a tool by name; returns the tool that was removed."""
        removed = self.get(name).map(lambda found: self._tools.pop(found.name))
        if isinstance(removed, Success):
            self.version += 1
            for listener in tuple(self._listeners):
                listener("unregister", removed.unwrap())
        return removed

    def subscribe(self, listener: RegistryListener) -> Callable[[], None]:
        """Call `listener("register" | "unregister", tool)` on each change (an index kept in
        step, e.g. a router's); returns the function that unsubscribes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def find(self, name: str) -> AnyTool | None:
        """The tool called `name`, or None: the executor's hot path."""
        return self._tools.get(name)

    def claim(self, prefix: str, explain: Explainer) -> Callable[[], None]:
        """Names starting with `prefix` belong to one source (an MCP server): for such a name
        with no tool, `explain(name)` may say why (the server is down) instead of "unknown".
        Returns the function that gives the claim up."""
        self._claims[prefix] = explain

        def give_up() -> None:
            if self._claims.get(prefix) is explain:
                del self._claims[prefix]

        return give_up

    def unavailable(self, name: str) -> ToolError | None:
        """Why the claimed name `name` has no tool right now, if its owner knows."""
        for prefix, explain in self._claims.items():
            if name.startswith(prefix):
                return explain(name)
        return None

    def get(self, name: str) -> Result[AnyTool, UnknownTool]:
        """The tool called `name`, or `UnknownTool` with the closest names that exist."""
        found = self._tools.get(name)
        if found is not None:
            return Success(found)
        return Failure(unknown_tool(name, self._tools))

    def list(
        self,
        *,
        tags: Iterable[str] = (),
        read_only: bool | None = None,
        where: Callable[[AnyTool], bool] | None = None,
    ) -> tuple[AnyTool, ...]:
        """Tools having all `tags`, matching `read_only` if given, and `where` if given."""
        wanted = frozenset(tags)
        return tuple(
            t
            for t in self._tools.values()
            if wanted <= t.tags
            and (read_only is None or t.annotations.read_only == read_only)
            and (where is None or where(t))
        )

    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[AnyTool]:
        return iter(tuple(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)


_NAME_SHOWN = 80


def unknown_tool(name: str, known: Iterable[str]) -> UnknownTool:
    suggestions = tuple(difflib.get_close_matches(name, list(known), n=3, cutoff=0.6))
    hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
    shown = shown_name(name, _NAME_SHOWN)  # a model's runaway text: its start, and its length
    return UnknownTool(
        message=f"there is no tool named {shown!r}{hint}", name=name, suggestions=suggestions
    )


@dataclass(frozen=True, slots=True)
class _Patterns:
    include: re.Pattern[str]
    exclude: re.Pattern[str] | None

    @classmethod
    def compile(cls, patterns: Iterable[str]) -> _Patterns:
        include = [p for p in patterns if not p.startswith("!")]
        exclude = [p[1:] for p in patterns if p.startswith("!")]
        return cls(_union(include), _union(exclude) if exclude else None)

    def matches(self, name: str) -> bool:
        return self.include.match(name) is not None and (
            self.exclude is None or self.exclude.match(name) is None
        )


def _union(globs: list[str]) -> re.Pattern[str]:
    if not globs:
        return re.compile(r"(?!)")  # matches nothing
    return re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs))


@dataclass(frozen=True, slots=True)
class AgentToolTable:
    """Per-agent glob patterns over tool names; `!pattern` removes what others added.

    >>> table = AgentToolTable({"planner": ["read_*", "complete"], "web": ["mcp__fetch__*"]})
    >>> table.allows("planner", "read_path"), table.allows("web", "read_path")
    (True, False)

    An agent missing from the table may call nothing, unless the table has a `"*"` entry,
    which then applies to every agent without one of its own.
    """

    entries: Mapping[str, tuple[str, ...]]
    _compiled: dict[str, _Patterns] = field(init=False, repr=False, compare=False)
    _answers: dict[tuple[str, str], bool] = field(init=False, repr=False, compare=False)
    """`allows` remembered (the table never changes): a dict lookup, not a regex match."""

    def __init__(self, entries: Mapping[str, Iterable[str]]) -> None:
        frozen = {agent: _as_patterns(agent, patterns) for agent, patterns in entries.items()}
        object.__setattr__(self, "entries", frozen)
        object.__setattr__(self, "_compiled", {a: _Patterns.compile(p) for a, p in frozen.items()})
        object.__setattr__(self, "_answers", {})

    @classmethod
    def from_toml(cls, path: str | Path) -> AgentToolTable:
        """Read `[agents.<name>] tools = [...]` from a `toolrail.toml`."""
        with Path(path).open("rb") as handle:
            data = tomllib.load(handle)
        return cls.from_config(data)

    @classmethod
    def from_config(cls, data: Mapping[str, Any]) -> AgentToolTable:
        agents = data.get("agents", {})
        if not isinstance(agents, Mapping):
            raise ValueError("[agents] must be a table of agent names")
        return cls({name: spec.get("tools", []) for name, spec in agents.items()})

    def allows(self, agent: str, tool_name: str) -> bool:
        key = (agent, tool_name)
        answer = self._answers.get(key)
        if answer is None:
            patterns = self._compiled.get(agent) or self._compiled.get("*")
            answer = patterns is not None and patterns.matches(tool_name)
            if len(self._answers) >= 4096:  # names come from models too: bounded
                self._answers.clear()
            self._answers[key] = answer
        return answer

    def check(self, agent: str, tool_name: str) -> Result[None, NotAllowed]:
        """`Success(None)` if `agent` may call `tool_name`, else `NotAllowed` saying why."""
        if self.allows(agent, tool_name):
            return Success(None)
        why = (
            f"agent {agent!r} has no entry in the tool table"
            if agent not in self.entries and "*" not in self.entries
            else f"agent {agent!r} may not call {tool_name!r}"
        )
        return Failure(
            NotAllowed(
                message=f"{why}; use one of the tools you were given", tool=tool_name, agent=agent
            )
        )

    def visible(self, agent: str, registry: ToolRegistry) -> tuple[AnyTool, ...]:
        """The tools `agent` may see and call, in registration order."""
        return registry.list(where=lambda t: self.allows(agent, t.name))

    def unmatched(self, registry: ToolRegistry) -> dict[str, tuple[str, ...]]:
        """Per agent, the patterns that name no registered tool: most often a typo."""
        names = [t.name for t in registry]
        found = {
            agent: tuple(p for p in patterns if not fnmatch.filter(names, p.removeprefix("!")))
            for agent, patterns in self.entries.items()
        }
        return {agent: patterns for agent, patterns in found.items() if patterns}


def _as_patterns(agent: str, patterns: Iterable[str]) -> tuple[str, ...]:
    if isinstance(patterns, str):
        raise TypeError(f"agent {agent!r}: tools must be a list of patterns, not one string")
    return tuple(patterns)
