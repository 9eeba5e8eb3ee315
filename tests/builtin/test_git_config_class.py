"""Every git configuration key that can run a program or read elsewhere, and every file
that points git at another repository: git is refused, nothing runs, nothing leaks. Real
git, real files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from toolrail import ExecutionContext, Executor, ToolCall, ToolRegistry
from toolrail.builtin.shell import shell

pytestmark = pytest.mark.anyio

ID = ("-c", "user.email=a@b", "-c", "user.name=a")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"},
    ).stdout


def make_repo(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "file.txt").write_text("one\n")
    git(root, "add", "file.txt")
    git(root, *ID, "commit", "-q", "-m", "file")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "proj")


async def run(root: Path, *command: str) -> object:
    ctx = ExecutionContext(project_root=root, permissions=frozenset({"shell:execute"}))
    outcome = await Executor(ToolRegistry([shell])).run(
        ToolCall(name="shell", arguments={"command": list(command)}), ctx
    )
    return outcome.result


COMMANDS = (
    ["git", "status"],
    ["git", "diff"],
    ["git", "diff", "--cached"],
    ["git", "show"],
    ["git", "log", "-n", "1"],
    ["git", "ls-files"],
    ["git", "branch"],
)
# (config text, .gitattributes or None): each names a program through the project's config
PROGRAM_KEYS = [
    ('[filter "evil"]\n\tclean = {run}\n\tsmudge = {run}\n', "* filter=evil\n"),
    ('[filter "evil"]\n\tprocess = {run}\n', "* filter=evil\n"),
    ('[diff "evil"]\n\ttextconv = {run}\n', "* diff=evil\n"),
    ('[diff "evil"]\n\tcommand = {run}\n', "* diff=evil\n"),
    ('[merge "evil"]\n\tdriver = {run}\n', "* merge=evil\n"),
    ("[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {run}\n", None),
    (
        '[gpg "ssh"]\n\tprogram = {run}\n[gpg]\n\tformat = ssh\n[log]\n\tshowSignature = true\n',
        None,
    ),
    ("[core]\n\tfsmonitor = {run}\n", None),
    ("[core]\n\tpager = {run}\n", None),
    ("[pager]\n\tstatus = {run}\n\tlog = {run}\n\tdiff = {run}\n", None),
    ("[core]\n\teditor = {run}\n", None),
    ("[core]\n\tsshCommand = {run}\n", None),
    ("[core]\n\talternateRefsCommand = {run}\n", None),
    ("[credential]\n\thelper = !{run}\n", None),
    ("[include]\n\tpath = {include}\n", None),
    ('[includeIf "gitdir:/"]\n\tpath = {include}\n', None),
    ("[core]\n\tworktree = /\n", None),
    ("[core]\n\texcludesFile = /etc/passwd\n", None),
    ('[remote "origin"]\n\tuploadpack = {run}\n', None),
    ("[extensions]\n\tworktreeConfig = true\n", None),
]


@pytest.mark.parametrize(("config", "attributes"), PROGRAM_KEYS)
async def test_no_project_config_key_runs_a_program(
    repo: Path, tmp_path: Path, config: str, attributes: str | None
) -> None:
    """git is refused while the project's config names a program; nothing ran."""
    marker = tmp_path / "ran"
    include = tmp_path / "included"
    include.write_text(f"[core]\n\tfsmonitor = touch {marker}\n")
    with (repo / ".git" / "config").open("a") as handle:
        handle.write(config.format(run=f"sh -c 'touch {marker}; cat'", include=include))
    if attributes is not None:
        (repo / ".gitattributes").write_text(attributes)
    (repo / "file.txt").write_text("two, a different size\n")  # changed, not racily clean
    for command in COMMANDS:
        result = await run(repo, *command)
        assert "git does not run here" in str(result), (config, command)
    assert not marker.exists()


async def test_a_plain_repository_still_works(repo: Path) -> None:
    """The keys git init writes, and ordinary ones, are allowed."""
    git(repo, "config", "user.name", "a")
    git(repo, "remote", "add", "origin", "https://example.com/x.git")
    git(repo, "config", "branch.main.remote", "origin")
    (repo / "file.txt").write_text("two\n")
    result = await run(repo, "git", "diff")
    assert "+two" in result.unwrap()["stdout"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("how", ["alternates", "commondir", "objects-link", "grafts"])
async def test_git_never_reads_another_repository(tmp_path: Path, how: str) -> None:
    """alternates, commondir, a linked objects directory, grafts: refused, nothing leaks."""
    other = make_repo(tmp_path / "other")
    (other / "secret.txt").write_text("OUTSIDE-SECRET\n")
    git(other, "add", "secret.txt")
    git(other, *ID, "commit", "-q", "-m", "s")
    blob = git(other, "rev-parse", "HEAD:secret.txt").strip()
    repo = make_repo(tmp_path / "proj")
    dot_git = repo / ".git"
    if how == "alternates":
        (dot_git / "objects" / "info" / "alternates").write_text(f"{other}/.git/objects\n")
    elif how == "commondir":
        (dot_git / "commondir").write_text(f"{other}/.git\n")
    elif how == "objects-link":
        os.rename(dot_git / "objects", tmp_path / "old-objects")
        (dot_git / "objects").symlink_to(other / ".git" / "objects")
    else:
        (dot_git / "info").mkdir(exist_ok=True)
        (dot_git / "info" / "grafts").write_text("")
    for command in (["git", "show", blob], ["git", "log", "-n", "1"], ["git", "status"]):
        result = await run(repo, *command)
        assert "OUTSIDE-SECRET" not in str(result)
        assert "git does not run here" in str(result), (how, command)
