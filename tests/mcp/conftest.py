"""Fixtures for MCP tests: configs that start real servers as subprocesses."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolrail.mcp import McpServerConfig

SERVER = str(Path(__file__).with_name("server.py"))


@pytest.fixture
def test_server() -> McpServerConfig:
    return McpServerConfig(
        name="test", command=sys.executable, args=(SERVER,), timeout_s=5, stderr="discard"
    )


@pytest.fixture
def time_server() -> McpServerConfig:
    """PyPI's mcp-server-time, a third-party server, installed by the dev extra."""
    return McpServerConfig(
        name="time",
        command=sys.executable,
        args=("-m", "mcp_server_time", "--local-timezone", "UTC"),
        trusted=True,
        stderr="discard",
    )
