"""Tools the gates hide from an agent: no hint of them reaches it through the executor.

A name's "did you mean" suggests only what the agent may call (its permissions included),
and a tool denied by name is refused before its arguments are validated, so the validation
errors never describe its input schema. Rules that read arguments still see validated ones.
"""

from __future__ import annotations

import pytest
from returns.result import Failure

from toolrail import (
    ExecutionContext,
    Executor,
    InvalidArguments,
    PermissionDenied,
    ToolCall,
    ToolRegistry,
    TransportError,
    UnknownTool,
    tool,
)
from toolrail.policy.gates import Gates
from toolrail.policy.rules import Rules

pytestmark = pytest.mark.anyio


@tool(permissions={"vault:read"})
def vault_read_secret(key: str) -> str:
    """Read a secret from the vault."""
    return "s3cr3t"


@tool
def nuke_everything(target: str) -> str:
    """Nuke the target cluster."""
    return "nuked"


@tool
def shell(command: str) -> str:
    """Run a command."""
    return command


def executor() -> Executor:
    registry = ToolRegistry([vault_read_secret, nuke_everything, shell])
    rules = Rules.of(deny=["nuke_everything", "shell(rm *)"])
    return Executor(registry, gates=Gates(rules=rules))


async def failure(ex: Executor, name: str, arguments: dict[str, object]) -> object:
    ctx = ExecutionContext(agent="client", permissions=frozenset())
    result = (await ex.run(ToolCall(name=name, arguments=arguments), ctx)).result
    assert isinstance(result, Failure), result
    return result.failure()


async def test_did_you_mean_names_no_tool_the_agent_lacks_permissions_for() -> None:
    refused = await failure(executor(), "vault_read_secre", {})
    assert isinstance(refused, UnknownTool)
    assert refused.suggestions == ()
    assert "vault_read_secret" not in refused.message


async def test_a_tool_denied_by_name_is_refused_before_its_arguments_are_validated() -> None:
    cases: tuple[dict[str, object], ...] = ({}, {"target": 5}, {"other": "x"})
    for arguments in cases:
        refused = await failure(executor(), "nuke_everything", arguments)
        assert isinstance(refused, PermissionDenied), refused
        assert "target" not in refused.message  # nothing of its schema


async def test_argument_rules_still_see_validated_arguments() -> None:
    """A rule that reads arguments does not hide the tool: validation comes first."""
    ex = executor()
    assert isinstance(await failure(ex, "shell", {"command": 5}), InvalidArguments)
    denied = await failure(ex, "shell", {"command": "rm -rf /"})
    assert isinstance(denied, PermissionDenied)
    assert "shell(rm *)" in denied.message


async def test_a_broken_servers_tool_denied_by_name_reads_as_unknown() -> None:
    """A claimed name whose MCP server is down is explained ("server broken") only to an
    agent that may call it: behind a deny rule it is a name no tool has (found by an
    outside review)."""
    registry = ToolRegistry([nuke_everything])
    registry.claim(
        "mcp__vault__",
        lambda name: TransportError(message=f"{name}: server broken", server="vault"),
    )
    hidden = Executor(registry, gates=Gates(rules=Rules.of(deny=["mcp__vault__*"])))
    open_to_all = Executor(registry)
    call = ToolCall(name="mcp__vault__read", arguments={"key": "k"})
    refused = (await hidden.run(call, ExecutionContext(agent="a"))).result.failure()
    assert isinstance(refused, UnknownTool)
    explained = (await open_to_all.run(call, ExecutionContext(agent="a"))).result.failure()
    assert isinstance(explained, TransportError)
