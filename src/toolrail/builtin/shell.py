"""`shell`: run an allow-listed program as an argv list — no shell, in the project root,
with a timeout, an output cap and a scrubbed environment.

Each allowed program names the options it accepts; any other argument starting with `-`
is refused, so a value cannot smuggle in an option (`--upload-pack=…`, `-exec`, `--pre`).
Other arguments may not be absolute, use `..`, or name a path that resolves outside the
project.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from returns.result import Failure, Result, Success

from toolrail.builtin.paths import Refused, open_inside
from toolrail.core.context import ExecutionContext
from toolrail.core.decorator import tool
from toolrail.core.errors import ExecutionFailed, TimedOut, ToolError
from toolrail.core.tool import Tool, ToolAnnotations

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True, slots=True)
class Program:
    """What one allowed program may be given: its options and, optionally, subcommands."""

    options: frozenset[str] = frozenset()
    subcommands: frozenset[str] | None = None


DEFAULT_PROGRAMS: Mapping[str, Program] = {
    "git": Program(
        frozenset(
            {
                "--short",
                "-s",
                "--porcelain",
                "-b",
                "--oneline",
                "-n",
                "--stat",
                "--name-only",
                "--cached",
                "--all",
                "-a",
                "--no-color",
            }
        ),
        frozenset({"status", "log", "diff", "show", "branch", "rev-parse", "ls-files"}),
    ),
    "ls": Program(frozenset({"-l", "-a", "-la", "-al", "-1", "-R", "-h", "-lh"})),
    "cat": Program(),
    "head": Program(frozenset({"-n"})),
    "tail": Program(frozenset({"-n"})),
    "wc": Program(frozenset({"-l", "-w", "-c"})),
    "grep": Program(frozenset({"-n", "-i", "-r", "-l", "-c", "-v", "-E", "-F", "-w", "-e"})),
    "pwd": Program(),
    "echo": Program(),
}


def _refused(message: str) -> Failure[ToolError]:
    return Failure(ExecutionFailed(message=message, model_can_fix=True))


def check_command(
    argv: list[str], root: Path, programs: Mapping[str, Program]
) -> Result[list[str], ToolError]:
    """The argv to run, or why it is refused."""
    if not argv:
        return _refused("give the command as a list: [program, arg, ...]")
    program, *args = argv
    spec = programs.get(program)
    if spec is None:
        return _refused(f"{program!r} is not allowed; allowed: {', '.join(sorted(programs))}")
    if spec.subcommands is not None:
        if not args or args[0] not in spec.subcommands:
            allowed = ", ".join(sorted(spec.subcommands))
            return _refused(f"{program} needs one of these subcommands: {allowed}")
        if program == "git" and args[0] == "branch" and any(a[:1] != "-" for a in args[1:]):
            return _refused("git branch only lists branches here; it does not create them")
        args = args[1:]
    for arg in args:
        if "\x00" in arg or "\n" in arg:
            return _refused("arguments may not contain NUL bytes or newlines")
        if arg.startswith("-"):
            if arg not in spec.options:
                allowed = ", ".join(sorted(spec.options)) or "none"
                return _refused(f"option {arg!r} is not allowed for {program} (allowed: {allowed})")
            continue
        if arg.isdigit():
            continue
        if arg.startswith(("/", "~")) or ".." in Path(arg).parts:
            return _refused(f"{arg!r} points outside the project root")
        if os.path.lexists(root / arg):  # an existing path: no link on the way, no hard link
            try:
                os.close(open_inside(root, arg))
            except Refused as refused:
                return _refused(str(refused))
    return Success(argv)


def make_shell(
    programs: Mapping[str, Program] = DEFAULT_PROGRAMS,
    *,
    timeout_s: float = 30.0,
    max_output: int = 64_000,
) -> Tool[Any, object]:
    """A `shell` tool limited to `programs`."""

    @tool(
        name="shell",
        permissions=["shell:execute"],
        annotations=ToolAnnotations(destructive=True, open_world=False),
        describe=lambda args: f"🔧 Running {' '.join(args.command)}",
    )
    async def shell(command: list[str], ctx: ExecutionContext) -> Result[object, ToolError]:
        """Run a command in the project root, e.g. ["git", "status", "--short"].

        Args:
            command: the program and its arguments, as a list (no shell syntax)
        """
        root = ctx.project_root.resolve()
        checked = check_command(command, root, programs)
        if isinstance(checked, Failure):
            return checked
        return await _run(checked.unwrap(), root, timeout_s, max_output)

    return shell


async def _run(
    argv: list[str], root: Path, timeout_s: float, max_output: int
) -> Result[object, ToolError]:
    executable = shutil.which(argv[0], path=SAFE_PATH)
    if executable is None:
        return _refused(f"{argv[0]!r} is not installed")
    env = {
        "PATH": SAFE_PATH,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "HOME": "/nonexistent",  # no dotfiles the project could have planted
    }
    if argv[0] == "git":
        hardened = _git(argv, root)
        if isinstance(hardened, Failure):
            return hardened
        argv, git_env = hardened.unwrap()
        env |= git_env
    try:
        process = await asyncio.create_subprocess_exec(
            executable,
            *argv[1:],
            cwd=root,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as error:
        return Failure(ExecutionFailed(message=f"cannot start {argv[0]}: {error.strerror}"))
    try:
        async with asyncio.timeout(timeout_s):
            stdout, stderr = await asyncio.gather(
                _capped(process.stdout, max_output, process),
                _capped(process.stderr, max_output, process),
            )
            code = await process.wait()
    except TimeoutError:
        _kill(process)
        await process.wait()
        return Failure(
            TimedOut(
                message=f"{argv[0]} ran past {timeout_s:g}s and was stopped", timeout_s=timeout_s
            )
        )
    return Success({"exit_code": code, "stdout": stdout, "stderr": stderr})


async def _capped(
    stream: asyncio.StreamReader | None, limit: int, process: asyncio.subprocess.Process
) -> str:
    """Keep `limit` bytes of a stream; a program that writes much more than that (`yes`, a
    device file) is stopped there, not left running until the timeout."""
    if stream is None:
        return ""
    kept = bytearray()
    total = 0
    while chunk := await stream.read(65536):
        total += len(chunk)
        if len(kept) < limit:
            kept.extend(chunk[: limit - len(kept)])
        if total > _STOP_AFTER * max(limit, 1):
            _kill(process)
            text = kept.decode("utf-8", errors="replace")
            return f"{text}\n…[cut at {limit} bytes; stopped after {total} bytes of output]"
    text = kept.decode("utf-8", errors="replace")
    return text if total <= limit else f"{text}\n…[cut at {limit} of {total} bytes]"


_STOP_AFTER = 4  # read this many times the cap, then stop the program
_GIT_SAFETY = (
    # configuration the project controls (.git/config) may not run programs or write
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.pager=cat",
    "-c", "core.editor=false",
    "-c", "core.sshCommand=false",
    "-c", "diff.external=",
    "-c", "credential.helper=",
    "-c", "protocol.allow=never",
    "-c", "core.untrackedCache=false",
    "-c", "gc.auto=0",
    "--no-pager",
)  # fmt: skip
_GIT_NO_EXTERNAL = ("--no-ext-diff", "--no-textconv")


def _git(argv: list[str], root: Path) -> Result[tuple[list[str], dict[str, str]], ToolError]:
    """git pinned to the project's own repository, with nothing it configures able to run
    a program, and reading without writing (no index refresh, no new refs)."""
    dot_git = root / ".git"
    if dot_git.is_symlink() or not dot_git.is_dir():
        return _refused("git runs only in a project whose .git is a directory inside it")
    subcommand, *rest = argv[1:]
    extra = _GIT_NO_EXTERNAL if subcommand in ("diff", "show", "log") else ()
    env = {
        "GIT_DIR": str(dot_git),
        "GIT_WORK_TREE": str(root),
        "GIT_CEILING_DIRECTORIES": str(root.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_EXTERNAL_DIFF": "",
    }
    return Success(([argv[0], *_GIT_SAFETY, subcommand, *extra, *rest], env))


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, 9)


shell = make_shell()
