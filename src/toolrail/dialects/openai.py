"""OpenAI: Chat Completions (`chat`) and Responses (`responses`) function tools.

`parse_tool_calls` reads either API's response shape; `export_tools` and
`format_tool_result` default to Chat Completions.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, assert_never

from toolrail.core.call import ToolCall, ToolOutcome
from toolrail.core.messages import (
    AssistantMessage,
    Handoff,
    Message,
    ToolResults,
    UserMessage,
)
from toolrail.dialects.base import (
    Export,
    Json,
    arguments_text,
    as_data,
    check_name,
    cut_off,
    get,
    items,
    result_text,
)
from toolrail.dialects.decode import ArgumentMap
from toolrail.dialects.openai_schema import openai_strict
from toolrail.registry import AnyTool


@dataclass(frozen=True, slots=True)
class OpenAIDialect:
    api: Literal["chat", "responses"] = "chat"

    @property
    def name(self) -> str:
        return f"openai-{self.api}"

    def export_tools(self, tools: Iterable[AnyTool], *, strict: bool = False) -> Export:
        """With `strict`, each tool strict mode can express goes out strict (its nulls read
        back as "absent"); one it cannot goes out as declared, with strict off and the
        reason in the report."""
        exported: list[Json] = []
        report: dict[str, tuple[str, ...]] = {}
        readers: dict[str, ArgumentMap] = {}
        for tool in tools:
            check_name(tool.name, "OpenAI")
            notes: list[str] = []
            schema = tool.input_schema()
            strict_schema = openai_strict(schema, notes) if strict else None
            if strict_schema is not None:
                readers[tool.name] = ArgumentMap(schema=schema, null_is_absent=True)
            if notes:
                report[tool.name] = tuple(notes)
            function = {
                "name": tool.name,
                "description": tool.description,
                "parameters": schema if strict_schema is None else strict_schema,
                "strict": strict_schema is not None,
            }
            exported.append(
                {"type": "function", "function": function}
                if self.api == "chat"
                else {"type": "function", **function}
            )
        return Export(exported, report, readers)

    def build_request(self, instructions: str, messages: Sequence[Message], export: Export) -> Json:
        if self.api == "responses":
            return {
                "instructions": instructions,
                "input": self._input_items(messages),
                "tools": export.tools,
            }
        chat: list[Json] = [{"role": "system", "content": instructions}]
        for message in messages:
            chat.extend(self._chat_messages(message))
        return {"messages": chat, "tools": export.tools}

    def _chat_messages(self, message: Message) -> list[Json]:
        match message:
            case UserMessage(text=text):
                return [{"role": "user", "content": text}]
            case Handoff(from_agent=who, summary=summary):
                return [{"role": "user", "content": f"[handoff from {who}] {summary}"}]
            case AssistantMessage(text=text, calls=calls):
                out: Json = {"role": "assistant", "content": text or None}
                if calls:
                    out["tool_calls"] = _chat_tool_calls(calls)
                return [out]
            case ToolResults(outcomes=outcomes):
                return [self.format_tool_result(o) for o in outcomes]
            case _:
                assert_never(message)

    def _input_items(self, messages: Sequence[Message]) -> list[Json]:
        items: list[Json] = []
        for message in messages:
            match message:
                case UserMessage(text=text):
                    items.append({"role": "user", "content": text})
                case Handoff(from_agent=who, summary=summary):
                    items.append({"role": "user", "content": f"[handoff from {who}] {summary}"})
                case AssistantMessage(text=text, calls=calls):
                    if text:
                        items.append({"role": "assistant", "content": text})
                    items.extend(
                        {
                            "type": "function_call",
                            "call_id": c.id,
                            "name": c.name,
                            "arguments": arguments_text(c),
                        }
                        for c in calls
                    )
                case ToolResults(outcomes=outcomes):
                    items.extend(self.format_tool_result(o) for o in outcomes)
        return items

    def parse_tool_calls(self, response: object, export: Export | None = None) -> list[ToolCall]:
        data = as_data(response)
        output = get(data, "output")
        responses = isinstance(output, list)  # the Responses API, else Chat Completions
        calls = _responses_calls(data, output) if responses else _chat_calls(data)
        return calls if export is None else export.read(calls)

    def parse_turn(
        self, response: object, *, agent: str, export: Export | None = None
    ) -> AssistantMessage:
        calls = self.parse_tool_calls(response, export)
        return AssistantMessage(agent=agent, text=self.parse_text(response), calls=tuple(calls))

    def parse_text(self, response: object) -> str:
        data = as_data(response)
        output = get(data, "output")
        if isinstance(output, list):
            return "".join(
                part.get("text", "")
                for item in output
                if isinstance(item, dict) and item.get("type") == "message"
                for part in items(item, "content")
                if isinstance(part, dict)
            )
        return str(get(data, "choices", 0, "message", "content") or "")

    def format_tool_result(self, outcome: ToolOutcome) -> Json:
        text, _ = result_text(outcome)
        if self.api == "responses":
            return {"type": "function_call_output", "call_id": outcome.call.id, "output": text}
        return {"role": "tool", "tool_call_id": outcome.call.id, "content": text}

    def response_from(self, text: str, calls: Sequence[ToolCall]) -> Json:
        if self.api == "responses":
            output: list[Json] = []
            if text:
                output.append(
                    {
                        "type": "message",
                        "id": _new_id("msg"),
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}],
                    }
                )
            output.extend(
                {
                    "type": "function_call",
                    "id": _new_id("fc"),
                    "call_id": c.id,
                    "name": c.name,
                    "arguments": arguments_text(c),
                    "status": "completed",
                }
                for c in calls
            )
            return {
                "id": _new_id("resp"),
                "object": "response",
                "status": "completed",
                "model": "scripted",
                "output": output,
            }
        message: Json = {"role": "assistant", "content": text or None, "refusal": None}
        if calls:
            message["tool_calls"] = _chat_tool_calls(calls)
        return {
            "id": _new_id("chatcmpl"),
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                    "logprobs": None,
                }
            ],
        }


def _chat_calls(data: object) -> list[ToolCall]:
    """Chat Completions: `tool_calls` of the first choice; a `custom` call keeps its name
    (its free-text input then fails validation); one cut by the length limit never runs."""
    entries = [c for c in items(data, "choices", 0, "message", "tool_calls") if isinstance(c, dict)]
    cut = get(data, "choices", 0, "finish_reason") == "length"
    calls: list[ToolCall] = []
    for index, entry in enumerate(entries):
        kind = "custom" if entry.get("type") == "custom" else "function"
        arguments = get(entry, kind, "input" if kind == "custom" else "arguments")
        if cut and index == len(entries) - 1:
            arguments = cut_off(arguments, "the response hit its length limit")
        calls.append(
            ToolCall(
                id=str(entry.get("id") or _new_id()),
                name=str(get(entry, kind, "name") or ""),
                arguments=arguments if isinstance(arguments, str | dict) else None,
            )
        )
    return calls


def _responses_calls(data: object, output: list[object]) -> list[ToolCall]:
    """Responses: `function_call` and `custom_tool_call` items; in an incomplete response,
    one not completed (or the last item) was cut off and never runs."""
    incomplete = get(data, "status") == "incomplete"
    calls: list[ToolCall] = []
    for index, item in enumerate(output):
        if not isinstance(item, dict) or item.get("type") not in (
            "function_call",
            "custom_tool_call",
        ):
            continue
        key = "arguments" if item["type"] == "function_call" else "input"
        arguments = item.get(key)
        last = index == len(output) - 1
        if incomplete and (last or item.get("status") not in (None, "completed")):
            why = str(get(data, "incomplete_details", "reason") or "incomplete")
            arguments = cut_off(arguments, f"the response ended early ({why})")
        calls.append(
            ToolCall(
                id=str(item.get("call_id") or item.get("id") or _new_id()),
                name=str(item.get("name") or ""),
                arguments=arguments if isinstance(arguments, str | dict) else None,
            )
        )
    return calls


def _chat_tool_calls(calls: Sequence[ToolCall]) -> list[Json]:
    """An assistant message's `tool_calls`, as Chat Completions writes them."""
    return [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": arguments_text(c)},
        }
        for c in calls
    ]


def _new_id(prefix: str = "call") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


chat = OpenAIDialect("chat")
responses = OpenAIDialect("responses")


# the module-level API: `toolrail.dialects.openai.export_tools(...)` and friends
export_tools = chat.export_tools
parse_tool_calls = chat.parse_tool_calls
format_tool_result = chat.format_tool_result
