"""Events as JSON data, for UIs, logs and traces: a `Result` becomes data, never its repr.

    {"type": "tool_completed", "call_id": ..., "tool": ..., "agent": ...,
     "result": {"status": "success", "value": ...}, "metadata": {...}, ...}
    {"type": "tool_failed", ..., "timed_out": false,
     "result": {"status": "failure",
                "error": {"kind": ..., "message": ..., "model_can_fix": ..., ...}}}

Everything a tool, a model or a person supplied (arguments and their keys, outputs,
messages, metadata, the name of a tool no tool answers to: `shown_tool`) goes through the
one redaction policy (`toolrail.core.redact`) and is cut to size.
`toolrail._jsonish.dumps(event)` writes this same form.
"""

from __future__ import annotations

import re
from typing import Any, assert_never

from returns.result import Failure, Result, Success

from toolrail._jsonish import message_text, to_json_value
from toolrail.core.call import RawArguments, ToolOutcome
from toolrail.core.errors import ToolError, UnknownTool
from toolrail.core.hidden import NOTHING, Hidden, hidden_texts, read_arguments
from toolrail.core.redact import cut, redact_text, shown_name
from toolrail.recording.events import (
    NO_TOOL,
    CircuitStateChanged,
    McpServerStateChanged,
    ToolCallRequested,
    ToolCompleted,
    ToolDefinitionChanged,
    ToolEvent,
    ToolFailed,
    ToolHealthChanged,
    ToolProgress,
    ToolRegistered,
    ToolStarted,
    ToolUnregistered,
)

_CALL_EVENTS = (ToolCallRequested, ToolStarted, ToolProgress, ToolCompleted, ToolFailed)
MAX_VALUE_BYTES = 65_536
"""A value (arguments, output, metadata) larger than this as JSON is cut, with a marker."""


def event_data(event: ToolEvent, *, max_value_bytes: int = MAX_VALUE_BYTES) -> dict[str, Any]:
    """The event as redacted JSON data (dicts, lists, strings, numbers, booleans, null)."""
    data: dict[str, Any] = {"type": _type_name(event), "at": event.at.isoformat()}
    if isinstance(event, _CALL_EVENTS):
        ctx = event.context
        data |= {
            "call_id": shown_name(event.call_id),  # a model wrote it: as its tool name
            "tool": shown_tool(event),
            "agent": ctx.agent,
            "conversation_id": ctx.conversation_id,
            "phase": ctx.phase,
            "request_id": ctx.request_id,
        }
    match event:
        case ToolCallRequested():
            data["arguments_so_far"] = redact_text(event.arguments_so_far)
        case ToolStarted():
            data |= {
                "arguments": _clean(arguments_data(event.arguments), max_value_bytes),
                "asked_arguments": None
                if event.asked_arguments is None
                else _clean(arguments_data(event.asked_arguments), max_value_bytes),
                "description": _text(event.description),
                "source": event.source,
                "read_only": event.read_only,
            }
        case ToolProgress():
            data |= {
                "progress": event.progress,
                "total": event.total,
                "message": _text(event.message),
            }
        case ToolCompleted() | ToolFailed():
            data |= {"source": event.source, **outcome_data(event.outcome, max_value_bytes)}
            if isinstance(event, ToolFailed):
                data["timed_out"] = event.timed_out
        case ToolRegistered() | ToolUnregistered():
            data |= {"tool": event.tool, "source": event.source}
        case ToolDefinitionChanged():
            data |= {
                "tool": event.tool,
                "server": event.server,
                "old_hash": event.old_hash,
                "new_hash": event.new_hash,
                "action": event.action,
            }
        case McpServerStateChanged():
            data |= {"server": event.server, "state": event.state, "detail": _text(event.detail)}
        case CircuitStateChanged():
            data |= {"breaker": event.breaker, "state": event.state}
        case ToolHealthChanged():
            health = event.health
            data |= {
                "tool": event.tool,
                "status": health.status,
                "calls": health.calls,
                "success_rate": health.success_rate,
                "p50_ms": health.p50_ms,
                "p95_ms": health.p95_ms,
                "last_failure": _text(health.last_failure),
            }
        case _:
            assert_never(event)
    return data


def shown_tool(
    event: ToolCallRequested | ToolStarted | ToolProgress | ToolCompleted | ToolFailed,
) -> str:
    """The tool a call event names, as it may be shown. A registered tool's name is no
    secret and comes as it is, at no cost (a started call, its progress, and the end of a
    call the executor found a tool for); a name no tool answers to is what a model wrote,
    untrusted text, and goes through the one policy (`redact_name`), cut if it is long."""
    match event:
        case ToolStarted() | ToolProgress():
            return event.tool
        case ToolCompleted():
            return shown_ended_tool(event.tool, event.source, None)
        case ToolFailed():
            return shown_ended_tool(event.tool, event.source, event.error)
        case _:  # asked for while the model was still writing the call
            return shown_name(str(event.tool))  # a model may send a name that is no string


def shown_ended_tool(tool: str, source: str, error: ToolError | None) -> str:
    """`shown_tool` of a finished call, from its parts (a call log keeps only those)."""
    if source != NO_TOOL and not isinstance(error, UnknownTool):
        return tool
    return shown_name(str(tool))  # no such tool: the model's text


def outcome_data(outcome: ToolOutcome, max_value_bytes: int = MAX_VALUE_BYTES) -> dict[str, Any]:
    """An outcome's result, timing and metadata as redacted JSON data, without what its
    call's arguments hide (`hidden_of`)."""
    hidden = hidden_of(outcome)
    metadata = hidden.without_in(to_json_value(dict(outcome.metadata)))
    return {
        "started_at": outcome.started_at.isoformat(),
        "duration_ms": outcome.duration_ms,
        "attempts": outcome.attempts,
        "metadata": _clean(metadata, max_value_bytes),
        "result": result_data(outcome.result, max_value_bytes, hidden),
    }


def hidden_of(outcome: ToolOutcome) -> Hidden:
    """What the outcome's call hides in its arguments (and in the model's own, when a
    person edited them): its output and metadata are the tool's words about them, and may
    quote it (`toolrail.core.hidden`). The executor took it out of the error already."""
    return hidden_texts(outcome.call.arguments, outcome.metadata.get("asked_arguments"))


def result_data(
    result: Result[object, ToolError],
    max_value_bytes: int = MAX_VALUE_BYTES,
    hidden: Hidden = NOTHING,
) -> dict[str, Any]:
    """`{"status": "success", "value": ...}` or `{"status": "failure", "error": {...}}`;
    the value without the `hidden` texts (`hidden_of`)."""
    match result:
        case Success(value):
            value = hidden.without_in(to_json_value(value))
            return {"status": "success", "value": _clean(value, max_value_bytes)}
        case Failure(ToolError() as error):
            return {"status": "failure", "error": error_data(error, max_value_bytes)}
        case Failure(other):  # not a ToolError: held to the same shape
            return {
                "status": "failure",
                "error": {
                    "kind": "tool_error",
                    "message": _text(str(other)),
                    "model_can_fix": False,
                },
            }
        case _:
            return {"status": "failure", "error": {"kind": "tool_error", "message": "?"}}


def error_data(error: ToolError, max_value_bytes: int = MAX_VALUE_BYTES) -> dict[str, Any]:
    """kind, message and model_can_fix first, then the case's own fields; redacted."""
    fields = to_json_value(error)
    details = fields if isinstance(fields, dict) else {}
    data: dict[str, Any] = {
        "kind": error.kind,
        "message": _text(error.message),
        "model_can_fix": error.model_can_fix,
    }
    for key, value in details.items():
        if key not in data:
            data[key] = _clean(value, max_value_bytes)
    return data


def _clean(value: object, max_bytes: int) -> Any:
    return cut(value, max_bytes)


def _text(text: object) -> str | None:
    """Redacted text, also of an event made with some other object where text belongs."""
    if text is None:
        return None
    return redact_text(text if type(text) is str else message_text(text))


def arguments_data(raw: RawArguments) -> object:
    """A call's arguments as JSON data, as the log, an event's JSON and the OTel sink show
    them: JSON text read as the executor read it (`NaN` too: data, so redacted as data),
    none is `{}`, and text that is not JSON is kept as text."""
    return to_json_value(read_arguments(raw))  # not orjson: an integer past 64 bits, a float


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _type_name(event: ToolEvent) -> str:
    """`ToolCompleted` → "tool_completed"."""
    return _CAMEL.sub("_", type(event).__name__).lower()
