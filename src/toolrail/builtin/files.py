"""`read_path` and `write_context_file`: the project's files, inside its root only."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from returns.result import Failure, Result, Success

from toolrail.builtin.paths import inside
from toolrail.core.context import ExecutionContext
from toolrail.core.decorator import tool
from toolrail.core.errors import ExecutionFailed, ToolError
from toolrail.core.tool import Tool, ToolAnnotations

MAX_READ_BYTES = 256_000
MAX_LISTING = 500
CONTEXT_FILES = ("PROJECT.md", "CONTEXT.md", "AGENTS.md")


def _refused(message: str) -> Failure[ToolError]:
    return Failure(ExecutionFailed(message=message, model_can_fix=True))


def _read(root: Path, path: str, max_bytes: int) -> Result[object, ToolError]:
    found = inside(root, path)
    if isinstance(found, Failure):
        return _refused(found.failure())
    target = found.unwrap()
    if target.is_dir():
        entries = sorted(target.iterdir(), key=lambda p: p.name)
        names = [f"{p.name}/" if p.is_dir() else p.name for p in entries[:MAX_LISTING]]
        more = len(entries) - len(names)
        return Success({"directory": path, "entries": names, "more": max(more, 0)})
    if not target.is_file():
        return _refused(f"{path!r} does not exist in the project")
    try:
        fd = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as error:
        return _refused(f"cannot read {path!r}: {error.strerror}")
    if b"\x00" in data[:8192]:
        return _refused(f"{path!r} is a binary file")
    text = data[:max_bytes].decode("utf-8", errors="replace")
    if len(data) > max_bytes:
        return Success(f"{text}\n…[cut at {max_bytes} bytes of {target.stat().st_size}]")
    return Success(text)


@tool(
    permissions=["fs:read"],
    annotations=ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=False
    ),
    describe=lambda args: f"📖 Reading {args.path}",
)
def read_path(path: str, ctx: ExecutionContext) -> Result[object, ToolError]:
    """Read a text file, or list a directory, inside the project.

    Args:
        path: a path relative to the project root, e.g. "src/app.py" or "."
    """
    return _read(ctx.project_root, path, MAX_READ_BYTES)


def make_write_context_file(
    allowed: Iterable[str] = CONTEXT_FILES, *, max_bytes: int = 200_000
) -> Tool[Any, object]:
    """A `write_context_file` tool that may write only the `allowed` relative paths."""
    names = tuple(allowed)

    @tool(
        name="write_context_file",
        permissions=["fs:write"],
        annotations=ToolAnnotations(destructive=True, idempotent=True, open_world=False),
        describe=lambda args: f"✏️ Writing {args.path}",
    )
    def write_context_file(
        path: str, content: str, ctx: ExecutionContext
    ) -> Result[object, ToolError]:
        """Write a project context file (atomically). Only a few files may be written.

        Args:
            path: one of the context files, e.g. "PROJECT.md"
            content: the whole new content of the file
        """
        if path not in names:
            return _refused(f"{path!r} is not a context file; you may write: {', '.join(names)}")
        if len(content.encode()) > max_bytes:
            return _refused(f"content is over {max_bytes} bytes; write a shorter file")
        return _write_atomic(ctx.project_root, path, content)

    return write_context_file


def _write_atomic(root: Path, path: str, content: str) -> Result[object, ToolError]:
    found = inside(root, path)
    if isinstance(found, Failure):
        return _refused(found.failure())
    target = root.resolve() / path  # the link itself, not where it points
    if target.is_symlink():
        return _refused(f"{path!r} is a symlink; context files are never written through one")
    target = found.unwrap()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        finally:
            if os.path.exists(temp):
                os.unlink(temp)
    except OSError as error:
        return Failure(ExecutionFailed(message=f"cannot write {path!r}: {error.strerror}"))
    return Success({"written": path, "bytes": len(content.encode())})


write_context_file = make_write_context_file()
