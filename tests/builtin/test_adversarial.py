"""Built-in tools under attack: traversal, symlinks, option injection, hostile shapes."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from toolrail import (
    ExecutionContext,
    ExecutionFailed,
    Executor,
    InvalidArguments,
    PermissionDenied,
    TimedOut,
    ToolCall,
    ToolRegistry,
)
from toolrail.builtin import ALL, Program, make_shell, make_write_context_file

pytestmark = pytest.mark.anyio
SECRET = "TOP-SECRET-OUTSIDE-THE-ROOT"
GRANTS = frozenset({"fs:read", "fs:write", "shell:execute"})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project next to a sibling sharing its name's prefix, with symlinks in and out."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "notes.txt").write_text("inside\n")
    sibling = tmp_path / "proj-evil"
    sibling.mkdir()
    (sibling / "secret.txt").write_text(SECRET)
    (tmp_path / "secret.txt").write_text(SECRET)
    (root / "link_out").symlink_to(sibling / "secret.txt")
    (root / "dir_out").symlink_to(sibling)
    (root / "link_in").symlink_to(root / "notes.txt")
    (root / "loop").symlink_to(root / "loop")
    return root


def executor(*extra: Any) -> Executor:
    return Executor(ToolRegistry([*ALL, *extra]))


async def call(ex: Executor, root: Path, name: str, arguments: Any) -> Any:
    ctx = ExecutionContext(agent="a", project_root=root, permissions=GRANTS)
    return (await ex.run(ToolCall(name=name, arguments=arguments), ctx)).result


TRAVERSALS = [
    "../secret.txt",
    "../proj-evil/secret.txt",
    "src/../../secret.txt",
    "/etc/passwd",
    str(Path("/") / "tmp"),
    "~/secret.txt",
    "~root",
    "notes.txt\x00.png",
    "..",
    "../",
    "..\\secret.txt",
    "C:\\Windows\\win.ini",
    "link_out",
    "dir_out/secret.txt",
    "loop",
    "./../proj-evil",
    "src/./../../proj-evil/secret.txt",
    "",
    "   ",
]


@pytest.mark.parametrize("path", TRAVERSALS)
async def test_read_path_refuses_every_escape(project: Path, path: str) -> None:
    """Each escape attempt is refused with a message, never served."""
    result = await call(executor(), project, "read_path", {"path": path})
    assert isinstance(result, Failure), result
    assert SECRET not in str(result)


async def test_read_path_reads_and_lists_inside(project: Path) -> None:
    """Files and directories inside work; a symlink is never followed, even one pointing
    inside (a link checked now can point elsewhere by the time it is used)."""
    ex = executor()
    assert await call(ex, project, "read_path", {"path": "src/app.py"}) == Success("print('hi')\n")
    refused = await call(ex, project, "read_path", {"path": "link_in"})
    assert "symlink" in refused.failure().message
    listing = (await call(ex, project, "read_path", {"path": "."})).unwrap()
    assert "src/" in listing["entries"]


async def test_read_path_caps_size_and_refuses_binary(project: Path) -> None:
    """Large files are cut with a marker; binary files are refused."""
    (project / "big.txt").write_text("y" * 300_000)
    (project / "blob.bin").write_bytes(b"\x00\x01" * 10)
    big = (await call(executor(), project, "read_path", {"path": "big.txt"})).unwrap()
    assert big.endswith("[cut at 256000 bytes of 300000]")
    binary = await call(executor(), project, "read_path", {"path": "blob.bin"})
    assert "binary" in binary.failure().message


PATH_PARTS = st.sampled_from(
    [
        "..",
        ".",
        "src",
        "link_out",
        "dir_out",
        "secret.txt",
        "~",
        "",
        "/",
        "proj-evil",
        "notes.txt",
        "\x00",
        "\\",
        "loop",
    ]
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(PATH_PARTS, min_size=1, max_size=6), st.booleans())
def test_no_generated_path_escapes(project: Path, parts: list[str], absolute: bool) -> None:
    """Random paths built from hostile pieces: never the secret, never an exception."""
    path = ("/" if absolute else "") + "/".join(parts)
    result = asyncio.run(call(executor(), project, "read_path", {"path": path}))
    assert isinstance(result, Success | Failure)
    assert SECRET not in str(result)


async def test_write_context_file_only_allowed_and_never_through_symlinks(
    project: Path,
) -> None:
    """Only listed files; a symlinked PROJECT.md is refused and its target untouched."""
    ex = executor()
    ok = await call(ex, project, "write_context_file", {"path": "PROJECT.md", "content": "# P"})
    assert ok == Success({"written": "PROJECT.md", "bytes": 3})
    assert (project / "PROJECT.md").read_text() == "# P"
    for path in ("src/app.py", "../PROJECT.md", "/tmp/PROJECT.md", "PROJECT.md/../x"):
        refused = await call(ex, project, "write_context_file", {"path": path, "content": "x"})
        assert isinstance(refused, Failure), path
    (project / "PROJECT.md").unlink()
    (project / "PROJECT.md").symlink_to(project.parent / "proj-evil" / "secret.txt")
    through = await call(
        ex, project, "write_context_file", {"path": "PROJECT.md", "content": "pwned"}
    )
    assert isinstance(through, Failure)
    assert (project.parent / "proj-evil" / "secret.txt").read_text() == SECRET
    docs = make_write_context_file(["docs/CONTEXT.md"])
    written = await call(
        Executor(ToolRegistry([docs])),
        project,
        "write_context_file",
        {"path": "docs/CONTEXT.md", "content": "ctx"},
    )
    assert isinstance(written, Success)
    assert not list(project.glob("docs/.CONTEXT.md.*"))  # no temp files left behind


SHELL_ATTACKS = [
    ["rm", "-rf", "/"],
    ["/bin/sh", "-c", "id"],
    ["sh", "-c", "id"],
    ["bash"],
    ["git", "-c", "core.pager=id", "status"],
    ["git", "log", "--upload-pack=touch x"],
    ["git", "status", "--output=/tmp/x"],
    ["git", "push"],
    ["grep", "--pre=sh", "x", "."],
    ["cat", "/etc/passwd"],
    ["cat", "../secret.txt"],
    ["cat", "link_out"],
    ["cat", "dir_out/secret.txt"],
    ["ls", "~"],
    ["echo", "a\nb"],
    ["cat", "x\x00y"],
    [],
    ["head", "-c", "5", "notes.txt"],
]


@pytest.mark.parametrize("argv", SHELL_ATTACKS, ids=lambda a: " ".join(a)[:30] or "empty")
async def test_shell_refuses_attacks(project: Path, argv: list[str]) -> None:
    """Programs off the list, options off a program's list, paths leading out: refused."""
    result = await call(executor(), project, "shell", {"command": argv})
    assert isinstance(result, Failure), result
    assert isinstance(result.failure(), ExecutionFailed)
    assert result.failure().model_can_fix
    assert SECRET not in str(result)


async def test_shell_metacharacters_are_just_text(project: Path) -> None:
    """Without a shell, `$(id)`, `;` and `|` are plain arguments."""
    result = (
        await call(executor(), project, "shell", {"command": ["echo", "$(id); ls | cat && `id`"]})
    ).unwrap()
    assert result["stdout"] == "$(id); ls | cat && `id`\n"
    assert result["exit_code"] == 0


async def test_shell_environment_is_scrubbed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent's secrets are not in the child's environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    env_tool = make_shell({"env": Program()})
    result = (
        await call(Executor(ToolRegistry([env_tool])), project, "shell", {"command": ["env"]})
    ).unwrap()
    assert "sk-should-not-leak" not in result["stdout"]
    assert "PATH=/usr/local/bin:/usr/bin:/bin" in result["stdout"]


async def test_shell_timeout_and_output_cap(project: Path) -> None:
    """A runaway program is stopped; huge output is cut with a marker."""
    slow = make_shell({"sleep": Program(paths=False)}, timeout_s=0.3)  # text operands
    result = await call(
        Executor(ToolRegistry([slow])), project, "shell", {"command": ["sleep", "30"]}
    )
    assert isinstance(result.failure(), TimedOut)
    (project / "huge.txt").write_text("q" * 200_000)
    capped = make_shell({"cat": Program()}, max_output=1000)
    out = (
        await call(
            Executor(ToolRegistry([capped])), project, "shell", {"command": ["cat", "huge.txt"]}
        )
    ).unwrap()
    assert out["stdout"].startswith("q" * 1000)
    assert "[cut at 1000 bytes; stopped after" in out["stdout"]  # stopped, not read to the end
    (project / "some.txt").write_text("q" * 1500)
    small = (
        await call(
            Executor(ToolRegistry([capped])), project, "shell", {"command": ["cat", "some.txt"]}
        )
    ).unwrap()
    assert small["stdout"].endswith("[cut at 1000 of 1500 bytes]")


async def test_shell_needs_its_permission(project: Path) -> None:
    """No shell:execute, no shell."""
    ctx = ExecutionContext(agent="a", project_root=project, permissions=frozenset({"fs:read"}))
    outcome = await executor().run(ToolCall(name="shell", arguments={"command": ["ls"]}), ctx)
    assert isinstance(outcome.result.failure(), PermissionDenied)


async def test_inventory_respects_gitignore_and_bounds(project: Path) -> None:
    """Ignored files and heavy directories are left out; the list is bounded."""
    (project / ".gitignore").write_text("*.log\nbuild/\n")
    (project / "debug.log").write_text("x")
    (project / "build").mkdir()
    (project / "build" / "out.bin").write_text("x")
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("x")
    found = (await call(executor(), project, "generate_inventory", {})).unwrap()
    assert "src/app.py" in found["files"]
    assert not any(f.endswith(".log") or f.startswith(("build/", ".git/")) for f in found["files"])
    bounded = (await call(executor(), project, "generate_inventory", {"max_files": 1})).unwrap()
    assert len(bounded["files"]) == 1
    assert bounded["truncated"] is True


async def test_learn_validates_and_records(project: Path) -> None:
    """Lessons are validated, then appended as JSON lines."""
    ex = executor()
    ok = await call(
        ex, project, "learn", {"title": "Use rg", "lesson": "rg is faster.", "scope": "tool:shell"}
    )
    assert ok == Success({"recorded": "Use rg", "scope": "tool:shell"})
    for bad in (
        {"title": "", "lesson": "x"},
        {"title": "t", "lesson": "x", "scope": "Bad Scope"},
        {"title": "t" * 200, "lesson": "x"},
        {"lesson": "x"},
    ):
        result = await call(ex, project, "learn", bad)
        assert isinstance(result.failure(), InvalidArguments), bad
    [line] = (project / ".toolrail" / "lessons.jsonl").read_bytes().splitlines()
    assert orjson.loads(line)["lesson"] == "rg is faster."


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda c: (
        st.lists(c, max_size=3)
        | st.dictionaries(
            st.sampled_from(["path", "content", "command", "title", "lesson", "scope", "x"]),
            c,
            max_size=3,
        )
    ),
    max_leaves=8,
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from([t.name for t in ALL]), JSONISH)
def test_hostile_argument_shapes_never_crash_or_escape(
    project: Path, name: str, arguments: Any
) -> None:
    """Any JSON-ish arguments to any built-in: a Result, and no secret."""
    before = sorted(os.listdir(project.parent / "proj-evil"))
    result = asyncio.run(call(executor(), project, name, arguments))
    assert isinstance(result, Success | Failure)
    assert SECRET not in str(result)
    assert sorted(os.listdir(project.parent / "proj-evil")) == before
