"""What every provider dialect offers, and the pieces they share."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from returns.result import Failure, Success

from toolrail._jsonish import dumps
from toolrail.core.call import RawArguments, ToolCall, ToolOutcome
from toolrail.core.messages import AssistantMessage, Message
from toolrail.core.tool import TOOL_NAME
from toolrail.dialects.decode import ArgumentMap
from toolrail.dialects.schema import LOST
from toolrail.registry import AnyTool

Json = dict[str, Any]
ARGUMENTS_TEXT = "_arguments_text"
"""Where a streamed tool call keeps arguments that did not parse; never sent back."""


@dataclass(frozen=True, slots=True)
class Export:
    """Tools in a provider's format, per tool what had to change to get there, and how to
    read arguments written against it back in each tool's own terms."""

    tools: list[Json]
    report: dict[str, tuple[str, ...]] = field(default_factory=dict)
    arguments: Mapping[str, ArgumentMap] = field(default_factory=dict)

    def read(self, calls: Iterable[ToolCall]) -> list[ToolCall]:
        """Calls as the model wrote them → calls in their tools' terms (see `ArgumentMap`)."""
        return [self.arguments[c.name].read(c) if c.name in self.arguments else c for c in calls]

    def losses(self, tool: str) -> tuple[str, ...]:
        """The constraints of `tool` this export does not carry to the provider."""
        return tuple(n for n in self.report.get(tool, ()) if LOST in n)


class Dialect(Protocol):
    """One provider's way of describing tools, asking for calls and hearing results."""

    @property
    def name(self) -> str: ...

    def export_tools(self, tools: Iterable[AnyTool], *, strict: bool = False) -> Export:
        """Tools in the provider's format; fails loudly on names it would reject."""
        ...

    def build_request(self, instructions: str, messages: Sequence[Message], export: Export) -> Json:
        """The request body (all but the model id) for this conversation and these tools."""
        ...

    def parse_tool_calls(self, response: object, export: Export | None = None) -> list[ToolCall]:
        """The tool calls of a response, as an SDK object or JSON; never raises. With the
        `export` the request carried, arguments are read back in each tool's terms; a call
        the response cut off (token limit) gets arguments that fail validation."""
        ...

    def parse_turn(
        self, response: object, *, agent: str, export: Export | None = None
    ) -> AssistantMessage:
        """The whole turn: text, calls, and the provider's own content to send back."""
        ...

    def parse_text(self, response: object) -> str:
        """The text of a response."""
        ...

    def format_tool_result(self, outcome: ToolOutcome) -> Json:
        """The provider's message or block carrying one outcome back to the model."""
        ...

    def response_from(self, text: str, calls: Sequence[ToolCall]) -> Json:
        """A response in the provider's real shape (what ScriptedModel answers with)."""
        ...


def check_name(name: str, provider: str, pattern: re.Pattern[str] = TOOL_NAME) -> None:
    """Fail loudly, before a request is sent, for a name the provider would reject."""
    if not pattern.match(name):
        raise ValueError(
            f"{provider} rejects the tool name {name!r} (must match "
            f"{pattern.pattern}); rename the tool"
        )


def as_data(response: object) -> Any:
    """An SDK response object or plain JSON data → plain JSON data."""
    dump = getattr(response, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(response, str | bytes):
        try:
            return orjson.loads(response)
        except orjson.JSONDecodeError:
            return None  # not a response at all: nothing to read from it
    return response


def result_text(outcome: ToolOutcome) -> tuple[str, bool]:
    """What the model reads about a finished call, and whether it is an error."""
    match outcome.result:
        case Success(str() as text):
            return text, False
        case Success(value):
            return dumps(value).decode(), False
        case Failure(error):
            advice = (
                "fix the call and try again"
                if error.model_can_fix
                else "this will not work by retrying the same call"
            )
            return f"Error ({error.kind}): {error.message}\n({advice})", True
        case _:
            return "Error: no result", True


def cut_off(raw: RawArguments, why: str) -> str:
    """Arguments of a call the response cut off: never valid JSON, so never run; the model
    sees what it sent and why it stopped."""
    text = raw if isinstance(raw, str) else arguments_text(ToolCall(name="", arguments=raw))
    return f"{text}\n[cut off: {why}; send the call again, shorter]"


def arguments_text(call: ToolCall) -> str:
    """Arguments as the JSON text some providers want back in the transcript."""
    raw = call.arguments
    if raw is None:
        return "{}"
    if isinstance(raw, bytes):
        return raw.decode("utf-8", "replace")
    if isinstance(raw, str):
        return raw
    return dumps(raw).decode()


def arguments_object(call: ToolCall) -> Json:
    """Arguments as an object, for providers that want objects; unparseable text is kept."""
    raw = call.arguments
    if isinstance(raw, Mapping):
        return dict(raw)
    if isinstance(raw, str | bytes) and raw.strip():
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return {"_unparsed_arguments": raw if isinstance(raw, str) else raw.decode()}
        return value if isinstance(value, dict) else {"_arguments": value}
    return {}


def items(data: Any, *path: str | int) -> list[Any]:
    """`get(data, *path)` if that is a list, else an empty list."""
    found = get(data, *path)
    return found if isinstance(found, list) else []


def get(data: Any, *path: str | int) -> Any:
    """`data[p0][p1]...` or None, through dicts and lists of unknown shape."""
    for key in path:
        if isinstance(key, int) and isinstance(data, list) and -len(data) <= key < len(data):
            data = data[key]
        elif isinstance(key, str) and isinstance(data, dict):
            data = data.get(key)
        else:
            return None
    return data
