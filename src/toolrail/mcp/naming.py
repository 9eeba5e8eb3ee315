"""`mcp__<server>__<tool>` names every model API accepts, and the way back."""

from __future__ import annotations

import hashlib
import re

MAX_NAME = 64
_INVALID = re.compile(r"[^a-zA-Z0-9_-]")


def sanitize(part: str) -> str:
    """Replace characters model APIs reject; never empty."""
    return _INVALID.sub("_", part) or "_"


def namespaced(server: str, tool: str) -> str:
    """The toolrail name of `tool` on `server`, shortened with a stable hash when too long.

    >>> namespaced("fetch", "fetch")
    'mcp__fetch__fetch'
    >>> namespaced("git hub", "issues.list")
    'mcp__git_hub__issues_list'
    >>> len(namespaced("s", "x" * 100))
    64
    """
    name = f"mcp__{sanitize(server)}__{sanitize(tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"
