"""The examples run as a user runs them (`make demo` runs examples/demo.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).parent.parent / "examples"


def run(name: str, logs: Path) -> str:
    env = {**os.environ, "TOOLRAIL_LOG_DIR": str(logs)}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=EXAMPLES,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_demo_runs_the_whole_conversation(tmp_path: Path) -> None:
    """Recovery, parallel calls, the MCP tool, the handoff and the end all happen."""
    out = run("demo.py", tmp_path)
    assert "✖ ⚙️ search_docs: x — invalid arguments" in out
    assert "✔ 🌐 mcp__time__get_current_time: Europe/Oslo" in out
    assert "↪ researcher hands over to writer" in out
    assert "🏁 Ended: end_conversation" in out
    assert "🙋 a person approves it" in out
    assert "(3 attempts," in out
    assert "failed repeatedly; calls fail fast" in out
    assert "circuit billing_status: open" in out
    assert "tool-calls-" in out
    [log] = tmp_path.glob("tool-calls-*.jsonl")
    assert len(log.read_text().splitlines()) == 14
    # the dev extra brings OTel and prometheus-client: a trace summary and the metrics
    assert "invoke_agent researcher" in out
    assert "invoke_agent writer" in out
    assert "/metrics" in out
    assert 'toolrail_tool_calls_total{outcome="ok",tool="save_note"} 1.0' in out
    assert (tmp_path / "demo-trace.jsonl").read_text().count("execute_tool") >= 10


def test_tour_shows_each_kind_of_outcome(tmp_path: Path) -> None:
    """The tour prints successes and each failure a loop matches on."""
    out = run("tour.py", tmp_path)
    for expected in ("✅ Success", "InvalidArguments", "NotAllowed", "TimedOut", "UnknownTool"):
        assert expected in out


def test_agent_loop_example(tmp_path: Path) -> None:
    """The README's agent loop runs as printed."""
    out = run("agent_loop.py", tmp_path)
    assert "✔ ⚙️ weather: Oslo" in out
    assert out.strip().endswith("end_conversation — Oslo: 4°C.")


def test_routing_demo_shows_the_few_tools_each_turn(tmp_path: Path) -> None:
    """With the built-in catalogue, each turn sends a few tools' bytes and the work gets done."""
    env = {**os.environ, "TOOLRAIL_METATOOL": str(tmp_path / "absent")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "routing_demo.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=EXAMPLES,
        env=env,
    )
    out = done.stdout
    assert "synthetic catalogue: 271 tools" in out
    assert "turn 1: 10 tools" in out
    assert "✔ ⚙️ refund_payment" in out
    assert "✔ ⚙️ send_email" in out
    assert "end_conversation — Refunded and told the customer." in out
