"""The MCP server the MCP benchmark calls, in-process and as a stdio subprocess."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("bench", log_level="WARNING")  # no per-request log lines: a fair peer


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    server.run("stdio")
