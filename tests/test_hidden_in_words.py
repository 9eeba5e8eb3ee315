"""A call's arguments hide its secrets (a `password` field, the item after `--password`);
every other word about the same call may quote them again: the tool's exception, a
`Failure` it returns, its progress messages, its one-line description, its output and
metadata as the log, the event JSON and the spans record them. None of those shows a text
the arguments hide, whatever the tool wrote. The model still gets the tool's output
whole: it is the tool's answer, and the model sent the value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from returns.result import Failure, Result

from tests.hang_guard import finished
from tests.observe.conftest import recording_provider
from toolrail import (
    ExecutionContext,
    Executor,
    JsonlCallLog,
    ToolCall,
    ToolError,
    ToolStreamHandler,
    tool,
)
from toolrail.core.errors import ExecutionFailed
from toolrail.core.hidden import NOTHING, Hidden, hidden_texts
from toolrail.core.redact import REDACTED
from toolrail.observe.otel import OtelSink
from toolrail.recording.eventjson import event_data
from toolrail.recording.events import ToolEvent
from toolrail.registry import ToolRegistry

pytestmark = pytest.mark.anyio

SECRET = "Zq9-hunter-Passw0rd"
CONTEXT_SECRET = "Xy7-context-S3cret"
ARGUMENTS = {"user": "bob", "password": SECRET, "argv": ["mysql", "--password", CONTEXT_SECRET]}


def _says(user: str, password: str, argv: list[str]) -> str:
    return f"for {user} with {password!r} via {argv} ({json.dumps(password)})"


@tool(describe=lambda a: f"login as {a.user}:{a.password} {' '.join(a.argv)}")
async def login(user: str, password: str, argv: list[str], ctx: ExecutionContext) -> str:
    """Log in."""
    ctx.report_progress(0.5, message=f"trying {password} and {argv[-1]}")
    ctx.attach(tried=_says(user, password, argv))
    return "logged in " + _says(user, password, argv)


@tool
async def refuse(user: str, password: str, argv: list[str]) -> str:
    """Raise, quoting the arguments."""
    raise RuntimeError("login refused " + _says(user, password, argv))


@tool
async def fail(user: str, password: str, argv: list[str]) -> Result[str, ToolError]:
    """Return a failure that quotes the arguments."""
    return Failure(ExecutionFailed(message="server said no " + _says(user, password, argv)))


class Seen:
    def __init__(self) -> None:
        self.events: list[ToolEvent] = []
        self.lines: list[str] = []

    def __call__(self, event: ToolEvent) -> None:
        self.events.append(event)


def _leaks(text: str) -> list[str]:
    return [s for s in (SECRET, CONTEXT_SECRET, SECRET.lower()) if s in text]


@pytest.mark.parametrize("name", ["login", "refuse", "fail"])
async def test_no_word_about_a_call_repeats_what_its_arguments_hide(
    name: str, tmp_path: Path
) -> None:
    seen = Seen()
    log = JsonlCallLog(tmp_path)
    exporter = InMemorySpanExporter()
    spans = OtelSink(recording_provider(exporter), record_content=True)
    stream = ToolStreamHandler(on_update=lambda update: seen.lines.append(update.text))
    executor = Executor(ToolRegistry([login, refuse, fail]), sinks=[seen, log, spans, stream])
    outcome = await executor.run(ToolCall(name=name, arguments=ARGUMENTS), ExecutionContext())
    log.close()
    assert spans.flush()
    recorded = {
        "the log": "\n".join(p.read_text() for p in tmp_path.glob("*.jsonl")),
        "the events": json.dumps([event_data(e) for e in seen.events]),
        "the spans": json.dumps([dict(s.attributes or {}) for s in exporter.get_finished_spans()])
        + "".join(str(s.status.description) for s in exporter.get_finished_spans()),
        "the stream": "\n".join(seen.lines),
    }
    if name != "login":
        recorded["the model's error"] = str(outcome.result.failure())
    for where, text in recorded.items():
        assert not _leaks(text), f"{where}: {text}"
    assert "bob" in recorded["the log"]  # what is not hidden stays
    if name == "login":  # the model gets the tool's answer whole
        assert SECRET in str(outcome.result.unwrap())
        assert "trying [REDACTED]" in recorded["the stream"]
    else:
        assert "for bob with '[REDACTED]'" in str(outcome.result.failure())


@settings(max_examples=50, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789!-_", min_size=8, max_size=30))
def test_any_hidden_text_is_out_of_any_spelling(secret: str) -> None:
    hidden = hidden_texts(json.dumps({"argv": ["gh", "--token", secret], "n": 1}))
    assert secret in hidden.texts
    for spelled in (secret, repr(secret), json.dumps(secret), ascii(secret), secret.upper()):
        assert secret.lower() not in hidden.without(f"x {spelled} y").lower()
    data: Any = hidden.without_in({"k": [f"a{secret}", {secret: 1}]})
    assert secret not in json.dumps(data)


def test_nothing_hidden_costs_nothing_and_changes_nothing() -> None:
    assert not hidden_texts({"path": "/tmp/x", "n": 3})
    value = {"a": ["b"]}
    assert NOTHING.without_in(value) is value
    assert Hidden({"pw-secret"}).without("the password is") == "the password is"
    assert Hidden({"pw-secret"}).without("pw-secret") == REDACTED


class Unequal:
    """A value whose own `__eq__` raises (no JSON reads so; a Python caller may pass it)."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparing")

    __hash__ = object.__hash__


@pytest.mark.parametrize("name", ["refuse", "no_such_tool"])
async def test_arguments_that_raise_when_looked_at_still_end_in_an_outcome(name: str) -> None:
    executor = Executor(ToolRegistry([refuse]))
    arguments = {"user": "bob", "password": Unequal(), "argv": []}
    outcome = await executor.run(ToolCall(name=name, arguments=arguments), ExecutionContext())
    assert isinstance(outcome.result, Failure)


@tool
async def counts(password: str, ctx: ExecutionContext) -> int:
    """Reports a number where a message goes."""
    ctx.report_progress(1, message=12345678)  # type: ignore[arg-type]
    return 1


async def test_a_progress_message_that_is_no_text_is_left_to_the_sinks() -> None:
    lines: list[str] = []
    stream = ToolStreamHandler(on_update=lambda update: lines.append(update.text))
    executor = Executor(ToolRegistry([counts]), sinks=[stream])
    call = ToolCall(name="counts", arguments={"password": SECRET})
    outcome = await executor.run(call, ExecutionContext())
    assert outcome.result.unwrap() == 1
    assert any("12345678" in line for line in lines)


# -- found by an outside review of the first version --

TOKEN = "opaqueTok3n9f8a7b6c5d4e3"
PIN = "48213377"


@tool
async def quotes(
    headers: dict[str, str] | None = None,
    url: str = "",
    body: str = "",
    deep: list[Any] | None = None,
    password: str = "",
) -> str:
    """Raise, quoting a piece of what it was given."""
    from urllib.parse import urlsplit

    if headers:
        raise RuntimeError(f"token {headers['Authorization'].split()[-1]} expired")
    if url:
        raise RuntimeError(f"password {urlsplit(url).password} rejected")
    if body:
        raise RuntimeError(f"server rejected pin {json.loads(body)['pin']}")
    if deep is not None:
        node: Any = deep
        while isinstance(node, list):
            node = node[0]
        raise RuntimeError(f"found {node['password']}")
    raise RuntimeError("login refused: user not found (1). Check the user name.")


def _deep(depth: int) -> list[Any]:
    node: Any = {"password": "DeepSecret-4242"}
    for _ in range(depth):
        node = [node]
    return node  # type: ignore[no-any-return]


REVIEWED: dict[str, tuple[dict[str, Any], str]] = {
    "a bearer token quoted alone": ({"headers": {"Authorization": f"Bearer {TOKEN}"}}, TOKEN),
    "a URL's password quoted alone": (
        {"url": "https://bob:S3cretPassw0rd-xyz@db.example.com/x"},
        "S3cretPassw0rd-xyz",
    ),
    "a value in JSON text held in a string": ({"body": json.dumps({"pin": int(PIN)})}, PIN),
    "a secret deeper than the policy looks": ({"deep": _deep(70)}, "DeepSecret-4242"),
}


@pytest.mark.parametrize("case", sorted(REVIEWED))
async def test_a_piece_of_a_hidden_value_is_not_quoted_either(case: str) -> None:
    arguments, secret = REVIEWED[case]
    outcome = await Executor(ToolRegistry([quotes])).run(
        ToolCall(name="quotes", arguments=arguments), ExecutionContext()
    )
    assert secret not in str(outcome.result.failure())


@pytest.mark.parametrize("password", [" ", ".", "/", "..."])
async def test_a_short_hidden_value_leaves_the_words_alone(password: str) -> None:
    outcome = await Executor(ToolRegistry([quotes])).run(
        ToolCall(name="quotes", arguments={"password": password}), ExecutionContext()
    )
    assert "login refused: user not found (1). Check the user name." in str(
        outcome.result.failure()
    )


def test_a_long_secret_shortened_or_cut_is_not_shown_in_part() -> None:
    key = "kQz7rT2vX9mB4nL6pW8sD1fG3hJ5kL7zX9cV2bN4mQ6wE8rT0yU2iO4pA6sD8fG1hJ3k"
    hidden = hidden_texts({"api_key": key})
    pydantic_way = f"input_value='{key[:24]}...{key[-24:]}', input_type=str"
    assert key[:24] not in hidden.without(pydantic_way)
    assert key[-24:] not in hidden.without(pydantic_way)
    cut = "x" * 50 + f" used {key[:30]}… (8026 characters, cut)"
    assert key[:12] not in hidden.without(cut)


def test_past_what_can_be_known_every_word_is_withheld() -> None:
    many = hidden_texts({f"token_{i}": f"1000{i:04d}" for i in range(300)})
    assert many.withhold
    assert many.without_in({"rejected": 10000299, "status": "ok"}) == {
        "rejected": REDACTED,
        "status": many.without("ok"),
    }
    assert hidden_texts({"user": "bob", "password": Unequal()}).withhold


def test_many_quotes_of_a_secret_are_taken_out_without_a_stall() -> None:
    hidden = hidden_texts({"password": "pw123456", "pin": "abcd"})
    text = "pw123456 abcd " * 70_000
    done = finished(lambda: hidden.without(text))
    assert done, "taking the hidden texts out did not finish"
    assert "pw" not in done[0]
    assert "abcd" not in done[0]
