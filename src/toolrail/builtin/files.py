"""`read_path` and `write_context_file`: the project's files, inside its root only."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from returns.result import Failure, Result, Success

from toolrail.builtin.paths import Refused, directory_of, open_inside
from toolrail.core.context import ExecutionContext
from toolrail.core.decorator import tool
from toolrail.core.errors import ExecutionFailed, ToolError
from toolrail.core.tool import Tool, ToolAnnotations

MAX_READ_BYTES = 256_000
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
MAX_LISTING = 500
CONTEXT_FILES = ("PROJECT.md", "CONTEXT.md", "AGENTS.md")


def _refused(message: str) -> Failure[ToolError]:
    return Failure(ExecutionFailed(message=message, model_can_fix=True))


def _read(root: Path, path: str, max_bytes: int) -> Result[object, ToolError]:
    try:
        fd = open_inside(root, path)
    except Refused as refused:
        return _refused(str(refused))
    try:
        held = os.fstat(fd)
        if stat.S_ISDIR(held.st_mode):
            return Success(_listing(fd, path))
        if not stat.S_ISREG(held.st_mode):
            return _refused(f"{path!r} is not a regular file")
        data = os.read(fd, max_bytes + 1)
    except OSError as error:
        return _refused(f"cannot read {path!r}: {error.strerror}")
    finally:
        os.close(fd)
    if b"\x00" in data[:8192]:
        return _refused(f"{path!r} is a binary file")
    text = data[:max_bytes].decode("utf-8", errors="replace")
    if len(data) > max_bytes:
        return Success(f"{text}\n…[cut at {max_bytes} bytes of {held.st_size}]")
    return Success(text)


def _listing(fd: int, path: str) -> dict[str, object]:
    """A directory's entries, from the handle we hold (links are listed, not followed)."""
    with os.scandir(os.dup(fd)) as found:
        entries = sorted(
            (e.name + ("/" if e.is_dir(follow_symlinks=False) else "") for e in found),
            key=lambda name: name.rstrip("/"),
        )
    names = entries[:MAX_LISTING]
    return {"directory": path, "entries": names, "more": max(len(entries) - len(names), 0)}


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
    """Write a temporary file beside the target through the directory handle, then rename
    it over the target in that same directory: no name is looked up twice, no link is
    followed, and an existing file keeps its mode."""
    data = content.encode("utf-8")
    try:
        with directory_of(root, path, create=True) as (parent, name):
            mode = _existing_mode(parent, name, path)
            temp = f".{name}.{secrets.token_hex(8)}"
            fd = os.open(temp, _NEW_FILE, 0o600, dir_fd=parent)
            try:
                os.fchmod(fd, mode)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
                os.close(fd)
                fd = -1
                os.replace(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
            finally:
                if fd >= 0:
                    os.close(fd)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=parent)
    except Refused as refused:
        return _refused(str(refused))
    except OSError as error:
        return Failure(ExecutionFailed(message=f"cannot write {path!r}: {error.strerror}"))
    return Success({"written": path, "bytes": len(data)})


def _existing_mode(parent: int, name: str, path: str) -> int:
    """The mode to give the new file: the existing one's, else 0644. A symlink is refused."""
    try:
        found = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return 0o644
    if stat.S_ISLNK(found.st_mode):
        raise Refused(f"{path!r} is a symlink; context files are never written through one")
    if not stat.S_ISREG(found.st_mode):
        raise Refused(f"{path!r} is not a regular file")
    return stat.S_IMODE(found.st_mode)


write_context_file = make_write_context_file()
