"""A refusal stays short whatever the model sent: a 100 KB value, key or tool name, or ten
thousand wrong items, comes back as an error of a few KB that still says what to fix — not
as the input again (which would fill the model's context, and the log, with its own
mistake). Local and JSON Schema tools, `find_tools`, unknown names, and errors a tool makes
itself (a real MCP server's tool: tests/mcp/test_hub_hardening.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from toolrail import (
    AgentToolTable,
    ExecutionContext,
    ExecutionFailed,
    Executor,
    InvalidArguments,
    Router,
    ToolCall,
    ToolRegistry,
    UnknownTool,
    tool,
)
from toolrail.core.errors import MAX_LISTED_ISSUES, MAX_MESSAGE_CHARS, ArgumentIssue
from toolrail.core.params import JsonSchemaParameters, ParameterSchema
from toolrail.core.redact import REDACTED
from toolrail.core.tool import Tool
from toolrail.routing.surfacing import FIND_TOOLS, QUERY_CHARS, Surfacing

pytestmark = pytest.mark.anyio
HUGE = 100_000
BOUND = MAX_MESSAGE_CHARS + 100  # the error's text, "kind: " in front
SCHEMA = {
    "type": "object",
    "properties": {
        "xs": {"type": "array", "items": {"type": "integer"}},
        "q": {"type": "string", "maxLength": 5},
        "e": {"enum": ["a", "b"]},
        "p": {"type": "string", "pattern": "^a$"},
        "n": {"type": "integer"},
    },
    "additionalProperties": False,
}


async def _ok(args: object, ctx: ExecutionContext) -> Success[str]:
    return Success("ok")


raw = Tool(
    name="raw",
    description="A JSON Schema tool.",
    parameters=ParameterSchema.from_json_schema(SCHEMA),
    execute=_ok,
)


@tool
def typed(xs: list[int], q: str = "", n: int = 0) -> str:
    """A pydantic tool."""
    return "ok"


EXECUTOR = Executor(ToolRegistry([raw, typed]))

# (tool, arguments): each a different way to send something huge or many-fold
OVERSIZED: list[tuple[str, dict[str, Any]]] = [
    ("raw", {"xs": ["s"] * 10_000}),
    ("typed", {"xs": ["s"] * 10_000}),
    ("raw", {"k" * HUGE: 1}),
    ("typed", {"xs": [], "k" * HUGE: 1}),
    ("raw", {"q": "z" * HUGE}),
    ("raw", {"e": "z" * HUGE}),
    ("raw", {"p": "z" * HUGE}),
    ("raw", {"n": "z" * HUGE}),
    ("typed", {"xs": [], "n": "z" * HUGE}),
    ("raw", {"xs": [[["z" * HUGE]]]}),
    ("raw", {f"k{i}": "v" * 1000 for i in range(1000)}),
    ("typed", {"xs": [], **{f"k{i}": "v" * 1000 for i in range(1000)}}),
]


async def refused(name: str, arguments: object) -> InvalidArguments:
    outcome = await EXECUTOR.run(ToolCall(name=name, arguments=arguments), ExecutionContext())  # type: ignore[arg-type]
    assert isinstance(outcome.result, Failure)
    error = outcome.result.failure()
    assert isinstance(error, InvalidArguments)
    return error


@pytest.mark.parametrize(("name", "arguments"), OVERSIZED)
async def test_an_oversized_input_gets_a_short_refusal(
    name: str, arguments: dict[str, Any]
) -> None:
    error = await refused(name, arguments)
    assert len(str(error)) <= BOUND
    assert 1 <= len(error.issues) <= MAX_LISTED_ISSUES
    for issue in error.issues:
        assert len(issue.path) <= ArgumentIssue.MAX_PATH_CHARS
        assert len(issue.message) <= ArgumentIssue.MAX_MESSAGE_CHARS


async def test_the_refusal_still_says_what_to_fix() -> None:
    """The reason survives the cut: a long value is shown short, its verdict whole."""
    too_long = await refused("raw", {"q": "z" * HUGE})
    assert "is too long" in too_long.message
    wrong_type = await refused("raw", {"n": "z" * HUGE})
    assert "is not of type 'integer'" in wrong_type.message
    pattern = await refused("raw", {"p": "z" * HUGE})
    assert "does not match '^a$'" in pattern.message


async def test_many_issues_are_counted_and_the_first_listed() -> None:
    for name in ("raw", "typed"):
        error = await refused(name, {"xs": ["s"] * 10_000})
        assert len(error.issues) == MAX_LISTED_ISSUES
        assert "10000 issues" in error.message or "at least" in error.message
        assert error.issues[0].path == "$.xs[0]"
        assert error.message.count("\n- ") == MAX_LISTED_ISSUES


async def test_a_few_issues_are_listed_as_before() -> None:
    error = await refused("raw", {"n": "x", "q": "toolong"})
    assert "(2 issues)" in error.message
    assert [i.path for i in error.issues] == ["$.n", "$.q"]


@settings(max_examples=60, deadline=None)
@given(
    key=st.text(min_size=1, max_size=3).map(lambda s: s * 20_000),
    value=st.text(min_size=1, max_size=3).map(lambda s: s * 20_000),
)
def test_any_long_key_or_value_comes_back_bounded(key: str, value: str) -> None:
    """Property, straight on the validator: whatever the key and the value."""
    checked = JsonSchemaParameters(SCHEMA).check({key: value, "n": value}, tool="raw")
    assert isinstance(checked, InvalidArguments)
    assert len(checked.message) <= MAX_MESSAGE_CHARS


async def test_an_unknown_huge_tool_name_is_not_echoed_whole() -> None:
    name = "n" * 1_000_000
    outcome = await EXECUTOR.run(ToolCall(name=name, arguments={}), ExecutionContext())
    assert isinstance(outcome.result, Failure)
    error = outcome.result.failure()
    assert isinstance(error, UnknownTool)
    assert len(str(error)) <= 500
    assert "there is no tool named 'nnnn" in error.message
    assert "1000000 characters" in error.message


async def test_a_secret_tool_name_cut_short_is_still_redacted() -> None:
    """Redacted before it is cut: a key long enough to be cut never shows a piece of it."""
    name = "sk-ant-api03-" + "A" * 5000
    outcome = await EXECUTOR.run(ToolCall(name=name, arguments={}), ExecutionContext())
    assert isinstance(outcome.result, Failure)
    message = outcome.result.failure().message
    assert "AAAA" not in message
    assert REDACTED in message


async def test_a_tools_own_huge_error_is_cut_with_a_count() -> None:
    @tool
    def boom() -> str:
        """Fails loudly."""
        raise ValueError("v" * 1_000_000)

    executor = Executor(ToolRegistry([boom]))
    outcome = await executor.run(ToolCall(name="boom", arguments={}), ExecutionContext())
    assert isinstance(outcome.result, Failure)
    error = outcome.result.failure()
    assert isinstance(error, ExecutionFailed)
    assert len(error.message) <= MAX_MESSAGE_CHARS
    assert "1000012 characters, cut)" in error.message
    assert error.message.startswith("ValueError: vvvv")


def test_an_error_made_by_hand_is_bounded_and_redacted() -> None:
    secret = "password=hunter2hunter2"
    error = ExecutionFailed(message=secret + " " + "x" * (3 * MAX_MESSAGE_CHARS))
    assert len(error.message) <= MAX_MESSAGE_CHARS
    assert "hunter2" not in error.message
    short = ExecutionFailed(message="short")
    assert short.message == "short"


@pytest.mark.parametrize(
    "secret", ["password=hunter2hunter2", "sk-ant-api03-" + "Q7x" * 14, "https://al:pw9x@h.io/x"]
)
def test_invalid_arguments_made_by_hand_are_redacted(secret: str) -> None:
    """Issues given or not, a hand-made refusal's own text and an issue's path are redacted:
    only `InvalidArguments.of` lists issues redacted already."""
    issue = ArgumentIssue(path=f"$.{secret}", message=f"bad {secret}")
    error = InvalidArguments(message=f"refused: {secret}", tool="t", issues=(issue,))
    for text in (error.message, str(error), issue.path, issue.message, str(issue)):
        assert all(shown not in text for shown in (secret, "hunter2", "pw9x"))
    built = InvalidArguments.of("t", [ArgumentIssue(path="$.token", message="is required")])
    assert "$.token: is required" in built.message  # advice next to a secret's name stays


async def test_find_tools_refuses_an_overlong_query_briefly() -> None:
    from .routing.catalogue import registry

    catalogue = registry()
    executor = Executor(catalogue, agents=AgentToolTable({"a": ["*"]}))
    Surfacing(executor, [("a", Router(catalogue), 5)])
    ctx = ExecutionContext(agent="a")
    query = "weather in oslo " * (HUGE // 16)
    outcome = await executor.run(ToolCall(name=FIND_TOOLS, arguments={"query": query}), ctx)
    assert isinstance(outcome.result, Failure)
    error = outcome.result.failure()
    assert isinstance(error, InvalidArguments)
    assert len(error.message) <= 500
    assert "is too long" in error.message
    assert f'"maxLength": {QUERY_CHARS}' in str(
        executor.registry.find(FIND_TOOLS).input_schema()  # type: ignore[union-attr]
    ).replace("'", '"')
    fits = await executor.run(
        ToolCall(name=FIND_TOOLS, arguments={"query": "weather in oslo"}), ctx
    )
    assert isinstance(fits.result, Success)


@pytest.mark.parametrize("size", [61, 500, HUGE])
def test_a_long_secret_is_hidden_not_shortened(size: int) -> None:
    """A secret field's long value is taken out whole before any value is shown short: a
    shortened secret would no longer be found, and its start would show."""
    secret = ("S3cr3t-" * (size // 7 + 1))[:size]
    schema = {"type": "object", "properties": {"password": {"type": "integer"}}}
    checked = JsonSchemaParameters(schema).check({"password": secret}, tool="login")
    assert isinstance(checked, InvalidArguments)
    assert "S3cr3t" not in checked.message
    assert "is not of type 'integer'" in checked.message


# --- found by an outside review of the first version of the bound ----------------------

JWT = (
    "eyJhbGciOiAiUlMyNTYiLCAidHlwIjogIkpXVCJ9."
    + "eyJlbWFpbCI6ICJhbGljZUBjb3JwLmV4YW1wbGUifQ" * 40
    + "."
    + "S" * 342
)  # about 2 KB, as Azure AD's are


@pytest.mark.parametrize(
    "text",
    [
        # a token straddling the end of a window redacted only a little past the cut
        "x" * 7500 + " rejected credential " + JWT + " " + "y" * 5000,
        # a secret redacted early shortens the text, pulling unread text before the cut
        'password="'
        + "p" * 3000
        + '"\n'
        + "#" * 5925
        + " db=https://admin:hunter2hunter2@db/\n"
        + "#" * 90000,
    ],
)
async def test_a_secret_near_the_cut_is_redacted_whole_first(text: str) -> None:
    @tool
    def call_api(url: str) -> str:
        """Calls an API."""
        raise RuntimeError(text)

    executor = Executor(ToolRegistry([call_api]))
    outcome = await executor.run(
        ToolCall(name="call_api", arguments={"url": "u"}), ExecutionContext()
    )
    assert isinstance(outcome.result, Failure)
    message = outcome.result.failure().message
    assert len(message) <= MAX_MESSAGE_CHARS
    assert JWT[:20] not in message
    assert "hunter2" not in message


@pytest.mark.parametrize(
    "name",
    [
        "x" * 50 + " https://admin:hunter2hunter2@db.example.com/",
        "x" * 64 + " sk-Q7vRm2Lp9XzTbN4kW8yH3jD6fG1sA5cE",
        "password\t=hunter2hunter2",
    ],
)
async def test_an_unknown_name_is_redacted_before_it_is_cut(name: str) -> None:
    outcome = await EXECUTOR.run(ToolCall(name=name, arguments={}), ExecutionContext())
    assert isinstance(outcome.result, Failure)
    message = outcome.result.failure().message
    assert "hunter2" not in message
    assert "Q7vRm2Lp" not in message


async def test_a_huge_unknown_name_makes_a_short_log_line(tmp_path: Any) -> None:
    from toolrail import JsonlCallLog

    log = JsonlCallLog(tmp_path)
    executor = Executor(ToolRegistry([typed]), sinks=[log])
    await executor.run(ToolCall(name="n" * 1_000_000, arguments={}), ExecutionContext())
    log.close()
    [line] = [line for path in tmp_path.rglob("*.jsonl") for line in path.read_text().splitlines()]
    assert len(line) < 40_000
    assert "1000000 characters" in line


async def test_a_long_value_with_a_secret_in_it_keeps_its_verdict() -> None:
    value = "Meeting notes. " * 60 + " sk-Q7vRm2Lp9XzTbN4kW8yH3jD6fG1sA5cE"
    error = await refused("raw", {"q": value})
    assert "is too long" in error.message
    assert "Q7vRm2Lp" not in error.message


async def test_the_first_issues_listed_are_the_first_items() -> None:
    error = await refused("raw", {"xs": ["s"] * 200_000})
    assert [i.path for i in error.issues[:3]] == ["$.xs[0]", "$.xs[1]", "$.xs[2]"]
    assert "at least 1000 issues" in error.message


async def test_a_huge_unexpected_name_still_says_it_was_unexpected() -> None:
    error = await refused("raw", {"k" * HUGE: 1})
    assert "was unexpected" in error.message


async def test_a_value_nested_too_deep_to_show_is_still_invalid_arguments() -> None:
    nested: object = "x"
    for _ in range(3000):
        nested = [nested]
    error = await refused("typed", {"xs": [], "n": nested})
    assert "$.n" in error.message
