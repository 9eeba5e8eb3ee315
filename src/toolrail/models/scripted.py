"""`ScriptedModel`: a deterministic model for tests and demos that speaks a real dialect.

Each turn is rendered into the dialect's real response shape and parsed back by the
orchestrator with the same `parse_tool_calls` a provider response goes through.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field

import orjson

from toolrail.core.call import ToolCall
from toolrail.dialects import openai
from toolrail.dialects.base import Dialect
from toolrail.models.base import ArgumentsDelta, CallAnnounced, ModelRequest, StreamEvent, TurnDone

Arguments = Mapping[str, object] | str


@dataclass(frozen=True, slots=True)
class ScriptedTurn:
    """What the model says and which tools it calls; string arguments are sent verbatim
    (so a script can send broken JSON, as real models sometimes do)."""

    text: str = ""
    calls: Sequence[tuple[str, Arguments]] = field(default=())


Step = ScriptedTurn | Callable[[ModelRequest], ScriptedTurn]


class ScriptExhausted(RuntimeError):
    """The script has no turn left; the orchestrator ends the run with this as its reason."""


class ScriptedModel:
    """Answers from a script: a list of turns (each a `ScriptedTurn` or a function of the
    request), or one function called for every turn."""

    def __init__(
        self,
        script: Sequence[Step] | Callable[[ModelRequest], ScriptedTurn],
        *,
        dialect: Dialect = openai.chat,
    ) -> None:
        self._dialect = dialect
        self._script = script
        self._position = 0
        self.requests: list[ModelRequest] = []

    @property
    def dialect(self) -> Dialect:
        return self._dialect

    async def respond(self, request: ModelRequest) -> object:
        self.requests.append(request)
        turn = self._next(request)
        return self._dialect.response_from(turn.text, _calls(turn))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """The same turn, with each call announced before its arguments arrive in pieces."""
        self.requests.append(request)
        turn = self._next(request)
        calls = _calls(turn)
        for call in calls:
            yield CallAnnounced(call.id, call.name)
            text = call.arguments if isinstance(call.arguments, str) else "{}"
            for start in range(0, len(text), 16):
                yield ArgumentsDelta(call.id, text[start : start + 16])
        yield TurnDone(self._dialect.response_from(turn.text, calls))

    def _next(self, request: ModelRequest) -> ScriptedTurn:
        if callable(self._script):
            return self._script(request)
        if self._position >= len(self._script):
            raise ScriptExhausted(f"the script has no turn {self._position + 1}")
        step = self._script[self._position]
        self._position += 1
        return step(request) if callable(step) else step


def _calls(turn: ScriptedTurn) -> list[ToolCall]:
    return [
        ToolCall(
            id=f"call_{uuid.uuid4().hex[:12]}",
            name=name,
            arguments=args if isinstance(args, str) else orjson.dumps(dict(args)).decode(),
        )
        for name, args in turn.calls
    ]
