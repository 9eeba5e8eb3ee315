"""`Tool`: a frozen description of something a model can call, and how to run it."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, ParamSpec, TypeVar

from returns.result import Result

from toolrail.core.context import ExecutionContext
from toolrail.core.errors import ToolError
from toolrail.core.params import JsonObject, ParameterSchema

In = TypeVar("In")
Out = TypeVar("Out")
P = ParamSpec("P")
R = TypeVar("R")

TOOL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$")
"""Names every supported provider accepts: OpenAI and Anthropic take `[a-zA-Z0-9_-]{1,64}`
(Anthropic up to 128), Gemini's function names must also start with a letter or an
underscore — so a tool named `2fa_code` is refused here, once, not by one provider later."""

Execute = Callable[[In, ExecutionContext], Awaitable[Result[Out, ToolError]]]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolAnnotations:
    """Hints about a tool's behaviour, with MCP's meanings and defaults.

    `destructive` and `idempotent` only mean something when `read_only` is false.
    `open_world` left unsaid is MCP's default, true, but for a read-only tool false: one
    that reads the world outside (a web search) says `open_world=True`.
    Hints from an untrusted MCP server are just that: hints.
    """

    title: str | None = None
    read_only: bool = False
    destructive: bool = True
    idempotent: bool = False
    open_world: bool | None = None

    def __post_init__(self) -> None:
        if self.open_world is None:
            object.__setattr__(self, "open_world", not self.read_only)

    @property
    def safe_to_retry(self) -> bool:
        """Running it twice does no more harm than running it once."""
        return self.read_only or self.idempotent


DEFAULT_ANNOTATIONS = ToolAnnotations()


def check_tool_name(name: str) -> None:
    """Raise `ValueError` with a fix if `name` is one some model API would reject."""
    if not TOOL_NAME.match(name):
        suggestion = re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:63] or "tool"
        if not suggestion[0].isalpha() and suggestion[0] != "_":
            suggestion = f"_{suggestion}"[:64]
        raise ValueError(
            f"invalid tool name {name!r}: use 1-64 characters from a-z, A-Z, 0-9, '_' and '-', "
            f"starting with a letter or '_', so every model provider accepts it "
            f"(for example {suggestion!r})"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool(Generic[In, Out]):
    """A tool: its name, what it takes, how it runs, and what gates and UIs need to know."""

    name: str
    description: str
    parameters: ParameterSchema[In]
    execute: Execute[In, Out] = field(repr=False)
    prompt_fragment: str | None = None
    annotations: ToolAnnotations = DEFAULT_ANNOTATIONS
    permissions: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()
    timeout_s: float | None = None
    describe: Callable[[In], str] | None = field(default=None, repr=False)
    output_schema: Mapping[str, object] | None = None
    source: str = "local"

    def __post_init__(self) -> None:
        check_tool_name(self.name)
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise ValueError(f"tool {self.name!r}: timeout_s must be positive or None")
        # accept any iterable of strings for the sets, store them frozen
        object.__setattr__(self, "permissions", _frozen(self.permissions))
        object.__setattr__(self, "tags", _frozen(self.tags))

    def input_schema(self) -> JsonObject:
        """The JSON Schema a model is shown for this tool's arguments."""
        return self.parameters.json_schema()


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionTool(Tool[In, Out], Generic[In, Out, P, R]):
    """A `Tool` made by `@tool` from a function, and still callable as that function."""

    function: Callable[P, R] = field(repr=False)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call the function itself: no validation, no gates, no `Result` added."""
        return self.function(*args, **kwargs)


def _frozen(values: Iterable[str]) -> frozenset[str]:
    if isinstance(values, str):  # a lone string is one value, not its characters
        return frozenset({values})
    return frozenset(values)


AnyTool = Tool[Any, Any]
"""A tool of any input and output type: what registries, gates and dialects handle."""
