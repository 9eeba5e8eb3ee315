"""A command line is read as a shell reads it: a `\\` newline joins two lines into one."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from toolrail.policy.normalise import command
from toolrail.policy.rules import Rules

DENY = Rules.of(deny=["shell(rm *)"], ask=["shell(git push*)"])
DENIED = st.sampled_from(["rm -rf build", "git push --force"])
BEFORE = st.sampled_from(["", "ls; ", "env ", "nice -n 5 ", "true && "])


def _continued(line: str, cuts: list[int]) -> str:
    """`line` with a line continuation at each cut (an index into it)."""
    for cut in sorted({cut % (len(line) + 1) for cut in cuts}, reverse=True):
        line = line[:cut] + "\\\n" + line[cut:]
    return line


@given(BEFORE, DENIED, st.lists(st.integers(0, 64), min_size=1, max_size=3))
def test_a_line_continuation_anywhere_does_not_hide_a_command(
    before: str, denied: str, cuts: list[int]
) -> None:
    """`r\\⏎m -rf build` runs `rm -rf build`: in the program, in an argument, between
    words, and in the line a shell runs (`sh -c`, in single or double quotes)."""
    rule = "shell(rm *)" if denied.startswith("rm") else "shell(git push*)"
    line = _continued(denied, cuts)
    for spelled in (
        before + line,
        f"sh -c {shlex.quote(line)}",
        f'bash -c "{line}"',
        f"sh -c {shlex.quote(before + line)}",
    ):
        decision = DENY.decide("shell", {"command": spelled})
        assert decision.verdict in ("deny", "ask"), spelled
        assert decision.rule == rule, spelled


@given(
    st.sampled_from(
        [
            "echo \\\\\nrm -rf /",  # an escaped backslash, then a newline
            "ls # note\\\nrm -rf /",  # a comment ends at the newline
            "echo 'a\\\n'; rm -rf /",  # in single quotes: kept
            "echo $'a\\\n'; rm -rf /",  # in ANSI-C quotes: kept
            "rm -rf build\r",  # a carriage return is a word's last character
            "rm -rf build\r\n",
        ]
    )
)
def test_a_newline_that_is_not_continued_still_separates(line: str) -> None:
    """Only what the shell joins is joined: `rm` after these newlines still runs."""
    assert DENY.decide("shell", {"command": line}).verdict in ("deny", "ask"), line
    assert any(part[0] == "rm" for part in command(line).parts), line


def test_a_carriage_return_is_read_as_a_shell_reads_it_and_never_allowed() -> None:
    """sh reads `\\r` as a character of a word, not a space: `rm\\r` is not `rm`, and
    `cat secrets/\\rkey` opens a file in secrets/; either way it is asked, never allowed."""
    assert command("rm\r -rf x").parts[0][0] == "rm\r"
    assert command("cat secrets/\rkey").parts == (("cat", "secrets/\rkey"),)
    allowed = Rules.of(allow=["shell(git status*)", "shell(cat *)"])
    for line in ("git status\r", "git\rstatus", "cat secrets/\rkey"):
        assert allowed.decide("shell", {"command": line}).verdict == "ask", repr(line)
    denied = Rules.of(deny=["shell(*secrets/*)"])
    assert denied.decide("shell", {"command": "cat secrets/\rkey"}).verdict == "deny"
