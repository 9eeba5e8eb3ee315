"""Health and circuits survive the process: read back from the tail of the call log."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolrail.cli import main
from toolrail.recording import logreader
from toolrail.recording.logreader import read_entries, recent_entries, recorded_resilience

TOOLS_PY = '''
from toolrail import tool

@tool
def boom() -> str:
    """Always fails."""
    raise RuntimeError("the boom tool exploded")

@tool
def fine() -> str:
    """Always works."""
    return "ok"
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "mytools.py").write_text(TOOLS_PY)
    (tmp_path / "toolrail.toml").write_text(
        '[tools]\nmodules = ["mytools.py"]\n\n[logging]\ndirectory = "logs"\n'
    )
    return tmp_path


def test_explain_after_seven_failing_calls_shows_the_failures_and_open_circuit(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seven `toolrail call boom` runs, then `toolrail tools explain boom` in a new process."""
    config = str(project / "toolrail.toml")
    for _ in range(7):
        assert main(["call", "boom", "--config", config]) == 1
    assert main(["call", "fine", "--config", config]) == 0
    capsys.readouterr()

    explained = subprocess.run(
        [sys.executable, "-m", "toolrail.cli", "tools", "explain", "boom", "--config", config],
        capture_output=True,
        text=True,
        cwd=project,
        check=True,
    ).stdout
    assert "health: failing, 0% ok over 7 calls" in explained
    assert "circuit boom: open" in explained
    assert "recent failures" in explained
    assert "execution_failed: RuntimeError: the boom tool exploded" in explained

    assert main(["tools", "explain", "fine", "--config", config]) == 0
    fine = capsys.readouterr().out
    assert "health: not judged before 5 calls, 100% ok over 1 call" in fine
    assert "circuit fine: closed" in fine
    assert "recent failures" not in fine


def test_recorded_resilience_skips_refusals_and_reads_only_the_tail(tmp_path: Path) -> None:
    """Calls refused before they ran do not count; a cut first line is dropped."""
    logs = tmp_path / "logs"
    logs.mkdir()

    def line(tool: str, status: str, kind: str | None = None) -> bytes:
        entry: dict[str, object] = {
            "tool": tool,
            "status": status,
            "duration_ms": 2.0,
            "timestamp": "2026-01-01T00:00:00Z",
            "finished_at": "2026-01-01T00:00:00.002Z",
        }
        if kind is not None:
            entry["error"] = {"kind": kind, "message": "no", "model_can_fix": False}
        return orjson.dumps(entry) + b"\n"

    body = (
        b"x" * 5000
        + b"\n"
        + line("t", "success")
        + line("t", "failure", "invalid_arguments")
        + line("t", "failure", "timed_out")
    )
    (logs / "tool-calls-2026-01-01.jsonl").write_bytes(body)
    entries = recent_entries(logs, max_bytes=len(body) - 100)
    assert len(entries) == 3
    resilience = recorded_resilience(entries)
    health = resilience.health.health("t")
    assert health is not None
    assert health.calls == 2
    assert health.success_rate == 0.5
    assert health.last_failure is not None
    assert "timed_out" in health.last_failure
    assert resilience.breaker("t").state == "closed"  # one failure opens nothing


def test_replay_trusts_no_line_stamped_ahead_nor_a_duration_that_is_no_duration() -> None:
    """Five timeouts stamped a day ahead (a writer's clock was wrong, an edited line) open
    the circuit for its cooldown from now, not for a day; durations that are not numbers,
    not finite, negative or absurd count as 0, not as the p95."""
    ahead = (datetime.now(UTC) + timedelta(days=1)).isoformat()

    def entry(tool: str, duration: object, status: str = "failure") -> dict[str, object]:
        return {
            "tool": tool,
            "status": status,
            "duration_ms": duration,
            "finished_at": ahead,
            "error": {"kind": "timed_out", "message": "slow", "model_can_fix": False},
        }

    entries = [entry("fetch", 5) for _ in range(5)]
    odd = ["nan", "inf", float("inf"), -5, 1e308, "soon", None, "12.5"]
    entries += [entry("other", duration, "success") for duration in odd]
    resilience = recorded_resilience(entries)

    refusal = resilience.breaker("fetch").refusal()
    assert refusal is not None
    remaining = float(refusal.message.rsplit("another ", 1)[1].rstrip("s"))
    assert 0 < remaining <= 30
    health = resilience.health.health("other")
    assert health is not None
    assert health.p95_ms == 12.5


def test_a_few_large_lines_do_not_hide_the_failures_before_them(tmp_path: Path) -> None:
    """Five timeouts open `flaky`'s circuit; 70 calls with 20 KB outputs follow (1.4 MB).
    The look back counts entries, not bytes: the circuit is still open when replayed."""
    now = datetime.now(UTC)

    def line(tool: str, status: str, output: str | None = None) -> bytes:
        entry: dict[str, object] = {
            "tool": tool,
            "status": status,
            "duration_ms": 3.0,
            "timestamp": now.isoformat(),
            "finished_at": now.isoformat(),
            "output": output,
        }
        if status == "failure":
            entry["error"] = {"kind": "timed_out", "message": "slow", "model_can_fix": False}
        return orjson.dumps(entry) + b"\n"

    body = b"".join(line("flaky", "failure") for _ in range(5))
    body += b"".join(line("report", "success", "x" * 20_000) for _ in range(70))
    (tmp_path / f"tool-calls-{now.date().isoformat()}.jsonl").write_bytes(body)

    entries = recent_entries(tmp_path)
    assert len(entries) == 75
    assert recorded_resilience(entries).breaker("flaky").state == "open"
    assert len(recent_entries(tmp_path, max_entries=10)) == 10  # the newest ten
    assert recent_entries(tmp_path, max_entries=10)[-1]["tool"] == "report"


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 300), min_size=0, max_size=40),
    chunk=st.sampled_from([1, 7, 64, 4096]),
    wanted=st.integers(1, 50),
    carriage=st.booleans(),
)
def test_the_look_back_is_the_end_of_the_log_read_forwards(
    sizes: list[int], chunk: int, wanted: int, carriage: bool
) -> None:
    """Read backwards a chunk at a time, whatever the chunk size: the same entries as the
    last `wanted` of the whole file read forwards (a `\r` between tokens ends no line)."""
    with tempfile.TemporaryDirectory() as directory, pytest.MonkeyPatch.context() as patch:
        patch.setattr(logreader, "_CHUNK", chunk)
        body = b"".join(
            orjson.dumps({"tool": f"t{n}", "status": "success", "output": "é" * size}) + b"\n"
            for n, size in enumerate(sizes)
        )
        if carriage:
            body = body.replace(b'{"tool"', b'{\r"tool"')
        (Path(directory) / "tool-calls-2026-01-01.jsonl").write_bytes(body)
        expected = list(read_entries(directory))[-wanted:]
        assert recent_entries(directory, max_entries=wanted) == expected
