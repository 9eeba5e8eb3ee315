"""Without a config, the command line writes no call log unless a ./logs directory exists."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOOLS = (
    "from toolrail import tool\n\n\n"
    '@tool\ndef add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n'
)


def toolrail(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "toolrail.cli", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_a_call_from_a_module_writes_nothing_unasked(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    done = toolrail(
        "call", "add", "--args", '{"a": 1, "b": 2}', "--module", "tools.py", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == ["tools.py"]


def test_a_call_from_a_module_is_recorded_where_the_user_made_logs(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "logs").mkdir()
    done = toolrail(
        "call", "add", "--args", '{"a": 1, "b": 2}', "--module", "tools.py", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "logs").glob("tool-calls-*.jsonl"))) == 1


def test_reading_logs_where_there_are_none_says_how_to_point_at_them(tmp_path: Path) -> None:
    done = toolrail("logs", "stats", cwd=tmp_path)
    assert done.returncode == 2
    assert "give --dir or --config" in done.stderr
    assert "Traceback" not in done.stderr
