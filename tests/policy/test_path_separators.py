"""A rule sees the path the opener opens: `\\` separates a path's components for both."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st
from returns.result import Success

from toolrail.builtin.paths import parts_of
from toolrail.policy.normalise import path_word
from toolrail.policy.rules import Rules

DENY = Rules.of(
    deny=[
        "read_path(.env)",
        "read_path(secrets/*)",
        "shell(cat .env)",
        "shell(* .env)",
        "shell(*secrets/*)",
    ]
)
DENIED = st.sampled_from([(".env",), ("secrets", "key.pem")])
LEADS = st.sampled_from(["", "./", ".\\", ".\\./", "./.\\", ".\\\\"])
SEPARATORS = st.sampled_from(["/", "\\", "\\\\", "/\\", "\\./", "/.\\", "\\.\\", "//"])
TRAILS = st.sampled_from(["", "\\.", "/."])


@given(DENIED, LEADS, SEPARATORS, TRAILS)
def test_a_denied_path_is_denied_however_its_separators_are_written(
    parts: tuple[str, ...], lead: str, separator: str, trail: str
) -> None:
    """`.\\.env`, `secrets\\key.pem`, `secrets\\./key.pem`: the opener opens the denied file,
    and read_path's and shell's rules deny it."""
    path = lead + separator.join(parts) + trail
    assert parts_of(path) == Success(parts), path  # what read_path and shell open
    assert DENY.decide("read_path", {"path": path}).verdict == "deny", path
    for program in ("cat", "head"):
        decision = DENY.decide("shell", {"command": [program, path]})
        assert decision.verdict == "deny", (program, path)


@given(st.text(alphabet="ab.:/\\", min_size=1, max_size=12))
def test_a_rule_reads_a_path_as_the_opener_does(path: str) -> None:
    """Every path the opener accepts has the normal form of the components it opens."""
    opened = parts_of(path)
    assume(isinstance(opened, Success) and "://" not in path)  # `x://y` is read as a URL
    assert path_word(path) == ("/".join(opened.unwrap()) or "."), path
