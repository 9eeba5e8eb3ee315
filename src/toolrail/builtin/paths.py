"""Containment: a path a model names is used only if it stays inside the project root.

Decided on resolved paths, component by component (`Path.is_relative_to`, never string
prefixes), so `../`, absolute paths, `~`, NUL bytes, sibling directories sharing a prefix
with the root and symlinks pointing out are all refused.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from returns.result import Failure, Result, Success


def inside(root: Path, requested: str) -> Result[Path, str]:
    """The resolved path of `requested` under `root`, or why it is refused."""
    if not requested or not requested.strip():
        return Failure("give a path relative to the project root")
    if "\x00" in requested:
        return Failure("paths may not contain NUL bytes")
    if requested.startswith("~"):
        return Failure("'~' is not expanded; give a path relative to the project root")
    pure = PurePosixPath(requested.replace("\\", "/"))
    if pure.is_absolute() or (len(requested) > 1 and requested[1] == ":"):
        return Failure(f"{requested!r} is absolute; give a path relative to the project root")
    if ".." in pure.parts:
        return Failure(f"{requested!r} climbs out with '..'; stay inside the project root")
    try:
        base = root.resolve(strict=True)
        resolved = (base / pure).resolve(strict=False)
    except (OSError, RuntimeError) as error:  # RuntimeError: a symlink loop
        return Failure(f"cannot resolve {requested!r}: {error}")
    if resolved != base and not resolved.is_relative_to(base):
        return Failure(f"{requested!r} leads outside the project root (through a symlink)")
    return Success(resolved)
