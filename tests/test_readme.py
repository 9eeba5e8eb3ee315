"""Every Python block of the README runs as written, in order, like a notebook: a block may
use what an earlier block defined, but brings its own imports and its own `asyncio.run`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).parent.parent / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """Each ```python block with the line it starts on."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def test_the_readme_has_blocks_to_run() -> None:
    assert len(python_blocks(README.read_text(encoding="utf-8"))) >= 6


def test_every_readme_block_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # whatever a block writes (logs/) lands here
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
