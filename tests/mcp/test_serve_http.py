"""`toolrail serve --transport http`: the transport safety checks, over real HTTP."""

from __future__ import annotations

from pathlib import Path

import httpx2 as httpx
import mcp.types as types
import pytest
from mcp import Client

from toolrail import ExecutionContext, Executor, ToolCall
from toolrail.config import ServeSection
from toolrail.mcp import McpHub, McpServerConfig

from .serve_support import http_server, write_config

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream"}


def post(url: str, body: object = INITIALIZE, **headers: str) -> httpx.Response:
    with httpx.Client(timeout=20) as client:
        return client.post(url, json=body, headers={**HEADERS, **headers})


def test_binds_to_localhost_by_default() -> None:
    assert ServeSection().host == "127.0.0.1"


def test_forged_host_is_refused_with_421(tmp_path: Path) -> None:
    """DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host."""
    with http_server(write_config(tmp_path)) as url:
        port = url.split(":")[2].split("/")[0]
        assert post(url, Host="evil.example").status_code == 421
        assert post(url, Host=f"evil.example:{port}").status_code == 421
        assert post(url, Host=f"localhost:{port}").status_code == 200


def test_forged_origin_is_refused_with_403(tmp_path: Path) -> None:
    config = write_config(tmp_path, 'allowed_origins = ["https://app.example"]')
    with http_server(config) as url:
        assert post(url, Origin="http://evil.example").status_code == 403
        assert post(url, Origin="https://app.example").status_code == 200
        assert post(url, Origin="http://localhost:3000").status_code == 200
        assert post(url).status_code == 200  # no Origin: not a browser


def test_oversized_body_is_refused_with_413(tmp_path: Path) -> None:
    with http_server(write_config(tmp_path, "max_body_bytes = 2000")) as url:
        padded = {**INITIALIZE, "params": {**INITIALIZE["params"], "pad": "x" * 5000}}  # type: ignore[dict-item]
        assert post(url, padded).status_code == 413
        assert post(url).status_code == 200


def test_bearer_token_is_required_when_configured(tmp_path: Path) -> None:
    secret = "s3cret-token-for-tests"
    config = write_config(tmp_path, 'token_env = "TOOLRAIL_TEST_TOKEN"')
    with http_server(config, env={"TOOLRAIL_TEST_TOKEN": secret}) as url:
        assert post(url).status_code == 401
        assert post(url, Authorization="Bearer wrong-token").status_code == 401
        assert post(url, Authorization=f"Bearer {secret}").status_code == 200


@pytest.mark.anyio
async def test_a_hub_with_the_token_calls_through(tmp_path: Path) -> None:
    secret = "s3cret-token-for-tests"
    config = write_config(tmp_path, 'token_env = "TOOLRAIL_TEST_TOKEN"')
    with http_server(config, env={"TOOLRAIL_TEST_TOKEN": secret}) as url:
        server = McpServerConfig(
            name="gw", url=url, headers={"Authorization": f"Bearer {secret}"}, timeout_s=20
        )
        async with McpHub([server]) as hub:
            call = ToolCall(name="mcp__gw__greet", arguments={"name": "ada"})
            ctx = ExecutionContext(permissions=frozenset({"mcp:connect"}))
            outcome = await Executor(hub.registry).run(call, ctx)
    assert outcome.result.unwrap() == "hello ada"


def test_a_missing_token_refuses_to_start(tmp_path: Path) -> None:
    config = write_config(tmp_path, 'token_env = "TOOLRAIL_TEST_TOKEN_UNSET"')
    with pytest.raises(RuntimeError, match="holds no bearer token"), http_server(config):
        pass


@pytest.mark.anyio
async def test_stateless_mode_keeps_no_session(tmp_path: Path) -> None:
    with http_server(write_config(tmp_path), "--stateless") as url:
        assert "mcp-session-id" not in post(url).headers
        async with Client(url, mode="legacy") as client:
            result = await client.call_tool("greet", {"name": "lb"})
        assert isinstance(result.content[0], types.TextContent)
        assert result.content[0].text == "hello lb"
    with http_server(write_config(tmp_path)) as url:
        assert "mcp-session-id" in post(url).headers  # stateful by default
