"""The MCP Inspector CLI (npm `@modelcontextprotocol/inspector`, `--cli` mode) listing and
calling tools against `toolrail serve` in each mode, over stdio and streamable HTTP.

`make test` installs the Inspector from tests/mcp/inspector/package-lock.json; run alone,
the fixture installs it the same way. Skipped only when npm is not installed at all.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from .serve_support import http_server, write_config

INSPECTOR_DIR = Path(__file__).with_name("inspector")
TOOLRAIL = str(Path(sys.executable).with_name("toolrail"))


@pytest.fixture(scope="session")
def inspector() -> str:
    binary = INSPECTOR_DIR / "node_modules" / ".bin" / "mcp-inspector"
    if not binary.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed, so the MCP Inspector CLI cannot be")
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=INSPECTOR_DIR,
            check=True,
            timeout=900,
            stdout=subprocess.DEVNULL,
        )
    return str(binary)


def inspect(inspector: str, target: list[str], cwd: Path, *method: str) -> Any:
    """Run the Inspector CLI once; its stdout is the JSON answer."""
    done = subprocess.run(
        [inspector, "--cli", *target, "--method", *method],
        cwd=cwd,  # `toolrail serve` reads ./toolrail.toml
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return orjson.loads(done.stdout)


def stdio(tmp_path: Path, mode: str, extra: str = "") -> list[str]:
    write_config(tmp_path, f'mode = "{mode}"\n{extra}')
    return [TOOLRAIL, "serve"]


def test_static_mode(inspector: str, tmp_path: Path) -> None:
    target = stdio(tmp_path, "static")
    listed = inspect(inspector, target, tmp_path, "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}
    assert {"greet", "add", "weather", "write_note"} <= set(tools)
    assert "whoami" not in tools  # the served agent lacks its permission
    assert "find_relevant_tools" not in tools
    assert tools["greet"]["annotations"]["readOnlyHint"] is True
    called = inspect(
        inspector, target, tmp_path, "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=5"
    )
    assert called["structuredContent"] == {"result": 7}
    assert called["content"][0]["text"] == "7"
    failed = inspect(
        inspector, target, tmp_path, "tools/call", "--tool-name", "fail", "--tool-arg", "reason=x"
    )
    assert failed["isError"] is True
    assert "failed: x" in failed["content"][0]["text"]


def test_dynamic_mode(inspector: str, tmp_path: Path) -> None:
    target = stdio(tmp_path, "dynamic")
    listed = inspect(inspector, target, tmp_path, "tools/list")
    assert [t["name"] for t in listed["tools"]] == ["find_relevant_tools", "execute_tool"]
    found = inspect(
        inspector,
        target,
        tmp_path,
        "tools/call",
        "--tool-name",
        "find_relevant_tools",
        "--tool-arg",
        "query=add two integers",
        "limit=2",
    )
    assert found["structuredContent"]["tools"][0]["name"] == "add"
    assert len(found["structuredContent"]["tools"]) <= 2
    ran = inspect(
        inspector,
        target,
        tmp_path,
        "tools/call",
        "--tool-name",
        "execute_tool",
        "--tool-arg",
        "tool_name=weather",
        'arguments={"city": "Oslo"}',
    )
    assert ran["structuredContent"] == {"city": "Oslo", "celsius": 21.5}


def test_hybrid_mode(inspector: str, tmp_path: Path) -> None:
    target = stdio(tmp_path, "hybrid", 'pinned = ["greet", "weather"]')
    listed = inspect(inspector, target, tmp_path, "tools/list")
    assert [t["name"] for t in listed["tools"]] == [
        "greet",
        "weather",
        "find_relevant_tools",
        "execute_tool",
    ]
    called = inspect(
        inspector, target, tmp_path, "tools/call", "--tool-name", "greet", "--tool-arg", "name=ada"
    )
    assert called["content"][0]["text"] == "hello ada"


def test_over_http(inspector: str, tmp_path: Path) -> None:
    with http_server(write_config(tmp_path)) as url:
        target = [url, "--transport", "http"]
        listed = inspect(inspector, target, tmp_path, "tools/list")
        assert "greet" in {t["name"] for t in listed["tools"]}
        called = inspect(
            inspector,
            target,
            tmp_path,
            "tools/call",
            "--tool-name",
            "add",
            "--tool-arg",
            "a=1",
            "b=1",
        )
        assert called["structuredContent"] == {"result": 2}
