"""Anthropic Messages: `input_schema` tools, `tool_use` blocks, `tool_result` with is_error."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

from toolrail.core.call import ToolCall, ToolOutcome
from toolrail.dialects.base import (
    Export,
    Json,
    arguments_object,
    as_data,
    check_name,
    items,
    result_text,
)
from toolrail.models.messages import (
    AssistantMessage,
    Handoff,
    Message,
    ToolResults,
    UserMessage,
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
            item: Json = {
                "name": tool.name,
                "description": tool.description,
                "input_schema": schema,
            }
            if strict:
                item["strict"] = True
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
                return "user", [{"type": "text", "text": text}]
            case Handoff(from_agent=who, summary=summary):
                return "user", [{"type": "text", "text": f"[handoff from {who}] {summary}"}]
            case AssistantMessage(text=text, calls=calls):
                blocks: list[Json] = [{"type": "text", "text": text}] if text else []
                blocks.extend(
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": arguments_object(c)}
                    for c in calls
                )
                return "assistant", blocks
            case ToolResults(outcomes=outcomes):
                return "user", [self.format_tool_result(o) for o in outcomes]
            case _:
                assert_never(message)

    def parse_tool_calls(self, response: object) -> list[ToolCall]:
        content = items(as_data(response), "content")
        return [
            ToolCall(
                id=str(block.get("id") or f"toolu_{uuid.uuid4().hex[:24]}"),
                name=str(block.get("name") or ""),
                arguments=block.get("input"),
            )
            for block in content
            if isinstance(block, dict) and block.get("type") == "tool_use"
        ]

    def parse_text(self, response: object) -> str:
        content = items(as_data(response), "content")
        return "".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )

    def format_tool_result(self, outcome: ToolOutcome) -> Json:
        text, is_error = result_text(outcome)
        return {
            "type": "tool_result",
            "tool_use_id": outcome.call.id,
            "content": [{"type": "text", "text": text}],
            "is_error": is_error,
        }

    def response_from(self, text: str, calls: Sequence[ToolCall]) -> Json:
        content: list[Json] = [{"type": "text", "text": text}] if text else []
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


dialect = AnthropicDialect()


# the module-level API: `toolrail.dialects.anthropic.export_tools(...)` and friends
export_tools = dialect.export_tools
parse_tool_calls = dialect.parse_tool_calls
format_tool_result = dialect.format_tool_result
