"""Every Python block of the README runs as written, in order, like a notebook: a block may
use what an earlier block defined, but brings its own imports and its own `asyncio.run`."""

from __future__ import annotations

import dataclasses
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
_SH = re.compile(r"^```sh\n(.*?)^```", re.DOTALL | re.MULTILINE)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """Each ```python block with the line it starts on."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def test_the_readme_has_blocks_to_run() -> None:
    assert len(python_blocks(README.read_text(encoding="utf-8"))) >= 6


def test_every_readme_block_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # whatever a block writes (logs/) lands here
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(key, raising=False)  # as a newcomer runs it: no keys at all
    namespace: dict[str, object] = {"__name__": "readme"}
    for line, source in python_blocks(README.read_text(encoding="utf-8")):
        code = compile(source, f"README.md:{line}", "exec")
        exec(code, namespace)  # a failure's traceback names README.md and the line
    out = capfd.readouterr().out
    assert "Oslo: 4°C, rain" in out  # the match idiom's answer
    assert "end_conversation — Oslo: 4°C." in out  # the agent loop
    assert "'day_of_week'" in out  # the MCP time server's answer
    assert "deployed to staging" in out  # approval, then exactly one run
    assert "not on a Friday" in out  # a denial the model reads
    assert "deploy(target:prod)" in out  # the deny rule, named
    built = {type(value).__name__ for value in namespace.values()}
    assert {"OpenAIChatModel", "AnthropicModel", "GeminiModel"} <= built  # the provider block


def test_the_readme_names_every_extra() -> None:
    """The extras table has one row per extra of pyproject.toml, and says what it enables."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    rows = re.findall(
        r"^\| `\[(\w+)\]` \| (.+?) \|$", README.read_text(encoding="utf-8"), re.MULTILINE
    )
    assert sorted(name for name, _ in rows) == sorted(extras)
    assert all(len(enables) > 10 for _, enables in rows)


def _toolrail_commands(text: str) -> list[list[str]]:
    """The `toolrail` command lines of the README's ```sh blocks, as argv lists."""
    return [
        shlex.split(line)[1:]
        for block in _SH.findall(text)
        for line in block.splitlines()
        if line.startswith(".venv/bin/toolrail ")
    ]


def _tree(root: Path) -> set[str]:
    """Every path under `root`, but Python's own (git-ignored) bytecode caches."""
    return {str(p.relative_to(root)) for p in root.rglob("*") if "__pycache__" not in p.parts}


def test_the_readme_command_lines_run_as_written_and_write_only_the_log(tmp_path: Path) -> None:
    """From a copy of the project root: the call's log lands in logs/, where the README reads
    it back; nothing is written under examples/ nor anywhere else."""
    commands = _toolrail_commands(README.read_text(encoding="utf-8"))
    assert [c[:2] for c in commands] == [
        ["tools", "list"],
        ["call", "search_docs"],
        ["logs", "stats"],
    ]
    shutil.copytree(
        ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__")
    )
    before = _tree(tmp_path)
    outputs = []
    for argv in commands:
        done = subprocess.run(
            [sys.executable, "-m", "toolrail.cli", *argv],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, f"{shlex.join(argv)}: {done.stderr}"
        outputs.append(done.stdout)
    written = _tree(tmp_path) - before
    assert {Path(p).parts[0] for p in written} == {"logs"}, written
    [log] = (tmp_path / "logs").glob("tool-calls-*.jsonl")
    assert '"search_docs"' in log.read_text(encoding="utf-8")
    assert "search_docs" in outputs[-1]  # the stats found the call


_ERROR_ROW = re.compile(r'^\s*[├└]── (\w+)\s+(?:"\w+"\s+)?(yes|no)(\*?)', re.MULTILINE)


@pytest.mark.parametrize("source", ["README.md", "toolrail.core.errors"])
def test_the_errors_table_says_what_the_code_does(source: str) -> None:
    """Each error's model_can_fix default is its row's yes/no; a `*` marks the errors that
    can also come the other way: a tool's own fixable failure, a person's declined approval."""
    import toolrail.core.errors as errors
    from toolrail.policy.gates import denied

    text = README.read_text(encoding="utf-8") if source == "README.md" else errors.__doc__
    rows = {name: (said, star) for name, said, star in _ERROR_ROW.findall(text or "")}
    cases = {c.__name__: c for c in vars(errors).values() if isinstance(c, type)}
    cases = {n: c for n, c in cases.items() if issubclass(c, errors.ToolError) and n != "ToolError"}
    assert set(rows) == set(cases)
    for name, case in cases.items():
        default = next(f.default for f in dataclasses.fields(case) if f.name == "model_can_fix")
        assert rows[name][0] == ("yes" if default else "no"), name
    assert denied("deploy", "not on a Friday").model_can_fix
    assert {name for name, (_, star) in rows.items() if star} == {
        "ExecutionFailed",
        "PermissionDenied",
    }
