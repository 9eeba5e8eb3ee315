"""`toolrail call` asks a person at the terminal when a rule asks for approval: approve,
deny with a reason, or edit the arguments — driven here through a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")

TOOLS_PY = '''
from toolrail import tool

@tool
def deploy(target: str) -> str:
    """Deploy to a target."""
    return f"deployed to {target}"
'''
PROMPT = "[a]pprove, [d]eny or [e]dit the arguments? "


class Terminal:
    """The person's side of a pseudo-terminal: wait for text, type a line."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.unread = ""

    def expect(self, text: str, within_s: float = 30.0) -> str:
        """Everything up to and including `text`, once it appears (fails at the deadline)."""
        deadline = time.monotonic() + within_s
        while text not in self.unread:
            left = deadline - time.monotonic()
            assert left > 0, f"never saw {text!r}; the terminal shows {self.unread!r}"
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # EIO: every process holding the terminal has closed it
                chunk = b""
            assert chunk, f"the terminal closed before {text!r}; it showed {self.unread!r}"
            self.unread += chunk.decode(errors="replace")
        seen, _, self.unread = self.unread.partition(text)
        return seen + text

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "mytools.py").write_text(TOOLS_PY)
    (tmp_path / "toolrail.toml").write_text(
        '[tools]\nmodules = ["mytools.py"]\n\n[logging]\ndirectory = "calls"\n\n'
        '[policy]\nask = ["deploy"]\n'
    )
    return tmp_path


@pytest.fixture
def call_deploy(project: Path) -> Iterator[tuple[Terminal, subprocess.Popen[bytes]]]:
    """`toolrail call deploy` with its stdin and stderr on a terminal, its stdout piped."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolrail.cli", "call", "deploy", "--args", '{"target": "prod"}'],
        cwd=project,
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    try:
        yield Terminal(master), process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        assert process.stdout is not None
        process.stdout.close()
        os.close(master)


def _outcome(process: subprocess.Popen[bytes]) -> tuple[int, dict[str, object]]:
    out, _ = process.communicate(timeout=60)
    return process.returncode, orjson.loads(out)


def _logged_arguments(project: Path) -> object:
    [log] = (project / "calls").glob("tool-calls-*.jsonl")
    [line] = log.read_text(encoding="utf-8").splitlines()
    return orjson.loads(line)["args"]


def test_approve_at_the_terminal_runs_the_call(
    project: Path, call_deploy: tuple[Terminal, subprocess.Popen[bytes]]
) -> None:
    terminal, process = call_deploy
    shown = terminal.expect(PROMPT)
    assert 'deploy {"target":"prod"}' in shown  # what is asked about, before the question
    terminal.type("a")
    assert _outcome(process) == (0, {"status": "success", "output": "deployed to prod"})
    assert _logged_arguments(project) == {"target": "prod"}


def test_deny_at_the_terminal_gives_the_reason_to_the_model(
    project: Path, call_deploy: tuple[Terminal, subprocess.Popen[bytes]]
) -> None:
    terminal, process = call_deploy
    terminal.expect(PROMPT)
    terminal.type("d")
    terminal.expect("reason: ")
    terminal.type("not on a Friday")
    status, outcome = _outcome(process)
    assert status == 1
    error = outcome["error"]
    assert isinstance(error, dict)
    assert error["kind"] == "permission_denied"
    assert error["model_can_fix"] is True
    assert "not on a Friday" in error["message"]


def test_edit_at_the_terminal_runs_the_edited_arguments(
    project: Path, call_deploy: tuple[Terminal, subprocess.Popen[bytes]]
) -> None:
    terminal, process = call_deploy
    terminal.expect(PROMPT)
    terminal.type("e")
    terminal.expect("arguments as a JSON object: ")
    terminal.type("{not json")  # a typo is said and asked again, not a crash
    terminal.expect("not JSON")
    terminal.expect(PROMPT)
    terminal.type("edit")
    terminal.expect("arguments as a JSON object: ")
    terminal.type('{"target": "staging"}')
    assert _outcome(process) == (0, {"status": "success", "output": "deployed to staging"})
    assert _logged_arguments(project) == {"target": "staging"}  # the log shows what ran
