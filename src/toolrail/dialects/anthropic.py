"""Anthropic Messages: `input_schema` tools, `tool_use` blocks, `tool_result` with is_error."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from toolrail.core.call import ToolCall, ToolOutcome
from toolrail.core.messages import (
    AssistantMessage,
    Handoff,
    Message,
    Native,
    ToolResults,
    UserMessage,
)
from toolrail.dialects.anthropic_schema import anthropic_strict
from toolrail.dialects.base import (
    ARGUMENTS_TEXT,
    Export,
    Json,
    arguments_object,
    as_data,
    check_name,
    cut_off,
    get,
    items,
    result_text,
)
from toolrail.registry import AnyTool


@dataclass(frozen=True, slots=True)
class AnthropicDialect:
    name: str = "anthropic"

    def export_tools(self, tools: Iterable[AnyTool], *, strict: bool = False) -> Export:
        exported: list[Json] = []
        report: dict[str, tuple[str, ...]] = {}
        for tool in tools:
            check_name(tool.name, "Anthropic")
            schema = tool.input_schema()
            schema.pop("$schema", None)
            schema.setdefault("type", "object")
            notes: list[str] = []
            strict_schema = anthropic_strict(schema, notes) if strict else None
            item: Json = {
                "name": tool.name,
                "description": tool.description,
                "input_schema": schema if strict_schema is None else strict_schema,
            }
            if strict_schema is not None:
                item["strict"] = True
            if notes:
                report[tool.name] = tuple(notes)
            exported.append(item)
        return Export(exported, report)

    def build_request(self, instructions: str, messages: Sequence[Message], export: Export) -> Json:
        turns: list[Json] = []
        for message in messages:
            role, blocks = self._blocks(message)
            if turns and turns[-1]["role"] == role:  # Anthropic wants roles to alternate
                turns[-1]["content"].extend(blocks)
            elif blocks:
                turns.append({"role": role, "content": blocks})
        return {"system": instructions, "messages": turns, "tools": export.tools}

    def _blocks(self, message: Message) -> tuple[str, list[Json]]:
        match message:
            case UserMessage(text=text):
                return "user", _text(text)
            case Handoff(from_agent=who, summary=summary):
                return "user", [{"type": "text", "text": f"[handoff from {who}] {summary}"}]
            case AssistantMessage(native=Native(provider=self.name, content=content)):
                return "assistant", [dict(b) for b in content if not _empty_text(b)]
            case AssistantMessage(text=text, calls=calls):
                blocks: list[Json] = _text(text)
                blocks.extend(
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": arguments_object(c)}
                    for c in calls
                )
                return "assistant", blocks
            case ToolResults(outcomes=outcomes):
                return "user", [self.format_tool_result(o) for o in outcomes]
            case _:
                assert_never(message)

    def parse_tool_calls(self, response: object, export: Export | None = None) -> list[ToolCall]:
        data = as_data(response)
        content = [b for b in items(data, "content") if isinstance(b, dict)]
        cut = get(data, "stop_reason") in _CUT
        calls: list[ToolCall] = []
        # the block the limit cut is the last one that holds anything (a streamed text block
        # that opened and got no text may follow it)
        last = max((i for i, b in enumerate(content) if not _empty_text(b)), default=-1)
        for index, block in enumerate(content):
            if block.get("type") != "tool_use":
                continue
            arguments = block.get(ARGUMENTS_TEXT, block.get("input"))
            if cut and index == last:
                why = f"the response hit {get(data, 'stop_reason')}"
                arguments = cut_off(arguments if isinstance(arguments, str | dict) else None, why)
            calls.append(
                ToolCall(
                    id=str(block.get("id") or f"toolu_{uuid.uuid4().hex[:24]}"),
                    name=str(block.get("name") or ""),
                    arguments=arguments if isinstance(arguments, str | dict) else None,
                )
            )
        return calls if export is None else export.read(calls)

    def parse_text(self, response: object) -> str:
        content = items(as_data(response), "content")
        return "".join(
            str(b.get("text") or "")
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )

    def parse_turn(
        self, response: object, *, agent: str, export: Export | None = None
    ) -> AssistantMessage:
        """Thinking blocks (signed) must go back unchanged before the tool_use blocks, or
        the API refuses the next request; the whole content is kept for that."""
        content = tuple(
            _block(b) for b in items(as_data(response), "content") if isinstance(b, dict)
        )
        return AssistantMessage(
            agent=agent,
            text=self.parse_text(response),
            calls=tuple(self.parse_tool_calls(response, export)),
            native=Native(provider=self.name, content=content) if content else None,
        )

    def format_tool_result(self, outcome: ToolOutcome) -> Json:
        text, is_error = result_text(outcome)
        block: Json = {"type": "tool_result", "tool_use_id": outcome.call.id}
        if text.strip():  # the API refuses an empty text block
            block["content"] = [{"type": "text", "text": text}]
        block["is_error"] = is_error
        return block

    def response_from(self, text: str, calls: Sequence[ToolCall]) -> Json:
        content: list[Json] = _text(text)
        content.extend(
            {"type": "tool_use", "id": c.id, "name": c.name, "input": arguments_object(c)}
            for c in calls
        )
        return {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": "scripted",
            "content": content,
            "stop_reason": "tool_use" if calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }


_CUT = ("max_tokens", "model_context_window_exceeded")
"""Stop reasons that may end a response inside a tool_use block."""


def _text(text: str) -> list[Json]:
    """A text block, or none: the API refuses empty and whitespace-only text blocks."""
    return [{"type": "text", "text": text}] if text.strip() else []


def _empty_text(block: Mapping[str, Any]) -> bool:
    """A text block with nothing in it (a streamed one that got no delta): never sent."""
    return block.get("type") == "text" and not str(block.get("text") or "").strip()


def _block(block: Json) -> Json:
    """A response content block as a request block: the same, without empty fields (nor
    what toolrail noted on it)."""
    return {k: v for k, v in block.items() if v is not None and not k.startswith("_")}


dialect = AnthropicDialect()


# the module-level API: `toolrail.dialects.anthropic.export_tools(...)` and friends
export_tools = dialect.export_tools
parse_tool_calls = dialect.parse_tool_calls
format_tool_result = dialect.format_tool_result
