"""`McpToolServer`: a toolrail registry behind the MCP SDK's low-level server.

Every `tools/call` rides `Executor.run` as the configured agent — validation, agent table,
permissions, rules, approvals, budgets, breakers, timeouts, output caps and the sinks (the
JSONL log) all apply. A tool's failure is a result with `isError`; only a call naming no tool
at all is a protocol error.

A tool the agent may not see (outside its table, lacking a permission, denied by name) is,
to the client, a name no tool has: called by name, the same protocol error; through
`execute_tool`, the same `unknown_tool` error, suggesting only tools it may see. Which hidden
names exist is the operator's business: the JSONL log records the true reason.

    static    every tool the agent may call is listed
    dynamic   only find_relevant_tools and execute_tool are listed
    hybrid    pinned and frequently used tools, plus the two meta-tools

The served list is re-checked after each call and every `list_poll_s`; when it changes
(registry changes, an upstream MCP server's list changes, a circuit opens or closes) clients
are told: `notifications/tools/list_changed` on handshake-era connections, a
`subscriptions/listen` event on 2026-07-28 ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from returns.result import Result, Success

from toolrail._diagnostics import get_logger
from toolrail.config import ServeSection
from toolrail.core.call import ToolCall, ToolOutcome
from toolrail.core.context import ExecutionContext
from toolrail.core.errors import ToolError
from toolrail.core.params import ParameterSchema
from toolrail.executor import Executor
from toolrail.mcp.hub import definition_hash
from toolrail.policy.gates import Gates
from toolrail.recording.events import Sink, ToolCompleted, ToolEvent, ToolFailed, ToolProgress
from toolrail.registry import AgentToolTable, AnyTool, ToolRegistry
from toolrail.resilience import Resilience
from toolrail.routing import Router
from toolrail.serve.exchange import CURRENT, AskedRounds, Exchange, approve
from toolrail.serve.listing import call_result, error_result, mcp_tool, success_result
from toolrail.serve.meta import (
    EXECUTE,
    EXECUTE_TOOL,
    FIND,
    FIND_TOOL,
    META_NAMES,
    find_relevant,
    found,
    overlong_query,
)

log = get_logger("toolrail.serve")

_FIND_ARGS = ParameterSchema.from_json_schema(FIND_TOOL.input_schema)
_EXECUTE_ARGS = ParameterSchema.from_json_schema(EXECUTE_TOOL.input_schema)
SEND_TIMEOUT_S = 5.0
APPROVAL_TTL_S = 600.0
"""How long a person may take to answer an approval on a 2026-07-28 connection."""
HOT_AFTER = 2
"""Calls after which a tool counts as frequently used in hybrid mode."""


class _Server(Server[Any]):
    """The SDK's server, announcing that the tool list can change."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


class McpToolServer:
    """Serves `registry` to MCP clients as the agent of `context`.

    `agents` and `gates` are the config's tool table and policy; approvals the gates ask for
    go to the client by elicitation. `sinks` receive every call's events (e.g. the JSONL log).
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        context: ExecutionContext,
        agents: AgentToolTable | None = None,
        gates: Gates | None = None,
        resilience: Resilience | None = None,
        sinks: Iterable[Sink] = (),
        settings: ServeSection | None = None,
    ) -> None:
        self.registry = registry
        self.context = context
        self.settings = settings or ServeSection()
        self.executor = Executor(
            registry,
            agents=agents,
            gates=replace(gates, approver=approve) if gates is not None else None,
            resilience=resilience,
            sinks=[*sinks, self._on_event],
        )
        self.router = Router(registry, executor=self.executor)
        """Ranks the tools `find_relevant_tools` answers with (the agent's own, as listed)."""
        self._calls: dict[str, Exchange] = {}
        self._cancelled: set[asyncio.Future[ToolOutcome]] = set()
        """Calls the client cancelled, held until the executor has ended and recorded them."""
        self._uses: Counter[str] = Counter()
        self._bus = InMemorySubscriptionBus()
        self._sessions: list[Any] = []  # handshake-era connections, told of list changes
        self._recheck = asyncio.Event()
        self._announced = self._fingerprint()
        self.server = _Server(
            self.settings.name,
            version=_version(),
            instructions=_INSTRUCTIONS[self.settings.mode],
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        self.server.add_notification_handler(
            "notifications/initialized", types.NotificationParams, self._on_initialized
        )
        # 2026-07-28 approvals: the state a question's round carries is sealed (under a key
        # only this process holds) and verified on the retry; each round is taken once
        security = RequestStateSecurity.ephemeral(ttl=APPROVAL_TTL_S)
        self.server.middleware.append(
            RequestStateBoundary(security, default_audience=self.settings.name)
        )
        self._rounds = AskedRounds(APPROVAL_TTL_S)

    # --- what is served -----------------------------------------------------------------

    def served(self) -> list[types.Tool]:
        """The tools `tools/list` answers with, in this mode."""
        mode = self.settings.mode
        if mode == "dynamic":
            return [FIND_TOOL, EXECUTE_TOOL]
        tools = [mcp_tool(t) for t in self._listed()]
        return tools if mode == "static" else [*tools, FIND_TOOL, EXECUTE_TOOL]

    def _visible(self) -> tuple[AnyTool, ...]:
        return self.executor.visible(self.context.agent, self.context.permissions)

    def _listed(self) -> list[AnyTool]:
        """The registry tools listed directly: all of them in static mode; in hybrid mode the
        pinned ones and the most used (`frequent`, once used `HOT_AFTER` times)."""
        visible = self._visible()
        if self._static:
            return list(visible)
        uses = self._uses.most_common(self.settings.frequent)
        hot = {name for name, count in uses if count >= HOT_AFTER}
        return [
            t
            for t in visible
            if t.name not in META_NAMES
            and (t.name in hot or any(fnmatch.fnmatchcase(t.name, p) for p in self.settings.pinned))
        ]

    @property
    def _static(self) -> bool:
        return self.settings.mode == "static"

    def _fingerprint(self) -> tuple[tuple[str, str], ...]:
        if self.settings.mode == "dynamic":
            return ()
        return tuple((t.name, definition_hash(t)) for t in self._listed())

    async def announce_changes(self) -> bool:
        """Tell connected clients if the served list changed since last told; True if so."""
        fingerprint = self._fingerprint()
        if fingerprint == self._announced:
            return False
        self._announced = fingerprint
        await self._bus.publish(ToolsListChanged())
        sessions = list(self._sessions)
        told = await asyncio.gather(*(_tell(s) for s in sessions))
        gone = {id(s) for s, ok in zip(sessions, told, strict=True) if not ok}
        self._sessions = [s for s in self._sessions if id(s) not in gone]
        return True

    async def watch(self) -> None:
        """Re-check the served list after each call and every `list_poll_s` (circuits close
        with time); `run_stdio` and `run_http` run this, an in-process user runs it too."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._recheck.wait(), self.settings.list_poll_s)
            self._recheck.clear()
            try:
                await self.announce_changes()
            except Exception:
                log.exception("announcing a tool-list change failed")

    # --- handlers -------------------------------------------------------------------------

    async def _on_initialized(
        self, ctx: ServerRequestContext[Any, Any], params: types.NotificationParams
    ) -> None:
        if not self.settings.stateless:  # stateless connections end with their request
            self._sessions.append(ctx.session)

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.served())

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        exchange = Exchange(
            ctx,
            input_responses=dict(params.input_responses or {}),
            answerable=self._rounds.answerable(params.request_state),
        )
        token = CURRENT.set(exchange)
        try:
            result = await self._dispatch(params.name, params.arguments or {}, exchange)
        finally:
            CURRENT.reset(token)
            await exchange.flush()
        if exchange.asked:
            return types.InputRequiredResult(
                input_requests=dict(exchange.asked),
                request_state=self._rounds.state(exchange.asked),
            )
        if exchange.unanswerable is not None and result.is_error:
            result = error_result(exchange.unanswerable)
        self._recheck.set()  # a breaker or the hybrid list may have changed
        return result

    async def _dispatch(
        self, name: str, arguments: dict[str, Any], exchange: Exchange
    ) -> types.CallToolResult:
        if name == FIND and not self._static:
            return self._find(arguments)
        if name == EXECUTE and not self._static:
            return await self._execute(arguments, exchange)
        if name not in self.registry:
            raise _unknown(name)
        result = await self._run(name, arguments, exchange)
        if result is None:
            raise _unknown(name)
        return result

    def _find(self, arguments: dict[str, Any]) -> types.CallToolResult:
        overlong = overlong_query(arguments)
        if overlong is not None:
            return error_result(overlong)
        checked = _FIND_ARGS.check(arguments, tool=FIND)
        if isinstance(checked, ToolError):
            return error_result(checked)
        limit = checked.get("limit")  # the schema made it an integer from 1 to 50, if given
        query = str(checked["query"])
        matches = find_relevant(
            self.router,
            query,
            limit if isinstance(limit, int) else 10,
            agent=self.context.agent,
            permissions=self.context.permissions,
        )
        return success_result(found(matches), FIND_TOOL.output_schema)

    async def _execute(self, arguments: dict[str, Any], exchange: Exchange) -> types.CallToolResult:
        checked = _EXECUTE_ARGS.check(arguments, tool=EXECUTE)
        if isinstance(checked, ToolError):
            return error_result(checked)
        inner = checked.get("arguments")
        name = str(checked["tool_name"])
        result = await self._run(name, inner if isinstance(inner, dict) else {}, exchange)
        if result is None:
            return error_result(
                self.executor.unknown(name, self.context.agent, self.context.permissions)
            )
        return result

    async def _run(
        self, name: str, arguments: dict[str, Any], exchange: Exchange
    ) -> types.CallToolResult | None:
        """The call's result, or None for a refused tool the agent may not see (which the
        client must not tell from a name no tool has; the log keeps the true reason)."""
        call = ToolCall(name=name, arguments=arguments)
        request_id = exchange.request.request_id
        ctx = replace(
            self.context,
            request_id=str(request_id) if request_id is not None else None,
            conversation_id=_session_id(exchange) or self.context.conversation_id,
        )
        self._calls[call.id] = exchange
        try:
            outcome = await self._outcome(call, ctx)
        finally:
            self._calls.pop(call.id, None)
        result: Result[object, ToolError] = outcome.result
        if isinstance(result, Success):
            self._uses[name] += 1
        elif not self.executor.shows(ctx.agent, name, ctx.permissions):
            return None
        return call_result(self.registry.find(name), result)

    async def _outcome(self, call: ToolCall, ctx: ExecutionContext) -> ToolOutcome:
        """The executor's outcome for `call`, run in a task of its own. When the client
        cancels the request, the SDK cancels this handler; the call is then ended by
        `Executor.cancel` (or, outside the tool's body, by cancelling its task), which stops
        it at once and records it cancelled — even when the tool swallows its cancellation.
        (Thrown straight into such a tool, the cancellation was lost: the tool finished and
        the log said success, for a result the client never received.)"""
        running = asyncio.ensure_future(self.executor.run(call, ctx))
        try:
            return await asyncio.shield(running)
        except asyncio.CancelledError:
            if not self.executor.cancel(call.id):  # waiting for approval, say
                running.cancel()
            self._cancelled.add(running)  # a task only weakly held would be collected
            running.add_done_callback(self._cancelled.discard)
            raise

    def _on_event(self, event: ToolEvent) -> None:
        """The sink that turns a running call's progress into MCP progress notifications,
        and tells the router how calls ended (the executor tells of its tools while this
        server is still being made: no router yet, nothing for it)."""
        if isinstance(event, ToolCompleted | ToolFailed):
            self.router.observe(event)
        elif isinstance(event, ToolProgress):
            exchange = self._calls.get(event.call_id)
            if exchange is not None:
                exchange.report_progress(event.progress, event.total, event.message)

    # --- transports -----------------------------------------------------------------------

    async def run_stdio(self) -> None:
        """Serve one client over stdin/stdout until it disconnects."""
        watcher = asyncio.create_task(self.watch())
        try:
            async with stdio_server() as (read, write):
                await self.server.run(read, write, self.server.create_initialization_options())
        finally:
            watcher.cancel()
            await self.executor.aclose()


def _version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("toolrail")
    except importlib.metadata.PackageNotFoundError:
        return "0"


def _unknown(name: str) -> MCPError:
    """The protocol error for a `tools/call` naming no tool the client may see."""
    return MCPError(types.INVALID_PARAMS, f"Unknown tool: {name}")


def _session_id(exchange: Exchange) -> str | None:
    """The HTTP session the request belongs to: one conversation per connected client."""
    headers = getattr(exchange.request.request, "headers", None)
    session = headers.get("mcp-session-id") if headers is not None else None
    return session if isinstance(session, str) else None


async def _tell(session: Any) -> bool:
    """Send `notifications/tools/list_changed` on a handshake-era connection; False if it is
    gone (or stalled: a dead connection must not hold the others up)."""
    try:
        await asyncio.wait_for(session.send_tool_list_changed(), SEND_TIMEOUT_S)
    except Exception as error:
        log.debug("dropping an MCP connection that cannot be told", error=str(error))
        return False
    return True


_INSTRUCTIONS = {
    "static": "toolrail: every tool you may call is listed.",
    "dynamic": "toolrail: call find_relevant_tools with what you want to do, then execute_tool "
    "with one of the names it returns.",
    "hybrid": "toolrail: the most used tools are listed; for anything else call "
    "find_relevant_tools, then execute_tool.",
}
