"""A stdio transport that bounds each message and remembers how its server ended.

The SDK's `stdio_client` buffers a line without limit (and joins it quadratically), so one
huge answer holds the session for as long as it takes to arrive. This one reads bytes,
refuses a message past `max_bytes` by ending the session at once, parses big messages
off the event loop, and keeps the server's exit status and the tail of its stderr for the
error that names them. Shutdown is the SDK's own (stdin closed, grace period, process tree
killed).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import TextIO

import anyio
import anyio.abc
import anyio.to_thread
import mcp_types
from mcp.client._transport import TransportStreams
from mcp.client.stdio import StdioServerParameters, get_default_environment
from mcp.client.stdio import _stop_server_process as stop_server_process
from mcp.shared.message import SessionMessage

TAIL_BYTES = 2048
_GONE = (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError)
_THREAD_PARSE_BYTES = 1 << 20  # parse messages bigger than this on a worker thread


@dataclass(slots=True)
class StdioReport:
    """What one server process did: owned and updated by its transport, read on failure."""

    pid: int | None = None
    returncode: int | None = None
    oversized: int | None = None
    """Bytes received of a message refused for being past the limit."""
    receiving: int = 0
    """Bytes of a message still arriving (0 between messages)."""
    stderr: bytearray = field(default_factory=bytearray)

    def note_stderr(self, chunk: bytes) -> None:
        self.stderr += chunk
        del self.stderr[:-TAIL_BYTES]

    def stderr_tail(self, lines: int = 8) -> str:
        text = self.stderr.decode("utf-8", "replace").rstrip()
        return "\n".join(text.splitlines()[-lines:])


@asynccontextmanager
async def bounded_stdio_client(
    params: StdioServerParameters, *, errlog: TextIO | None, max_bytes: int, report: StdioReport
) -> AsyncIterator[TransportStreams]:
    """Spawn the server; yield the session's streams; stop the server on exit."""
    process = await anyio.open_process(
        [params.command, *params.args],
        env=get_default_environment() | (params.env or {}),
        cwd=params.cwd,
        stderr=subprocess.PIPE,
        start_new_session=sys.platform != "win32",
    )
    report.pid = process.pid
    reader_end, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, writer_end = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_stdout() -> None:
        assert process.stdout is not None
        async with reader_end:
            with suppress(*_GONE):
                async for line in _lines(process.stdout, max_bytes, report):
                    await reader_end.send(await _parse(line))
        # refused or ended: keep the pipe empty so the server can still exit
        with suppress(
            anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
        ):
            while True:
                await process.stdout.receive()

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with writer_end:
                async for message in writer_end:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((data + "\n").encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await reader_end.aclose()

    stderr_done = anyio.Event()

    async def read_stderr() -> None:
        assert process.stderr is not None
        try:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for chunk in process.stderr:
                    report.note_stderr(chunk)
                    if errlog is not None:
                        with suppress(OSError, ValueError):
                            errlog.write(chunk.decode("utf-8", "replace"))
                            errlog.flush()
        finally:
            stderr_done.set()

    async def watch_exit() -> None:
        report.returncode = await process.wait()

    async with anyio.create_task_group() as group:
        group.start_soon(read_stdout)
        group.start_soon(write_stdin)
        group.start_soon(read_stderr)
        group.start_soon(watch_exit)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                await stop_server_process(process)
                report.returncode = process.returncode
                with anyio.move_on_after(1):  # the server's last words, for the error
                    await stderr_done.wait()
                for stream in (read_stream, write_stream, reader_end, writer_end):
                    await stream.aclose()
            group.cancel_scope.cancel()


async def _lines(
    stdout: anyio.abc.ByteReceiveStream, max_bytes: int, report: StdioReport
) -> AsyncIterator[bytes]:
    """Newline-delimited messages; stops (and notes it) at one longer than `max_bytes`."""
    parts: list[bytes] = []
    async for chunk in stdout:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if report.receiving + end - start > max_bytes:
                report.oversized = report.receiving + end - start
                return
            parts.append(chunk[start:end])
            line = b"".join(parts)
            parts.clear()
            report.receiving = 0
            start = end + 1
            if line.strip():
                yield line
        if start < len(chunk):
            parts.append(chunk[start:])
            report.receiving += len(chunk) - start
            if report.receiving > max_bytes:
                report.oversized = report.receiving
                return


async def _parse(line: bytes) -> SessionMessage | Exception:
    if len(line) > _THREAD_PARSE_BYTES:
        return await anyio.to_thread.run_sync(_parse_now, line)
    return _parse_now(line)


def _parse_now(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as error:
        return error
