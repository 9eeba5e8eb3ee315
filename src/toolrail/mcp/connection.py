"""One long-lived session with one MCP server, shared by concurrent calls.

The session lives in an owner task (the SDK's client must be entered and left by the same
task). It starts on first use within `startup_timeout_s`; when the server dies, calls fail
promptly with `TransportError`, and the next call restarts it after a backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
import time
from collections.abc import Callable
from typing import Any, Literal, TextIO

import anyio
import mcp.types as mcp_types
from mcp import Client, MCPError, StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CONNECTION_CLOSED
from returns.result import Failure, Result, Success

from toolrail._diagnostics import get_logger
from toolrail.core.context import ExecutionContext
from toolrail.core.errors import ExecutionFailed, TimedOut, ToolError, TransportError
from toolrail.mcp.bounded_http import bounded_client
from toolrail.mcp.config import McpServerConfig
from toolrail.mcp.content import from_call_result
from toolrail.mcp.stdio import StdioReport, bounded_stdio_client

log = get_logger("toolrail.mcp")

State = Literal["stopped", "starting", "ready", "broken", "closed"]
StateCallback = Callable[[str, State, str], None]
MAX_BACKOFF_S = 5.0
_STREAM_BROKEN = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)


class McpConnection:
    """The session with one server; `call` and `list_tools` return Results, never raise."""

    def __init__(
        self,
        config: McpServerConfig,
        *,
        on_state: StateCallback | None = None,
        on_tools_changed: Callable[[], None] | None = None,
        in_process: object | None = None,
    ) -> None:
        self.config = config
        self._in_process = in_process  # an MCPServer / Server to talk to without a process
        self.state: State = "stopped"
        self.detail = ""
        """Why it is in its state (for a broken server: how it failed)."""
        self.failures = 0
        self._on_state = on_state
        self._on_tools_changed = on_tools_changed
        self._client: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._owners: dict[asyncio.Task[None], asyncio.Event] = {}  # sessions still winding down
        self._lock = asyncio.Lock()
        self._broken_at = 0.0
        self._errfile: TextIO | None = None
        self._report = StdioReport()

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def pid(self) -> int | None:
        """The server process of the current session (stdio only)."""
        return self._report.pid if self._client is not None else None

    async def list_tools(self) -> Result[list[mcp_types.Tool], TransportError]:
        """Every tool the server lists, following pagination."""
        started = await self._ensure_started()
        if isinstance(started, Failure):
            return started
        client = started.unwrap()
        report = self._report
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        try:
            for _ in range(100):  # a paginator that never ends cannot hang discovery
                page = await asyncio.wait_for(
                    client.list_tools(cursor=cursor, cache_mode="bypass"),
                    self.config.startup_timeout_s,
                )
                tools.extend(page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    break
        except (
            MCPError,
            TimeoutError,
            OSError,
            RuntimeError,
            ValueError,
            *_STREAM_BROKEN,
        ) as error:
            return Failure(self._transport_error("listing tools", error, report))
        return Success(tools)

    async def call(
        self, tool: str, arguments: dict[str, object], ctx: ExecutionContext
    ) -> Result[object, ToolError]:
        """Call `tool`; progress extends the idle deadline, up to `max_timeout_s`."""
        started = await self._ensure_started()
        if isinstance(started, Failure):
            return started
        client = started.unwrap()
        report = self._report
        idle = self.config.tool_timeouts.get(tool, self.config.timeout_s)
        hard_stop = time.monotonic() + self.config.max_timeout_s
        loop = asyncio.get_running_loop()

        deadline = asyncio.timeout(idle)

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            remaining = min(idle, hard_stop - time.monotonic())
            deadline.reschedule(loop.time() + max(remaining, 0.0))
            ctx.report_progress(progress, total, message)

        try:
            async with deadline:
                result = await client.call_tool(tool, arguments, progress_callback=on_progress)
        except TimeoutError as error:
            if deadline.expired():  # the SDK tells the server to cancel the abandoned request
                message = (
                    f"{tool} on MCP server {self.name!r} sent no result or progress "
                    f"for {idle:g}s (or ran past {self.config.max_timeout_s:g}s)"
                )
                if report.receiving and report is self._report:
                    # a message is still arriving: the next call would wait behind it
                    self._reset(f"reset: {report.receiving} bytes of a message were still arriving")
                    message += "; a message was still arriving, so the session was reset"
                return Failure(TimedOut(message=message, timeout_s=idle))
            return Failure(self._transport_error(f"calling {tool}", error, report))
        except RuntimeError as error:  # the SDK refused the answer (e.g. not its outputSchema)
            return Failure(
                ExecutionFailed(
                    message=f"MCP server {self.name!r} answered {tool} wrongly: {error}"
                )
            )
        except (MCPError, OSError, *_STREAM_BROKEN) as error:
            return Failure(self._transport_error(f"calling {tool}", error, report))
        return from_call_result(result)

    async def close(self) -> None:
        """End the session and the server process; idempotent. A caller's cancellation
        is not swallowed: the sessions are told to stop, and it propagates."""
        self._set_state("closed", "closed by toolrail")
        self._client = None
        self._retire()
        owners = [task for task in self._owners if not task.done()]
        try:
            if owners:
                _, late = await asyncio.wait(owners, timeout=10)
                for task in late:
                    task.cancel()
                if late:  # a cancelled session stops its server: wait for that too
                    await asyncio.wait(late, timeout=5)
        except asyncio.CancelledError:
            for task in owners:
                task.cancel()
            raise
        finally:
            if self._errfile is not None:
                self._errfile.close()

    # --- the session's life ------------------------------------------------------------

    async def _ensure_started(self) -> Result[Client, TransportError]:
        async with self._lock:
            if self._client is not None and self.state == "ready":
                return Success(self._client)
            if self.state == "closed":
                return Failure(
                    TransportError(message=f"MCP server {self.name!r} was closed", server=self.name)
                )
            if self.failures:
                backoff = min(0.2 * 2 ** (self.failures - 1), MAX_BACKOFF_S)
                wait = self._broken_at + backoff - time.monotonic()
                self._set_state("starting", f"restarting after {self.failures} failure(s)")
                if wait > 0:
                    await asyncio.sleep(wait)
            else:
                self._set_state("starting", "starting")
            return await self._start()

    async def _start(self) -> Result[Client, TransportError]:
        self._retire()
        stop = asyncio.Event()
        report = self._report = StdioReport()
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(_retrieved)  # read here or not at all: never "never retrieved"
        owner = asyncio.create_task(self._own_session(ready, stop, report), name=f"mcp:{self.name}")
        self._owner, self._stop = owner, stop
        self._owners[owner] = stop
        owner.add_done_callback(self._forget)
        try:
            client = await asyncio.wait_for(asyncio.shield(ready), self.config.startup_timeout_s)
        except TimeoutError:
            owner.cancel()  # stuck before the handshake ended: the stop signal cannot reach it
            await asyncio.wait([owner], timeout=5)  # its exit status and last words
            return Failure(
                self._broken(
                    f"did not start within {self.config.startup_timeout_s:g}s"
                    + _stderr_note(report)
                )
            )
        except asyncio.CancelledError:
            if ready.done():
                self._retire()
            else:  # stuck before the handshake ended: the stop signal cannot reach it
                owner.cancel()
            raise
        except Exception as error:
            await asyncio.wait([owner], timeout=5)  # its exit status and last words
            return Failure(self._broken(f"could not start: {_describe(error)}{_ended(report)}"))
        if self.state == "closed":
            self._retire()
            return Failure(
                TransportError(message=f"MCP server {self.name!r} was closed", server=self.name)
            )
        self._client = client
        self.failures = 0
        self._set_state("ready", "connected")
        return Success(client)

    def _forget(self, task: asyncio.Task[None]) -> None:
        self._owners.pop(task, None)

    def _retire(self) -> None:
        """Tell the current session to wind down; it does so in the background."""
        self._stop.set()

    async def _own_session(
        self, ready: asyncio.Future[Client], stop: asyncio.Event, report: StdioReport
    ) -> None:
        client: Client | None = None
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = await stack.enter_async_context(
                    Client(
                        await self._target(stack, report),
                        message_handler=self._on_message,
                        read_timeout_seconds=self.config.max_timeout_s,
                        mode=self.config.handshake,
                    )
                )
                ready.set_result(client)
                listener = asyncio.create_task(self._listen(client))
                try:
                    await stop.wait()
                finally:
                    listener.cancel()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(
                    error if isinstance(error, Exception) else RuntimeError(_describe(error))
                )
            if not isinstance(error, Exception):
                raise
            log.debug("MCP session ended", server=self.name, error=_describe(error))
        finally:
            if client is not None and self._client is client:
                self._client = None

    async def _target(self, stack: contextlib.AsyncExitStack, report: StdioReport) -> Any:
        """What `Client` connects to; resources it needs are closed with `stack`."""
        config = self.config
        if config.kind == "inprocess":
            if self._in_process is None:
                raise ValueError(f"server {config.name!r} is in-process but no server was given")
            return self._in_process
        if config.kind == "stdio":
            assert config.command is not None
            params = StdioServerParameters(
                command=config.command,
                args=list(config.args),
                env=config.env or None,
                cwd=config.cwd,
            )
            if sys.platform == "win32":  # pragma: no cover - the SDK's own, unbounded
                return stdio_client(params, errlog=self._errlog() or sys.stderr)
            return bounded_stdio_client(
                params, errlog=self._errlog(), max_bytes=config.max_message_bytes, report=report
            )
        assert config.url is not None
        bounded = functools.partial(bounded_client, config.max_message_bytes, report)
        if config.kind == "sse":
            return sse_client(
                config.url,
                headers=config.headers or None,
                timeout=config.startup_timeout_s,
                sse_read_timeout=config.max_timeout_s,
                httpx_client_factory=bounded,
            )
        # the SDK leaves a client it was given open: we close it
        http = await stack.enter_async_context(bounded(dict(config.headers) or None))
        return streamable_http_client(config.url, http_client=http)

    def _errlog(self) -> TextIO | None:
        if self.config.stderr == "inherit":
            return sys.stderr
        if self.config.stderr == "discard":
            return None
        if self._errfile is None or self._errfile.closed:
            self._errfile = open(self.config.stderr, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        return self._errfile

    async def _listen(self, client: Client) -> None:
        """Follow `tools/list_changed` on servers of the 2026-07-28 protocol."""
        if self._on_tools_changed is None:
            return
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _ in subscription:
                    self._on_tools_changed()
        except MCPError as error:  # e.g. an older protocol: notifications arrive instead
            log.debug("no tools/list_changed subscription", server=self.name, error=error.message)
        except Exception as error:
            log.warning(
                "MCP tools/list_changed subscription ended",
                server=self.name,
                error=_describe(error),
            )

    async def _on_message(self, message: object) -> None:
        """Older servers announce tool-list changes as notifications."""
        if isinstance(message, mcp_types.ToolListChangedNotification) and self._on_tools_changed:
            self._on_tools_changed()

    def _transport_error(
        self, doing: str, error: BaseException, report: StdioReport
    ) -> TransportError:
        if report.oversized is not None:
            why = (
                f"sent a message of more than {self.config.max_message_bytes} bytes "
                f"(max_message_bytes) while {doing}"
            )
            if report is self._report:
                self._reset(why)
            return TransportError(
                message=f"MCP server {self.name!r} {why}; the session was reset", server=self.name
            )
        closed = isinstance(error, MCPError) and error.code == CONNECTION_CLOSED
        if closed or not isinstance(error, MCPError):
            return self._broken(f"connection lost while {doing}: {_describe(error)}")
        return TransportError(
            message=f"MCP server {self.name!r} refused {doing}: {error.message}", server=self.name
        )

    def _reset(self, why: str) -> None:
        """End this session now, without counting a failure: the next call starts afresh."""
        self._client = None
        self._retire()
        self._set_state("broken", why)

    def _broken(self, why: str) -> TransportError:
        self.failures += 1
        self._broken_at = time.monotonic()
        self._client = None
        self._retire()
        self._set_state("broken", why)
        return TransportError(
            message=f"MCP server {self.name!r} {why}; the next call restarts it", server=self.name
        )

    def _set_state(self, state: State, detail: str) -> None:
        if self.state == "closed":
            return
        self.state, self.detail = state, detail
        if self._on_state is not None:
            self._on_state(self.name, state, detail)


def _describe(error: BaseException) -> str:
    """One line for an error; an exception group is described by its innermost errors."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in error.exceptions)
    if isinstance(error, MCPError) and error.code == CONNECTION_CLOSED:
        return "the connection closed during the handshake"
    return ExecutionFailed.from_exception(error).message


def _ended(report: StdioReport) -> str:
    """How the server process ended, for a start-up failure."""
    status = (
        "" if report.returncode is None else f"; the process exited with status {report.returncode}"
    )
    return status + _stderr_note(report)


def _stderr_note(report: StdioReport) -> str:
    tail = report.stderr_tail()
    return f"; its stderr ended with:\n{tail}" if tail else ""


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
