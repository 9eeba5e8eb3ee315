"""`McpHub`: configured MCP servers' tools as toolrail tools in a registry.

    async with McpHub(servers, registry=registry, sinks=[stream]) as hub:
        await executor.run(ToolCall(name="mcp__time__get_current_time", ...), ctx)

Each tool is named `mcp__<server>__<tool>` and validated against the server's input schema
before anything is sent. Every definition is hashed when first seen; if it changes later
the tool is flagged and, by the server's `on_change` policy, disabled, held for approval,
or accepted.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import mcp.types as mcp_types
import orjson
from returns.result import Failure, Result, Success

from toolrail.core.context import ExecutionContext
from toolrail.core.errors import ApprovalRequired, ToolError, TransportError
from toolrail.core.params import JsonObject, ParameterSchema
from toolrail.core.tool import Tool, ToolAnnotations
from toolrail.diagnostics import get_logger
from toolrail.events import (
    McpServerStateChanged,
    Sink,
    ToolDefinitionChanged,
    ToolRegistered,
    ToolUnregistered,
)
from toolrail.mcp.config import McpServerConfig
from toolrail.mcp.connection import McpConnection, State
from toolrail.mcp.naming import namespaced
from toolrail.registry import AnyTool, DuplicateToolError, ToolRegistry
from toolrail.sinks import Fanout

log = get_logger("toolrail.mcp")

UNTRUSTED = ToolAnnotations(read_only=False, destructive=True, idempotent=False, open_world=True)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a namespaced tool comes from: the server and the tool's own name there."""

    server: str
    tool: str


@dataclass(frozen=True, slots=True)
class ServerStatus:
    name: str
    state: State
    tools: tuple[str, ...]
    skipped: tuple[str, ...]


class McpHub:
    """Connects servers, keeps their tools in `registry`, and closes them all on exit."""

    def __init__(
        self,
        servers: Iterable[McpServerConfig],
        *,
        registry: ToolRegistry | None = None,
        sinks: Iterable[Sink] = (),
        pins: str | Path | None = None,
        in_process: Mapping[str, object] | None = None,
    ) -> None:
        """`in_process` maps names to server objects (`MCPServer`) reached without a process;
        each becomes a server with `transport="inprocess"` unless configured otherwise."""
        in_process = dict(in_process or {})
        servers = [
            *servers,
            *(McpServerConfig(name=name, transport="inprocess") for name in in_process),
        ]
        self.registry = registry if registry is not None else ToolRegistry()
        self.sinks = Fanout(sinks)
        self._pins_path = Path(pins) if pins is not None else None
        self._pins: dict[str, str] = self._load_pins()
        self._connections = {
            config.name: McpConnection(
                config,
                on_state=self._on_state,
                on_tools_changed=self._refresher(config.name),
                in_process=in_process.get(config.name),
            )
            for config in servers
        }
        self._origins: dict[str, Origin] = {}
        self._held: dict[str, tuple[AnyTool, str]] = {}  # changed tools awaiting acceptance
        self._skipped: dict[str, list[str]] = {name: [] for name in self._connections}

    async def __aenter__(self) -> McpHub:
        await self.connect()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def connect(self) -> dict[str, Result[tuple[str, ...], TransportError]]:
        """Start every server and register its tools; a server that fails is reported, and
        the others still connect. Name clashes raise `DuplicateToolError` with a fix."""
        return {name: await self.refresh(name) for name in self._connections}

    async def refresh(self, server: str) -> Result[tuple[str, ...], TransportError]:
        """Re-list one server's tools: add new ones, drop removed ones, check changed ones."""
        connection = self._connections[server]
        listed = await connection.list_tools()
        if isinstance(listed, Failure):
            return listed
        built = self._build_all(connection, listed.unwrap())
        seen = {tool.name for tool in built}
        for name, origin in list(self._origins.items()):
            if origin.server == server and name not in seen:
                self._drop(name)
        for tool in built:
            self._admit(tool, server)
        return Success(tuple(sorted(seen)))

    def origin(self, name: str) -> Origin | None:
        """The server and original tool name behind a namespaced name (never parsed back)."""
        return self._origins.get(name)

    def tools(self, server: str | None = None) -> tuple[AnyTool, ...]:
        return tuple(
            tool
            for tool in self.registry
            if tool.name in self._origins
            and (server is None or self._origins[tool.name].server == server)
        )

    def status(self) -> list[ServerStatus]:
        return [
            ServerStatus(
                name,
                conn.state,
                tuple(t.name for t in self.tools(name)),
                tuple(self._skipped[name]),
            )
            for name, conn in self._connections.items()
        ]

    def pending_changes(self) -> tuple[str, ...]:
        """Tools whose definition changed and wait for `accept_change`."""
        return tuple(self._held)

    def accept_change(self, name: str) -> bool:
        """Trust a changed definition from now on; the new tool replaces the held one."""
        held = self._held.pop(name, None)
        if held is None:
            return False
        tool, digest = held
        self._pins[name] = digest
        self._save_pins()
        self.registry.unregister(name)
        self.registry.register(tool)
        return True

    async def close(self) -> None:
        for connection in self._connections.values():
            await connection.close()
        await self.sinks.drain()

    # --- definitions → tools -----------------------------------------------------------

    def _build_all(self, connection: McpConnection, listed: list[mcp_types.Tool]) -> list[AnyTool]:
        config = connection.config
        built: dict[str, AnyTool] = {}
        skipped = self._skipped[config.name]
        skipped.clear()
        for definition in listed:
            made = _to_tool(connection, definition)
            if isinstance(made, Failure):
                skipped.append(f"{definition.name}: {made.failure()}")
                log.warning(
                    "skipping malformed MCP tool",
                    server=config.name,
                    tool=definition.name,
                    reason=made.failure(),
                )
                continue
            tool = made.unwrap()
            if tool.name in built:
                raise DuplicateToolError(
                    f"MCP server {config.name!r}: tools {self._origins_of(built[tool.name])!r} "
                    f"and {definition.name!r} both become {tool.name!r}; give one another name "
                    f'with `rename = {{ "{definition.name}" = "..." }}` under '
                    f"[mcp.servers.{config.name}]"
                )
            built[tool.name] = tool
            self._origins[tool.name] = Origin(config.name, definition.name)
        return list(built.values())

    def _origins_of(self, tool: AnyTool) -> str:
        origin = self._origins.get(tool.name)
        return origin.tool if origin else tool.name

    def _admit(self, tool: AnyTool, server: str) -> None:
        """Register a tool, or hold it back if its definition changed since first seen."""
        digest = definition_hash(tool)
        pinned = self._pins.get(tool.name)
        current = self.registry.find(tool.name)
        if pinned is None or pinned == digest:
            if current is None:
                self.registry.register(tool)
                self.sinks.emit(ToolRegistered(tool=tool.name, source="mcp"))
            elif definition_hash(current) != digest:
                self.registry.unregister(tool.name)
                self.registry.register(tool)
            if pinned is None:  # first sight: pin it
                self._pins[tool.name] = digest
                self._save_pins()
            return
        held = self._held.get(tool.name)
        if held is not None and held[1] == digest:
            return  # already flagged; a repeated refresh says nothing new
        policy = self._connections[server].config.on_change
        if policy == "accept":
            self._pins[tool.name] = digest
            if current is not None:
                self.registry.unregister(tool.name)
            self.registry.register(tool)
            action = "accepted"
        elif policy == "approve":
            self._held[tool.name] = (tool, digest)
            if current is not None:
                self.registry.unregister(tool.name)
            self.registry.register(_held_back(tool))
            action = "needs_approval"
        else:
            self._held[tool.name] = (tool, digest)
            if current is not None:
                self.registry.unregister(tool.name)
                self.sinks.emit(ToolUnregistered(tool=tool.name, source="mcp"))
            action = "disabled"
        log.warning("MCP tool definition changed", tool=tool.name, server=server, action=action)
        self.sinks.emit(
            ToolDefinitionChanged(
                tool=tool.name, server=server, old_hash=pinned, new_hash=digest, action=action
            )
        )
        self._save_pins()

    def _drop(self, name: str) -> None:
        self._origins.pop(name, None)
        self._held.pop(name, None)
        if isinstance(self.registry.unregister(name), Success):
            self.sinks.emit(ToolUnregistered(tool=name, source="mcp"))

    def _refresher(self, server: str) -> Any:
        async def refresh() -> None:
            try:
                await self.refresh(server)
            except Exception:
                log.exception("refreshing MCP tools failed", server=server)

        return refresh

    def _on_state(self, server: str, state: State, detail: str) -> None:
        self.sinks.emit(McpServerStateChanged(server=server, state=state, detail=detail))

    def _load_pins(self) -> dict[str, str]:
        if self._pins_path is None or not self._pins_path.exists():
            return {}
        try:
            data = orjson.loads(self._pins_path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            log.warning("ignoring unreadable MCP pins file", path=str(self._pins_path))
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def _save_pins(self) -> None:
        if self._pins_path is not None:
            self._pins_path.parent.mkdir(parents=True, exist_ok=True)
            self._pins_path.write_bytes(orjson.dumps(self._pins, option=orjson.OPT_SORT_KEYS))


def definition_hash(tool: AnyTool) -> str:
    """A stable hash of everything a model is told about a tool."""
    annotations = tool.annotations
    document = {
        "name": tool.name,
        "description": tool.description,
        "input": tool.input_schema(),
        "output": dict(tool.output_schema) if tool.output_schema else None,
        "annotations": [
            annotations.title,
            annotations.read_only,
            annotations.destructive,
            annotations.idempotent,
            annotations.open_world,
        ],
    }
    return hashlib.sha256(orjson.dumps(document, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _to_tool(connection: McpConnection, definition: mcp_types.Tool) -> Result[AnyTool, str]:
    config = connection.config
    original = definition.name
    name = namespaced(config.name, config.rename.get(original, original))
    try:
        parameters = ParameterSchema.from_json_schema(definition.input_schema)
    except (ValueError, TypeError) as error:
        return Failure(f"unusable input schema ({error})")

    wrapped = _wraps_result(definition.output_schema)

    async def execute(args: JsonObject, ctx: ExecutionContext) -> Result[object, ToolError]:
        result = await connection.call(original, args, ctx)
        return result.map(_unwrap) if wrapped else result

    hints = definition.annotations
    annotations = (
        ToolAnnotations(
            title=hints.title,
            read_only=bool(hints.read_only_hint),
            destructive=hints.destructive_hint is not False,
            idempotent=bool(hints.idempotent_hint),
            open_world=hints.open_world_hint is not False,
        )
        if config.trusted and hints is not None
        else UNTRUSTED
    )
    description = definition.description or definition.title or f"{original} on {config.name}"
    try:
        return Success(
            Tool(
                name=name,
                description=description,
                parameters=parameters,
                execute=execute,
                annotations=annotations,
                permissions=frozenset({"mcp:connect"}),
                tags=frozenset({"mcp", f"mcp:{config.name}"}),
                timeout_s=config.max_timeout_s
                + 5,  # a backstop: the connection's deadlines act first
                output_schema=definition.output_schema,
                source="mcp",
            )
        )
    except ValueError as error:
        return Failure(str(error))


def _wraps_result(schema: dict[str, Any] | None) -> bool:
    """The MCP SDK's convention for non-object outputs: `{"result": value}`."""
    if not schema or schema.get("type") != "object":
        return False
    properties = schema.get("properties")
    return (
        isinstance(properties, dict)
        and set(properties) == {"result"}
        and schema.get("required") == ["result"]
    )


def _unwrap(value: object) -> object:
    if isinstance(value, dict) and set(value) == {"result"}:
        return value["result"]
    return value


def _held_back(tool: AnyTool) -> AnyTool:
    """The changed tool, visible, but every call waits for an operator to accept it."""

    async def execute(args: object, ctx: ExecutionContext) -> Result[object, ToolError]:
        return Failure(
            ApprovalRequired(
                message=f"{tool.name}'s definition changed since it was first seen; an operator "
                "must accept the change before it runs",
                tool=tool.name,
            )
        )

    return dataclasses.replace(tool, execute=execute, tags=tool.tags | {"needs_approval"})
