"""The `toolrail` command: list and call the tools of a `toolrail.toml` or a Python module."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from returns.result import Failure, Result, Success

from toolrail.config import Config, ConfigError, load_tools
from toolrail.core.call import ToolCall
from toolrail.core.context import ExecutionContext
from toolrail.executor import Executor
from toolrail.jsonish import dumps
from toolrail.logreader import format_entry, format_stats, read_entries, stats
from toolrail.registry import AgentToolTable, ToolRegistry


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    command: int = args.handler(args)
    return command


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolrail", description=__doc__)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    tools = commands.add_parser("tools", help="inspect tools").add_subparsers(required=True)
    listing = tools.add_parser("list", help="list tools, optionally as one agent sees them")
    _source_options(listing)
    listing.add_argument("--json", action="store_true", help="print JSON Schemas too")
    listing.set_defaults(handler=_tools_list)

    call = commands.add_parser("call", help="call one tool and print its Result as JSON")
    call.add_argument("name", help="tool name")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    _source_options(call)
    call.set_defaults(handler=_call)

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
        sub.add_argument("--dir", type=Path, default=Path("logs"), help="log directory")
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


def _load(
    args: argparse.Namespace,
) -> Result[tuple[ToolRegistry, AgentToolTable | None], ConfigError]:
    if args.module:
        return load_tools(args.module, root=Path.cwd()).map(lambda registry: (registry, None))
    path = args.config or Path("toolrail.toml")
    config = Config.load(path)
    return config.bind(lambda c: c.registry().map(lambda registry: (registry, c.agent_table())))


def _tools_list(args: argparse.Namespace) -> int:
    match _load(args):
        case Success((registry, table)):
            executor = Executor(registry, agents=table)
            tools = executor.visible(args.agent) if args.agent else tuple(registry)
            for item in tools:
                flags = ", ".join(sorted(item.tags | item.permissions))
                print(
                    f"{item.name:32} {item.description.splitlines()[0]}"
                    + (f"  [{flags}]" if flags else "")
                )
                if args.json:
                    print(dumps(item.input_schema(), indent=True).decode())
            return 0
        case Failure(error):
            print(f"toolrail: {error}", file=sys.stderr)
            return 2
        case _:
            return 2


def _call(args: argparse.Namespace) -> int:
    match _load(args):
        case Success((registry, table)):
            # without --agent the operator may call every tool; with it, that agent's table applies
            executor = Executor(registry, agents=table if args.agent else None)
            ctx = ExecutionContext(agent=args.agent or "operator", project_root=Path.cwd())
            outcome = asyncio.run(executor.run(ToolCall(name=args.name, arguments=args.args), ctx))
            match outcome.result:
                case Success(value):
                    print(dumps({"status": "success", "output": value}, indent=True).decode())
                    return 0
                case Failure(error):
                    print(dumps({"status": "failure", "error": error}, indent=True).decode())
                    return 1
                case _:
                    return 1
        case Failure(error):
            print(f"toolrail: {error}", file=sys.stderr)
            return 2
        case _:
            return 2


def _logs_tail(args: argparse.Namespace) -> int:
    entries = list(read_entries(args.dir))
    for entry in entries[-args.n :] if args.n > 0 else []:
        print(format_entry(entry))
    return 0


def _logs_show(args: argparse.Namespace) -> int:
    for entry in read_entries(args.dir):
        if (
            (args.tool and entry.get("tool") != args.tool)
            or (args.agent and entry.get("agent") != args.agent)
            or (args.status and entry.get("status") != args.status)
        ):
            continue
        print(dumps(entry).decode() if args.json else format_entry(entry))
    return 0


def _logs_stats(args: argparse.Namespace) -> int:
    rows = stats(read_entries(args.dir))
    if not rows:
        print(f"no calls logged in {args.dir}")
        return 0
    print(format_stats(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
