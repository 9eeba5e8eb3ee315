"""`shell`: run an allow-listed program as an argv list — no shell, in the project root,
with a timeout, an output cap and a scrubbed environment.

Each allowed program names the options it accepts; any other argument starting with `-`
is refused, so a value cannot smuggle in an option (`--upload-pack=…`, `-exec`, `--pre`).
Other arguments may not be absolute, use `..`, or name a path that resolves outside the
project.

A path operand is checked and used in one step: `open_inside` opens it (no link followed,
no hard link, nothing special), the descriptor is kept and passed to the program, and the
program is given `/proc/self/fd/N` in place of the name — it opens exactly what was
checked, whatever is renamed, swapped or linked in afterwards. Where a program prints the
stand-in (`grep pat f1 f2`, `wc -l f`, `head` headers), the output shows the name as
written again. What a program opens *inside* a directory operand it opens by name: see
the note above `_reads_tree` for what that leaves.

A program runs in a process group of its own, killed whole at its timeout or output cap; a
child that starts a session of its own (`setsid`) leaves the group and is not killed (none of
the default programs does), but its output is no longer read and the call does not wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import fnmatch
import os
import re
import shutil
import stat
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
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
    """What one allowed program may be given: its options and, optionally, subcommands.

    Its operands are files (`paths`): each must exist in the project and is handed over as
    the descriptor that was checked. A program whose operands are text or pathspecs (echo,
    git, sleep) says `paths=False`: they are passed as written."""

    options: frozenset[str] = frozenset()
    subcommands: frozenset[str] | None = None
    tree_options: frozenset[str] = frozenset()  # make it read every file under a directory
    tree_subcommands: frozenset[str] = frozenset()  # subcommands that read the work tree
    paths: bool = True
    values: frozenset[str] = frozenset()  # options that take the next argument as a value
    pattern_first: bool = False  # the first operand is a pattern, unless a value option gives it
    follow: tuple[str, ...] = ()  # options that make it follow a stand-in, not show it (ls -H)


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
        tree_subcommands=frozenset({"status", "diff"}),
        paths=False,  # revisions and pathspecs, matched by git against its index: see `_git`
        values=frozenset({"-n"}),
    ),
    "ls": Program(frozenset({"-l", "-a", "-la", "-al", "-1", "-R", "-h", "-lh"}), follow=("-H",)),
    "cat": Program(),
    "head": Program(frozenset({"-n"}), values=frozenset({"-n"})),
    "tail": Program(frozenset({"-n"}), values=frozenset({"-n"})),
    "wc": Program(frozenset({"-l", "-w", "-c"})),
    "grep": Program(
        frozenset({"-n", "-i", "-r", "-l", "-c", "-v", "-E", "-F", "-w", "-e"}),
        tree_options=frozenset({"-r"}),
        values=frozenset({"-e"}),
        pattern_first=True,
    ),
    "pwd": Program(),
    "echo": Program(paths=False),
}

# A stand-in for a held descriptor: what the program opens is the open file itself (Linux's
# /proc magic link; elsewhere /dev/fd). A directory's ends in "/", so that what is resolved
# is the directory, not the link (`ls -l`, `grep -r`).
_FD_DIR = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
_STAND_IN = re.compile(re.escape(_FD_DIR) + r"/(\d+)(/?)")


@dataclass(frozen=True, slots=True, kw_only=True)
class Pinned:
    """A checked command: its argv with each path operand replaced by a stand-in for the
    descriptor that was checked, the descriptors, and the name each stands for."""

    argv: tuple[str, ...]
    fds: tuple[int, ...] = ()
    names: Mapping[int, str] = dataclasses.field(default_factory=dict)

    def named(self, text: str) -> str:
        """`text` with each stand-in shown as the operand the caller wrote."""
        if not self.names:
            return text

        def back(found: re.Match[str]) -> str:
            name = self.names.get(int(found[1]))
            if name is None:
                return found[0]
            return (name.rstrip("/") or ".") + found[2]

        return _STAND_IN.sub(back, text)


def _refused(message: str) -> Failure[ToolError]:
    return Failure(ExecutionFailed(message=message, model_can_fix=True))


def check_command(
    argv: list[str], root: Path, programs: Mapping[str, Program]
) -> Result[list[str], ToolError]:
    """The argv as given, or why it is refused. A check only: what runs is what
    `pinned_command` holds."""
    with pinned_command(argv, root, programs) as pinned:
        return pinned.map(lambda _: argv)


@contextmanager
def pinned_command(
    argv: list[str], root: Path, programs: Mapping[str, Program]
) -> Iterator[Result[Pinned, ToolError]]:
    """The command to run, each path operand held open as it was checked (closed on exit),
    or why it is refused."""
    with ExitStack() as held:
        yield _pin(argv, root, programs, held)


def _pin(
    argv: list[str], root: Path, programs: Mapping[str, Program], held: ExitStack
) -> Result[Pinned, ToolError]:
    if not argv:
        return _refused("give the command as a list: [program, arg, ...]")
    program, *args = argv
    spec = programs.get(program)
    if spec is None:
        return _refused(f"{program!r} is not allowed; allowed: {', '.join(sorted(programs))}")
    lead = [program]
    if spec.subcommands is not None:
        if not args or args[0] not in spec.subcommands:
            allowed = ", ".join(sorted(spec.subcommands))
            return _refused(f"{program} needs one of these subcommands: {allowed}")
        if program == "git" and args[0] == "branch" and any(a[:1] != "-" for a in args[1:]):
            return _refused("git branch only lists branches here; it does not create them")
        lead.append(args[0])
        args = args[1:]
    pattern = spec.pattern_first and not any(arg in spec.values for arg in args)
    value = False
    rest: list[str] = []
    names: dict[int, str] = {}
    for arg in args:
        if "\x00" in arg or "\n" in arg:
            return _refused("arguments may not contain NUL bytes or newlines")
        if arg.startswith("-"):
            if arg not in spec.options:
                allowed = ", ".join(sorted(spec.options)) or "none"
                return _refused(f"option {arg!r} is not allowed for {program} (allowed: {allowed})")
            rest.append(arg)
            value = arg in spec.values
            continue
        if arg.startswith(("/", "~")) or ".." in Path(arg).parts:
            return _refused(f"{arg!r} points outside the project root")
        if value or pattern or not spec.paths:  # text: passed as written
            value = pattern = False
            problem = _text_problem(root, arg)
            if problem is not None:
                return _refused(problem)
            rest.append(arg)
            continue
        try:
            fd = _held(open_inside(root, arg), held)
        except Refused as refused:
            return _refused(str(refused))
        names[fd] = arg
        rest.append(f"{_FD_DIR}/{fd}" + ("/" if stat.S_ISDIR(os.fstat(fd).st_mode) else ""))
    follow = spec.follow if names else ()
    return Success(Pinned(argv=(*lead, *follow, *rest), fds=tuple(names), names=names))


def _held(fd: int, held: ExitStack) -> int:
    """`fd`, closed when `held` closes, and never 0-2 (the program's stdio takes those)."""
    held.callback(os.close, fd)
    if fd > 2:
        return fd
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    held.callback(os.close, moved)
    return moved


def _text_problem(root: Path, arg: str) -> str | None:
    """Text that names something in the project may not name a link or a special file (a
    lint for pathspecs and patterns: the program is not handed the name's file)."""
    if arg.isdigit() or not os.path.lexists(root / arg):
        return None
    try:
        os.close(open_inside(root, arg))
    except Refused as refused:
        return str(refused)
    return None


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
        with pinned_command(command, root, programs) as pinned:
            if isinstance(pinned, Failure):
                return pinned
            if _reads_tree(command, programs):
                skip_git = command[0] == "git"
                problem = await asyncio.to_thread(_tree_problem, root, skip_git=skip_git)
                if problem is not None:
                    return _refused(problem)
            return await _run(pinned.unwrap(), root, timeout_s, max_output)

    return shell


# Only a program's operands are pinned. For a directory operand the descriptor pins the
# directory itself; what a program opens inside it, it opens by name (relative to the pinned
# directory), and so does a program that reads the tree without operands (`grep -r pat`,
# git status and diff). What that leaves, with a process in the project racing the call:
# - symlinks: grep -r never follows one it meets (gnulib fts, FTS_PHYSICAL: directories
#   and files opened relative to their parent with O_NOFOLLOW), nor does git in the work
#   tree (it lstats and refuses paths beyond a link) — but git opens a file by its path
#   from the root after its lstat, so a parent swapped for a symlink in that window can
#   show an outside file's content in `git diff`. `ls -R` descends by name: a subdirectory
#   swapped for a symlink between its lstat and its opendir lists an outside directory's
#   names (with -l, their metadata), never file content.
# - hard links: a hard link is just a file to all of them. So before such a program runs,
#   the project is walked (bounded, off the loop) and any regular file with a second name
#   is refused, like `open_inside` refuses it. The walk is a check and the program's read
#   a later use: a hard link made after the walk is read (grep -r, git diff). Linux's
#   fs.protected_hardlinks (on by default) lets only the file's owner, or someone who may
#   read and write it, make that link. `ls -R` lists names only: no walk.
# git's operands are revisions and pathspecs, matched against its index, so they are
# passed as written (`paths=False`; a name that exists is still refused if it is a link).
_TREE_WALK_LIMIT = 100_000


def _reads_tree(argv: list[str], programs: Mapping[str, Program]) -> bool:
    spec = programs.get(argv[0])
    if spec is None:
        return False
    args = argv[1:]
    if args and args[0] in spec.tree_subcommands:
        return True
    return any(arg in spec.tree_options for arg in args)


def _tree_problem(root: Path, *, skip_git: bool) -> str | None:
    """Why a recursive read of the project is refused: a hard-linked file, or too many
    entries to check."""
    seen = 0
    for directory, subdirectories, files in os.walk(root):
        if skip_git and directory == str(root) and ".git" in subdirectories:
            subdirectories.remove(".git")  # git's own store: checked in `_git`
        for name in (*subdirectories, *files):
            seen += 1
            if seen > _TREE_WALK_LIMIT:
                return "the project has too many files to check for a recursive read"
            path = os.path.join(directory, name)
            try:
                found = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(found.st_mode) and found.st_nlink > 1:
                inner = os.path.relpath(path, root)
                return (
                    f"{inner!r} is a hard link; a recursive read is refused while a file with"
                    " several names is in the project"
                )
    return None


async def _run(
    pinned: Pinned, root: Path, timeout_s: float, max_output: int
) -> Result[object, ToolError]:
    argv = list(pinned.argv)
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
        hardened = await _git(argv, root, executable, timeout_s)
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
            pass_fds=pinned.fds,
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
        return Failure(
            TimedOut(
                message=f"{argv[0]} ran past {timeout_s:g}s and was stopped", timeout_s=timeout_s
            )
        )
    finally:  # timed out, or the call cancelled (the executor's deadline): never left running
        await _stopped(process)
    return Success(
        {"exit_code": code, "stdout": pinned.named(stdout), "stderr": pinned.named(stderr)}
    )


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
            _stop(process)
            text = kept.decode("utf-8", errors="replace")
            return f"{text}\n…[cut at {limit} bytes; stopped after {total} bytes of output]"
    text = kept.decode("utf-8", errors="replace")
    return text if total <= limit else f"{text}\n…[cut at {limit} of {total} bytes]"


_STOP_AFTER = 4  # read this many times the cap, then stop the program
_GIT_SAFETY = (
    # belt and braces: the repository's configuration is already checked key by key
    # (`_GIT_CONFIG_KEYS`); these overrides hold for any child git process too
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.pager=cat",
    "-c", "core.editor=false",
    "-c", "core.sshCommand=false",
    "-c", "core.askPass=false",
    "-c", "diff.external=",
    "-c", "credential.helper=",
    "-c", "protocol.allow=never",
    "-c", "core.untrackedCache=false",
    "-c", "gc.auto=0",
    "-c", "log.showSignature=false",
    "-c", "gpg.program=false",
    "-c", "submodule.recurse=false",
    "-c", "diff.ignoreSubmodules=all",
    "-c", "status.submoduleSummary=false",
    "--no-pager",
)  # fmt: skip
_GIT_NO_EXTERNAL = ("--no-ext-diff", "--no-textconv")

# Project git configuration may name programs in many places (filter.*.clean/smudge/process,
# diff.*.textconv/command, merge.*.driver, gpg.*program, core.fsmonitor/pager/editor/
# sshCommand/hooksPath, credential.helper, include.path, remote.*.uploadpack, ...), and git
# grows new ones. A denylist of overrides always trails that list, so the repository's own
# config is read (by git itself, `git config --file --no-includes`, so no parser of ours
# can disagree with git's) and git runs only if every key is one of these, which name no
# program, no file outside and no other repository. Attributes (`* filter=evil`) only name
# drivers; with no driver defined in any config we read, they run nothing.
_GIT_CONFIG_KEYS = (
    "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
    "core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
    "core.safecrlf", "core.quotepath", "core.abbrev", "core.checkstat", "core.trustctime",
    "core.whitespace", "core.commentchar", "core.sparsecheckout", "core.longpaths",
    "extensions.objectformat", "extensions.refstorage",
    "remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.push", "remote.*.tagopt",
    "remote.*.prune", "remote.*.mirror",
    "branch.*.remote", "branch.*.merge", "branch.*.rebase", "branch.*.description",
    "branch.*.pushremote",
    "user.name", "user.email", "user.signingkey", "author.*", "committer.*",
    "init.defaultbranch", "pull.rebase", "pull.ff", "push.default", "push.autosetupremote",
    "fetch.prune", "merge.conflictstyle", "merge.ff", "rebase.autostash",
    "commit.gpgsign", "tag.gpgsign", "gpg.format",
    "color.*", "column.*", "i18n.*", "advice.*", "help.autocorrect",
    "log.date", "log.decorate", "log.abbrevcommit", "log.follow",
    "diff.renames", "diff.algorithm", "diff.mnemonicprefix", "diff.noprefix", "diff.context",
    "diff.interhunkcontext", "diff.colormoved", "diff.indentheuristic", "diff.statgraphwidth",
    "status.showuntrackedfiles", "status.short", "status.branch", "status.relativepaths",
    "index.version", "index.skiphash", "feature.manyfiles", "gc.auto", "pack.threads",
    "lfs.repositoryformatversion",
)  # fmt: skip
_GIT_CONFIG = re.compile("|".join(fnmatch.translate(key) for key in _GIT_CONFIG_KEYS))
# files in .git that make git read another repository's objects, refs or history
_GIT_ELSEWHERE = (
    "commondir",
    "objects/info/alternates",
    "objects/info/http-alternates",
    "info/grafts",
    "shallow-alternates",
)
_GIT_WALK_LIMIT = 200_000  # entries of .git looked at for links and special files


async def _git(
    argv: list[str], root: Path, executable: str, timeout_s: float
) -> Result[tuple[list[str], dict[str, str]], ToolError]:
    """git pinned to the project's own repository, reading nothing outside it, with nothing
    it configures able to run a program, and reading without writing (no index refresh,
    no new refs)."""
    dot_git = root / ".git"
    if dot_git.is_symlink() or not dot_git.is_dir():
        return _refused("git runs only in a project whose .git is a directory inside it")
    problem = await asyncio.to_thread(_repository_problem, dot_git)
    if problem is not None:
        return _refused(problem)
    keys = await _config_keys(executable, dot_git, timeout_s)
    if isinstance(keys, Failure):
        return keys
    unsafe = sorted({key for key in keys.unwrap() if not _GIT_CONFIG.fullmatch(key.lower())})
    if unsafe:
        return _refused(
            f"git does not run here: the repository's .git/config sets {', '.join(unsafe[:5])}"
            ", which may run a program or read outside the project"
        )
    subcommand, *rest = argv[1:]
    extra = _GIT_NO_EXTERNAL if subcommand in ("diff", "show", "log") else ()
    return Success(([argv[0], *_GIT_SAFETY, subcommand, *extra, *rest], _git_env(dot_git, root)))


def _git_env(dot_git: Path, root: Path) -> dict[str, str]:
    # built from nothing: no GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_CONFIG_PARAMETERS,
    # GIT_CONFIG_COUNT, GIT_EXEC_PATH, ... from the caller's environment
    return {
        "GIT_DIR": str(dot_git),
        "GIT_WORK_TREE": str(root),
        "GIT_CEILING_DIRECTORIES": str(root.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_EXTERNAL_DIFF": "",
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_NO_LAZY_FETCH": "1",
    }


def _repository_problem(dot_git: Path) -> str | None:
    """Why git may not read this .git: a file that points at another repository
    (alternates, commondir, grafts), or a link, FIFO or device anywhere inside it."""
    for name in _GIT_ELSEWHERE:
        if os.path.lexists(dot_git / name):
            return f"git does not run here: .git/{name} points git at files outside the project"
    seen = 0
    for directory, subdirectories, files in os.walk(dot_git):
        for name in (*subdirectories, *files):
            seen += 1
            if seen > _GIT_WALK_LIMIT:
                return "git does not run here: the .git directory is too large to check"
            mode = os.lstat(os.path.join(directory, name)).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                inner = os.path.relpath(os.path.join(directory, name), dot_git)
                return f"git does not run here: .git/{inner} is a link or a special file"
    return None


async def _config_keys(
    executable: str, dot_git: Path, timeout_s: float
) -> Result[list[str], ToolError]:
    """The keys the repository's own config sets, read by git itself (no includes)."""
    if not (dot_git / "config").exists():
        return Success([])
    env = {
        "PATH": SAFE_PATH,
        "HOME": "/nonexistent",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_DIR": "/nonexistent",
    }
    args = ("config", "--file", str(dot_git / "config"), "--no-includes", "--name-only")
    try:
        process = await asyncio.create_subprocess_exec(
            executable,
            *args,
            "--list",
            "-z",
            cwd="/",
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as error:
        return Failure(ExecutionFailed(message=f"cannot start git: {error.strerror}"))
    try:
        async with asyncio.timeout(timeout_s):
            out = await _capped(process.stdout, 1_000_000, process)
            code = await process.wait()
    except TimeoutError:
        return _refused("git does not run here: its .git/config could not be read in time")
    finally:
        await _stopped(process)
    if code != 0:
        return _refused("git does not run here: its .git/config could not be read")
    return Success([key for key in out.split("\x00") if key])


def _stop(process: asyncio.subprocess.Process) -> None:
    """Kill the program's process group and stop reading its output. Output after a stop
    is not wanted, and an unread pipe would keep the call waiting: asyncio stops reading a
    pipe whose reader holds unread output, and `Process.wait` waits for every pipe to
    close (and a child that left the group may hold one open for ever; it gets EPIPE)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, 9)
    transport = _transport(process)
    if transport is not None:
        for fd in (1, 2):
            pipe = transport.get_pipe_transport(fd)
            if pipe is not None:
                pipe.close()


async def _stopped(process: asyncio.subprocess.Process) -> None:
    """Stop the program if it still runs and reap it (shielded: a second cancellation
    leaves the reaping to finish on its own), then close what is left of it: a read cut
    short by a cancellation never reached its pipe's end."""
    try:
        if process.returncode is None:
            _stop(process)
            await asyncio.shield(process.wait())
    finally:
        transport = _transport(process)
        if transport is not None:
            transport.close()


def _transport(process: asyncio.subprocess.Process) -> asyncio.SubprocessTransport | None:
    # `Process` has no public way to its pipes or to close them; its transport has both
    transport = getattr(process, "_transport", None)
    return transport if isinstance(transport, asyncio.SubprocessTransport) else None


shell = make_shell()
