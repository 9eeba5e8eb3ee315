"""`learn`: record a lesson (title, lesson, scope) in the project's lessons store."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import orjson
from pydantic import Field, StringConstraints
from returns.result import Failure, Result, Success

from toolrail.builtin.paths import Refused, open_inside
from toolrail.core.context import ExecutionContext
from toolrail.core.decorator import tool
from toolrail.core.errors import ExecutionFailed, ToolError
from toolrail.core.tool import ToolAnnotations
from toolrail.recording.jsonl import append_whole

LESSONS = Path(".toolrail") / "lessons.jsonl"
Scope = Annotated[str, StringConstraints(pattern=r"^[a-z0-9_:-]{1,64}$")]


@tool(permissions=["fs:write"], annotations=ToolAnnotations(destructive=False, open_world=False))
def learn(
    title: Annotated[str, Field(min_length=1, max_length=120)],
    lesson: Annotated[str, Field(min_length=1, max_length=4000)],
    ctx: ExecutionContext,
    scope: Scope = "project",
) -> Result[dict[str, object], ToolError]:
    """Remember a lesson for later work in this project.

    Args:
        title: a short name for the lesson
        lesson: what was learned, in a few sentences
        scope: where it applies, e.g. "project", "agent:planner", "tool:shell"
    """
    record = {
        "at": datetime.now(UTC).isoformat(),
        "agent": ctx.agent,
        "title": title,
        "lesson": lesson,
        "scope": scope,
        "conversation_id": ctx.conversation_id,
    }
    line = orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
    try:  # through the containment primitive: never through a link, never outside
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT
        fd = open_inside(ctx.project_root, LESSONS.as_posix(), flags, create_dirs=True)
        try:
            append_whole(fd, line)
        finally:
            os.close(fd)
    except Refused as refused:
        return Failure(ExecutionFailed(message=f"cannot record the lesson: {refused}"))
    except OSError as error:
        return Failure(ExecutionFailed(message=f"cannot record the lesson: {error.strerror}"))
    return Success({"recorded": title, "scope": scope})
