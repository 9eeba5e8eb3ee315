"""`generate_inventory`: a bounded summary of the project's files, honouring .gitignore."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pathspec
from returns.result import Result, Success

from toolrail.core.context import ExecutionContext
from toolrail.core.decorator import tool
from toolrail.core.errors import ToolError
from toolrail.core.tool import ToolAnnotations

ALWAYS_SKIPPED = {
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    ".toolrail",
}


def _ignores(root: Path) -> pathspec.PathSpec[Any]:
    lines: list[str] = []
    gitignore = root / ".gitignore"
    if gitignore.is_file():
        lines = gitignore.read_text(encoding="utf-8", errors="replace").splitlines()
    return pathspec.PathSpec.from_lines("gitignore", lines)


def inventory(root: Path, max_files: int = 400) -> dict[str, object]:
    root = root.resolve()
    ignored = _ignores(root)
    files: list[str] = []
    sizes = 0
    kinds: Counter[str] = Counter()
    total = 0
    for directory, subdirs, names in os.walk(root, followlinks=False):
        relative_dir = Path(directory).relative_to(root)
        subdirs[:] = sorted(
            d
            for d in subdirs
            if d not in ALWAYS_SKIPPED and not ignored.match_file(f"{relative_dir / d}/")
        )
        for name in sorted(names):
            relative = (relative_dir / name).as_posix()
            if ignored.match_file(relative):
                continue
            total += 1
            kinds[Path(name).suffix or "(none)"] += 1
            path = Path(directory, name)
            if not path.is_symlink():
                sizes += path.stat().st_size
            if len(files) < max_files:
                files.append(relative)
    return {
        "files": files,
        "total_files": total,
        "total_bytes": sizes,
        "by_extension": dict(kinds.most_common(20)),
        "truncated": total > len(files),
    }


@tool(
    permissions=["fs:read"],
    annotations=ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=False
    ),
)
def generate_inventory(
    ctx: ExecutionContext, max_files: int = 400
) -> Result[dict[str, object], ToolError]:
    """List the project's files (ignoring what .gitignore ignores) with counts by extension.

    Args:
        max_files: at most this many file paths in the answer (1-2000)
    """
    return Success(inventory(ctx.project_root, max(1, min(max_files, 2000))))
