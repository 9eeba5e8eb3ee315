"""toolrail's overhead on an MCP call over the raw `mcp` client, in-process and over stdio.

Raw: `client.call_tool("add", ...)` on one open session. toolrail: `Executor.run` of
`mcp__bench__add` through `McpHub` — validation, namespacing, Result, outcome included.
"""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from pathlib import Path

from mcp import Client, StdioServerParameters

from bench.mcp_server import server
from bench.timing import AsyncCall, measure, report
from toolrail import ExecutionContext, Executor, ToolCall
from toolrail.mcp import McpHub, McpServerConfig

SERVER_FILE = str(Path(__file__).with_name("mcp_server.py"))
ARGS = {"a": 1, "b": 2}


async def main() -> None:
    async with AsyncExitStack() as stack:
        raw_inprocess = await stack.enter_async_context(Client(server))
        stdio = StdioServerParameters(command=sys.executable, args=[SERVER_FILE])
        raw_stdio = await stack.enter_async_context(Client(stdio))
        hub = await stack.enter_async_context(
            McpHub(
                [McpServerConfig(name="stdio", command=sys.executable, args=(SERVER_FILE,))],
                in_process={"inproc": server},
            )
        )
        executor = Executor(hub.registry)
        ctx = ExecutionContext(agent="bench", permissions=frozenset({"mcp:connect"}))

        def raw(client: Client) -> AsyncCall:
            async def call() -> object:
                return await client.call_tool("add", ARGS)

            return call

        def ours(name: str) -> AsyncCall:
            call = ToolCall(name=name, arguments=ARGS)

            async def run() -> object:
                return (await executor.run(call, ctx)).result

            return run

        for label, raw_call, our_call in (
            ("in-process", raw(raw_inprocess), ours("mcp__inproc__add")),
            ("stdio", raw(raw_stdio), ours("mcp__stdio__add")),
        ):
            timings = await measure(
                {
                    f"raw mcp Client.call_tool ({label})": raw_call,
                    f"toolrail Executor.run ({label})": our_call,
                },
                rounds=5,
                per_round=300,
            )
            report(f"MCP call, {label}", timings, baseline=f"raw mcp Client.call_tool ({label})")


if __name__ == "__main__":
    asyncio.run(main())
