"""A program that recurses opens what it finds itself: a hard link to an outside file in
the project is refused before it runs (grep -r, git status/diff). Real programs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry
from toolrail.builtin.shell import shell

pytestmark = pytest.mark.anyio
SECRET = "SECRET-HARD-LINKED"


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=a@b", "-c", "user.name=a", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env={"PATH": os.environ["PATH"], "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"},
    )


async def run(root: Path, *command: str) -> object:
    ctx = ExecutionContext(project_root=root, permissions=frozenset({"shell:execute"}))
    outcome = await Executor(ToolRegistry([shell])).run(
        ToolCall(name="shell", arguments={"command": list(command)}), ctx
    )
    return outcome.result


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "sub" / "deeper").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "file.txt").write_text("inside\n")
    git(root, "add", "file.txt")
    git(root, "commit", "-q", "-m", "x")
    return root


COMMANDS = [
    ["grep", "-r", "SECRET", "."],
    ["grep", "-r", "SECRET", "sub"],
    ["grep", "-r", "SECRET"],
    ["grep", "-r", "-i", "-e", "secret"],
    ["git", "diff"],
    ["git", "status"],
]


@pytest.mark.parametrize("where", ["hard", "sub/hard", "sub/deeper/hard"])
@pytest.mark.parametrize("command", COMMANDS)
async def test_a_hard_link_is_never_read_by_a_recursive_program(
    project: Path, tmp_path: Path, where: str, command: list[str]
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text(f"{SECRET}\n")
    os.link(outside, project / where)
    if command[0] == "git":  # tracked, then the outside file changes
        git(project, "add", where)
        git(project, "commit", "-q", "-m", "h")
        outside.write_text(f"{SECRET} changed\n")
    result = await run(project, *command)
    assert SECRET not in str(result)
    assert "hard link" in str(result)


async def test_recursive_reads_work_without_hard_links(project: Path) -> None:
    """Symlinks are not followed by grep -r, so they do not block it."""
    (project / "sub" / "a.txt").write_text("needle\n")
    (project / "sub" / "soft").symlink_to("/etc/hostname")
    found = (await run(project, "grep", "-r", "needle", "sub")).unwrap()  # type: ignore[attr-defined]
    assert "sub/a.txt:needle" in found["stdout"]
    assert (await run(project, "git", "status")).unwrap()["exit_code"] == 0  # type: ignore[attr-defined]
