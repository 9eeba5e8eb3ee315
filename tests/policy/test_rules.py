"""allow / ask / deny rules: syntax, argument patterns, and deny-always-wins properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrail.policy.rules import Rule, Rules


def test_rule_syntax() -> None:
    """Tool globs, main-argument globs and named-argument globs."""
    assert Rule.parse("mcp__github__*").matches("mcp__github__issues", {})
    shell = Rule.parse("shell(git status*)")
    assert shell.matches("shell", {"command": ["git", "status", "--short"]})
    assert not shell.matches("shell", {"command": ["git", "push"]})
    named = Rule.parse("write_context_file(path:docs/*)")
    assert named.matches("write_context_file", {"path": "docs/a.md", "text": "x"})
    assert not named.matches("write_context_file", {"path": "src/a.py"})
    assert not named.matches("write_context_file", None)  # visibility: argument rules don't hide
    with pytest.raises(ValueError, match="cannot read the rule"):
        Rule.parse("(oops)")


def test_deny_beats_ask_beats_allow() -> None:
    """The strongest verdict wins, with the rule that gave it."""
    rules = Rules.of(allow=["shell(*)"], ask=["shell(git *)"], deny=["shell(git push*)"])
    assert rules.decide("shell", {"command": "ls"}).verdict == "allow"
    assert rules.decide("shell", {"command": "git status"}).verdict == "ask"
    decision = rules.decide("shell", {"command": "git push --force"})
    assert (decision.verdict, decision.rule) == ("deny", "shell(git push*)")
    # with an allow list, what it does not allow is asked; with none, nothing is restricted
    assert rules.decide("read_path", {}).verdict == "ask"
    assert Rules.of(deny=["shell"]).decide("read_path", {}).verdict is None


TOOLS = st.sampled_from(["read_path", "shell", "mcp__fs__read", "write_context_file"])
PATTERNS = st.sampled_from(
    [
        "*",
        "read_*",
        "shell",
        "shell(git *)",
        "mcp__*",
        "write_*",
        "write_context_file(path:docs/*)",
        "shell(rm *)",
    ]
)
ARGS = st.fixed_dictionaries(
    {
        "command": st.sampled_from(["git status", "rm -rf /", "ls"]),
        "path": st.sampled_from(["docs/a.md", "src/b.py"]),
    }
)


@given(st.lists(PATTERNS), st.lists(PATTERNS), st.lists(PATTERNS, min_size=1), TOOLS, ARGS)
def test_a_matching_deny_always_wins(
    allow: list[str], ask: list[str], deny: list[str], tool: str, args: dict[str, object]
) -> None:
    """Whatever allow and ask say, a matching deny rule decides."""
    rules = Rules.of(allow=allow, ask=ask, deny=deny)
    if any(Rule.parse(d).matches(tool, args) for d in deny):
        assert rules.decide(tool, args).verdict == "deny"


@given(st.lists(PATTERNS), st.lists(PATTERNS), st.lists(PATTERNS), TOOLS, ARGS, st.randoms())
def test_order_does_not_matter(
    allow: list[str],
    ask: list[str],
    deny: list[str],
    tool: str,
    args: dict[str, object],
    rnd: object,
) -> None:
    """Shuffling each list never changes the verdict."""
    before = Rules.of(allow=allow, ask=ask, deny=deny).decide(tool, args).verdict
    for items in (allow, ask, deny):
        rnd.shuffle(items)  # type: ignore[attr-defined]
    assert Rules.of(allow=allow, ask=ask, deny=deny).decide(tool, args).verdict == before
