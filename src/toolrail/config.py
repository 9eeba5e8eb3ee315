"""`toolrail.toml`: which tools to load, which agents may call them, and where logs go."""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import sys
import tomllib
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import orjson
import pydantic
from returns.result import Failure, Result, Success

from toolrail.core.tool import Tool
from toolrail.mcp.config import McpServerConfig, load_mcp_json, servers_from_config
from toolrail.policy.gates import Gates
from toolrail.registry import AgentToolTable, AnyTool, ToolRegistry


class ConfigError(ValueError):
    """A configuration file or tool module could not be used; the message says how to fix it."""


class _Section(pydantic.BaseModel):
    # attribute docstrings become schema descriptions: an editor shows them on hover
    model_config = pydantic.ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, use_attribute_docstrings=True
    )


class ToolsSection(_Section):
    modules: tuple[str, ...] = ()
    """Python modules whose top-level tools to load: dotted names, or .py paths relative to
    this file."""


class AgentSection(_Section):
    tools: tuple[str, ...] = ()
    """Glob patterns over tool names this agent may see and call; `!pattern` removes."""
    permissions: frozenset[str] = frozenset()
    """Permissions granted to this agent, e.g. "fs:read", "shell:execute"."""
    allow: tuple[str, ...] = ()
    """Rules this agent's calls may run under without asking, e.g. "shell(git status*)"."""
    ask: tuple[str, ...] = ()
    """Rules whose calls wait for a person's approval."""
    deny: tuple[str, ...] = ()
    """Rules whose calls are refused; deny beats ask beats allow."""


class PolicySection(_Section):
    """Global rules; deny beats ask beats allow, per agent rules join these."""

    allow: tuple[str, ...] = ()
    """Rules every agent's calls may run under without asking."""
    ask: tuple[str, ...] = ()
    """Rules whose calls wait for a person's approval."""
    deny: tuple[str, ...] = ()
    """Rules whose calls are refused."""
    needs_approval: tuple[str, ...] = ()
    """Tool-name globs that always ask, whatever the rules say (deny still wins)."""


class LoggingSection(_Section):
    directory: str = "logs"
    """Where the JSONL call logs go, relative to this file."""


class McpSection(_Section):
    servers: dict[str, dict[str, Any]] = {}
    """MCP servers by name: `command` and `args` (stdio) or `url` (HTTP)."""
    json_file: str | None = pydantic.Field(None, alias="json")
    """A `.mcp.json` whose `mcpServers` join the servers above."""
    pins: str | None = None
    """Where first-seen tool definition hashes are kept across runs."""


class ServeSection(_Section):
    """`toolrail serve`: the registry as an MCP server (stdio or streamable HTTP)."""

    mode: Literal["static", "dynamic", "hybrid"] = "static"
    """static lists every tool; dynamic only find_relevant_tools and execute_tool; hybrid the
    pinned and frequently used tools plus those two."""
    agent: str | None = None
    """The agent the connecting client is served as (its tool table, permissions and rules);
    none: an operator who may call every tool."""
    pinned: tuple[str, ...] = ()
    """Tool-name globs hybrid mode always lists."""
    frequent: int = pydantic.Field(5, ge=0)
    """How many of the most used tools hybrid mode lists."""
    name: str = "toolrail"
    """The server name clients see."""
    list_poll_s: float = pydantic.Field(1.0, gt=0)
    """How often to re-check the served tool list and tell clients when it changed."""
    host: str = "127.0.0.1"
    """HTTP: the address to bind (localhost unless you mean it)."""
    port: int = pydantic.Field(8765, ge=0, le=65535)
    """HTTP: the port."""
    path: str = "/mcp"
    """HTTP: the endpoint path."""
    stateless: bool = False
    """HTTP: no sessions, so replicas can run behind a load balancer (no list_changed, and
    approvals only where the protocol carries them in the result)."""
    max_body_bytes: int = pydantic.Field(4 * 1024 * 1024, gt=0)
    """HTTP: larger request bodies are refused with 413."""
    allowed_hosts: tuple[str, ...] = ()
    """HTTP: Host headers accepted besides localhost's ("example.com:*"); others get 421."""
    allowed_origins: tuple[str, ...] = ()
    """HTTP: Origin headers accepted besides localhost's ("https://app.example.com"); others
    get 403."""
    token_env: str | None = None
    """HTTP: the environment variable holding the bearer token clients must send (401
    without it); unset: no token."""


class Config(_Section):
    """The parsed `toolrail.toml`; relative paths are relative to the file's directory."""

    tools: ToolsSection = ToolsSection()
    """Local tools to load."""
    agents: dict[str, AgentSection] = {}
    """Agents by name: their tool tables, permissions and rules."""
    logging: LoggingSection = LoggingSection()
    """The call log."""
    mcp: McpSection = McpSection()
    """MCP servers whose tools join the registry as mcp__<server>__<tool>."""
    policy: PolicySection | None = None
    """Rules for every agent."""
    serve: ServeSection = ServeSection()
    """`toolrail serve`: serving the tools to MCP clients."""
    root: Path = Path()

    @classmethod
    def parse(cls, data: Mapping[str, Any], *, root: Path = Path()) -> Result[Config, ConfigError]:
        try:
            return Success(cls.model_validate({**data, "root": root}))
        except pydantic.ValidationError as error:
            lines = [
                f"- {'.'.join(str(p) for p in e['loc'])}: {e['msg']}{_did_you_mean(e)}"
                for e in error.errors(include_url=False)
            ]
            return Failure(ConfigError("invalid toolrail.toml:\n" + "\n".join(lines)))

    @classmethod
    def load(cls, path: str | Path) -> Result[Config, ConfigError]:
        file = Path(path)
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except OSError as error:
            return Failure(ConfigError(f"cannot read {file}: {error.strerror}"))
        except tomllib.TOMLDecodeError as error:
            return Failure(ConfigError(f"{file} is not valid TOML: {error}"))
        return cls.parse(data, root=file.resolve().parent)

    def agent_table(self) -> AgentToolTable | None:
        if not self.agents:
            return None
        return AgentToolTable({name: agent.tools for name, agent in self.agents.items()})

    def registry(self) -> Result[ToolRegistry, ConfigError]:
        return load_tools(self.tools.modules, root=self.root)

    def mcp_servers(self) -> Result[tuple[McpServerConfig, ...], ConfigError]:
        """The servers of `[mcp.servers.*]` and of the `.mcp.json` named by `[mcp] json`."""
        found = servers_from_config(self.mcp.servers)
        if self.mcp.json_file is not None:
            from_json = load_mcp_json(self.root / self.mcp.json_file)
            found = found.bind(lambda ours: from_json.map(lambda theirs: (*ours, *theirs)))
        return found.alt(lambda error: ConfigError(str(error)))

    def gates(self) -> Gates | None:
        """The gates `[policy]` and the agents' allow/ask/deny lists describe, if any."""
        if self.policy is None and not any(
            a.allow or a.ask or a.deny for a in self.agents.values()
        ):
            return None
        policy = (self.policy or PolicySection()).model_dump()
        return Gates.from_config(policy, {n: a.model_dump() for n, a in self.agents.items()})

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of a toolrail.toml (published as schemas/toolrail-config.schema.json)."""
        schema = cls.model_json_schema(by_alias=True)
        schema["properties"].pop("root", None)
        server = McpServerConfig.model_json_schema(by_alias=True)  # unknown keys are refused
        server["properties"].pop("name")
        server["required"] = [r for r in server.get("required", []) if r != "name"]
        schema["$defs"]["McpSection"]["properties"]["servers"]["additionalProperties"] = server
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["title"] = "toolrail.toml"
        return schema

    @property
    def pins_path(self) -> Path | None:
        return self.root / self.mcp.pins if self.mcp.pins else None


def _did_you_mean(error: Any) -> str:
    """For an unknown key, the closest known key of its section."""
    if error["type"] != "extra_forbidden":
        return ""
    section: type[pydantic.BaseModel] = Config
    for part in error["loc"][:-1]:
        field = section.model_fields.get(str(part))
        if field is not None:  # `X`, `X | None` and `dict[str, X]` lead into the section X
            section = next(
                (m for m in _models_in(field.annotation) if issubclass(m, _Section)), section
            )
    known = [name for name in section.model_fields if name != "root"]
    close = difflib.get_close_matches(str(error["loc"][-1]), known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else f" (known keys: {', '.join(known)})"


def _models_in(annotation: object) -> list[type]:
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def load_tools(modules: Iterable[str], *, root: Path = Path()) -> Result[ToolRegistry, ConfigError]:
    """Every `Tool` defined at the top level of the given modules (dotted names or .py paths)."""
    registry = ToolRegistry()
    for spec in modules:
        try:
            module = _import(spec, root)
            for found in tools_in(module):
                registry.register(found)
        except ConfigError as error:
            return Failure(error)
        except Exception as error:
            return Failure(ConfigError(f"cannot load tools from {spec!r}: {error}"))
    return Success(registry)


def tools_in(module: ModuleType) -> list[AnyTool]:
    return [value for value in vars(module).values() if isinstance(value, Tool)]


def _import(spec: str, root: Path) -> ModuleType:
    if spec.endswith(".py"):
        file = (root / spec).resolve()
        loader = importlib.util.spec_from_file_location(file.stem, file)
        if loader is None or loader.loader is None or not file.exists():
            raise ConfigError(f"no Python file at {file}")
        module = importlib.util.module_from_spec(loader)
        sys.modules[file.stem] = module
        loader.loader.exec_module(module)
        return module
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as error:
        raise ConfigError(
            f"cannot import {spec!r} ({error}); give a dotted module name importable from "
            f"{root} or a path to a .py file"
        ) from error


if __name__ == "__main__":
    print(orjson.dumps(Config.json_schema(), option=orjson.OPT_INDENT_2).decode())
