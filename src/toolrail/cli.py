"""The `toolrail` command: list and call the tools of a `toolrail.toml` (local modules and
MCP servers) or of a Python module; inspect MCP servers; read the call logs."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import importlib.metadata
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import orjson
from returns.result import Failure, Result, Success

from toolrail._definitions import tool_definition
from toolrail._jsonish import dumps
from toolrail.config import Config, ConfigError, ServeSection, load_tools
from toolrail.core.call import ToolCall
from toolrail.core.context import ExecutionContext
from toolrail.core.errors import ApprovalRequired
from toolrail.core.redact import printable, redact
from toolrail.executor import Executor
from toolrail.mcp import McpHub, McpServerConfig
from toolrail.mcp.naming import sanitize
from toolrail.policy.approvals import ApprovalRequest, Approve, Approver, Decision, Deny
from toolrail.policy.gates import Gates
from toolrail.recording.events import Sink
from toolrail.recording.jsonl import JsonlCallLog
from toolrail.recording.logreader import (
    Entry,
    format_entry,
    format_stats,
    read_entries,
    recent_entries,
    recorded_resilience,
    stats,
)
from toolrail.recording.stream import ToolStreamHandler
from toolrail.registry import AgentToolTable, ToolRegistry
from toolrail.resilience import Resilience
from toolrail.routing import Router


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    command: int = args.handler(args)
    return command


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolrail", description=__doc__)
    parser.add_argument("--version", action="version", version=f"toolrail {_version()}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    tools = commands.add_parser("tools", help="inspect tools").add_subparsers(required=True)
    listing = tools.add_parser("list", help="list tools, optionally as one agent sees them")
    _source_options(listing)
    listing.add_argument(
        "--json", action="store_true", help="print the tools' definitions as one JSON array"
    )
    listing.set_defaults(handler=_tools_list)
    explain = tools.add_parser("explain", help="why a tool is or is not callable, gate by gate")
    explain.add_argument("name", help="tool name")
    _source_options(explain)
    explain.set_defaults(handler=_tools_explain)

    search = commands.add_parser("search", help="the tools that fit a request, best first")
    search.add_argument("query", help="what you want to do, in words")
    search.add_argument("-k", type=int, default=10, help="how many tools (default 10)")
    search.add_argument("--explain", action="store_true", help="show the signals behind scores")
    _source_options(search)
    search.set_defaults(handler=_search)

    call = commands.add_parser("call", help="call one tool and print its Result as JSON")
    call.add_argument("name", help="tool name")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    decision = call.add_mutually_exclusive_group()
    decision.add_argument(
        "--approve", action="store_true", help="approve the call if a rule asks for approval"
    )
    decision.add_argument(
        "--deny", metavar="REASON", help="deny the call if a rule asks for approval"
    )
    _source_options(call)
    call.set_defaults(handler=_call)

    serve = commands.add_parser(
        "serve", help="serve the tools to MCP clients (stdio or streamable HTTP)"
    )
    _source_options(serve)
    serve.add_argument(
        "--mode", choices=["static", "dynamic", "hybrid"], help="default: [serve] mode, or static"
    )
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", help="HTTP: address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="HTTP: port (default 8765)")
    serve.add_argument("--path", help="HTTP: endpoint path (default /mcp)")
    serve.add_argument(
        "--stateless", action="store_true", default=None, help="HTTP: keep no sessions"
    )
    serve.add_argument(
        "--token-env", metavar="VAR", help="HTTP: require the bearer token held in $VAR"
    )
    serve.add_argument(
        "--progress",
        action="store_true",
        help="narrate every call on stderr, one line per step (the stream handler's text)",
    )
    serve.add_argument(
        "--metrics-port",
        type=int,
        metavar="N",
        help="serve Prometheus metrics at http://127.0.0.1:N/metrics (needs toolrail[prometheus])",
    )
    serve.set_defaults(handler=_serve)

    mcp = commands.add_parser("mcp", help="MCP servers").add_subparsers(required=True)
    mcp_list = mcp.add_parser("list", help="configured servers, their state and their tools")
    _source_options(mcp_list)
    mcp_list.set_defaults(handler=_mcp_list)

    logs = commands.add_parser("logs", help="read the JSONL call logs").add_subparsers(
        required=True
    )
    tail = logs.add_parser("tail", help="the last calls")
    tail.add_argument("-n", type=int, default=20, help="how many (default 20)")
    show = logs.add_parser("show", help="calls matching filters")
    show.add_argument("--tool", help="only this tool")
    show.add_argument("--agent", help="only this agent")
    show.add_argument("--status", choices=["success", "failure"])
    show.add_argument("--json", action="store_true", help="print the raw JSON lines")
    summary = logs.add_parser("stats", help="counts, error rates, p50/p95 per tool")
    for sub, handler in ((tail, _logs_tail), (show, _logs_show), (summary, _logs_stats)):
        sub.add_argument(
            "--dir", type=Path, help="log directory (default: the config's [logging] directory)"
        )
        sub.add_argument("--config", type=Path, help="a toolrail.toml (default: ./toolrail.toml)")
        sub.set_defaults(handler=handler)
    return parser


def _source_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="a toolrail.toml (default: ./toolrail.toml)")
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        help="a module (dotted name or .py path) whose tools to load",
    )
    parser.add_argument(
        "--agent",
        help="act as this agent of the config's tool table "
        "(default: an operator who may use every tool)",
    )


@dataclass(frozen=True, slots=True)
class _Loaded:
    registry: ToolRegistry
    agents: AgentToolTable | None
    mcp: tuple[McpServerConfig, ...]
    pins: Path | None
    permissions: Mapping[str, frozenset[str]] = field(default_factory=dict)
    gates: Gates | None = None
    log_dir: Path | None = Path("logs")
    """Where calls are recorded; None: nowhere (tools from --module, no ./logs to write in)."""
    serve: ServeSection = field(default_factory=ServeSection)

    def context(self, agent: str | None) -> ExecutionContext:
        """As `agent`, with its granted permissions; else as the operator, who has them all."""
        if agent is None:
            granted = frozenset().union(*(t.permissions for t in self.registry))
            return ExecutionContext(agent="operator", permissions=granted, project_root=Path.cwd())
        return ExecutionContext(
            agent=agent,
            permissions=self.permissions.get(agent, frozenset()),
            project_root=Path.cwd(),
        )


def _load(args: argparse.Namespace) -> Result[_Loaded, ConfigError]:
    if args.module:
        # no config: record calls only where the user made a log directory, never unasked
        logs = Path("logs") if Path("logs").is_dir() else None
        return load_tools(args.module, root=Path.cwd()).map(
            lambda r: _Loaded(r, None, (), None, log_dir=logs)
        )
    path = Path(args.config) if args.config is not None else None
    if path is None and not Path("toolrail.toml").exists() and Path(".mcp.json").exists():
        path = Path(".mcp.json")  # with no toolrail.toml, an .mcp.json is the whole config
    config = (
        Config.parse({"mcp": {"json": path.name}}, root=path.parent)
        if path is not None and path.suffix == ".json"  # an MCP client's `{"mcpServers": ...}`
        else Config.load(path or Path("toolrail.toml"))
    )
    return config.bind(
        lambda c: c.registry().bind(
            lambda registry: c.mcp_servers().map(
                lambda servers: _Loaded(
                    registry,
                    c.agent_table(),
                    servers,
                    c.pins_path,
                    {name: a.permissions for name, a in c.agents.items()},
                    c.gates(),
                    c.root / c.logging.directory,
                    c.serve,
                )
            )
        )
    )


@asynccontextmanager
async def _connected(loaded: _Loaded) -> AsyncIterator[McpHub]:
    """The configured MCP servers' tools joined to the registry, closed on exit."""
    hub = McpHub(loaded.mcp, registry=loaded.registry, pins=loaded.pins)
    try:
        for name, result in (await hub.connect()).items():
            if isinstance(result, Failure):
                message = result.failure().message
                said = message if repr(name) in message else f"MCP server {name!r}: {message}"
                print(f"toolrail: {printable(said, one_line=True)}", file=sys.stderr)
        yield hub
    finally:
        await hub.close()


def _with_tools(
    args: argparse.Namespace,
    body: Callable[[_Loaded, McpHub], Awaitable[int]],
    *,
    tool: str | None = None,
) -> int:
    """Load the config, start the MCP servers the command needs (for one `tool`: none if it
    is local, its own server if it names one), run `body`, close the servers."""
    match _load(args):
        case Success(_Loaded() as loaded):
            if tool is not None:
                loaded = replace(loaded, mcp=_servers_for(loaded, tool))

            async def run() -> int:
                async with _connected(loaded) as hub:
                    if tool is None:  # with some servers left out, patterns may match nothing
                        _warn_about_typos(loaded, args.agent)
                    return await body(loaded, hub)

            return asyncio.run(run())
        case Failure(error):
            print(f"toolrail: {error}", file=sys.stderr)
            return 2
        case _:
            return 2


def _servers_for(loaded: _Loaded, tool: str) -> tuple[McpServerConfig, ...]:
    """The servers a command about `tool` must start: none for a local tool, the named
    server for `mcp__<server>__...`, every server otherwise (to find it or suggest names)."""
    if loaded.registry.find(tool) is not None:
        return ()
    if tool.startswith("mcp__"):
        prefix = tool.split("__")[1]
        named = tuple(s for s in loaded.mcp if sanitize(s.name) == prefix)
        if named:
            return named
    return loaded.mcp


def _warn_about_typos(loaded: _Loaded, agent: str | None) -> None:
    """Say so on stderr when an agent name or a tool pattern names nothing."""
    if loaded.agents is None:
        return
    known = list(loaded.agents.entries)
    if agent is not None and agent not in known and "*" not in known:
        close = difflib.get_close_matches(agent, known, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        print(f"toolrail: warning: no agent {agent!r} in the config{hint}", file=sys.stderr)
    names = [t.name for t in loaded.registry]
    for name, patterns in loaded.agents.unmatched(loaded.registry).items():
        for pattern in patterns:
            close = difflib.get_close_matches(pattern, names, n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            print(
                f"toolrail: warning: agent {name!r}: {pattern!r} matches no tool{hint}",
                file=sys.stderr,
            )


def _tools_list(args: argparse.Namespace) -> int:
    async def body(loaded: _Loaded, hub: McpHub) -> int:
        executor = Executor(loaded.registry, agents=loaded.agents, gates=loaded.gates)
        ctx = loaded.context(args.agent)
        tools = (
            executor.visible(ctx.agent, ctx.permissions) if args.agent else tuple(loaded.registry)
        )
        if args.json:  # JSON only, one document: pipe it to jq
            print(_shown_json([tool_definition(item) for item in tools]))
            return 0
        for item in tools:
            flags = ", ".join(sorted(item.tags | item.permissions))
            summary = item.description.splitlines()[0] if item.description else ""
            line = f"{item.name:32} {summary}" + (f"  [{flags}]" if flags else "")
            print(printable(line, one_line=True))  # an MCP server's words, as text
        return 0

    return _with_tools(args, body)


def _search(args: argparse.Namespace) -> int:
    async def body(loaded: _Loaded, hub: McpHub) -> int:
        # the executor brings health and circuits (as the log left them) with or without
        # --agent; the agent table only with it
        executor = Executor(
            loaded.registry,
            agents=loaded.agents if args.agent else None,
            gates=loaded.gates,
            resilience=_recorded(loaded, loaded.log_dir)[1],
        )
        ctx = loaded.context(args.agent)
        router = Router(loaded.registry, executor=executor)
        matches = router.search(args.query, k=args.k, ctx=ctx if args.agent else None)
        if not matches:
            print("no tool fits this request", file=sys.stderr)
        for match in matches:
            summary = match.tool.description.splitlines()[0] if match.tool.description else ""
            print(printable(f"{match.score:7.3f}  {match.tool.name:32} {summary}", one_line=True))
            if args.explain:
                print(f"         {dumps(dict(match.explain)).decode()}")
        return 0

    return _with_tools(args, body)


def _call(args: argparse.Namespace) -> int:
    async def body(loaded: _Loaded, hub: McpHub) -> int:
        # without --agent the operator may call every tool; with it, that agent's table applies
        recorded = [] if loaded.log_dir is None else [JsonlCallLog(loaded.log_dir)]
        gates = loaded.gates
        if gates is not None and (args.approve or args.deny is not None or sys.stdin.isatty()):
            gates = replace(gates, approver=_terminal_approver(args.approve, args.deny))
        executor = Executor(
            loaded.registry,
            agents=loaded.agents if args.agent else None,
            gates=gates,
            sinks=recorded,
        )
        ctx = loaded.context(args.agent)
        outcome = await executor.run(ToolCall(name=args.name, arguments=args.args), ctx)
        for call_log in recorded:
            await call_log.aclose()
        match outcome.result:
            case Success(value):
                print(_shown_json({"status": "success", "output": value}))
                return 0
            case Failure(error):
                print(_shown_json({"status": "failure", "error": error}))
                if isinstance(error, ApprovalRequired):
                    print("toolrail: approve with --approve, or --deny REASON", file=sys.stderr)
                return 1
            case _:
                return 1

    return _with_tools(args, body, tool=args.name)


def _terminal_approver(approve: bool, deny: str | None) -> Approver:
    """Decide approvals from the flags, else by asking on the terminal."""

    async def decide(request: ApprovalRequest) -> Decision:
        if approve:
            return Approve()
        if deny is not None:
            return Deny(message=deny)
        return await asyncio.to_thread(_ask_on_terminal, request)

    return decide


def _shown_json(value: object, *, indent: bool = True) -> str:
    """JSON for a terminal: what a terminal would obey escaped as JSON escapes it."""
    return printable(dumps(value, indent=indent).decode(), json=True)


def _ask_on_terminal(request: ApprovalRequest) -> Decision:
    arguments = dumps(redact(dict(request.arguments))).decode()
    # a person decides here: shown as text, whatever the model wrote
    print(
        printable(f"{request.tool} {arguments}: {request.reason}", one_line=True), file=sys.stderr
    )
    while True:
        print("[a]pprove, [d]eny or [e]dit the arguments? ", end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline().strip().lower()
        if answer in ("a", "approve"):
            return Approve()
        if answer in ("d", "deny", ""):
            print("reason: ", end="", file=sys.stderr, flush=True)
            return Deny(message=sys.stdin.readline().strip() or "a person declined this call")
        if answer in ("e", "edit"):
            print("arguments as a JSON object: ", end="", file=sys.stderr, flush=True)
            try:
                edited = orjson.loads(sys.stdin.readline())
            except orjson.JSONDecodeError as error:
                print(f"not JSON: {error}", file=sys.stderr)
                continue
            if isinstance(edited, dict):
                return Approve(arguments=edited)
            print("not a JSON object", file=sys.stderr)


def _tools_explain(args: argparse.Namespace) -> int:
    async def body(loaded: _Loaded, hub: McpHub) -> int:
        # the same executor `call` builds: without --agent the operator may call every tool;
        recent, resilience = _recorded(loaded, loaded.log_dir)
        executor = Executor(
            loaded.registry,
            agents=loaded.agents if args.agent else None,
            gates=loaded.gates,
            resilience=resilience,
        )
        ctx = loaded.context(args.agent)
        if loaded.registry.find(args.name) is None:
            close = difflib.get_close_matches(args.name, [t.name for t in loaded.registry], n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            print(f"toolrail: no tool named {args.name!r}{hint}", file=sys.stderr)
            return 1
        for line in executor.explain(ctx.agent, args.name, ctx.permissions):
            print(printable(line, one_line=True))
        failures = [
            e for e in recent if e.get("tool") == args.name and e.get("status") != "success"
        ]
        if failures:
            print(f"recent failures (from {loaded.log_dir}):")
            for entry in failures[-3:]:
                print(f"  {format_entry(entry)}")
        return 0

    return _with_tools(args, body, tool=args.name)


def _recorded(loaded: _Loaded, logs: Path | None) -> tuple[list[Entry], Resilience]:
    """The tail of the call log in `logs`, and the health and circuits it leaves: all that
    a new process knows of them (`tools explain`, and the routers of `search` and `serve`)."""
    recent = recent_entries(logs) if logs is not None and logs.is_dir() else []
    servers = [server.name for server in loaded.mcp]
    return recent, recorded_resilience(recent, servers=servers)


def _serve(args: argparse.Namespace) -> int:
    async def body(loaded: _Loaded, hub: McpHub) -> int:
        overrides = {
            key: value
            for key in ("mode", "agent", "host", "port", "path", "stateless", "token_env")
            if (value := getattr(args, key)) is not None
        }
        settings = loaded.serve.model_copy(update=overrides)
        token = os.environ.get(settings.token_env, "") if settings.token_env else None
        if token == "":
            print(f"toolrail: ${settings.token_env} holds no bearer token", file=sys.stderr)
            return 2
        from toolrail.serve import McpToolServer

        # a gateway always keeps its record: without a config, in ./logs where it was started
        logs = loaded.log_dir or Path("logs")
        resilience = _recorded(loaded, logs)[1]
        sinks: list[Sink] = [JsonlCallLog(logs)]
        if args.progress:  # stdout carries the protocol: the operator reads stderr
            sinks.append(ToolStreamHandler(on_update=lambda u: print(u.text, file=sys.stderr)))
        if args.metrics_port is not None:
            try:
                from toolrail.observe.metrics import PrometheusSink, serve_metrics
            except ModuleNotFoundError as error:
                print(f"toolrail: {error}", file=sys.stderr)
                return 2
            metrics = PrometheusSink(gates=loaded.gates)
            try:
                serve_metrics(metrics, args.metrics_port)
            except OSError as error:  # the port is taken, or not ours to bind
                print(f"toolrail: metrics port {args.metrics_port}: {error}", file=sys.stderr)
                return 2
            metrics.follow(hub)
            metrics.start_from(resilience)  # as the log left them
            print(
                f"toolrail: metrics at http://127.0.0.1:{args.metrics_port}/metrics",
                file=sys.stderr,
            )
            sinks.append(metrics)
        server = McpToolServer(
            loaded.registry,
            context=loaded.context(settings.agent),
            agents=loaded.agents if settings.agent else None,
            gates=loaded.gates,
            resilience=resilience,
            sinks=sinks,
            settings=settings,
        )
        if args.transport == "http":
            from toolrail.serve.http import run_http

            where = f"http://{settings.host}:{settings.port}{settings.path}"
            print(f"toolrail: serving {settings.mode} at {where}", file=sys.stderr)
            await run_http(server, token=token)
        else:
            await server.run_stdio()
        return 0

    return _with_tools(args, body)


def _mcp_list(args: argparse.Namespace) -> int:
    async def body(loaded: _Loaded, hub: McpHub) -> int:
        if not loaded.mcp:
            print("no MCP servers configured ([mcp.servers.<name>] or [mcp] json = ...)")
        for status in hub.status():
            print(f"{status.name}: {status.state}")
            for name in status.tools:
                origin = hub.origin(name)
                shown = printable(origin.tool if origin else "?", one_line=True)
                print(f"  {name:40} ← {shown}")  # the name as the server wrote it
            for skipped in status.skipped:
                print(printable(f"  skipped {skipped}", one_line=True))
        for name in hub.pending_changes():
            held = f"  held back, waiting for acceptance: {name}: {hub.held_reason(name)}"
            print(printable(held, one_line=True))
        broken = [s.name for s in hub.status() if s.state == "broken"]
        return 1 if broken else 0  # why was said once, on stderr, as the server failed

    return _with_tools(args, body)


def _log_dir(args: argparse.Namespace) -> Result[Path, ConfigError]:
    """`--dir`, else the `[logging]` directory of `--config` or ./toolrail.toml, else ./logs."""
    if args.dir is not None:
        directory: Path = args.dir
    elif args.config is not None or Path("toolrail.toml").exists():
        return Config.load(args.config or Path("toolrail.toml")).bind(
            lambda c: _existing(c.root / c.logging.directory)
        )
    else:
        directory = Path("logs")
    return _existing(directory)


def _existing(directory: Path) -> Result[Path, ConfigError]:
    if directory.is_dir():
        return Success(directory)
    hint = (
        "" if Path("toolrail.toml").exists() else " (no toolrail.toml here: give --dir or --config)"
    )
    return Failure(ConfigError(f"no log directory at {directory}{hint}"))


def _with_log_dir(args: argparse.Namespace, body: Callable[[Path], int]) -> int:
    match _log_dir(args):
        case Success(Path() as directory):
            return body(directory)
        case Failure(error):
            print(f"toolrail: {error}", file=sys.stderr)
            return 2
        case _:
            return 2


def _by_time(directory: Path) -> list[Entry]:
    """Entries ordered by their timestamp (files hold them in write order, which concurrent
    writers may interleave)."""
    return sorted(read_entries(directory), key=lambda e: str(e.get("timestamp", "")))


def _logs_tail(args: argparse.Namespace) -> int:
    def body(directory: Path) -> int:
        entries = _by_time(directory)
        for entry in entries[-args.n :] if args.n > 0 else []:
            print(format_entry(entry))
        return 0

    return _with_log_dir(args, body)


def _logs_show(args: argparse.Namespace) -> int:
    return _with_log_dir(args, lambda directory: _show(args, directory))


def _show(args: argparse.Namespace, directory: Path) -> int:
    for entry in _by_time(directory):
        if (
            (args.tool and entry.get("tool") != args.tool)
            or (args.agent and entry.get("agent") != args.agent)
            or (args.status and entry.get("status") != args.status)
        ):
            continue
        print(_shown_json(entry, indent=False) if args.json else format_entry(entry))
    return 0


def _logs_stats(args: argparse.Namespace) -> int:
    def body(directory: Path) -> int:
        rows = stats(read_entries(directory))
        print(format_stats(rows) if rows else f"no calls logged in {directory}")
        return 0

    return _with_log_dir(args, body)


def _version() -> str:
    try:
        return importlib.metadata.version("toolrail")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
