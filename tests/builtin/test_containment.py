"""The containment primitive under attack: symlinks swapped in while tools work, hard links,
modes, the lessons file. Each read or write happens through handles, never names."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolrail import ExecutionContext, Executor, Tool, ToolCall, ToolRegistry
from toolrail.builtin import learn, read_path, write_context_file

pytestmark = pytest.mark.anyio

SECRET = "TOP-SECRET-OUTSIDE"
CTX_PERMS = frozenset({"fs:read", "fs:write"})


def executor() -> Executor:
    return Executor(ToolRegistry([read_path, write_context_file, learn]))


def ctx(root: Path) -> ExecutionContext:
    return ExecutionContext(project_root=root, permissions=CTX_PERMS)


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "proj", tmp_path / "outside"
    (root / "real").mkdir(parents=True)
    outside.mkdir()
    (root / "real" / "f.txt").write_text("inside")
    (outside / "f.txt").write_text(SECRET)
    (outside / "PROJECT.md").write_text(SECRET)
    return root, outside


def _swapper(swap: object) -> Iterator[None]:
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            swap()  # type: ignore[operator]

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join(5)


async def test_swapping_the_final_file_for_a_symlink_never_leaks(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    target, staged = root / "f.txt", root / ".staged"

    def swap() -> None:
        try:
            staged.unlink(missing_ok=True)
            staged.symlink_to(outside / "f.txt")
            os.replace(staged, target)
            staged.write_text("inside")
            os.replace(staged, target)
        except OSError:
            pass

    ex, reads = executor(), []
    for _ in _swapper(swap):
        for _ in range(1500):
            outcome = await ex.run(
                ToolCall(name="read_path", arguments={"path": "f.txt"}), ctx(root)
            )
            reads.append(str(outcome.result))
    assert not any(SECRET in r for r in reads)
    assert any("inside" in r for r in reads)  # the race really ran both ways
    assert any("symlink" in r for r in reads)


async def test_swapping_a_parent_directory_for_a_symlink_never_leaks(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    parent, staged = root / "d", root / ".d-staged"
    parent.mkdir()
    (parent / "f.txt").write_text("inside")

    def swap() -> None:
        try:
            os.rename(parent, root / ".d-real")
            staged.symlink_to(outside)
            os.rename(staged, parent)
            os.unlink(parent)
            os.rename(root / ".d-real", parent)
        except OSError:
            pass

    ex, seen = executor(), []
    for _ in _swapper(swap):
        for _ in range(1500):
            read = await ex.run(
                ToolCall(name="read_path", arguments={"path": "d/f.txt"}), ctx(root)
            )
            seen.append(str(read.result))
    assert not any(SECRET in text for text in seen)


async def test_a_write_never_lands_outside_while_parents_are_swapped(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    write = make_docs_writer()
    staged = root / ".docs-staged"
    (root / "docs").mkdir()

    def swap() -> None:
        try:
            os.rename(root / "docs", root / ".docs-real")
            staged.symlink_to(outside)
            os.rename(staged, root / "docs")
            os.unlink(root / "docs")
            os.rename(root / ".docs-real", root / "docs")
        except OSError:
            pass

    ex = Executor(ToolRegistry([write]))
    for _ in _swapper(swap):
        for n in range(800):
            arguments = {"path": "docs/PROJECT.md", "content": f"v{n}"}
            await ex.run(ToolCall(name="write_context_file", arguments=arguments), ctx(root))
    assert (outside / "PROJECT.md").read_text() == SECRET
    assert sorted(p.name for p in outside.iterdir()) == ["PROJECT.md", "f.txt"]


def make_docs_writer() -> Tool[Any, object]:
    from toolrail.builtin.files import make_write_context_file

    return make_write_context_file(["docs/PROJECT.md", "PROJECT.md"])


async def test_a_hard_link_to_an_outside_file_is_not_read(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    os.link(outside / "f.txt", root / "hard.txt")
    outcome = await executor().run(
        ToolCall(name="read_path", arguments={"path": "hard.txt"}), ctx(root)
    )
    assert "hard link" in outcome.result.failure().message


async def test_writing_keeps_an_existing_files_mode(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    (root / "PROJECT.md").write_text("old")
    os.chmod(root / "PROJECT.md", 0o640)
    arguments = {"path": "PROJECT.md", "content": "new"}
    await executor().run(ToolCall(name="write_context_file", arguments=arguments), ctx(root))
    assert (root / "PROJECT.md").read_text() == "new"
    assert stat.S_IMODE((root / "PROJECT.md").stat().st_mode) == 0o640


async def test_learn_never_writes_through_a_symlink(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (root / ".toolrail").mkdir()
    (root / ".toolrail" / "lessons.jsonl").symlink_to(outside / "f.txt")
    arguments = {"title": "t", "lesson": "l"}
    outcome = await executor().run(ToolCall(name="learn", arguments=arguments), ctx(root))
    assert "symlink" in outcome.result.failure().message
    assert (outside / "f.txt").read_text() == SECRET
    (root / ".toolrail" / "lessons.jsonl").unlink()
    (root / ".toolrail").rmdir()
    (root / ".toolrail").symlink_to(outside)  # the directory itself, this time
    outcome = await executor().run(ToolCall(name="learn", arguments=arguments), ctx(root))
    assert "symlink" in outcome.result.failure().message
    assert sorted(p.name for p in outside.iterdir()) == ["PROJECT.md", "f.txt"]
