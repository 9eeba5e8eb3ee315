"""One `tools/call` request as the server sees it while the executor runs it: the client's
session (for progress and elicitation) and, on the 2026-07-28 protocol, the client's answers
to the questions an earlier round asked.

`approve` is the executor's approver: it asks the person behind the request's client by MCP
elicitation — a server-to-client request on handshake-era connections, an
`InputRequiredResult` round trip on 2026-07-28 ones — and denies, saying how to grant it,
when the client cannot be asked.

On 2026-07-28 connections an answer counts only if the server asked for it, once: the
question's round carries `request_state` naming what was asked and an unguessable round id.
The SDK's `RequestStateBoundary` seals that state (the client cannot read or forge it, and
it is bound to this tool, these arguments and the caller) and `AskedRounds` takes each
round once. `input_responses` a client sends unasked, or sends again, approve nothing: the
server asks the person.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
import orjson
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from toolrail._diagnostics import get_logger
from toolrail._jsonish import dumps
from toolrail.core.errors import ApprovalRequired
from toolrail.core.redact import redact
from toolrail.policy.approvals import ApprovalRequest, Approve, Decision, Deny
from toolrail.serve.listing import redacted_text

log = get_logger("toolrail.serve")

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve", "description": "run this call"},
        "reason": {
            "type": "string",
            "title": "Reason",
            "description": "why not, if you deny it (the model reads this)",
        },
    },
    "required": ["approve"],
}


@dataclass(eq=False)
class Exchange:
    """The request being served; lives in a context variable while the executor runs."""

    request: ServerRequestContext[Any, Any]
    input_responses: dict[str, Any] = field(default_factory=dict)
    """The client's answers, counted only under `answerable` keys."""
    answerable: frozenset[str] = frozenset()
    """The keys the server asked about in the round this request retries (from its
    verified `request_state`, taken once)."""
    unanswerable: ApprovalRequired | None = None
    """Set when approval was needed and the client could not be asked."""
    asked: dict[str, types.ElicitRequest] = field(default_factory=dict)
    """Questions for the client on 2026-07-28 connections, sent as an InputRequiredResult."""
    _pending: tuple[float, float | None, str | None] | None = field(default=None, init=False)
    """The latest progress report not sent yet."""
    _sender: asyncio.Task[None] | None = field(default=None, init=False)

    def report_progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Send a progress notification for the request's token (if it gave one). Reports
        are coalesced: one waiting to be sent (the sender has not run yet, or is sending the
        one before) is replaced by a newer one, so a tool reporting in a tight loop sends a
        few notifications, not one per report, in order. The last report is never dropped:
        `flush` waits for it."""
        self._pending = (progress, total, message)
        if self._sender is None:
            self._sender = asyncio.ensure_future(self._send_pending())

    async def _send_pending(self) -> None:
        try:
            while self._pending is not None:
                progress, total, message = self._pending
                self._pending = None
                text = redacted_text(message) if message else message  # as every text sent is
                try:
                    await self.request.session.report_progress(progress, total, text)
                except Exception as error:  # a client that went away must not break the call
                    log.debug("progress notification not sent", error=str(error))
        finally:
            self._sender = None

    async def flush(self) -> None:
        """Let the last progress notification go out before the result does."""
        if self._sender is not None:
            await self._sender


CURRENT: contextvars.ContextVar[Exchange | None] = contextvars.ContextVar(
    "toolrail_serve_exchange", default=None
)


async def approve(request: ApprovalRequest) -> Decision:
    """Ask the person behind the current request's client; nothing runs until they answer."""
    exchange = CURRENT.get()
    if exchange is None:
        return Deny(message="approval is required and there is no client to ask")
    session = exchange.request.session
    capabilities = session.client_capabilities
    if capabilities is None and not session.can_send_request:
        # no handshake on record and no channel back: stateless HTTP on a handshake-era
        # protocol, where the server cannot tell what the client supports, nor ask it
        version = exchange.request.protocol_version
        why = (
            f"this server serves stateless HTTP, which keeps no session with a client on "
            f"protocol {version}: there is no connection to send it the question over"
        )
        return _unanswerable(exchange, request, why, grant=_GRANT_STATELESS)
    if capabilities is None or capabilities.elicitation is None:
        return _unanswerable(exchange, request, "this MCP client does not support elicitation")
    question = _question(request)
    if session.can_send_request:
        try:
            answer = await session.elicit_form(
                question, APPROVAL_SCHEMA, related_request_id=exchange.request.request_id
            )
        except (MCPError, OSError, RuntimeError, ValueError) as error:
            log.warning(
                "asking the client for approval failed", tool=request.tool, error=str(error)
            )
            return _unanswerable(exchange, request, f"asking the client failed ({error})")
        return _decision(answer)
    # 2026-07-28: no server-to-client requests; the question rides the result, the answer
    # comes back with the retried call, keyed by what is being approved
    key = approval_key(request)
    given = exchange.input_responses.get(key) if key in exchange.answerable else None
    if isinstance(given, types.ElicitResult):
        return _decision(given)
    exchange.asked[key] = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=question, requested_schema=APPROVAL_SCHEMA)
    )
    return Deny(
        message="not yet: approval was asked of the MCP client; the call runs when it answers"
    )


class AskedRounds:
    """The approval rounds a server asked on 2026-07-28 connections: `state` names what a
    round asked (as `request_state`, which the SDK's boundary seals), `answerable` takes a
    retried request's state once and says which answers may count. Rounds taken are
    remembered until their state expires, so a round's answers approve one call."""

    def __init__(self, ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._taken: dict[str, float] = {}

    def state(self, asked: Iterable[str]) -> str:
        """The `request_state` of a round asking `asked`, with a fresh round id."""
        return orjson.dumps({"round": secrets.token_hex(16), "asked": sorted(asked)}).decode()

    def answerable(self, state: str | None) -> frozenset[str]:
        """The keys `state` (verified by the boundary) asked about; none if there is no
        state, it is not one of ours, or its round was taken before."""
        if not state:
            return frozenset()
        try:
            data = orjson.loads(state)
        except orjson.JSONDecodeError:
            return frozenset()
        round_id = data.get("round") if isinstance(data, dict) else None
        asked = data.get("asked") if isinstance(data, dict) else None
        if not isinstance(round_id, str) or not isinstance(asked, list):
            return frozenset()
        now = self._clock()
        self._taken = {r: until for r, until in self._taken.items() if until > now}
        if round_id in self._taken:
            log.warning("an approval round was answered again; asking anew")
            return frozenset()
        self._taken[round_id] = now + self.ttl_s
        return frozenset(key for key in asked if isinstance(key, str))


def approval_key(request: ApprovalRequest) -> str:
    """Names one tool with one set of arguments: an answer approves exactly that call. (Any
    client can compute it: what makes an answer count is the round that asked for it.)"""
    body = orjson.dumps([request.tool, dict(request.arguments)], option=orjson.OPT_SORT_KEYS)
    return "approve-" + hashlib.sha256(body).hexdigest()[:24]


def _question(request: ApprovalRequest) -> str:
    arguments = dumps(redact(dict(request.arguments))).decode()
    return f"Allow {request.tool} {arguments}? ({request.reason}; agent {request.agent})"


def _decision(answer: types.ElicitResult) -> Decision:
    content = answer.content or {}
    if answer.action == "accept" and content.get("approve") is True:
        return Approve()
    if answer.action == "accept":
        reason = content.get("reason")
        return Deny(message=str(reason) if reason else "a person declined this call")
    done = _ANSWERED.get(answer.action, f"answered {answer.action!r} to")
    return Deny(message=f"a person {done} the approval request")


_ANSWERED = {"decline": "declined", "cancel": "cancelled"}
"""An elicitation's action, as what the person did."""

_GRANT_BY_CLIENT = "call it from an MCP client that supports elicitation, which asks the person"
_GRANT_STATELESS = (
    "call it from an MCP client on the 2026-07-28 protocol, which the server asks within the "
    "call's result; or serve with sessions (without --stateless), so that the server can ask "
    "a client that supports elicitation"
)


def _unanswerable(
    exchange: Exchange, request: ApprovalRequest, why: str, *, grant: str = _GRANT_BY_CLIENT
) -> Decision:
    message = (
        f"{request.tool} needs a person's approval ({request.reason}) and {why}. To grant it, "
        f"{grant}; or, if it should not ask, remove the `ask` or `needs_approval` entry of "
        "toolrail.toml that matches it"
    )
    exchange.unanswerable = ApprovalRequired(message=message, tool=request.tool)
    return Deny(message=message)
