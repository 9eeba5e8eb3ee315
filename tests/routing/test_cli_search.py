"""`toolrail search`: the tools that fit a request, with --explain and nothing for nonsense."""

from __future__ import annotations

import subprocess
import sys


def search(*args: str) -> subprocess.CompletedProcess[str]:
    module = ["--module", "toolrail.builtin"]
    command = [sys.executable, "-m", "toolrail.cli", "search", *args, *module]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_search_ranks_and_explains() -> None:
    """The best tool comes first; --explain prints the signals as JSON."""
    done = search("read a file from disk", "-k", "2", "--explain")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert "read_path" in lines[0]
    assert '"matched"' in lines[1]


def test_search_says_when_nothing_fits() -> None:
    """An irrelevant request prints no tools and says so on stderr."""
    done = search("who won the 1998 world cup")
    assert done.returncode == 0
    assert done.stdout == ""
    assert "no tool fits" in done.stderr
