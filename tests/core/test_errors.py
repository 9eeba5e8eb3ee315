"""ToolError cases: kinds, defaults, and how they read."""

from __future__ import annotations

import pytest

from toolrail import (
    ApprovalRequired,
    ArgumentIssue,
    BudgetExceeded,
    Cancelled,
    CircuitOpen,
    ExecutionFailed,
    InternalError,
    InvalidArguments,
    NotAllowed,
    PermissionDenied,
    TimedOut,
    ToolError,
    TransportError,
    UnknownTool,
)

CASES: list[tuple[ToolError, str, bool]] = [
    (UnknownTool(message="m", name="x"), "unknown_tool", True),
    (NotAllowed(message="m", tool="t", agent="a"), "not_allowed", True),
    (PermissionDenied(message="m", tool="t"), "permission_denied", False),
    (ApprovalRequired(message="m", tool="t"), "approval_required", False),
    (InvalidArguments(message="m"), "invalid_arguments", True),
    (ExecutionFailed(message="m"), "execution_failed", False),
    (TimedOut(message="m", timeout_s=1), "timed_out", False),
    (CircuitOpen(message="m", tool="t"), "circuit_open", False),
    (BudgetExceeded(message="m", limit="calls"), "budget_exceeded", False),
    (Cancelled(message="m"), "cancelled", False),
    (TransportError(message="m"), "transport_error", False),
    (InternalError(message="m"), "internal_error", False),
]


@pytest.mark.parametrize(("error", "kind", "fixable"), CASES)
def test_every_case_has_its_kind_and_default(error: ToolError, kind: str, fixable: bool) -> None:
    """Each case names its kind and says by default whether the model can fix it."""
    assert error.kind == kind
    assert error.model_can_fix is fixable
    assert str(error) == f"{kind}: m"


def test_errors_are_frozen_values() -> None:
    """Errors compare by value and cannot be changed."""
    assert TimedOut(message="m", timeout_s=1) == TimedOut(message="m", timeout_s=1)
    error = UnknownTool(message="m", name="x")
    with pytest.raises(AttributeError):
        error.message = "other"  # type: ignore[misc]


def test_execution_failed_may_be_marked_fixable() -> None:
    """A tool can say its failure is one the model can correct."""
    assert ExecutionFailed(message="no such file", model_can_fix=True).model_can_fix


def test_invalid_arguments_message_lists_every_issue() -> None:
    """The message a model reads names each path and problem."""
    error = InvalidArguments.of(
        "search",
        (ArgumentIssue(path="$.q", message="missing"), ArgumentIssue(path="$.n", message="bad")),
    )
    assert "search" in error.message
    assert "2 issues" in error.message
    assert "- $.q: missing" in error.message
    assert "- $.n: bad" in error.message


def test_from_exception_is_one_line_without_traceback() -> None:
    """An exception becomes `Type: message`, and an unprintable one still becomes a value."""

    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert ExecutionFailed.from_exception(KeyError("k")).message == "KeyError: 'k'"
    assert ExecutionFailed.from_exception(ValueError()).message == "ValueError"
    weird = ExecutionFailed.from_exception(Unprintable())
    assert weird.exception_type == "Unprintable"
    assert "unprintable" in weird.message


def test_match_on_error_cases() -> None:
    """An agent loop can pattern-match on the error tree."""

    def route(error: ToolError) -> str:
        match error:
            case InvalidArguments(issues=issues):
                return f"fix {len(issues)}"
            case TimedOut(timeout_s=seconds):
                return f"slow {seconds}"
            case ToolError(model_can_fix=True):
                return "retry"
            case _:
                return "stop"

    assert route(InvalidArguments(message="m")) == "fix 0"
    assert route(TimedOut(message="m", timeout_s=2)) == "slow 2"
    assert route(UnknownTool(message="m", name="x")) == "retry"
    assert route(InternalError(message="m")) == "stop"


ANTHROPIC_KEY = "sk-ant-api03-ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210-_zzzz"


@pytest.mark.parametrize(
    "said",
    [
        f"auth failed for token {ANTHROPIC_KEY}",
        "connect failed: password=hunter2hunter2",
        '{"secretKey": "hunter2hunter2"}',
    ],
)
def test_an_exception_s_text_is_redacted_when_it_becomes_an_error(said: str) -> None:
    """The model and the caller read `ExecutionFailed.message`: no secret an exception
    repeated survives into it."""
    message = ExecutionFailed.from_exception(RuntimeError(said)).message
    assert message.startswith("RuntimeError: ")
    assert ANTHROPIC_KEY not in message
    assert "hunter2hunter2" not in message


def test_an_argument_issue_s_message_is_redacted_when_it_is_made() -> None:
    """Whoever builds the issue, its message is redacted; its path stays readable."""
    issue = ArgumentIssue(path="$.key", message=f"key {ANTHROPIC_KEY!r} is not valid")
    assert ANTHROPIC_KEY not in issue.message
    assert issue.path == "$.key"
    assert ANTHROPIC_KEY not in InvalidArguments.of("t", (issue,)).message


def test_every_error_text_is_redacted_when_made() -> None:
    """Whoever builds an error (a tool, an MCP answer, toolrail itself), its text carries no
    secret; InvalidArguments built from issues keeps each issue's own (redacted) wording."""
    from toolrail import ExecutionFailed, TransportError
    from toolrail.core.errors import ArgumentIssue

    key = "sk-ant-api03-" + "Z" * 40
    for error in (
        ExecutionFailed(message=f"auth failed with {key}"),
        TransportError(message=f"server said: token={key}", server="s"),
    ):
        assert key not in error.message
        assert "[REDACTED]" in error.message
    refused = InvalidArguments.of(
        "t", (ArgumentIssue(path="$.token", message="required field is missing"),)
    )
    assert "$.token: required field is missing" in refused.message
