"""MCP: other servers' tools as toolrail tools (`McpHub`), named `mcp__<server>__<tool>`."""

from toolrail.mcp.config import McpServerConfig as McpServerConfig
from toolrail.mcp.config import load_mcp_json as load_mcp_json
from toolrail.mcp.config import servers_from_config as servers_from_config
from toolrail.mcp.hub import McpHub as McpHub
from toolrail.mcp.naming import namespaced as namespaced

__all__ = ["McpHub", "McpServerConfig", "load_mcp_json", "namespaced", "servers_from_config"]
