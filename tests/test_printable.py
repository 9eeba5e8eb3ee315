"""No text a model or a tool wrote reaches a terminal as control characters: a stream
line, a listing of the call log, a shown name. An escape sequence could move the cursor
over an earlier line ("✔ all good"), set the window title, or reorder text (bidi)."""

from __future__ import annotations

import asyncio
import re
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
from toolrail.cli import main
from toolrail.core.context import ExecutionContext as Ctx
from toolrail.core.redact import printable, shown_name

OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
EVIL = "\x1b]0;pwned\x07\x1b[1A\x1b[2K\r✔ all good\u202e"


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
