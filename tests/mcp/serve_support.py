"""Helpers for the `toolrail serve` tests: a config on disk, the server as a subprocess
(stdio or HTTP), and the JSONL log it writes."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from mcp import StdioServerParameters

from toolrail.mcp import McpServerConfig

TOOLS = Path(__file__).with_name("serve_tools.py")
UPSTREAM = Path(__file__).with_name("server.py")


def write_config(
    directory: Path,
    extra: str = "",
    *,
    modules: tuple[Path, ...] = (TOOLS,),
    tools: str = '["*"]',
    permissions: str = '["mcp:connect"]',
    policy: str = 'ask = ["write_note"]',
) -> Path:
    """A toolrail.toml serving `modules` (`serve_tools.py`) as agent "client", which may
    call `tools` with `permissions`, under `policy` (asking before write_note); `extra`
    goes into `[serve]`, or after it."""
    config = directory / "toolrail.toml"
    config.write_text(
        f"""
[tools]
modules = [{", ".join(repr(str(module)) for module in modules)}]

[logging]
directory = "logs"

[agents.client]
tools = {tools}
permissions = {permissions}

[policy]
{policy}

[serve]
agent = "client"
{extra}
""",
        encoding="utf-8",
    )
    return config


def with_upstream(directory: Path) -> Path:
    """The config, plus the upstream test MCP server whose tool list can grow."""
    return write_config(
        directory,
        f"""
[mcp.servers.test]
command = {sys.executable!r}
args = [{str(UPSTREAM)!r}]
stderr = "discard"
on_change = "accept"  # tools it grows are trusted: these tests follow list_changed
""",
    )


def serve_args(config: Path, *extra: str) -> list[str]:
    return ["-m", "toolrail.cli", "serve", "--config", str(config), *extra]


def stdio_params(config: Path, *extra: str) -> StdioServerParameters:
    """For an SDK `Client`: `toolrail serve` as a stdio subprocess."""
    return StdioServerParameters(command=sys.executable, args=serve_args(config, *extra))


def hub_config(config: Path, *extra: str, name: str = "toolrail") -> McpServerConfig:
    """For toolrail's own `McpHub`: `toolrail serve` as a stdio server it consumes."""
    return McpServerConfig(
        name=name,
        command=sys.executable,
        args=tuple(serve_args(config, *extra)),
        trusted=True,
        stderr="discard",
        timeout_s=20,
        on_change="accept",  # tools added mid-session are trusted: the tests follow list_changed
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def http_server(config: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`toolrail serve --transport http` on a free port; yields its URL, stops it after."""
    port = free_port()
    command = [sys.executable, *serve_args(config, "--transport", "http", "--port", str(port))]
    # stderr to a file, not a pipe: a chatty server never blocks on it
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [*command, *extra],
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        try:
            _wait_until_listening(process, port, errors)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def served(config: Path, transport: str) -> Iterator[StdioServerParameters | str]:
    """What a client connects to: `toolrail serve` over stdio, or over HTTP (its URL)."""
    if transport == "stdio":
        yield stdio_params(config)
    else:
        with http_server(config) as url:
            yield url


def _wait_until_listening(process: subprocess.Popen[bytes], port: int, errors: Any) -> None:
    deadline = time.monotonic() + 30
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        if process.poll() is not None:
            errors.seek(0)
            raise RuntimeError(f"toolrail serve exited: {errors.read().decode()}")
        if time.monotonic() > deadline:
            raise TimeoutError("toolrail serve did not start listening")
        time.sleep(0.05)


def log_entries(directory: Path) -> list[dict[str, Any]]:
    """Every call the server recorded in its JSONL log."""
    entries: list[dict[str, Any]] = []
    for file in sorted((directory / "logs").glob("*.jsonl")):
        entries.extend(orjson.loads(line) for line in file.read_bytes().splitlines() if line)
    return entries


def wait_for(condition: Any, timeout_s: float = 15.0) -> None:
    """Poll `condition()` until it holds (a generous bound: CI machines are slow)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition never held")
        time.sleep(0.05)
