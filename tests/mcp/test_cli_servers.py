"""The CLI starts only the MCP servers a command needs, and a broken one is named once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from .conftest import SERVER

NOT_MCP = f'command = "{sys.executable}"\nargs = ["-c", "import time; time.sleep(100)"]\n'
LOCAL = 'def add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n'


def toolrail(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "toolrail.cli", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_a_broken_server_fails_mcp_list_and_is_named_once(tmp_path: Path) -> None:
    """A program that is not an MCP server: exit 1, one line saying why, no asyncio noise."""
    (tmp_path / "toolrail.toml").write_text(
        f"[mcp.servers.sleepy]\n{NOT_MCP}startup_timeout_s = 2\n"
    )
    done = toolrail("mcp", "list", cwd=tmp_path)
    assert done.returncode == 1
    assert "sleepy: broken" in done.stdout
    assert done.stderr.count("sleepy") == 1, done.stderr
    assert "did not start within 2s" in done.stderr
    assert "never retrieved" not in done.stderr
    assert "Traceback" not in done.stderr


def test_calling_a_local_tool_starts_no_server(tmp_path: Path) -> None:
    """`toolrail call add` with a broken server configured: the server is never started."""
    (tmp_path / "local_tools.py").write_text("from toolrail import tool\n\n\n@tool\n" + LOCAL)
    (tmp_path / "toolrail.toml").write_text(
        f'[tools]\nmodules = ["local_tools.py"]\n\n[mcp.servers.sleepy]\n{NOT_MCP}'
        "startup_timeout_s = 30\n"
    )
    done = toolrail("call", "add", "--args", '{"a": 1, "b": 2}', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout)["output"] == 3
    assert "sleepy" not in done.stderr


def test_calling_an_mcp_tool_starts_only_its_server(tmp_path: Path) -> None:
    (tmp_path / "toolrail.toml").write_text(
        f'[mcp.servers.test]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n'
        f'stderr = "discard"\n\n[mcp.servers.sleepy]\n{NOT_MCP}startup_timeout_s = 30\n'
    )
    done = toolrail("call", "mcp__test__add", "--args", '{"a": 1, "b": 2}', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "sleepy" not in done.stderr


def test_config_may_be_an_mcp_json(tmp_path: Path) -> None:
    """`--config .mcp.json`: an MCP client's file is a whole configuration."""
    servers = {"test": {"command": sys.executable, "args": [str(SERVER)], "stderr": "discard"}}
    (tmp_path / "clients.mcp.json").write_bytes(orjson.dumps({"mcpServers": servers}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = toolrail("mcp", "list", "--config", str(tmp_path / "clients.mcp.json"), cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert "test: ready" in done.stdout
    assert "mcp__test__add" in done.stdout


def test_a_tool_of_a_server_that_never_started_is_a_transport_error(tmp_path: Path) -> None:
    """No pins, no listing: `mcp__sleepy__anything` still names its server and why."""
    (tmp_path / "toolrail.toml").write_text(
        f"[mcp.servers.sleepy]\n{NOT_MCP}startup_timeout_s = 2\n"
    )
    done = toolrail("call", "mcp__sleepy__get_time", cwd=tmp_path)
    assert done.returncode == 1
    error = orjson.loads(done.stdout)["error"]
    assert error["kind"] == "transport_error", error
    assert error["server"] == "sleepy"
    assert "did not start within 2s" in error["message"]
