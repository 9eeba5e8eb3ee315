"""Streamed turns put back together into the provider's own response shape.

Each assembler takes the provider's raw stream events (as JSON data) one by one, says
which tool calls began and which argument text arrived, and at the end gives the whole
response as the non-streaming API would have: the dialect then parses both the same way.
Nothing here parses arguments (the SDKs' stream helpers do, and raise on malformed or
cut-off JSON); a cut-off or malformed call reaches validation as the text it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from toolrail.dialects import gemini
from toolrail.dialects.base import ARGUMENTS_TEXT, as_data
from toolrail.models.base import ArgumentsDelta, CallAnnounced, StreamEvent

Json = dict[str, Any]


def event_data(event: object) -> Json:
    """An SDK stream event (or chunk) as JSON data."""
    data = as_data(event)
    return data if isinstance(data, dict) else {}


@dataclass(slots=True)
class ChatTurn:
    """Chat Completions chunks → one `chat.completion` (first choice)."""

    head: Json = field(default_factory=dict)
    text: list[str] = field(default_factory=list)
    calls: dict[int, Json] = field(default_factory=dict)
    announced: dict[int, str] = field(default_factory=dict)
    finish: str | None = None

    def add(self, chunk: Json) -> list[StreamEvent]:
        for key in ("id", "model", "created"):
            self.head.setdefault(key, chunk.get(key))
        events: list[StreamEvent] = []
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if delta.get("content"):
                self.text.append(str(delta["content"]))
            for piece in delta.get("tool_calls") or ():
                events.extend(self._call(piece))
            self.finish = choice.get("finish_reason") or self.finish
        return events

    def _call(self, piece: Json) -> list[StreamEvent]:
        index = int(piece.get("index") or 0)
        if index in self.calls:
            kind = str(self.calls[index]["type"])
        else:
            kind = "custom" if piece.get("type") == "custom" or piece.get("custom") else "function"
        entry = self.calls.setdefault(index, {"id": None, "type": kind, kind: {"name": ""}})
        if piece.get("id"):
            entry["id"] = piece["id"]
        body = piece.get(kind) or {}
        target = entry.setdefault(kind, {"name": ""})
        if body.get("name"):
            target["name"] = body["name"]
        key = "input" if kind == "custom" else "arguments"
        text = body.get(key) or ""
        target[key] = target.get(key, "") + text
        events: list[StreamEvent] = []
        if index not in self.announced and entry["id"] and target["name"]:
            self.announced[index] = entry["id"]
            events.append(CallAnnounced(entry["id"], target["name"]))
            text = target[key]  # what arrived before the announcement too
        if text and index in self.announced:
            events.append(ArgumentsDelta(self.announced[index], text))
        return events

    def response(self) -> Json:
        message: Json = {"role": "assistant", "content": "".join(self.text) or None}
        if self.calls:
            message["tool_calls"] = [self.calls[i] for i in sorted(self.calls)]
        choice = {"index": 0, "message": message, "finish_reason": self.finish}
        return {**self.head, "object": "chat.completion", "choices": [choice]}


@dataclass(slots=True)
class ResponsesTurn:
    """Responses API events → the response its last event carries."""

    calls: dict[str, str] = field(default_factory=dict)  # output item id → call id
    final: Json | None = None

    def add(self, event: Json) -> list[StreamEvent]:
        kind = event.get("type")
        item = event.get("item") or {}
        if kind == "response.output_item.added" and item.get("type") in (
            "function_call",
            "custom_tool_call",
        ):
            self.calls[str(item.get("id") or "")] = str(item.get("call_id") or "")
            return [CallAnnounced(str(item.get("call_id") or ""), str(item.get("name") or ""))]
        if (
            kind
            in (
                "response.function_call_arguments.delta",
                "response.custom_tool_call_input.delta",
            )
            and event.get("item_id") in self.calls
        ):
            return [ArgumentsDelta(self.calls[event["item_id"]], str(event.get("delta") or ""))]
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            self.final = event.get("response")
        elif kind == "error":
            raise RuntimeError(f"the stream failed: {event.get('message') or event}")
        return []

    def response(self) -> Json:
        if self.final is None:
            raise RuntimeError("the stream ended before the response was complete")
        return self.final


@dataclass(slots=True)
class AnthropicTurn:
    """Messages stream events → one message; tool_use input parsed only when whole."""

    message: Json = field(default_factory=dict)
    blocks: dict[int, Json] = field(default_factory=dict)
    arguments: dict[int, list[str]] = field(default_factory=dict)

    def add(self, event: Json) -> list[StreamEvent]:
        kind = event.get("type")
        index = int(event.get("index") or 0)
        if kind == "message_start":
            self.message = dict(event.get("message") or {})
        elif kind == "content_block_start":
            block = dict(event.get("content_block") or {})
            self.blocks[index] = block
            if block.get("type") == "tool_use":
                self.arguments[index] = []
                return [CallAnnounced(str(block.get("id") or ""), str(block.get("name") or ""))]
        elif kind == "content_block_delta":
            return self._delta(index, event.get("delta") or {})
        elif kind == "message_delta":
            self.message.update(
                {k: v for k, v in (event.get("delta") or {}).items() if v is not None}
            )
            if event.get("usage"):
                self.message["usage"] = {**self.message.get("usage", {}), **event["usage"]}
        elif kind == "error":
            raise RuntimeError(f"the stream failed: {event.get('error') or event}")
        return []

    def _delta(self, index: int, delta: Json) -> list[StreamEvent]:
        block = self.blocks.setdefault(index, {"type": "text", "text": ""})
        match delta.get("type"):
            case "text_delta":
                block["text"] = block.get("text", "") + str(delta.get("text") or "")
            case "thinking_delta":
                block["thinking"] = block.get("thinking", "") + str(delta.get("thinking") or "")
            case "signature_delta":
                block["signature"] = delta.get("signature")
            case "citations_delta":
                block["citations"] = [*(block.get("citations") or []), delta.get("citation")]
            case "input_json_delta" if index in self.arguments:
                text = str(delta.get("partial_json") or "")
                self.arguments[index].append(text)
                if text:
                    return [ArgumentsDelta(str(block.get("id") or ""), text)]
            case _:
                pass
        return []

    def response(self) -> Json:
        content = []
        for index in sorted(self.blocks):
            block = dict(self.blocks[index])
            if index in self.arguments:
                text = "".join(self.arguments[index])
                try:
                    block["input"] = orjson.loads(text) if text.strip() else {}
                except orjson.JSONDecodeError:
                    block["input"] = {}
                    block[ARGUMENTS_TEXT] = text
                if not isinstance(block["input"], dict):
                    block["input"], block[ARGUMENTS_TEXT] = {}, text
            content.append(block)
        return {**self.message, "content": content}


@dataclass(slots=True)
class GeminiTurn:
    """generateContent chunks → one response; parts kept whole and in order (a thought
    signature may come in a part of its own)."""

    parts: list[Json] = field(default_factory=list)
    response_id: str = ""
    finish: str | None = None
    calls: int = 0

    def add(self, chunk: Json) -> list[StreamEvent]:
        # the first id given is the turn's: a last usage-only chunk may come without one
        self.response_id = self.response_id or str(
            chunk.get("response_id") or chunk.get("responseId") or ""
        )
        candidate = (chunk.get("candidates") or [{}])[0] or {}
        self.finish = candidate.get("finish_reason") or candidate.get("finishReason") or self.finish
        events: list[StreamEvent] = []
        for part in gemini.dialect.parts_of(chunk):
            call = part.get("function_call")
            if isinstance(call, dict):
                call_id = gemini.dialect.call_id(self.response_id, self.calls, call)
                self.calls += 1
                events.append(CallAnnounced(call_id, str(call.get("name") or "")))
            self.parts.append(part)
        return events

    def response(self) -> Json:
        candidate: Json = {"content": {"role": "model", "parts": self.parts}, "index": 0}
        if self.finish:
            candidate["finish_reason"] = self.finish
        return {"candidates": [candidate], "response_id": self.response_id}
