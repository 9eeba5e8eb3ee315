"""A small real MCP server for the tracing tests: it answers with the `_meta` it received."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("toolrail-trace-test")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def traceparent(ctx: Context) -> str:
    """The W3C traceparent the request carried in `_meta`, or an empty string."""
    meta = ctx.request_context.meta or {}
    return str(meta.get("traceparent", ""))


if __name__ == "__main__":
    server.run("stdio")
