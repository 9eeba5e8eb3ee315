"""`McpHub`: configured MCP servers' tools as toolrail tools in a registry.

    async with McpHub(servers, registry=registry, sinks=[stream]) as hub:
        await executor.run(ToolCall(name="mcp__time__get_current_time", ...), ctx)

Each tool is named `mcp__<server>__<tool>` and validated against the server's input schema
before anything is sent. Servers are untrusted input: descriptions are cleaned and capped,
schemas bounded, and a definition is pinned (hashed) on the server's first listing. A tool
that changes later, appears later, or reads like instructions to a model is held back and,
by the server's `on_change` policy, disabled, held for approval, or accepted. Each listing
is planned whole and committed at once; a server never makes the hub raise.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import mcp.types as mcp_types
import orjson
from returns.result import Failure, Result, Success

from toolrail._diagnostics import get_logger
from toolrail.core.context import ExecutionContext
from toolrail.core.errors import ApprovalRequired, ToolError, TransportError
from toolrail.core.params import JsonObject, ParameterSchema
from toolrail.core.tool import Tool, ToolAnnotations
from toolrail.mcp.config import McpServerConfig
from toolrail.mcp.connection import McpConnection, State
from toolrail.mcp.naming import namespaced, sanitize
from toolrail.mcp.schema import ServerSchemaParameters
from toolrail.mcp.vetting import vet
from toolrail.recording.events import (
    McpServerStateChanged,
    Sink,
    ToolDefinitionChanged,
    ToolRegistered,
    ToolUnregistered,
)
from toolrail.recording.sinks import Fanout
from toolrail.registry import AnyTool, ToolRegistry

log = get_logger("toolrail.mcp")

_STAND_INS = frozenset({"needs_approval", "unavailable"})
UNTRUSTED = ToolAnnotations(read_only=False, destructive=True, idempotent=False, open_world=True)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a namespaced tool comes from: the server and the tool's own name there."""

    server: str
    tool: str


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """A server as `toolrail mcp list` shows it."""

    name: str
    state: State
    tools: tuple[str, ...]
    skipped: tuple[str, ...]
    held: tuple[str, ...] = ()
    """Tools waiting for `accept_change`, each with why."""
    pid: int | None = None


@dataclass(frozen=True, slots=True)
class Held:
    """A tool kept from running until an operator accepts it, and why."""

    tool: AnyTool
    digest: str
    reason: str
    server: str


@dataclass(frozen=True, slots=True)
class Candidate:
    """One usable tool of a listing, with what the vetting found in it."""

    tool: AnyTool
    origin: Origin
    findings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Plan:
    """One listing of one server, decided before anything changes."""

    server: str
    candidates: tuple[Candidate, ...]
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
        each becomes a server with `transport="inprocess"` unless configured otherwise.
        Two servers whose names give the same tool prefix raise `ValueError`."""
        in_process = dict(in_process or {})
        servers = [
            *servers,
            *(McpServerConfig(name=name, transport="inprocess") for name in in_process),
        ]
        prefixes: dict[str, str] = {}
        for config in servers:
            other = prefixes.setdefault(sanitize(config.name), config.name)
            if other != config.name or sum(c.name == config.name for c in servers) > 1:
                raise ValueError(
                    f"MCP servers {other!r} and {config.name!r} would share the tool prefix "
                    f"mcp__{sanitize(config.name)}__; give one of them another name"
                )
        self.registry = registry if registry is not None else ToolRegistry()
        self.sinks = Fanout(sinks)
        self._pins_path = Path(pins) if pins is not None else None
        self._pins: dict[str, str] = self._load_pins()
        self._connections = {
            config.name: McpConnection(
                config,
                on_state=self._on_state,
                on_tools_changed=self._debounced(config.name),
                in_process=in_process.get(config.name),
            )
            for config in servers
        }
        self._origins: dict[str, Origin] = {}
        self._held: dict[str, Held] = {}
        self._skipped: dict[str, tuple[str, ...]] = dict.fromkeys(self._connections, ())
        self._listed: set[str] = set()  # servers whose first listing was pinned on sight
        self._locks = {name: asyncio.Lock() for name in self._connections}
        self._refreshes: dict[str, asyncio.Task[None]] = {}
        self._dirty: set[str] = set()
        self._closed = False
        self._claims = [
            self.registry.claim(f"mcp__{sanitize(name)}__", self._why_missing(name))
            for name in self._connections
        ]

    async def __aenter__(self) -> McpHub:
        try:
            await self.connect()
        except BaseException:
            await asyncio.shield(self.close())
            raise
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def connect(self) -> dict[str, Result[tuple[str, ...], TransportError]]:
        """Start every server at once and register its tools; a server that fails is
        reported (by name, exit status and stderr), and the others still connect."""
        names = list(self._connections)
        results = await asyncio.gather(*(self.refresh(name) for name in names))
        for name, result in zip(names, results, strict=True):
            if isinstance(result, Failure):
                self._stand_in(name, result.failure())
        return dict(zip(names, results, strict=True))

    async def refresh(self, server: str) -> Result[tuple[str, ...], TransportError]:
        """Re-list one server's tools: add new ones, drop removed ones, check changed ones."""
        connection = self._connections[server]
        async with self._locks[server]:
            listed = await connection.list_tools()
            if isinstance(listed, Failure):
                return listed
            if self._closed:
                return Failure(TransportError(message="MCP hub closed", server=server))
            plan = self._plan(connection, listed.unwrap())
            return Success(self._commit(plan))

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
                self._skipped[name],
                tuple(f"{n}: {h.reason}" for n, h in self._held.items() if h.server == name),
                conn.pid,
            )
            for name, conn in self._connections.items()
        ]

    def pending_changes(self) -> tuple[str, ...]:
        """Tools held back (changed, added later, or suspicious) that wait for `accept_change`."""
        return tuple(self._held)

    def held_reason(self, name: str) -> str | None:
        """Why a tool is held back, or None."""
        held = self._held.get(name)
        return held.reason if held else None

    def accept_change(self, name: str) -> bool:
        """Trust a held definition from now on; the new tool replaces the held one."""
        held = self._held.pop(name, None)
        if held is None:
            return False
        self._pins[name] = held.digest
        self._save_pins()
        self.registry.unregister(name)
        self.registry.register(held.tool)
        self.sinks.emit(ToolRegistered(tool=name, source="mcp"))
        return True

    async def close(self) -> None:
        """Stop refreshes and every server; a caller's cancellation still propagates."""
        self._closed = True
        for give_up in self._claims:
            give_up()
        refreshes = [task for task in self._refreshes.values() if not task.done()]
        for task in refreshes:
            task.cancel()
        try:
            if refreshes:
                await asyncio.wait(refreshes, timeout=5)
            await asyncio.gather(*(c.close() for c in self._connections.values()))
        finally:
            await self.sinks.drain()

    # --- a listing → a plan → one commit -------------------------------------------------

    def _plan(self, connection: McpConnection, listed: list[mcp_types.Tool]) -> Plan:
        """Every tool of a listing built and checked; nothing changed yet."""
        config = connection.config
        skipped: list[str] = []
        by_name: dict[str, list[Candidate]] = {}
        for definition in listed:
            try:
                made = _to_tool(connection, definition)
            except Exception as error:  # a server must never make the hub raise
                made = Failure(f"unusable definition ({type(error).__name__}: {error})")
            if isinstance(made, Failure):
                skipped.append(f"{definition.name}: {made.failure()}")
                continue
            candidate = made.unwrap()
            by_name.setdefault(candidate.tool.name, []).append(candidate)
        candidates: list[Candidate] = []
        for name, group in by_name.items():
            current = self._origins.get(name)
            if len(group) > 1:
                originals = sorted({c.origin.tool for c in group})
                skipped.extend(
                    f"{original}: {', '.join(map(repr, originals))} all become {name!r}; give "
                    f'one another name with `rename = {{ "{original}" = "..." }}` under '
                    f"[mcp.servers.{config.name}]"
                    for original in originals
                )
            elif name in self.registry and (current is None or current.server != config.name):
                taken = current.server if current else self.registry.find(name).source  # type: ignore[union-attr]
                skipped.append(
                    f"{group[0].origin.tool}: {name!r} is taken (by {taken}); rename it with "
                    f'`rename = {{ "{group[0].origin.tool}" = "..." }}` under '
                    f"[mcp.servers.{config.name}]"
                )
            else:
                candidates.append(group[0])
        for reason in skipped:
            log.warning("skipping MCP tool", server=config.name, reason=reason)
        return Plan(config.name, tuple(candidates), tuple(skipped))

    def _commit(self, plan: Plan) -> tuple[str, ...]:
        """Apply a plan: nothing here awaits or fails half-way."""
        server = plan.server
        first = server not in self._listed
        self._listed.add(server)
        self._skipped[server] = plan.skipped
        seen = {c.tool.name for c in plan.candidates}
        for name, origin in list(self._origins.items()):
            if origin.server == server and name not in seen:
                self._drop(name)
        for candidate in plan.candidates:
            self._origins[candidate.tool.name] = candidate.origin
            self._admit(candidate, server, first=first)
        self._save_pins()
        return tuple(sorted(seen))

    def _admit(self, candidate: Candidate, server: str, *, first: bool) -> None:
        """Register a tool, or hold it back: changed, added later, or suspicious."""
        tool = candidate.tool
        digest = definition_hash(tool)
        pinned = self._pins.get(tool.name)
        current = self.registry.find(tool.name)
        if pinned == digest or (pinned is None and first and not candidate.findings):
            self._held.pop(tool.name, None)
            if pinned is None:
                self._pins[tool.name] = digest  # first sight: pin it
            if current is None:
                self.registry.register(tool)
                self.sinks.emit(ToolRegistered(tool=tool.name, source="mcp"))
            elif definition_hash(current) != digest or current.tags & _STAND_INS:
                self.registry.unregister(tool.name)
                self.registry.register(tool)
            return
        held = self._held.get(tool.name)
        if held is not None and held.digest == digest:
            return  # already held; a repeated refresh says nothing new
        if candidate.findings:
            reason = "suspicious description (" + "; ".join(candidate.findings) + ")"
        elif pinned is None:
            reason = "added after the server's first listing"
        else:
            reason = "definition changed since it was first seen"
        policy = self._connections[server].config.on_change
        if policy == "accept" and candidate.findings:
            policy = "approve"  # instructions to a model are never taken on trust
        if current is not None:
            self.registry.unregister(tool.name)
        action: Literal["accepted", "needs_approval", "disabled"]
        if policy == "accept":
            self._pins[tool.name] = digest
            self._held.pop(tool.name, None)
            self.registry.register(tool)
            action = "accepted"
        elif policy == "approve":
            self._held[tool.name] = Held(tool, digest, reason, server)
            self.registry.register(_held_back(tool, reason))
            action = "needs_approval"
        else:
            self._held[tool.name] = Held(tool, digest, reason, server)
            action = "disabled"
        if current is None and action != "disabled":
            self.sinks.emit(ToolRegistered(tool=tool.name, source="mcp"))
        elif current is not None and action == "disabled":
            self.sinks.emit(ToolUnregistered(tool=tool.name, source="mcp"))
        log.warning("MCP tool held back", tool=tool.name, server=server, why=reason, action=action)
        self.sinks.emit(
            ToolDefinitionChanged(
                tool=tool.name, server=server, old_hash=pinned or "", new_hash=digest, action=action
            )
        )

    def _drop(self, name: str) -> None:
        self._origins.pop(name, None)
        self._held.pop(name, None)
        if isinstance(self.registry.unregister(name), Success):
            self.sinks.emit(ToolUnregistered(tool=name, source="mcp"))

    def _stand_in(self, server: str, error: TransportError) -> None:
        """For a server that did not start, its pinned tools answer with why, not as unknown."""
        prefix = f"mcp__{sanitize(server)}__"
        for name in self._pins:
            if name.startswith(prefix) and name not in self.registry:
                self.registry.register(_unavailable(name, error, self._debounced(server)))

    def _why_missing(self, server: str) -> Callable[[str], TransportError | None]:
        """For a name of `server` with no tool: the server's failure, if it is not up."""
        connection = self._connections[server]

        def explain(name: str) -> TransportError | None:
            if connection.state not in ("broken", "closed"):
                return None  # up (or starting): the name is simply not one of its tools
            return TransportError(
                message=f"{name} belongs to MCP server {server!r}, which is "
                f"{connection.state}: {connection.detail}",
                server=server,
            )

        return explain

    def _debounced(self, server: str) -> Callable[[], None]:
        """A refresh on request; requests while one runs become one more, not one each."""

        def request() -> None:
            if self._closed:
                return
            self._dirty.add(server)
            running = self._refreshes.get(server)
            if running is None or running.done():
                self._refreshes[server] = asyncio.get_running_loop().create_task(
                    self._refresh_while_dirty(server), name=f"mcp-refresh:{server}"
                )

        return request

    async def _refresh_while_dirty(self, server: str) -> None:
        while server in self._dirty and not self._closed:
            self._dirty.discard(server)
            try:
                result = await self.refresh(server)
            except Exception:
                log.exception("refreshing MCP tools failed", server=server)
                continue
            if isinstance(result, Failure):
                log.warning(
                    "refreshing MCP tools failed", server=server, error=result.failure().message
                )

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
        if self._pins_path is None:
            return
        try:
            self._pins_path.parent.mkdir(parents=True, exist_ok=True)
            self._pins_path.write_bytes(orjson.dumps(self._pins, option=orjson.OPT_SORT_KEYS))
        except OSError as error:
            log.warning("cannot save MCP pins", path=str(self._pins_path), error=str(error))


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


def _to_tool(connection: McpConnection, definition: mcp_types.Tool) -> Result[Candidate, str]:
    config = connection.config
    original = definition.name
    execution = definition.execution
    if execution is not None and execution.task_support == "required":
        return Failure(
            'needs MCP tasks (execution.taskSupport = "required"), which toolrail does not '
            "run yet: not offered to models"
        )
    name = namespaced(config.name, config.rename.get(original, original))
    description = definition.description or definition.title or f"{original} on {config.name}"
    vetted = vet(description, definition.input_schema)
    if isinstance(vetted, str):
        return Failure(vetted)
    if definition.output_schema is not None and isinstance(
        checked := vet("", definition.output_schema), str
    ):
        return Failure(checked.replace("input", "output"))
    try:
        parameters = ServerSchemaParameters(vetted.schema)
    except (ValueError, TypeError, RecursionError) as error:
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
    try:
        tool = Tool(
            name=name,
            description=vetted.description,
            parameters=parameters,
            execute=execute,
            annotations=annotations,
            permissions=frozenset({"mcp:connect"}),
            tags=frozenset({"mcp", f"mcp:{config.name}"}),
            timeout_s=config.max_timeout_s + 5,  # a backstop: the connection's deadlines act first
            output_schema=definition.output_schema,
            source="mcp",
        )
    except ValueError as error:
        return Failure(str(error))
    return Success(Candidate(tool, Origin(config.name, original), vetted.findings))


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


def _held_back(tool: AnyTool, reason: str) -> AnyTool:
    """The held tool, visible, but every call waits for an operator to accept it."""

    async def execute(args: object, ctx: ExecutionContext) -> Result[object, ToolError]:
        return Failure(
            ApprovalRequired(
                message=f"{tool.name} is held back ({reason}); an operator must accept it "
                "before it runs",
                tool=tool.name,
            )
        )

    return dataclasses.replace(tool, execute=execute, tags=tool.tags | {"needs_approval"})


def _unavailable(name: str, error: TransportError, retry: Callable[[], None]) -> AnyTool:
    """A tool of a server that did not start: a call answers why, and asks for a retry."""

    async def execute(args: JsonObject, ctx: ExecutionContext) -> Result[object, ToolError]:
        retry()
        return Failure(error)

    return Tool(
        name=name,
        description=f"Unavailable: {error.message}",
        parameters=ParameterSchema.from_json_schema({"type": "object"}),
        execute=execute,
        annotations=UNTRUSTED,
        permissions=frozenset({"mcp:connect"}),
        tags=frozenset({"mcp", f"mcp:{error.server}", "unavailable"}),
        source="mcp",
    )
