"""Per-call overhead of `toolrail serve` against the SDK's FastMCP (`MCPServer`) serving the
same tool directly, over stdio and over streamable HTTP, as a ratio.

Both servers run as subprocesses and are called by the same raw `mcp` Client; the toolrail
side includes the whole railway (lookup, validation, outcome, the JSONL call log, result
mapping).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from mcp import Client, StdioServerParameters

from toolrail import tool

ROOT = Path(__file__).resolve().parent.parent
ARGS = {"a": 1, "b": 2}


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def _listening(command: list[str], port: int) -> Iterator[str]:
    quiet = subprocess.DEVNULL
    process = subprocess.Popen(command, cwd=ROOT, stdin=quiet, stdout=quiet, stderr=quiet)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{command} did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


SERVE = [sys.executable, "-m", "toolrail.cli", "serve", "--module", str(Path(__file__))]
FASTMCP = [sys.executable, str(ROOT / "bench" / "mcp_server.py")]


@contextlib.asynccontextmanager
async def _clients(transport: str) -> AsyncIterator[tuple[Client, Client]]:
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            fast = StdioServerParameters(command=FASTMCP[0], args=FASTMCP[1:])
            ours = StdioServerParameters(command=SERVE[0], args=SERVE[1:])
            yield (
                await stack.enter_async_context(Client(fast)),
                await stack.enter_async_context(Client(ours)),
            )
            return
        fast_port, our_port = _free_port(), _free_port()
        serve_http = [*SERVE, "--transport", "http", "--port", str(our_port)]
        fast_http = [
            sys.executable,
            "-c",
            f"from bench.mcp_server import server; server.run('streamable-http', port={fast_port})",
        ]
        fast_url = stack.enter_context(_listening(fast_http, fast_port))
        our_url = stack.enter_context(_listening(serve_http, our_port))
        yield (
            await stack.enter_async_context(Client(fast_url)),
            await stack.enter_async_context(Client(our_url)),
        )


async def main() -> None:
    from bench.timing import AsyncCall, measure, report

    def caller(client: Client) -> AsyncCall:
        async def call() -> object:
            return await client.call_tool("add", ARGS)

        return call

    for transport in ("stdio", "http"):
        async with _clients(transport) as (fast, ours):
            baseline = f"FastMCP server ({transport})"
            timings = await measure(
                {baseline: caller(fast), f"toolrail serve ({transport})": caller(ours)},
                rounds=5,
                per_round=200,
            )
            report(f"MCP server, one tools/call over {transport}", timings, baseline=baseline)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    asyncio.run(main())
