"""One long-lived session with one MCP server, shared by concurrent calls.

The session lives in an owner task (the SDK's client must be entered and left by the same
task). It starts on first use within `startup_timeout_s`; when the server dies, calls fail
promptly with `TransportError`, and the next call restarts it after a backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TextIO

import anyio
import mcp.types as mcp_types
from mcp import Client, MCPError, StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import CONNECTION_CLOSED
from returns.result import Failure, Result, Success

from toolrail.core.context import ExecutionContext
from toolrail.core.errors import ExecutionFailed, TimedOut, ToolError, TransportError
from toolrail.diagnostics import get_logger
from toolrail.mcp.config import McpServerConfig

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
        on_tools_changed: Callable[[], Awaitable[None]] | None = None,
        in_process: object | None = None,
    ) -> None:
        self.config = config
        self._in_process = in_process  # an MCPServer / Server to talk to without a process
        self.state: State = "stopped"
        self.failures = 0
        self._on_state = on_state
        self._on_tools_changed = on_tools_changed
        self._client: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self._broken_at = 0.0
        self._errfile: TextIO | None = None
        self._background: set[asyncio.Future[None]] = set()

    @property
    def name(self) -> str:
        return self.config.name

    async def list_tools(self) -> Result[list[mcp_types.Tool], TransportError]:
        """Every tool the server lists, following pagination."""
        started = await self._ensure_started()
        if isinstance(started, Failure):
            return started
        client = started.unwrap()
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
        except (MCPError, TimeoutError, OSError, RuntimeError) as error:
            return Failure(self._transport_error("listing tools", error))
        return Success(tools)

    async def call(
        self, tool: str, arguments: dict[str, object], ctx: ExecutionContext
    ) -> Result[object, ToolError]:
        """Call `tool`; progress extends the idle deadline, up to `max_timeout_s`."""
        started = await self._ensure_started()
        if isinstance(started, Failure):
            return started
        client = started.unwrap()
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
                return Failure(
                    TimedOut(
                        message=f"{tool} on MCP server {self.name!r} sent no result or progress "
                        f"for {idle:g}s (or ran past {self.config.max_timeout_s:g}s)",
                        timeout_s=idle,
                    )
                )
            return Failure(self._transport_error(f"calling {tool}", error))
        except RuntimeError as error:  # the SDK refused the answer (e.g. not its outputSchema)
            return Failure(
                ExecutionFailed(
                    message=f"MCP server {self.name!r} answered {tool} wrongly: {error}"
                )
            )
        except (MCPError, OSError, *_STREAM_BROKEN) as error:
            return Failure(self._transport_error(f"calling {tool}", error))
        return _from_call_result(result)

    async def close(self) -> None:
        """End the session and the server process; idempotent."""
        self._stop.set()
        if self._owner is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._owner), 10)
            if not self._owner.done():
                self._owner.cancel()
        if self._errfile is not None:
            self._errfile.close()
        self._set_state("closed", "closed by toolrail")

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
        await self._stop_owner()
        self._stop = asyncio.Event()
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.create_task(self._own_session(ready), name=f"mcp:{self.name}")
        try:
            client = await asyncio.wait_for(asyncio.shield(ready), self.config.startup_timeout_s)
        except TimeoutError:
            self._owner.cancel()
            return Failure(self._broken(f"did not start within {self.config.startup_timeout_s:g}s"))
        except Exception as error:
            return Failure(self._broken(f"could not start: {_describe(error)}"))
        self._client = client
        self.failures = 0
        self._set_state("ready", "connected")
        return Success(client)

    async def _own_session(self, ready: asyncio.Future[Client]) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = await stack.enter_async_context(
                    Client(
                        await self._target(stack),
                        message_handler=self._on_message,
                        read_timeout_seconds=self.config.max_timeout_s,
                    )
                )
                ready.set_result(client)
                listener = asyncio.create_task(self._listen(client))
                try:
                    await self._stop.wait()
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
            self._client = None

    async def _target(self, stack: contextlib.AsyncExitStack) -> Any:
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
            return stdio_client(params, errlog=self._errlog())
        assert config.url is not None
        if config.kind == "sse":
            return sse_client(
                config.url,
                headers=config.headers or None,
                timeout=config.startup_timeout_s,
                sse_read_timeout=config.max_timeout_s,
            )
        http = None
        if config.headers:  # the SDK leaves a client it was given open: we close it
            http = await stack.enter_async_context(create_mcp_http_client(config.headers))
        return streamable_http_client(config.url, http_client=http)

    def _errlog(self) -> TextIO:
        if self.config.stderr == "inherit":
            return sys.stderr
        path = os.devnull if self.config.stderr == "discard" else self.config.stderr
        if self._errfile is None or self._errfile.closed:
            self._errfile = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        return self._errfile

    async def _listen(self, client: Client) -> None:
        """Follow `tools/list_changed` on servers of the 2026-07-28 protocol."""
        if self._on_tools_changed is None:
            return
        with contextlib.suppress(Exception):
            async with client.listen(tools_list_changed=True) as subscription:
                async for _ in subscription:
                    await self._on_tools_changed()

    async def _on_message(self, message: object) -> None:
        """Older servers announce tool-list changes as notifications."""
        if isinstance(message, mcp_types.ToolListChangedNotification) and self._on_tools_changed:
            task = asyncio.ensure_future(self._on_tools_changed())
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _stop_owner(self) -> None:
        if self._owner is not None and not self._owner.done():
            self._stop.set()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._owner), 5)
            self._owner.cancel()

    def _transport_error(self, doing: str, error: BaseException) -> TransportError:
        closed = isinstance(error, MCPError) and error.code == CONNECTION_CLOSED
        if closed or not isinstance(error, MCPError):
            return self._broken(f"connection lost while {doing}: {_describe(error)}")
        return TransportError(
            message=f"MCP server {self.name!r} refused {doing}: {error.message}", server=self.name
        )

    def _broken(self, why: str) -> TransportError:
        self.failures += 1
        self._broken_at = time.monotonic()
        self._client = None
        self._stop.set()
        self._set_state("broken", why)
        return TransportError(
            message=f"MCP server {self.name!r} {why}; the next call restarts it", server=self.name
        )

    def _set_state(self, state: State, detail: str) -> None:
        self.state = state
        if self._on_state is not None:
            self._on_state(self.name, state, detail)


def _describe(error: BaseException) -> str:
    return ExecutionFailed.from_exception(error).message


def _from_call_result(result: mcp_types.CallToolResult) -> Result[object, ToolError]:
    """Structured content, else text, else the content blocks as JSON data."""
    texts = [block.text for block in result.content if isinstance(block, mcp_types.TextContent)]
    if result.is_error:
        message = "\n".join(texts) or "the MCP tool reported an error without a message"
        return Failure(ExecutionFailed(message=message, model_can_fix=True))
    if result.structured_content is not None:
        return Success(result.structured_content)
    if len(texts) == len(result.content):
        return Success("\n".join(texts))
    return Success([block.model_dump(mode="json", exclude_none=True) for block in result.content])
