"""HTTP clients for MCP's streamable HTTP and SSE transports that bound each message.

The SDK reads a response (one JSON message, or a stream of server-sent events) without a
limit. The transport here counts the bytes of the message being received — a JSON body
whole, an event stream per event (up to the blank line that ends each one) — and ends the
response when one passes `max_bytes`, noting it in the connection's report so the call
fails naming `max_message_bytes` instead of buffering without bound.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

from toolrail.mcp.stdio import StdioReport


class MessageTooLarge(httpx2.ReadError):
    """A message passed the server's `max_message_bytes`."""


class _Bounded(httpx2.AsyncByteStream):
    def __init__(
        self, inner: httpx2.AsyncByteStream, max_bytes: int, events: bool, report: StdioReport
    ) -> None:
        self._inner, self._max, self._events, self._report = inner, max_bytes, events, report

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for chunk in self._inner:
            if self._events:  # bytes since the last event ended (a blank line)
                end = max(chunk.rfind(b"\n\n"), chunk.rfind(b"\r\n\r\n"))
                size = len(chunk) - end if end >= 0 else size + len(chunk)
            else:
                size += len(chunk)
            if size > self._max:
                self._report.oversized = size
                raise MessageTooLarge(f"a message passed {self._max} bytes (max_message_bytes)")
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    """Wraps a transport so that every response's messages are bounded."""

    def __init__(self, max_bytes: int, report: StdioReport) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._max, self._report = max_bytes, report

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        events = response.headers.get("content-type", "").startswith("text/event-stream")
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_Bounded(response.stream, self._max, events, self._report),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def bounded_client(
    max_bytes: int,
    report: StdioReport,
    headers: dict[str, str] | None = None,
    timeout: httpx2.Timeout | None = None,
    auth: httpx2.Auth | None = None,
) -> httpx2.AsyncClient:
    """The SDK's default client (`create_mcp_http_client`), with bounded messages."""
    kwargs: dict[str, Any] = {
        "timeout": timeout
        or httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        "transport": BoundedTransport(max_bytes, report),
    }
    if headers is not None:
        kwargs["headers"] = headers
    if auth is not None:
        kwargs["auth"] = auth
    return httpx2.AsyncClient(**kwargs)
