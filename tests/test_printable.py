"""No text a model or a tool wrote reaches a terminal as control characters: a stream
line, a listing of the call log, a shown name. An escape sequence could move the cursor
over an earlier line ("✔ all good"), set the window title, or reorder text (bidi)."""

from __future__ import annotations

import asyncio
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrail import (
    ExecutionContext,
    Executor,
    JsonlCallLog,
    ToolCall,
    ToolRegistry,
    ToolStreamHandler,
    tool,
)
from toolrail.cli import _ask_on_terminal, main
from toolrail.core.context import ExecutionContext as Ctx
from toolrail.core.redact import printable, shown_name
from toolrail.policy.approvals import ApprovalRequest, Approve

OBEYED = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]"
)
EVIL = "\x1b]0;pwned\x07\x1b[1A\x1b[2K\r✔ all good\u202e\x9b2K\u2028"


@given(st.text())
def test_printable_leaves_nothing_a_terminal_obeys_and_keeps_plain_text(text: str) -> None:
    shown = printable(text)
    assert OBEYED.search(shown) is None
    if OBEYED.search(text) is None:
        assert shown == text
    assert OBEYED.search(printable(text, one_line=True)) is None
    assert "\n" not in printable(text, one_line=True)
    assert "\n" not in shown_name(text)
    assert OBEYED.search(shown_name(text)) is None
    assert printable(shown) == shown  # once is enough


@given(st.recursive(st.text() | st.integers(), lambda inner: st.lists(inner, max_size=3)))
def test_printable_json_is_the_same_json(value: object) -> None:
    text = json.dumps({"value": value}, ensure_ascii=False, indent=2)
    shown = printable(text, json=True)
    assert OBEYED.search(shown) is None
    assert json.loads(shown) == json.loads(text)


def test_the_approval_prompt_shows_the_models_arguments_as_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where a person decides what runs, nothing the model wrote can redraw the line."""
    request = ApprovalRequest(
        tool="shell",
        arguments={"cmd": f"echo hi {EVIL}"},
        reason="shell needs approval",
        agent="a",
        conversation_id="c",
        call_id="1",
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("a\n"))
    assert isinstance(_ask_on_terminal(request), Approve)
    prompt = capsys.readouterr().err
    assert OBEYED.search(prompt) is None
    assert "shell" in prompt


@tool
def fetch(url: str, ctx: Ctx) -> str:
    """Fetch a page."""
    ctx.report_progress(1, 2, f"got {url}")
    raise RuntimeError(f"failed on {url}")


def test_no_control_character_reaches_a_stream_line_or_the_log_listing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines: list[str] = []
    log = JsonlCallLog(tmp_path)
    stream = ToolStreamHandler(on_update=lambda update: lines.append(update.text))
    executor = Executor(ToolRegistry([fetch]), sinks=[log, stream])
    ctx = ExecutionContext()
    calls = [
        ToolCall(name=f"fetch{EVIL}", arguments={"url": "x"}),  # no such tool
        ToolCall(name="fetch", arguments={"url": f"https://a.example/{EVIL}"}, id=f"c{EVIL}"),
    ]
    for call in calls:
        asyncio.run(executor.run(call, ctx))
    log.close()

    assert len(lines) >= 4
    for line in lines:
        assert OBEYED.search(line) is None, line
    assert any("\\x1b" in line for line in lines)  # shown, as text

    assert main(["logs", "tail", "--dir", str(tmp_path)]) == 0
    listing = capsys.readouterr().out
    assert len(listing.splitlines()) == 2
    assert OBEYED.search(listing) is None
    assert main(["logs", "stats", "--dir", str(tmp_path)]) == 0
    assert OBEYED.search(capsys.readouterr().out) is None


ESCAPING_SERVER = Path(__file__).parent / "fixtures" / "escaping_mcp_server.py"


@pytest.mark.parametrize("mode", ["skip", "refuse"])
def test_an_mcp_servers_words_reach_the_terminal_as_text(tmp_path: Path, mode: str) -> None:
    """`toolrail mcp list` against a server whose tool name, or error, holds escapes."""
    (tmp_path / "toolrail.toml").write_text(
        f'[mcp.servers.evil]\ncommand = "{sys.executable}"\n'
        f'args = ["{ESCAPING_SERVER}", "{mode}"]\nstderr = "discard"\n'
    )
    shown = subprocess.run(
        [sys.executable, "-m", "toolrail.cli", "mcp", "list", "--config", "toolrail.toml"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    said = shown.stdout + shown.stderr
    assert "PWNED" in said  # it is shown, as text
    assert OBEYED.search(said) is None


def test_joiners_of_ordinary_text_stay_on_one_line() -> None:
    """Persian words and emoji sequences are written with zero-width joiners: kept."""
    for text in ("می\u200cخواهم", "👨\u200d👩\u200d👧"):
        assert printable(text, one_line=True) == text
