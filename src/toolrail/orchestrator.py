"""The agent loop: model turn → tool calls → results → … until a terminator.

An agent's turn ends when a tool returns `Success(Complete(...))` (or the model answers
without calling a tool, which counts as completing with that answer). The orchestrator then
routes to the next agent — `Complete.next_agent`, else the router — or finishes. A tool
returning `Success(EndConversation(...))` ends the whole conversation.

A batch of calls always runs to the end, and every result enters the transcript; only then
are terminators acted on, in call order: an `EndConversation` anywhere in the batch wins
over a `Complete`, and the first `Complete` wins over later ones.

Nothing here raises for what a model or a tool does: limits, model errors and unknown
agents end the run with a reason in `RunResult.end`.
"""

from __future__ import annotations

import difflib
import fnmatch
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import Literal, assert_never

from returns.result import Failure, Success

from toolrail._diagnostics import get_logger
from toolrail.core.call import ToolCall, ToolOutcome
from toolrail.core.context import ExecutionContext
from toolrail.core.control import Complete, EndConversation
from toolrail.core.errors import ApprovalRequired, BudgetExceeded, Cancelled
from toolrail.core.messages import Handoff, Message, ToolResults, UserMessage
from toolrail.core.redact import shown_name
from toolrail.executor import Executor
from toolrail.models.base import (
    CallAnnounced,
    Model,
    ModelRequest,
    StreamingModel,
    TurnDone,
)
from toolrail.observe.hooks import AgentEnded, AgentObserver, Contained, unobserved
from toolrail.policy.approvals import ApprovalRequest, Approve, Deny
from toolrail.policy.gates import Gates
from toolrail.recording.events import Sink, ToolCallRequested
from toolrail.registry import AgentToolTable, ToolRegistry
from toolrail.routing.router import Router
from toolrail.routing.surfacing import FIND_TOOLS, Surfacing

log = get_logger("toolrail.orchestrator")

EndKind = Literal[
    "end_conversation",
    "completed",
    "max_turns",
    "max_tool_calls",
    "max_handoffs",
    "model_error",
    "unknown_agent",
    "awaiting_approval",
]
Handoffs = Callable[[str, Complete], str | None] | Mapping[str, str | None]
"""Who takes over when an agent completes: a table (agent → next agent, None to finish) or
a function of the agent and its `Complete`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Agent:
    """An agent: who it is, what it is told, which model answers for it, which tools
    (glob patterns over tool names) it may see and call, and its limits."""

    name: str
    instructions: str
    model: Model
    tools: tuple[str, ...] = ()
    permissions: frozenset[str] = frozenset()
    phase: str | None = None
    max_turns: int = 10
    max_tool_calls_per_turn: int = 16
    router: Router | None = None
    """Show each turn only pinned tools, the top `route_k` for the conversation so far and
    `find_tools`; a call to any tool the agent may call still runs."""
    route_k: int = 8
    strict: bool = False
    """Export the tools in the provider's strict mode (OpenAI, Anthropic): the model's
    arguments then follow the schema exactly; what strict mode cannot carry is in the
    export's report, and its nulls and strings are read back in the tool's own terms."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunEnd:
    """Why the run stopped, and in which agent."""

    kind: EndKind
    agent: str
    detail: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentRun:
    """One stretch of control held by one agent."""

    agent: str
    turns: int
    tool_calls: int
    completed: Complete | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResult:
    conversation_id: str
    transcript: tuple[Message, ...]
    agents: tuple[AgentRun, ...]
    end: RunEnd
    final_message: str | None = None
    pending: tuple[ApprovalRequest, ...] = ()
    """When `end.kind` is "awaiting_approval": the requests to decide, for `resume`."""

    @property
    def outcomes(self) -> tuple[ToolOutcome, ...]:
        """Every tool outcome of the run, in order."""
        return tuple(o for m in self.transcript if isinstance(m, ToolResults) for o in m.outcomes)


@dataclass(frozen=True, slots=True)
class _Completed:
    """The agent's stretch ended with its task done: control moves on."""

    run: AgentRun
    complete: Complete


@dataclass(frozen=True, slots=True)
class _Ended:
    """The agent's stretch ended the run."""

    run: AgentRun
    end: RunEnd
    final_message: str | None = None


_Turns = _Completed | _Ended
"""How one agent's stretch ended: a closed union, matched with `assert_never`."""


class Orchestrator:
    """Runs conversations between agents over one registry; see the module docstring."""

    def __init__(
        self,
        agents: Iterable[Agent],
        tools: ToolRegistry | Executor,
        *,
        route: Handoffs | None = None,
        sinks: Iterable[Sink] = (),
        max_concurrency: int = 8,
        max_handoffs: int = 16,
        stream: bool = True,
        on_message: Callable[[Message], None] | None = None,
        gates: Gates | None = None,
        observer: AgentObserver | None = None,
    ) -> None:
        """`tools`: the `Executor` every call rides (the agents' tool tables become its
        table if it has none), or a registry to build one from with `sinks` and `gates`.
        `on_message` sees each message as it joins the transcript (for UIs). `observer`
        is entered around each agent's turns (`toolrail.observe.hooks`: spans, say)."""
        self.observer = observer
        self.agents = {agent.name: agent for agent in agents}
        self._masked: dict[int, tuple[ToolOutcome, ToolOutcome]] = {}
        if not self.agents:
            raise ValueError("an orchestrator needs at least one agent")
        self.route = route
        self.max_concurrency = max_concurrency
        self.max_handoffs = max_handoffs
        self.stream = stream
        self.on_message = on_message
        table = AgentToolTable(
            {name: (*a.tools, *[FIND_TOOLS] * bool(a.router)) for name, a in self.agents.items()}
        )
        if isinstance(tools, Executor):
            if sinks or gates is not None:
                raise ValueError("give sinks and gates to the Executor you pass, not here")
            self.executor = tools
            if tools.agents is None:
                tools.agents = table
        else:
            self.executor = Executor(tools, agents=table, sinks=sinks, gates=gates)
        routed = [(a.name, a.router, a.route_k) for a in self.agents.values() if a.router]
        self.surfacing = Surfacing(self.executor, routed)
        for agent in self.agents.values():
            _warn_about_unmatched(agent, self.executor.registry)

    async def run(
        self,
        message: str,
        *,
        start: str | None = None,
        conversation_id: str | None = None,
        request_id: str | None = None,
    ) -> RunResult:
        """Run a conversation from a user's message until it ends; returns it as a value."""
        conversation = conversation_id or uuid.uuid4().hex
        transcript: list[Message] = []
        self._append(transcript, UserMessage(text=message))
        name = start or next(iter(self.agents))
        return await self._drive(conversation, request_id, transcript, [], name)

    async def resume(self, paused: RunResult, decisions: Mapping[str, Approve | Deny]) -> RunResult:
        """Continue a run that ended `awaiting_approval`: settle the pending calls named in
        `decisions` (each runs at most once), then carry on where the agent stopped.
        Calls left undecided keep the run waiting."""
        if paused.end.kind != "awaiting_approval":
            raise ValueError(
                f"this run ended {paused.end.kind!r}; only a run awaiting approval can be resumed"
            )
        transcript = list(paused.transcript)
        batch = transcript[-1]
        assert isinstance(batch, ToolResults)
        outcomes = list(batch.outcomes)
        agent = paused.end.agent
        ctx = ExecutionContext(agent=agent, conversation_id=paused.conversation_id)
        with self._observed(agent, ctx) as ended:  # the approved calls run inside it
            settled_calls = 0
            for index, outcome in enumerate(outcomes):
                request_id = _waiting_for(outcome)
                if request_id in decisions:
                    settled = await self.executor.resume(request_id, decisions[request_id])
                    outcomes[index] = settled.value_or(outcome)
                    settled_calls += 1
            ended("resumed", "approvals decided", 0, settled_calls)
        transcript[-1] = ToolResults(agent=batch.agent, outcomes=tuple(outcomes))
        runs = list(paused.agents)
        if any(_waiting_for(o) for o in outcomes):
            return self._result(paused.conversation_id, transcript, runs, paused.end)
        match _terminator(outcomes):
            case EndConversation(reason=reason, final_message=final):
                end = RunEnd(kind="end_conversation", agent=agent, detail=reason)
                return self._result(paused.conversation_id, transcript, runs, end, final or reason)
            case Complete() as complete:
                first = _Completed(
                    AgentRun(agent=agent, turns=0, tool_calls=0, completed=complete), complete
                )
                return await self._drive(
                    paused.conversation_id, None, transcript, runs, agent, first
                )
            case _:
                return await self._drive(paused.conversation_id, None, transcript, runs, agent)

    async def _drive(
        self,
        conversation: str,
        request_id: str | None,
        transcript: list[Message],
        runs: list[AgentRun],
        name: str,
        first: _Turns | None = None,
    ) -> RunResult:
        """Hand control from agent to agent until the conversation ends."""
        for _ in range(self.max_handoffs + 1):
            agent = self.agents.get(name)
            if agent is None:
                end = RunEnd(kind="unknown_agent", agent=name, detail=f"no agent named {name!r}")
                self._observe_unrun(end, conversation, request_id)
                return self._result(conversation, transcript, runs, end)
            ctx = ExecutionContext(
                agent=agent.name,
                permissions=agent.permissions,
                conversation_id=conversation,
                phase=agent.phase or agent.name,
                request_id=request_id,
            )
            if first is None:
                with self._observed(agent.name, ctx) as ended:
                    turns = await self._run_agent(agent, transcript, ctx)
                    ended(*_ending(turns))
            else:
                turns, first = first, None
            runs.append(turns.run)
            match turns:
                case _Ended(end=end, final_message=final_message):
                    return self._result(conversation, transcript, runs, end, final_message)
                case _Completed(complete=complete):
                    pass
                case _:
                    assert_never(turns)
            following = self._next_agent(agent.name, complete)
            if following is None:
                end = RunEnd(kind="completed", agent=agent.name, detail=complete.summary)
                return self._result(conversation, transcript, runs, end, complete.summary)
            handoff = Handoff(from_agent=agent.name, to_agent=following, summary=complete.summary)
            self._append(transcript, handoff)
            name = following
        end = RunEnd(
            kind="max_handoffs",
            agent=name,
            detail=f"control changed hands more than {self.max_handoffs} times",
        )
        self._observe_unrun(end, conversation, request_id)
        return self._result(conversation, transcript, runs, end)

    def _observe_unrun(self, end: RunEnd, conversation: str, request_id: str | None) -> None:
        """A stretch that could not start (no such agent, one handoff too many), observed
        as failed at once: a trace shows where the run failed. The name may be a model's."""
        name = shown_name(end.agent)
        ctx = ExecutionContext(agent=name, conversation_id=conversation, request_id=request_id)
        with self._observed(name, ctx) as ended:
            ended(end.kind, end.detail, 0, 0)

    def _as_read(self, transcript: list[Message]) -> list[Message]:
        """The transcript as a model reads it: the refusal of a tool hidden from the agent
        that called it reads as a name no tool has (`Executor.masked`), so no model can
        probe which hidden tools exist. `RunResult` keeps the true outcomes."""
        read: list[Message] = []
        for message in transcript:
            if isinstance(message, ToolResults) and (caller := self.agents.get(message.agent)):
                seen = tuple(self._read_once(o, caller) for o in message.outcomes)
                if any(a is not b for a, b in zip(seen, message.outcomes, strict=True)):
                    message = replace(message, outcomes=seen)
            read.append(message)
        return read

    def _read_once(self, outcome: ToolOutcome, caller: Agent) -> ToolOutcome:
        """`outcome` masked as its first reading saw it: a later turn reads the same text,
        as it reads a true unknown name's (its suggestions do not follow circuits)."""
        if type(outcome.result) is not Failure:
            return outcome
        key = id(outcome)
        known = self._masked.get(key)
        if known is not None and known[0] is outcome:
            return known[1]
        if len(self._masked) >= 4096:
            self._masked.clear()
        masked = self.executor.masked(outcome, caller.name, caller.permissions)
        self._masked[key] = (outcome, masked)
        return masked

    def _observed(self, agent: str, ctx: ExecutionContext) -> AbstractContextManager[AgentEnded]:
        if self.observer is None:
            return nullcontext(unobserved)
        try:
            return Contained(self.observer.invoke_agent(agent, ctx))
        except Exception:  # the application's observer: its failure is not the run's
            log.exception("agent observer failed", agent=agent)
            return nullcontext(unobserved)

    async def _run_agent(
        self, agent: Agent, transcript: list[Message], ctx: ExecutionContext
    ) -> _Turns:
        dialect = agent.model.dialect
        tool_calls = 0
        for turn in range(1, agent.max_turns + 1):
            announced: dict[str, str] = {}
            try:
                shown = self.surfacing.shown(agent.name, agent.permissions, transcript, ctx)
                export = dialect.export_tools(shown, strict=agent.strict)
                read = self._as_read(transcript)
                request = ModelRequest(
                    agent=agent.name,
                    instructions=agent.instructions,
                    messages=tuple(read),
                    export=export,
                    body=dialect.build_request(agent.instructions, read, export),
                )
                response = await self._ask(agent, request, ctx, announced)
                message = dialect.parse_turn(response, agent=agent.name, export=export)
                calls, text = list(message.calls), message.text
            except Exception as error:
                log.warning("model failed", agent=agent.name, error_type=type(error).__name__)
                self._refuse_announced(announced, (), ctx, "the model's turn failed")
                run = AgentRun(agent=agent.name, turns=turn, tool_calls=tool_calls)
                detail = f"{type(error).__name__}: {error}"
                return _Ended(run, RunEnd(kind="model_error", agent=agent.name, detail=detail))
            self._refuse_announced(announced, calls, ctx, "the model did not finish the call")
            self._append(transcript, message)
            if not calls:  # answering without a tool completes the agent's task
                run = AgentRun(
                    agent=agent.name,
                    turns=turn,
                    tool_calls=tool_calls,
                    completed=Complete(summary=text),
                )
                return _Completed(run, Complete(summary=text))
            if len(calls) > agent.max_tool_calls_per_turn:
                run = AgentRun(agent=agent.name, turns=turn, tool_calls=tool_calls)
                detail = (
                    f"{agent.name} asked for {len(calls)} tool calls in one turn; "
                    f"the limit is {agent.max_tool_calls_per_turn}"
                )
                refused = BudgetExceeded(message=f"not run: {detail}", limit="tool_calls_per_turn")
                outcomes = [self.executor.refuse(call, ctx, refused) for call in calls]
                self._append(transcript, ToolResults(agent=agent.name, outcomes=tuple(outcomes)))
                return _Ended(run, RunEnd(kind="max_tool_calls", agent=agent.name, detail=detail))
            outcomes = await self.executor.run_many(
                calls, ctx, max_concurrency=self.max_concurrency
            )
            tool_calls += len(outcomes)
            self._append(transcript, ToolResults(agent=agent.name, outcomes=tuple(outcomes)))
            ended = _terminator(outcomes)
            if isinstance(ended, EndConversation):
                run = AgentRun(agent=agent.name, turns=turn, tool_calls=tool_calls)
                end = RunEnd(kind="end_conversation", agent=agent.name, detail=ended.reason)
                return _Ended(run, end, final_message=ended.final_message or ended.reason)
            if isinstance(ended, Complete):
                run = AgentRun(agent=agent.name, turns=turn, tool_calls=tool_calls, completed=ended)
                return _Completed(run, ended)
            waiting = [o for o in outcomes if _waiting_for(o)]
            if waiting:  # a person decides next; resume() picks up from here
                run = AgentRun(agent=agent.name, turns=turn, tool_calls=tool_calls)
                names = ", ".join(o.call.name for o in waiting)
                end = RunEnd(
                    kind="awaiting_approval",
                    agent=agent.name,
                    detail=f"{len(waiting)} call(s) wait for a person: {names}",
                )
                return _Ended(run, end)
        run = AgentRun(agent=agent.name, turns=agent.max_turns, tool_calls=tool_calls)
        detail = f"{agent.name} used all {agent.max_turns} turns without completing"
        return _Ended(run, RunEnd(kind="max_turns", agent=agent.name, detail=detail))

    def _refuse_announced(
        self,
        announced: Mapping[str, str],
        calls: Sequence[ToolCall],
        ctx: ExecutionContext,
        why: str,
    ) -> None:
        """Every call announced while streaming ends with a record, even one that never
        arrived whole: its progress line closes and its log line is written."""
        arrived = {call.id for call in calls}
        for call_id, name in announced.items():
            if call_id not in arrived:
                call = ToolCall(id=call_id, name=name)
                self.executor.refuse(call, ctx, Cancelled(message=f"not run: {why}"))

    async def _ask(
        self,
        agent: Agent,
        request: ModelRequest,
        ctx: ExecutionContext,
        announced: dict[str, str],
    ) -> object:
        """One model turn; a streaming model's calls are announced as they begin (and
        noted in `announced`)."""
        model = agent.model
        if not (self.stream and isinstance(model, StreamingModel)):
            return await model.respond(request)
        response: object = None
        async for event in model.stream(request):
            match event:
                case CallAnnounced(call_id=call_id, name=name):
                    announced[call_id] = name
                    self.executor.emit(ToolCallRequested(call_id=call_id, tool=name, context=ctx))
                case TurnDone(response=done):
                    response = done
                case _:
                    pass
        if response is None:
            raise RuntimeError("the model's stream ended without a response")
        return response

    def _append(self, transcript: list[Message], message: Message) -> None:
        transcript.append(message)
        if self.on_message is not None:
            try:
                self.on_message(message)
            except Exception:
                log.exception("on_message callback failed")

    def _next_agent(self, agent: str, complete: Complete) -> str | None:
        if complete.next_agent:
            return complete.next_agent
        if self.route is None:
            return None
        if isinstance(self.route, Mapping):
            return self.route.get(agent)
        return self.route(agent, complete)

    def _result(
        self,
        conversation: str,
        transcript: Sequence[Message],
        runs: list[AgentRun],
        end: RunEnd,
        final_message: str | None = None,
    ) -> RunResult:
        pending: tuple[ApprovalRequest, ...] = ()
        batch = transcript[-1] if transcript else None
        if (
            end.kind == "awaiting_approval"
            and self.executor.gates
            and isinstance(batch, ToolResults)
        ):
            waiting = {_waiting_for(o) for o in batch.outcomes}
            pending = tuple(r for r in self.executor.gates.pending if r.id in waiting)
        return RunResult(
            conversation_id=conversation,
            transcript=tuple(transcript),
            agents=tuple(runs),
            end=end,
            final_message=final_message,
            pending=pending,
        )


def _ending(turns: _Turns) -> tuple[str, str, int, int]:
    """How an agent's stretch ended, for the observer."""
    match turns:
        case _Completed(run=run, complete=complete):
            return "completed", complete.summary, run.turns, run.tool_calls
        case _Ended(run=run, end=end):
            return end.kind, end.detail, run.turns, run.tool_calls
        case _:
            assert_never(turns)


def _warn_about_unmatched(agent: Agent, registry: ToolRegistry) -> None:
    """A pattern in `Agent(tools=...)` that names no tool is most often a typo."""
    names = [t.name for t in registry]
    for pattern in agent.tools:
        if not fnmatch.filter(names, pattern.removeprefix("!")):
            close = difflib.get_close_matches(pattern, names, n=3)
            log.warning(
                "agent tool pattern matches no tool",
                agent=agent.name,
                pattern=pattern,
                did_you_mean=", ".join(close) or None,
            )


def _waiting_for(outcome: ToolOutcome) -> str:
    """The approval request an outcome waits on, or "" if it does not."""
    match outcome.result:
        case Failure(ApprovalRequired(request_id=request_id)):
            return request_id
        case _:
            return ""


def _terminator(outcomes: Sequence[ToolOutcome]) -> Complete | EndConversation | None:
    """EndConversation anywhere in the batch wins; else the first Complete; else None."""
    first_complete: Complete | None = None
    for outcome in outcomes:
        match outcome.result:
            case Success(EndConversation() as end):
                return end
            case Success(Complete() as complete) if first_complete is None:
                first_complete = complete
            case _:
                pass
    return first_complete
