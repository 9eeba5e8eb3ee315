"""`shell` against a hostile project: git configuration that runs programs, a planted
.gitconfig, a parent repository, a .git file pointing outside, ref creation, endless output,
links in arguments. Real git, real files."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import subprocess
from pathlib import Path

import anyio
import pytest

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry
from toolrail.builtin.shell import Program, make_shell, shell

pytestmark = pytest.mark.anyio


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env={"PATH": os.environ["PATH"], "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"},
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(
        root,
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    (root / "file.txt").write_text("one\n")
    git(root, "add", "file.txt")
    git(root, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "file")
    (root / "file.txt").write_text("two\n")
    return root


async def run(root: Path, *command: str, tool: object = shell) -> object:
    ctx = ExecutionContext(project_root=root, permissions=frozenset({"shell:execute"}))
    outcome = await Executor(ToolRegistry([tool])).run(  # type: ignore[list-item]
        ToolCall(name="shell", arguments={"command": list(command)}), ctx
    )
    return outcome.result


@pytest.mark.parametrize(
    "config",
    [
        "[core]\n\tfsmonitor = touch {marker}\n",
        "[diff]\n\texternal = touch {marker}\n",
        "[core]\n\tpager = touch {marker}\n",
        "[core]\n\thooksPath = {hooks}\n",
    ],
)
async def test_project_git_config_never_runs_a_program(
    repo: Path, tmp_path: Path, config: str
) -> None:
    marker, hooks = tmp_path / "ran", tmp_path / "hooks"
    hooks.mkdir()
    with (repo / ".git" / "config").open("a") as handle:
        handle.write(config.format(marker=marker, hooks=hooks))
    for command in (["git", "status"], ["git", "diff"], ["git", "log", "-n", "1"]):
        await run(repo, *command)
    assert not marker.exists()


async def test_a_planted_gitconfig_is_not_read(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (repo / ".gitconfig").write_text(f"[core]\n\tfsmonitor = touch {marker}\n")
    await run(repo, "git", "status")
    assert not marker.exists()


async def test_no_parent_repository_and_no_git_file_pointing_outside(tmp_path: Path) -> None:
    parent = tmp_path / "parent"
    parent.mkdir()
    git(parent, "init", "-q")
    child = parent / "child"
    child.mkdir()
    refused = await run(child, "git", "log")
    assert ".git is a directory" in refused.failure().message  # type: ignore[attr-defined]
    (child / ".git").write_text(f"gitdir: {parent / '.git'}\n")
    refused = await run(child, "git", "status")
    assert ".git is a directory" in refused.failure().message  # type: ignore[attr-defined]


async def test_reading_does_not_create_refs(repo: Path) -> None:
    refused = await run(repo, "git", "branch", "sneaky")
    assert "does not create" in refused.failure().message  # type: ignore[attr-defined]
    assert not (repo / ".git" / "refs" / "heads" / "sneaky").exists()
    listed = await run(repo, "git", "branch")
    assert "main" in listed.unwrap()["stdout"]  # type: ignore[attr-defined]


async def test_links_in_arguments_are_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("SECRET")
    (repo / "soft").symlink_to(outside)
    os.link(outside, repo / "hard")
    for name in ("soft", "hard"):
        result = await run(repo, "cat", name)
        assert "SECRET" not in str(result)


async def test_endless_output_is_stopped_at_the_cap(repo: Path) -> None:
    endless = make_shell({"yes": Program()}, max_output=1000, timeout_s=60)
    result = (await run(repo, "yes", tool=endless)).unwrap()  # type: ignore[attr-defined]
    assert "stopped after" in result["stdout"]


async def piled_up(root: Path) -> asyncio.subprocess.Process:
    """A program whose output piled up unread (the loop was busy elsewhere): asyncio then
    stops reading its pipe, and `Process.wait` waits for every pipe to close."""
    (root / "huge.txt").write_text("q" * 1_000_000)
    process = await asyncio.create_subprocess_exec(
        "cat", "huge.txt", cwd=root, stdout=subprocess.PIPE, start_new_session=True
    )
    await anyio.sleep(0.3)
    return process


async def test_a_program_stopped_at_the_cap_is_reaped_at_once(tmp_path: Path) -> None:
    """Stopped at the output cap, it does not keep its call waiting for the timeout (found
    under CPU load)."""
    shell_module = importlib.import_module("toolrail.builtin.shell")
    process = await piled_up(tmp_path)
    assert "stopped after" in await shell_module._capped(process.stdout, 1000, process)
    with anyio.fail_after(20):  # a guard against the hang, not a timing
        assert await process.wait() == -9


async def test_a_program_stopped_at_its_timeout_is_reaped_at_once(tmp_path: Path) -> None:
    """The same at a timeout or a cancellation, where the readers were cancelled: the call
    hung for ever (found by an outside review)."""
    shell_module = importlib.import_module("toolrail.builtin.shell")
    process = await piled_up(tmp_path)
    with anyio.fail_after(20):
        await shell_module._stopped(process)
    assert process.returncode == -9


async def test_a_child_that_left_the_group_does_not_hold_the_call(tmp_path: Path) -> None:
    """A child in a session of its own survives the group's kill and holds the pipes; the
    call still ends with the capped output, not at its timeout."""
    (tmp_path / "huge.txt").write_text("q" * 1_000_000)
    (tmp_path / "run.sh").write_text("setsid sleep 60 & echo $! > pid\nexec cat huge.txt\n")
    capped = make_shell({"sh": Program()}, max_output=1000, timeout_s=30)
    try:
        with anyio.fail_after(20):
            result = await run(tmp_path, "sh", "run.sh", tool=capped)
        assert "stopped after" in result.unwrap()["stdout"]  # type: ignore[attr-defined]
    finally:
        with contextlib.suppress(ProcessLookupError, ValueError, FileNotFoundError):
            os.kill(int((tmp_path / "pid").read_text()), 9)


async def test_a_program_never_outlives_its_cancelled_call(tmp_path: Path) -> None:
    """The executor's deadline cancels the shell tool: its program is killed and reaped, not
    left running with its pipes open."""
    marker = tmp_path / "pid"
    slow = make_shell({"sh": Program()}, timeout_s=60)
    executor = Executor(ToolRegistry([slow]), default_timeout_s=0.5)
    ctx = ExecutionContext(permissions=frozenset({"shell:execute"}), project_root=tmp_path)
    (tmp_path / "slow.sh").write_text(f"echo $$ > {marker}\nexec sleep 60\n")
    outcome = await executor.run(
        ToolCall(name="shell", arguments={"command": ["sh", "slow.sh"]}), ctx
    )
    assert outcome.result.failure().kind == "timed_out"
    pid = int(marker.read_text())
    for _ in range(200):  # reaped within a few seconds at most; no sleep-based assertion of time
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            await executor.aclose()  # the body's clean-up after its deadline, done
            return
        await anyio.sleep(0.05)
    pytest.fail(f"the program {pid} outlived its cancelled call")
