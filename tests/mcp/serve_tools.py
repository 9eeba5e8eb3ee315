"""Local tools `toolrail serve` serves in the tests (loaded from a toolrail.toml)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from toolrail import ExecutionContext, ToolAnnotations, tool


@tool(annotations=ToolAnnotations(title="Greeter", read_only=True, idempotent=True))
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"hello {name}"


@tool(
    output_schema={"type": "integer"},
    annotations=ToolAnnotations(read_only=True, open_world=False),
)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(
    output_schema={
        "type": "object",
        "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
        "required": ["city", "celsius"],
    }
)
def weather(city: str) -> dict[str, object]:
    """Current weather in a city."""
    return {"city": city, "celsius": 21.5}


@tool
def fail(reason: str) -> str:
    """Fail with the given reason."""
    raise RuntimeError(f"failed: {reason}")


@tool
async def steps(count: int, ctx: ExecutionContext) -> str:
    """Report progress `count` times."""
    for step in range(1, count + 1):
        ctx.report_progress(step, count, f"step {step}")
        await asyncio.sleep(0.01)
    return f"{count} steps"


@tool
async def hang(marker: str) -> str:
    """Wait until cancelled; the marker file records that the call started."""
    Path(marker).write_text("started")
    await asyncio.Event().wait()
    return "never"


@tool(annotations=ToolAnnotations(destructive=True))
def write_note(path: str, text: str) -> str:
    """Write a note to a file (the policy asks a person first)."""
    Path(path).write_text(text)
    return f"wrote {path}"


@tool(permissions={"env:read"})
def whoami() -> str:
    """The server process's user (needs the env:read permission)."""
    return os.environ.get("USER", "unknown")


@tool
async def odd_text(where: str, ctx: ExecutionContext) -> str:
    """Put a file name that is not UTF-8 (as os.listdir gives it) and a key in `where`:
    the result, the error or a progress message."""
    name = os.fsdecode(b"r\xe9sum\xe9.txt")  # a lone surrogate, as surrogateescape reads it
    key = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3"
    if where == "progress":
        ctx.report_progress(1, None, f"saw {name} using {key}")
        await asyncio.sleep(0.01)
    if where == "error":
        raise ValueError(f"cannot handle {name}")
    return f"files: {name}"
