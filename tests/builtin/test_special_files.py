"""FIFOs, sockets and other non-regular files in the project: refused at once by the one
containment primitive, never opened in a way that blocks (the loop or a worker thread)."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry
from toolrail.builtin import read_path
from toolrail.builtin.paths import Refused, open_inside
from toolrail.builtin.shell import DEFAULT_PROGRAMS, check_command, make_shell

pytestmark = pytest.mark.anyio


@contextlib.contextmanager
def unblocker(fifo: Path) -> Iterator[None]:
    """If a FIFO read blocks (the bug), open its other end after a while so the test fails
    instead of hanging."""
    stop = threading.Event()

    def release() -> None:
        while not stop.wait(3):
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    worker = threading.Thread(target=release, daemon=True)
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join(5)


@pytest.fixture
def special(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Path, str]]:
    kind = request.param
    if kind == "fifo":
        os.mkfifo(tmp_path / "node")
        yield tmp_path, "node"
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(tmp_path / "node"))
        try:
            yield tmp_path, "node"
        finally:
            server.close()


@pytest.mark.parametrize("special", ["fifo", "socket"], indirect=True)
@pytest.mark.parametrize("spelling", ["node", "./node"])
def test_open_inside_refuses_special_files_without_blocking(
    special: tuple[Path, str], spelling: str
) -> None:
    """The primitive itself: refused, at once."""
    root, name = special
    started = time.monotonic()
    with unblocker(root / name), pytest.raises(Refused, match="not a regular file"):
        os.close(open_inside(root, spelling))
    assert time.monotonic() - started < 2


def test_shell_check_does_not_block_on_a_fifo(tmp_path: Path) -> None:
    """`check_command` runs on the loop thread: a FIFO argument must not block it."""
    os.mkfifo(tmp_path / "fifo")
    started = time.monotonic()
    with unblocker(tmp_path / "fifo"):
        checked = check_command(["cat", "fifo"], tmp_path, DEFAULT_PROGRAMS)
    assert time.monotonic() - started < 2
    assert "not a regular file" in checked.failure().message


async def test_tools_refuse_a_fifo_at_once(tmp_path: Path) -> None:
    """read_path and shell answer a refusal, not a timeout, and leave no stuck thread."""
    os.mkfifo(tmp_path / "fifo")
    executor = Executor(ToolRegistry([read_path, make_shell(timeout_s=5)]))
    ctx = ExecutionContext(
        project_root=tmp_path, permissions=frozenset({"fs:read", "shell:execute"})
    )
    with unblocker(tmp_path / "fifo"):
        started = time.monotonic()
        read = await executor.run(ToolCall(name="read_path", arguments={"path": "fifo"}), ctx)
        ran = await executor.run(
            ToolCall(name="shell", arguments={"command": ["cat", "fifo"]}), ctx
        )
        assert time.monotonic() - started < 2
    for outcome in (read, ran):
        assert "not a regular file" in outcome.result.failure().message


def test_regular_files_and_directories_still_open(tmp_path: Path) -> None:
    """Blocking mode is restored on what is handed out."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("x")
    fd = open_inside(tmp_path, "d/f")
    try:
        assert os.get_blocking(fd)
        assert os.read(fd, 1) == b"x"
    finally:
        os.close(fd)
    os.close(open_inside(tmp_path, "d"))
