"""Gemini: function declarations in its schema subset, `functionCall` / `functionResponse`."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from returns.result import Success

from toolrail._jsonish import dumps, to_json_value
from toolrail.core.call import ToolCall, ToolOutcome
from toolrail.core.messages import (
    AssistantMessage,
    Handoff,
    Message,
    Native,
    ToolResults,
    UserMessage,
)
from toolrail.dialects.base import (
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
from toolrail.dialects.decode import ArgumentMap
from toolrail.dialects.gemini_schema import gemini_subset
from toolrail.registry import AnyTool

# Gemini: starts with a letter or underscore; letters, digits, _ . : - ; at most 64
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
MADE_UP = "gemini_"
"""The prefix of call ids toolrail made for calls Gemini sent without one."""
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _snake(key: str) -> str:
    return _CAMEL.sub("_", key).lower()


@dataclass(frozen=True, slots=True)
class GeminiDialect:
    name: str = "gemini"

    def export_tools(self, tools: Iterable[AnyTool], *, strict: bool = False) -> Export:
        declarations: list[Json] = []
        report: dict[str, tuple[str, ...]] = {}
        readers: dict[str, ArgumentMap] = {}
        for tool in tools:
            check_name(tool.name, "Gemini", GEMINI_NAME)
            notes: list[str] = []
            schema = tool.input_schema()
            declarations.append(
                {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": gemini_subset(schema, notes),
                }
            )
            readers[tool.name] = ArgumentMap(schema=schema, enums_as_strings=True)
            if notes:
                report[tool.name] = tuple(notes)
        holder = [{"function_declarations": declarations}] if declarations else []
        return Export(holder, report, readers)

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
            case AssistantMessage(native=Native(provider=self.name, content=content)):
                return "model", [dict(part) for part in content]
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
        """The first candidate's parts, keys in snake_case (as google-genai names them)."""
        parts = items(as_data(response), "candidates", 0, "content", "parts")
        return [
            {_snake(k): v for k, v in p.items() if v is not None}
            for p in parts
            if isinstance(p, dict)
        ]

    def call_id(self, response_id: str, index: int, call: Json) -> str:
        """A call's id: Gemini's own, else one made from the response and the call, so the
        same response always gives the same ids."""
        given = call.get("id")
        if given:
            return str(given)
        seed = dumps([response_id, index, call.get("name"), call.get("args")])
        return f"{MADE_UP}{hashlib.sha256(seed).hexdigest()[:16]}"

    def parse_tool_calls(self, response: object, export: Export | None = None) -> list[ToolCall]:
        data = as_data(response)
        parts = self.parts_of(data)
        response_id = str(get(data, "response_id") or get(data, "responseId") or "")
        finish = get(data, "candidates", 0, "finish_reason") or get(
            data, "candidates", 0, "finishReason"
        )
        calls: list[ToolCall] = []
        for part in parts:
            call = part.get("function_call")
            if not isinstance(call, dict):
                continue
            arguments: Any = call.get("args") or {}
            # the finish reason is the whole turn's: which part came last says nothing
            # (a stream may end on an empty or signature-only part)
            if finish == "MAX_TOKENS":
                arguments = cut_off(arguments, "the response hit MAX_TOKENS")
            calls.append(
                ToolCall(
                    id=self.call_id(response_id, len(calls), call),
                    name=str(call.get("name") or ""),
                    arguments=arguments if isinstance(arguments, str | dict) else None,
                )
            )
        return calls if export is None else export.read(calls)

    def parse_text(self, response: object) -> str:
        """The answer's text; thought summaries (`thought: true`) are not part of it."""
        parts = self.parts_of(response)
        return "".join(str(p["text"]) for p in parts if p.get("text") and not p.get("thought"))

    def parse_turn(
        self, response: object, *, agent: str, export: Export | None = None
    ) -> AssistantMessage:
        """Parts go back unchanged: Gemini wants each thought signature in the part it
        came in, or refuses the next request."""
        parts = tuple(self.parts_of(response))
        return AssistantMessage(
            agent=agent,
            text=self.parse_text(response),
            calls=tuple(self.parse_tool_calls(response, export)),
            native=Native(provider=self.name, content=parts) if parts else None,
        )

    def format_tool_result(self, outcome: ToolOutcome) -> Json:
        text, is_error = result_text(outcome)
        match outcome.result:
            case Success(value) if not is_error:
                response: Json = {"output": to_json_value(value)}
            case _:
                response = {"error": text}
        reply: Json = {"name": outcome.call.name, "response": response}
        if not outcome.call.id.startswith(MADE_UP):  # Gemini's own id, else matched by order
            reply = {"id": outcome.call.id, **reply}
        return {"function_response": reply}

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
