"""A real MCP server's tool whose schema declares a parameter secret (`SecretStr` on the
server: `"format": "password"`, `"writeOnly": true`): its value is in no record of the
call on the client's side, and the server's error quoting it reaches nobody whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolStreamHandler
from toolrail.mcp import McpHub, McpServerConfig
from toolrail.recording.eventjson import event_data
from toolrail.recording.events import ToolEvent

pytestmark = pytest.mark.anyio

KEY = "Vault-K3y-Material-77"


async def test_a_server_declared_secret_is_masked_in_every_record(
    test_server: McpServerConfig, tmp_path: Path
) -> None:
    events: list[ToolEvent] = []
    lines: list[str] = []
    log = JsonlCallLog(tmp_path)
    stream = ToolStreamHandler(on_update=lambda update: lines.append(update.text))
    async with McpHub([test_server]) as hub:
        tool = hub.registry.find("mcp__test__unlock")
        assert tool is not None
        assert tool.parameters.secret_names == frozenset({"key_material"})
        executor = Executor(hub.registry, sinks=[events.append, log, stream])
        call = ToolCall(name="mcp__test__unlock", arguments={"vault": "prod", "key_material": KEY})
        ctx = ExecutionContext(permissions=frozenset({"mcp:connect"}))
        outcome = await executor.run(call, ctx)
    log.close()
    error = str(outcome.result.failure())
    assert "vault prod refused [REDACTED]" in error  # the server got the key, and quoted it
    recorded = {
        "the model's error": error,
        "the log": "\n".join(p.read_text() for p in tmp_path.glob("*.jsonl")),
        "the events": json.dumps([event_data(e) for e in events]),
        "the stream": "\n".join(lines),
    }
    for where, text in recorded.items():
        assert KEY not in text, f"{where}: {text}"
