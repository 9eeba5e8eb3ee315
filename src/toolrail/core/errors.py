"""Everything that can go wrong with a tool call, as values.

    ToolError                      kind                model_can_fix
    ├── UnknownTool                "unknown_tool"        yes  no tool by that name
    ├── NotAllowed                 "not_allowed"         yes  not in this agent's table
    ├── PermissionDenied           "permission_denied"   no*  a permission or a rule said no
    ├── ApprovalRequired           "approval_required"   no   a human must decide first
    ├── InvalidArguments           "invalid_arguments"   yes  every issue, with its path
    ├── ExecutionFailed            "execution_failed"    no*  the tool itself failed
    ├── TimedOut                   "timed_out"           no   deadline passed
    ├── CircuitOpen                "circuit_open"        no   failing fast after failures
    ├── BudgetExceeded             "budget_exceeded"     no   a call limit was reached
    ├── Cancelled                  "cancelled"           no   the call was cancelled
    ├── TransportError             "transport_error"     no   an MCP server or link broke
    └── InternalError              "internal_error"      no   a bug in toolrail

`model_can_fix` answers "should the model read this and try again?" — a smarter model could
have avoided it (bad name, bad arguments) — versus "the machinery broke" and the loop
decides. (*) A tool may return `ExecutionFailed(..., model_can_fix=True)` when its failure
is one the model can correct, such as a missing file or an MCP `isError` result; a person's
declined approval is a `PermissionDenied` with `model_can_fix=True`, so the model reads why.
"""

from __future__ import annotations

import copy
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Self

from toolrail.core._slots import constructor
from toolrail.core.hidden import Hidden
from toolrail.core.redact import redact_name, shorten

MAX_MESSAGE_CHARS = 8000
"""The longest an error's text may be (about 2,000 tokens). Whatever a model sent, or a tool
raised, comes back cut to this, saying from how long: the model reads what to fix, not its
own 1 MB argument again."""
MAX_LISTED_ISSUES = 20
"""`InvalidArguments` lists at most this many issues (the count says how many there were)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolError:
    """Base of every tool failure; `message` is written for the model and for people."""

    kind: ClassVar[str] = "tool_error"
    message: str
    model_can_fix: bool = False

    def __post_init__(self) -> None:
        # by construction: an error's text (a tool's exception, a server's answer, a
        # validator's refusal) never carries a secret to the model, the caller or a screen,
        # nor more than MAX_MESSAGE_CHARS of text
        cleaned = shorten(self.message, MAX_MESSAGE_CHARS)
        if cleaned is not self.message and cleaned != self.message:
            object.__setattr__(self, "message", cleaned)

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"

    def without(self, hidden: Hidden) -> Self:
        """This error with none of the `hidden` texts in its words (`toolrail.core.hidden`):
        what its call's arguments hide, which a tool's exception or a server's answer may
        quote."""
        message = hidden.without(self.message)
        if message == self.message:
            return self
        quiet = copy.copy(self)  # its words change, not its bounds: no second redaction
        object.__setattr__(quiet, "message", message)
        return quiet


@dataclass(frozen=True, slots=True, kw_only=True)
class UnknownTool(ToolError):
    """No tool is registered under `name`; `suggestions` are close names that exist."""

    kind: ClassVar[str] = "unknown_tool"
    name: str
    suggestions: tuple[str, ...] = ()
    model_can_fix: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class NotAllowed(ToolError):
    """The tool exists but is not in this agent's tool table."""

    kind: ClassVar[str] = "not_allowed"
    tool: str
    agent: str
    model_can_fix: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionDenied(ToolError):
    """The agent was not granted every permission the tool declares."""

    kind: ClassVar[str] = "permission_denied"
    tool: str
    missing: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalRequired(ToolError):
    """A human must approve this call first; `request_id` names the pending request."""

    kind: ClassVar[str] = "approval_required"
    tool: str
    request_id: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentIssue:
    """One thing wrong with a call's arguments, at a JSON path such as `$.items[2].qty`.

    The message is redacted when the issue is made: validators word their refusals with the
    rejected value (`key 'sk-ant-...' is not valid`), and the model reads them. Path and
    message are cut to a bound each (a 100 KB key or value is not repeated back)."""

    MAX_PATH_CHARS: ClassVar[int] = 120
    MAX_MESSAGE_CHARS: ClassVar[int] = 240

    path: str
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", shorten(self.message, self.MAX_MESSAGE_CHARS))
        path = redact_name(self.path)  # keys a model wrote; whole, before it is cut
        if len(path) > self.MAX_PATH_CHARS:
            path = path[: self.MAX_PATH_CHARS - 1] + "…"
        if path != self.path:
            object.__setattr__(self, "path", path)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True, slots=True, kw_only=True)
class InvalidArguments(ToolError):
    """The arguments did not fit the tool's input schema; lists the issues found (at most
    `MAX_LISTED_ISSUES`; the message counts them all)."""

    kind: ClassVar[str] = "invalid_arguments"
    tool: str = ""
    issues: tuple[ArgumentIssue, ...] = ()
    model_can_fix: bool = True

    def __post_init__(self) -> None:
        # made by hand: redacted and bounded like any error's text (`of` makes it without
        # this: its listing is of issues redacted already, and a second pass would read
        # `$.token: is required` as an assignment and hide the advice)
        ToolError.__post_init__(self)
        if len(self.issues) > MAX_LISTED_ISSUES:
            object.__setattr__(self, "issues", self.issues[:MAX_LISTED_ISSUES])

    @classmethod
    def of(
        cls,
        tool: str,
        issues: Sequence[ArgumentIssue],
        *,
        found: int | None = None,
        at_least: bool = False,
    ) -> InvalidArguments:
        """Build the error with a message that lists each issue on its own line, the first
        `MAX_LISTED_ISSUES` of them. `found`: how many there were, when the validator
        listed fewer (`at_least`: it stopped counting there)."""
        listed = tuple(issues[:MAX_LISTED_ISSUES])
        total = max(found or 0, len(issues))
        lines = "\n".join(f"- {issue}" for issue in listed)
        name = f" for {redact_name(tool)}" if tool else ""
        count = f"{'at least ' if at_least else ''}{total} issue{'s' if total != 1 else ''}"
        if len(listed) < total:
            count += f", the first {len(listed)} below"
        message = f"invalid arguments{name} ({count}); fix them and call again:\n{lines}"
        return _listing(
            message=shorten(message, MAX_MESSAGE_CHARS, redacted=True), tool=tool, issues=listed
        )

    def without(self, hidden: Hidden) -> Self:
        quiet = ToolError.without(self, hidden)
        issues = tuple(
            ArgumentIssue(path=issue.path, message=hidden.without(issue.message))
            for issue in self.issues
        )
        if issues != self.issues:
            quiet = copy.copy(quiet) if quiet is self else quiet
            object.__setattr__(quiet, "issues", issues)
        return quiet


_listing: Callable[..., InvalidArguments] = constructor(InvalidArguments)
"""`InvalidArguments` made from issues redacted already: bounded by `of`, not redacted again."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutionFailed(ToolError):
    """The tool ran and failed; `exception_type` names what it raised, if it raised."""

    kind: ClassVar[str] = "execution_failed"
    exception_type: str | None = None
    traceback: tuple[str, ...] = field(default=(), compare=False)
    """Where it was raised: the innermost frames as `file:line in function`, no locals and
    no source text (so nothing a frame held can leak; the log redacts it again)."""

    @classmethod
    def from_exception(cls, exc: BaseException) -> ExecutionFailed:
        """Describe an exception in one line, with a bounded traceback of where it was raised;
        the text is redacted (`auth failed for token sk-...` is what exceptions say)."""
        name = type(exc).__name__
        try:
            text = str(exc).strip()
        except Exception:  # an exception whose __str__ raises is still a failure to report
            text = "<unprintable exception>"
        return cls(
            message=f"{name}: {text}" if text else name,  # redacted and cut as any error's
            exception_type=name,
            traceback=frames(exc),
        )


def frames(exc: BaseException, limit: int = 8) -> tuple[str, ...]:
    """The innermost `limit` frames of `exc`'s traceback, as `file:line in function`."""
    found = traceback.StackSummary.extract(
        traceback.walk_tb(exc.__traceback__), lookup_lines=False, capture_locals=False
    )
    return tuple(f"{f.filename}:{f.lineno} in {f.name}"[-300:] for f in found[-limit:])


@dataclass(frozen=True, slots=True, kw_only=True)
class TimedOut(ToolError):
    """The call did not finish within `timeout_s` seconds."""

    kind: ClassVar[str] = "timed_out"
    timeout_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class CircuitOpen(ToolError):
    """The tool failed repeatedly; calls fail fast until `retry_after_s` has passed."""

    kind: ClassVar[str] = "circuit_open"
    tool: str
    retry_after_s: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetExceeded(ToolError):
    """A limit on calls was reached; `limit` names it, `resets_in_s` says when it frees up."""

    kind: ClassVar[str] = "budget_exceeded"
    limit: str
    resets_in_s: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Cancelled(ToolError):
    """The call was cancelled before it finished."""

    kind: ClassVar[str] = "cancelled"


@dataclass(frozen=True, slots=True, kw_only=True)
class TransportError(ToolError):
    """An MCP server or the connection to it broke; `server` names it."""

    kind: ClassVar[str] = "transport_error"
    server: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class InternalError(ToolError):
    """Something in toolrail itself went wrong; please report it."""

    kind: ClassVar[str] = "internal_error"
    details: tuple[str, ...] = field(default=())
