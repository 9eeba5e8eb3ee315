"""Containment: a path a model names is used only if it stays inside the project root.

One primitive, `open_inside`, checks and opens in one step: from a handle on the root it
opens each component relative to the one before (`openat`: `os.open(..., dir_fd=...)`)
with `O_NOFOLLOW`, so a symlink anywhere on the way — planted before, or swapped in while
we work — is refused, never followed; then it checks the file it holds (`fstat`): a regular
file with a second hard link (possibly to a file outside) is refused too. A link count is
a property of names, which move: a name swapped out after the open leaves an outside file
with one link. So after `fstat` shows one link, the name we opened must still exist, in
the directory we opened it from (Linux: `/proc/self/fd/N` reads that path, not "…
(deleted)"); a removed name never comes back, so ours was then the file's only name. In
between, the directory is read once: a rename or unlink drops the count before it removes
the name, both under the directory's lock, and reading takes that lock, so one already
under way has finished. Nothing is decided on a path string that something else could
change before it is used.

Only regular files and directories are ever handed out. Every open is `O_NONBLOCK` (cleared
once the file is known to be regular), so a FIFO, socket or device planted in the project
can never block the thread that opens it — not the event loop, not a worker — and is
refused as soon as `fstat` shows what it is.

`inside` is the string check both start with: empty, NUL bytes, `~`, absolute paths and
`..` are refused before anything is opened.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from returns.result import Failure, Result, Success

from toolrail.policy.normalise import slashed

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class Refused(Exception):
    """A path that may not be used; the message says why, for the model."""


def parts_of(requested: str) -> Result[tuple[str, ...], str]:
    """The components of a relative path, or why the path is refused before any I/O."""
    if not requested or not requested.strip():
        return Failure("give a path relative to the project root")
    if "\x00" in requested:
        return Failure("paths may not contain NUL bytes")
    if requested.startswith("~"):
        return Failure("'~' is not expanded; give a path relative to the project root")
    pure = PurePosixPath(slashed(requested))  # the rules read it so too
    if pure.is_absolute() or (len(requested) > 1 and requested[1] == ":"):
        return Failure(f"{requested!r} is absolute; give a path relative to the project root")
    if ".." in pure.parts:
        return Failure(f"{requested!r} climbs out with '..'; stay inside the project root")
    return Success(tuple(part for part in pure.parts if part not in ("", ".")))


def inside(root: Path, requested: str) -> Result[Path, str]:
    """The resolved path of `requested` under `root`, or why it is refused. A check on
    names only: use `open_inside` to act on the file."""
    parts = parts_of(requested)
    if isinstance(parts, Failure):
        return Failure(parts.failure())
    try:
        base = root.resolve(strict=True)
        resolved = base.joinpath(*parts.unwrap()).resolve(strict=False)
    except (OSError, RuntimeError) as error:  # RuntimeError: a symlink loop
        return Failure(f"cannot resolve {requested!r}: {error}")
    if resolved != base and not resolved.is_relative_to(base):
        return Failure(f"{requested!r} leads outside the project root (through a symlink)")
    return Success(resolved)


@contextmanager
def directory_of(root: Path, requested: str, *, create: bool = False) -> Iterator[tuple[int, str]]:
    """A handle on the directory that holds `requested`, opened component by component
    without following links, and the last component's name; `create` makes missing
    directories. Raises `Refused`."""
    parts = parts_of(requested)
    if isinstance(parts, Failure):
        raise Refused(parts.failure())
    names = parts.unwrap()
    try:
        fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError as error:
        raise Refused(f"cannot open the project root: {error.strerror}") from error
    try:
        for name in names[:-1]:
            child = _step(fd, name, requested, create)
            os.close(fd)
            fd = child
        yield fd, (names[-1] if names else ".")
    finally:
        os.close(fd)


_STEP = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC | _NONBLOCK


def _step(parent: int, name: str, requested: str, create: bool) -> int:
    """Open directory `name` under `parent`, never through a link."""
    try:
        try:
            child = os.open(name, _STEP, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
            os.mkdir(name, 0o755, dir_fd=parent)
            child = os.open(name, _STEP, dir_fd=parent)
    except OSError as error:
        if error.errno == errno.ENOTDIR and _is_link(parent, name):
            error = OSError(errno.ELOOP, os.strerror(errno.ELOOP))
        raise _refusal(error, requested) from error
    return child


def _is_link(parent: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False


def open_inside(
    root: Path,
    requested: str,
    flags: int = os.O_RDONLY,
    *,
    mode: int = 0o644,
    create_dirs: bool = False,
) -> int:
    """A file descriptor for `requested` under `root`, opened without following any link
    and without blocking, and checked once open: a regular file with no second name, or a
    directory. Raises `Refused`."""
    with directory_of(root, requested, create=create_dirs) as (parent, name):
        _refuse_special(parent, name, requested)  # a device is not even opened
        try:
            fd = os.open(name, flags | _NOFOLLOW | _CLOEXEC | _NONBLOCK, mode, dir_fd=parent)
        except OSError as error:
            raise _refusal(error, requested) from error
        try:
            _check_held(fd, parent, name, requested)
            if not flags & _NONBLOCK:
                os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
    return fd


def _check_held(fd: int, parent: int, name: str, requested: str) -> None:
    """A directory, or a regular file whose only name is the one it was opened by."""
    held = os.fstat(fd)
    if stat.S_ISDIR(held.st_mode):
        return
    if not stat.S_ISREG(held.st_mode):
        raise Refused(_special(requested))
    if held.st_nlink > 1:
        raise Refused(f"{requested!r} is a hard link; files with several names are not used")
    if not _still_named(fd, parent, name, held):  # after the count: see the module's docstring
        raise Refused(f"{requested!r} was replaced while it was opened; try again")


_FD_LINKS = "/proc/self/fd"


def _still_named(fd: int, parent: int, name: str, held: os.stat_result) -> bool:
    """Whether the name `fd` was opened by still names it (checked after its link count)."""
    with os.scandir(parent) as entries:  # waits for a rename or unlink holding the directory
        next(entries, None)
    try:
        where = os.readlink(f"{_FD_LINKS}/{parent}")
        return os.readlink(f"{_FD_LINKS}/{fd}") == os.path.join(where, name)
    except OSError:  # no /proc: the name looked up again, the best a path can do
        try:
            now = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except OSError:
            return False
        return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def _refuse_special(parent: int, name: str, requested: str) -> None:
    """Refuse a FIFO, socket or device before opening it (opening one can have effects);
    the check on the open handle is the one that counts."""
    try:
        found = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return  # missing (may be created) or unreadable: the open decides
    if not (
        stat.S_ISREG(found.st_mode) or stat.S_ISDIR(found.st_mode) or stat.S_ISLNK(found.st_mode)
    ):
        raise Refused(_special(requested))


def _special(requested: str) -> str:
    return f"{requested!r} is not a regular file or directory (a FIFO, socket or device)"


def _refusal(error: OSError, requested: str) -> Refused:
    if error.errno in (errno.ELOOP, errno.EMLINK):
        return Refused(f"{requested!r} goes through a symlink; links are never followed")
    if error.errno == errno.ENOTDIR:
        return Refused(f"{requested!r}: a part of it is not a directory")
    if error.errno == errno.ENOENT:
        return Refused(f"{requested!r} does not exist in the project")
    return Refused(f"cannot open {requested!r}: {error.strerror}")
