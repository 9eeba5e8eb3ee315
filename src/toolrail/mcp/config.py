"""MCP server configuration: `[mcp.servers.<name>]` in toolrail.toml, or a `.mcp.json`
(`{"mcpServers": {"name": {"command", "args", "env", "cwd"} | {"url", "headers"}}}`),
with `${VAR}` and `${VAR:-default}` expanded from the environment."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import orjson
import pydantic
from returns.result import Failure, Result, Success

_INVALID = re.compile(r"[^a-zA-Z0-9_-]")  # as naming.sanitize replaces them
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

OnChange = Literal["disable", "approve", "accept"]


class McpServerConfig(pydantic.BaseModel):
    """How to reach one server and how far to trust it."""

    model_config = pydantic.ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = {}
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = {}
    transport: Literal["stdio", "http", "sse", "inprocess"] | None = None
    """Inferred from `command` / `url`; "inprocess" is for a server object given to the hub."""
    trusted: bool = False
    """Whether the server's tool annotations (read-only, idempotent...) are believed."""
    timeout_s: float = 60.0
    """Idle deadline of a call: it fails if no result or progress arrives for this long."""
    max_timeout_s: float = 300.0
    """Hard cap on a call, however much progress it reports."""
    tool_timeouts: dict[str, float] = {}
    """Idle deadlines per (original) tool name."""
    startup_timeout_s: float = 30.0
    on_change: OnChange = "disable"
    """What to do when a tool's definition changes after it was first seen."""
    stderr: str = "inherit"
    """A stdio server's stderr: "inherit", "discard", or a file path to append to."""
    rename: dict[str, str] = {}
    """Original tool name → the tool part of its toolrail name, to settle clashes."""
    handshake: Literal["auto", "legacy"] = "auto"
    """"auto" discovers the newest protocol both sides speak; "legacy" insists on the
    `initialize` handshake (2025-11-25 and before), for servers whose discovery misbehaves."""
    max_message_bytes: int = pydantic.Field(default=32 * 1024 * 1024, gt=0)
    """A stdio server's largest message: a bigger one fails its call and resets the session."""

    @pydantic.field_validator("name")
    @classmethod
    def _unambiguous(cls, name: str) -> str:
        """`mcp__<server>__<tool>` must say where the server ends: no `__` in the server part."""
        part = _INVALID.sub("_", name)
        if not part or "__" in part or part.startswith("_") or part.endswith("_"):
            raise ValueError(
                f"server name {name!r} would make tool names ambiguous: use letters, digits, "
                "'-' and single '_' inside the name (e.g. 'git-hub' or 'git_hub')"
            )
        return name

    @pydantic.model_validator(mode="after")
    def _one_way_in(self) -> McpServerConfig:
        if self.transport == "inprocess":
            return self
        if (self.command is None) == (self.url is None):
            raise ValueError(f"server {self.name!r} needs exactly one of `command` or `url`")
        return self

    @property
    def kind(self) -> Literal["stdio", "http", "sse", "inprocess"]:
        if self.transport is not None:
            return self.transport
        return "stdio" if self.command is not None else "http"


def expand(value: Any, environ: Mapping[str, str]) -> Any:
    """Expand `${VAR}` / `${VAR:-default}` in every string of a JSON-like value."""
    if isinstance(value, str):
        return _VAR.sub(lambda m: environ.get(m.group(1), m.group(2) or ""), value)
    if isinstance(value, Mapping):
        return {key: expand(item, environ) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [expand(item, environ) for item in value]
    return value


def servers_from_config(
    servers: Mapping[str, Any], *, environ: Mapping[str, str] | None = None
) -> Result[tuple[McpServerConfig, ...], ValueError]:
    """Server configs from a `{name: {...}}` mapping, as both file formats hold them."""
    env = os.environ if environ is None else environ
    parsed: list[McpServerConfig] = []
    for name, spec in servers.items():
        if not isinstance(spec, Mapping):
            return Failure(ValueError(f"MCP server {name!r}: expected a table, got {spec!r}"))
        try:
            parsed.append(McpServerConfig.model_validate({**expand(dict(spec), env), "name": name}))
        except pydantic.ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'server'}: {e['msg']}"
                for e in error.errors(include_url=False)
            )
            return Failure(ValueError(f"MCP server {name!r}: {problems}"))
    return Success(tuple(parsed))


def load_mcp_json(
    path: str | Path, *, environ: Mapping[str, str] | None = None
) -> Result[tuple[McpServerConfig, ...], ValueError]:
    """Servers from a `.mcp.json` file in the format existing MCP clients use."""
    try:
        data = orjson.loads(Path(path).read_bytes())
    except (OSError, orjson.JSONDecodeError) as error:
        return Failure(ValueError(f"cannot read {path}: {error}"))
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return Failure(ValueError(f"{path}: expected an object with an `mcpServers` object"))
    # .mcp.json uses "type" for the transport
    normalized = {
        name: {("transport" if k == "type" else k): v for k, v in spec.items()}
        if isinstance(spec, dict)
        else spec
        for name, spec in servers.items()
    }
    return servers_from_config(normalized, environ=environ)
