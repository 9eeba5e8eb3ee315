"""Gemini: function declarations in its schema subset, `functionCall` / `functionResponse`."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from returns.result import Success

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
from toolrail.dialects.schema import gemini_subset
from toolrail.jsonish import to_json_value
from toolrail.models.messages import (
    AssistantMessage,
    Handoff,
    Message,
    ToolResults,
    UserMessage,
)
from toolrail.registry import AnyTool

# Gemini: starts with a letter or underscore; letters, digits, _ . : - ; at most 64
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")


@dataclass(frozen=True, slots=True)
class GeminiDialect:
    name: str = "gemini"

    def export_tools(self, tools: Iterable[AnyTool], *, strict: bool = False) -> Export:
        declarations: list[Json] = []
        report: dict[str, tuple[str, ...]] = {}
        for tool in tools:
            check_name(tool.name, "Gemini", GEMINI_NAME)
            notes: list[str] = []
            declarations.append(
                {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": gemini_subset(tool.input_schema(), notes),
                }
            )
            if notes:
                report[tool.name] = tuple(notes)
        return Export([{"function_declarations": declarations}] if declarations else [], report)

    def build_request(self, instructions: str, messages: Sequence[Message], export: Export) -> Json:
        contents: list[Json] = []
        for message in messages:
            role, parts = self._parts(message)
            if contents and contents[-1]["role"] == role:
                contents[-1]["parts"].extend(parts)
            elif parts:
                contents.append({"role": role, "parts": parts})
        return {
            "system_instruction": {"parts": [{"text": instructions}]},
            "contents": contents,
            "tools": export.tools,
        }

    def _parts(self, message: Message) -> tuple[str, list[Json]]:
        match message:
            case UserMessage(text=text):
                return "user", [{"text": text}]
            case Handoff(from_agent=who, summary=summary):
                return "user", [{"text": f"[handoff from {who}] {summary}"}]
            case AssistantMessage(text=text, calls=calls):
                parts: list[Json] = [{"text": text}] if text else []
                parts.extend(
                    {"function_call": {"id": c.id, "name": c.name, "args": arguments_object(c)}}
                    for c in calls
                )
                return "model", parts
            case ToolResults(outcomes=outcomes):
                return "user", [self.format_tool_result(o) for o in outcomes]
            case _:
                assert_never(message)

    def parts_of(self, response: object) -> list[dict[str, Any]]:
        """The first candidate's parts, with `function_call` under its snake_case name."""
        parts = items(as_data(response), "candidates", 0, "content", "parts")
        return [
            {
                ("function_call" if k == "functionCall" else k): v
                for k, v in p.items()
                if v is not None
            }
            for p in parts
            if isinstance(p, dict)
        ]

    def parse_tool_calls(self, response: object) -> list[ToolCall]:
        parts = self.parts_of(response)
        calls: list[ToolCall] = []
        for part in parts:
            call = part.get("function_call")
            if isinstance(call, dict):
                calls.append(
                    ToolCall(
                        id=str(call.get("id") or f"gemini_{uuid.uuid4().hex[:16]}"),
                        name=str(call.get("name") or ""),
                        arguments=call.get("args") or {},
                    )
                )
        return calls

    def parse_text(self, response: object) -> str:
        return "".join(str(p["text"]) for p in self.parts_of(response) if p.get("text"))

    def format_tool_result(self, outcome: ToolOutcome) -> Json:
        text, is_error = result_text(outcome)
        match outcome.result:
            case Success(value) if not is_error:
                response: Json = {"output": to_json_value(value)}
            case _:
                response = {"error": text}
        return {
            "function_response": {
                "id": outcome.call.id,
                "name": outcome.call.name,
                "response": response,
            }
        }

    def response_from(self, text: str, calls: Sequence[ToolCall]) -> Json:
        parts: list[Json] = [{"text": text}] if text else []
        parts.extend(
            {"functionCall": {"id": c.id, "name": c.name, "args": arguments_object(c)}}
            for c in calls
        )
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "modelVersion": "scripted",
        }


dialect = GeminiDialect()


# the module-level API: `toolrail.dialects.gemini.export_tools(...)` and friends
export_tools = dialect.export_tools
parse_tool_calls = dialect.parse_tool_calls
format_tool_result = dialect.format_tool_result
