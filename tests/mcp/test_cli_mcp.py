"""`toolrail mcp list` and MCP tools through `toolrail call`, from a toolrail.toml."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from toolrail.cli import main
from toolrail.config import Config

from .conftest import SERVER


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / ".mcp.json").write_text(
        orjson.dumps(
            {
                "mcpServers": {
                    "clock": {
                        "command": sys.executable,
                        "args": ["-m", "mcp_server_time"],
                        "trusted": True,
                        "stderr": "discard",
                    }
                }
            }
        ).decode()
    )
    path = tmp_path / "toolrail.toml"
    path.write_text(
        f'[mcp]\njson = ".mcp.json"\npins = "pins.json"\n\n'
        f'[mcp.servers.test]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n'
        f'stderr = "discard"\n\n[agents.ops]\ntools = ["mcp__clock__*"]\n'
        'permissions = ["mcp:connect"]\n'
    )
    return path


def test_config_reads_both_server_sources(config: Path) -> None:
    """`[mcp.servers.*]` and the `.mcp.json` named by `[mcp] json` both count."""
    servers = Config.load(config).unwrap().mcp_servers().unwrap()
    assert [s.name for s in servers] == ["test", "clock"]


def test_mcp_list(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Servers with their state and namespaced tools, mapped back to original names."""
    assert main(["mcp", "list", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "test: ready" in out
    assert "clock: ready" in out
    assert "mcp__clock__get_current_time" in out
    assert "← get_current_time" in out
    assert "skipped broken_schema" in out


def test_call_an_mcp_tool_as_an_agent(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An agent's table covers MCP tools like any other."""
    args = '{"timezone": "Asia/Tokyo"}'
    assert (
        main(
            [
                "call",
                "mcp__clock__get_current_time",
                "--args",
                args,
                "--config",
                str(config),
                "--agent",
                "ops",
            ]
        )
        == 0
    )
    assert orjson.loads(capsys.readouterr().out)["output"]["timezone"] == "Asia/Tokyo"
    assert (
        main(
            [
                "call",
                "mcp__test__add",
                "--args",
                '{"a": 1, "b": 2}',
                "--config",
                str(config),
                "--agent",
                "ops",
            ]
        )
        == 1
    )
    assert orjson.loads(capsys.readouterr().out)["error"]["kind"] == "not_allowed"


def test_a_lone_mcp_json_is_enough(
    config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a toolrail.toml, the .mcp.json in the working directory is used."""
    config.unlink()
    monkeypatch.chdir(config.parent)
    assert main(["mcp", "list"]) == 0
    out = capsys.readouterr().out
    assert "clock: ready" in out
    assert "test:" not in out
