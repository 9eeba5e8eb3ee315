"""Streamable HTTP for `McpToolServer`, with the SDK's own safety checks switched on:

    Host not allowed       421   (DNS-rebinding protection: localhost, plus `allowed_hosts`)
    Origin not allowed     403   (localhost, plus `allowed_origins`)
    body over the limit    413   (`max_body_bytes`)
    bearer token missing   401   (only if a token is configured)

It binds to 127.0.0.1 unless told otherwise; `stateless` keeps no sessions, so replicas can
run behind a load balancer.
"""

from __future__ import annotations

import asyncio
import hmac

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from toolrail.config import ServeSection
from toolrail.serve.server import McpToolServer

LOCAL_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]")
LOCAL_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")


class StaticToken:
    """A `TokenVerifier` accepting one shared secret, compared in constant time."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("the bearer token must not be empty")
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="toolrail-client", scopes=[])
        return None


def http_app(server: McpToolServer, *, token: str | None = None) -> Starlette:
    """The ASGI app serving `server` at `settings.path`."""
    settings = server.settings
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*LOCAL_HOSTS, *settings.allowed_hosts],
        allowed_origins=[*LOCAL_ORIGINS, *settings.allowed_origins],
    )
    base = f"http://{_url_host(settings.host)}:{settings.port}"
    return server.server.streamable_http_app(
        streamable_http_path=settings.path,
        stateless_http=settings.stateless,
        max_request_body_size=settings.max_body_bytes,
        transport_security=security,
        host=settings.host,
        auth=AuthSettings(issuer_url=base, resource_server_url=None)  # type: ignore[arg-type]
        if token
        else None,
        token_verifier=StaticToken(token) if token else None,
    )


async def run_http(server: McpToolServer, *, token: str | None = None) -> None:
    """Serve over streamable HTTP until interrupted."""
    settings: ServeSection = server.settings
    config = uvicorn.Config(
        http_app(server, token=token),
        host=settings.host,
        port=settings.port,
        log_level="warning",
        lifespan="on",
    )
    watcher = asyncio.create_task(server.watch())
    try:
        await uvicorn.Server(config).serve()
    finally:
        watcher.cancel()
        await server.executor.aclose()


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
