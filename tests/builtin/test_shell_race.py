"""`shell`'s path arguments are checked and used in one step: the program is handed the
descriptor that was checked, so swapping a file or a parent directory for a symlink (or a
hard link) to an outside file after the check leaks nothing. Real programs, real races."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry
from toolrail.builtin.paths import Refused, open_inside
from toolrail.builtin.shell import Program, make_shell, shell

pytestmark = pytest.mark.anyio

SECRET = "OUTSIDE-SECRET"
COMMANDS = [
    ["cat", "f"],
    ["head", "-n", "3", "f"],
    ["cat", "d/f"],
    ["grep", "-n", "inside", "f", "d/f"],
    ["wc", "-c", "d/f"],
]


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "proj", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    (outside / "d").mkdir(parents=True)
    (root / "f").write_text("inside\n")
    (root / "d" / "f").write_text("inside d/f\n")
    (outside / "secret").write_text(f"{SECRET}\n")
    (outside / "d" / "f").write_text(f"{SECRET} in d\n")
    return root, outside


@contextmanager
def swapping(*swaps: Callable[[], None]) -> Iterator[None]:
    """Run each swap in a loop on its own thread until the block ends."""
    stop = threading.Event()

    def loop(swap: Callable[[], None]) -> None:
        while not stop.is_set():
            with suppress(OSError):
                swap()

    workers = [threading.Thread(target=loop, args=(swap,), daemon=True) for swap in swaps]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        stop.set()
        for worker in workers:
            worker.join(5)


def final_symlink(root: Path, outside: Path) -> Callable[[], None]:
    staged = root / ".f-staged"

    def swap() -> None:
        staged.unlink(missing_ok=True)
        staged.symlink_to(outside / "secret")
        os.replace(staged, root / "f")
        staged.write_text("inside\n")
        os.replace(staged, root / "f")

    return swap


def parent_symlink(root: Path, outside: Path) -> Callable[[], None]:
    staged = root / ".d-staged"

    def swap() -> None:
        os.rename(root / "d", root / ".d-real")
        try:
            staged.symlink_to(outside / "d")
            os.rename(staged, root / "d")
            os.unlink(root / "d")
        finally:
            os.rename(root / ".d-real", root / "d")

    return swap


def final_hard_link(root: Path, outside: Path) -> Callable[[], None]:
    staged = root / ".h-staged"

    def swap() -> None:
        staged.unlink(missing_ok=True)
        os.link(outside / "secret", staged)
        os.replace(staged, root / "f")
        staged.write_text("inside\n")
        os.replace(staged, root / "f")

    return swap


async def run(root: Path, command: list[str], tool: object = shell) -> str:
    ctx = ExecutionContext(project_root=root, permissions=frozenset({"shell:execute"}))
    outcome = await Executor(ToolRegistry([tool])).run(  # type: ignore[list-item]
        ToolCall(name="shell", arguments={"command": command}), ctx
    )
    return str(outcome.result)


@pytest.mark.parametrize(
    "swaps",
    [(final_symlink, parent_symlink), (final_hard_link,)],
    ids=["symlinks", "hard-link"],
)
async def test_swapping_an_argument_after_its_check_never_leaks(
    layout: tuple[Path, Path], swaps: tuple[Callable[[Path, Path], Callable[[], None]], ...]
) -> None:
    """Hundreds of calls while the file and its parent are swapped: not one outside read
    (before the descriptor was passed on, 7-50 of every 300 calls read the secret)."""
    root, outside = layout
    results = []
    with swapping(*(make(root, outside) for make in swaps)):
        for n in range(400):
            results.append(await run(root, COMMANDS[n % len(COMMANDS)]))
    leaks = [r for r in results if SECRET in r]
    assert not leaks, f"{len(leaks)} of {len(results)} calls read outside: {leaks[0]}"
    assert any("'exit_code': 0" in r and "inside" in r for r in results)  # the race ran both ways
    assert any("link" in r for r in results)


def test_a_hard_link_swapped_out_while_opening_is_refused(layout: tuple[Path, Path]) -> None:
    """The primitive: a hard link replaced between the open and the link count leaves the
    outside file with one link; it is refused all the same."""
    root, outside = layout
    leaks = 0
    with swapping(final_hard_link(root, outside)):
        for _ in range(60_000):
            try:
                fd = open_inside(root, "f")
            except Refused:
                continue
            try:
                leaks += SECRET.encode() in os.read(fd, 100)
            finally:
                os.close(fd)
    assert leaks == 0, f"{leaks} opens handed out the outside file"


async def test_the_program_reads_what_was_checked(layout: tuple[Path, Path]) -> None:
    """Deterministic: a program that swaps its own arguments for symlinks before reading
    them still reads the files that were checked."""
    root, outside = layout
    (root / "swap.sh").write_text(
        f"mv f f.old && ln -s {outside / 'secret'} f\n"
        f"mv d d.old && ln -s {outside / 'd'} d\n"
        'cat "$1" "$2/f"\n'
    )
    sh = make_shell({"sh": Program()})
    result = await run(root, ["sh", "swap.sh", "f", "d"], tool=sh)
    assert (root / "f").is_symlink()
    assert (root / "d").is_symlink()  # the swap happened
    assert SECRET not in result
    assert "inside\\ninside d/f\\n" in result


async def test_outputs_name_the_arguments_as_written(layout: tuple[Path, Path]) -> None:
    """Where a program prints its operands, they read as given, not as descriptors."""
    root, _ = layout
    (root / "d" / "e").mkdir()
    assert "f:1:inside" in await run(root, ["grep", "-n", "inside", "f", "d/f"])
    assert "d/f:1:inside d/f" in await run(root, ["grep", "-n", "inside", "f", "d/f"])
    assert "d/f:inside d/f" in await run(root, ["grep", "-r", "inside", "d"])
    assert " 1 f\\n 1 d/f\\n" in await run(root, ["wc", "-l", "f", "d/f"])
    assert "==> d/f <==" in await run(root, ["head", "-n", "1", "f", "d/f"])
    listed = await run(root, ["ls", "-l", "f", "d"])
    assert " f\\n" in listed
    assert " e\\n" in listed  # the directory's entries, not the descriptor's link
    assert "/fd/" not in listed + await run(root, ["ls", "-R", "d"])


async def test_path_arguments_must_exist_and_may_not_be_links(
    layout: tuple[Path, Path],
) -> None:
    """A missing name could be created as a link after the check: refused. Digits are
    names too (`cat 3` once skipped every check)."""
    root, outside = layout
    (root / "3").symlink_to(outside / "secret")
    for command in (["cat", "missing"], ["cat", "3"], ["head", "-n", "3", "3"]):
        result = await run(root, command)
        assert SECRET not in result
        assert "Failure" in result, command
    assert "inside d/f" in await run(root, ["grep", "-e", "d", "d/f"])  # -e's value: a pattern
    assert "'f\\n'" in await run(root, ["echo", "f"])  # echo's operands are text
