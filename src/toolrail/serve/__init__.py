"""Serving a toolrail registry to MCP clients (`toolrail serve`): `McpToolServer`."""

from toolrail.serve.server import McpToolServer as McpToolServer

__all__ = ["McpToolServer"]
