"""JSON *text* redacted as text (the call log's preview of a large output, spill files,
arguments given as JSON text, a streamed call's partial arguments): a secret-named key's
value goes whole whatever it is — a string, a number, a list or an object, with quotes,
escaped quotes and brackets inside its strings — and also where the text is cut off inside
the value. The same policy as for data: where the text is whole JSON, redacting it as text
gives what `redact` gives the data it encodes."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hang_guard import finished
from toolrail import ExecutionContext, Executor, JsonlCallLog, ToolCall, ToolRegistry, tool
from toolrail.core.redact import REDACTED, cut, redact, redact_text

pytestmark = pytest.mark.anyio

# Every secret leaf starts with "zz", and nothing outside a secret value holds "zz": any
# two characters of a secret left in the text, even cut off, show as "zz".
SECRET_LEAF = st.text(alphabet="abcdefghijklmnop0123456789 \"'\\[]{}:,\n\t/éß", max_size=12).map(
    "zz".__add__
)
SECRET_KEYS = st.sampled_from(
    [
        "password",
        "passwords",
        "credentials",
        "api_keys",
        "apiKey",
        "auth",
        "token",
        "clientSecret",
        "DB_PASSWORD",
        "X-Api-Key",
    ]
)
# a value under a secret key: a string, a number, or a list or object of anything
SECRET_VALUES = st.recursive(
    SECRET_LEAF | st.integers(min_value=10**9, max_value=10**12) | st.booleans(),
    lambda inner: (
        st.lists(inner | st.none(), min_size=0, max_size=4)
        | st.dictionaries(SECRET_LEAF, inner | st.none(), max_size=4)
    ),
    max_leaves=12,
)


def _documents(key: str, value: object) -> dict[str, object]:
    return {"host": "db", key: value, "notes": "after", "list": [1, "two"]}


def _spellings(document: dict[str, object]) -> dict[str, str]:
    """The document as JSON text: compact, spaced, pretty-printed, and as JSON text held
    in a JSON string (what the preview of a tool's JSON-text output looks like)."""
    compact = orjson.dumps(document).decode()
    return {
        "compact": compact,
        "spaced": json.dumps(document, ensure_ascii=False),
        "ascii": json.dumps(document),
        "pretty": json.dumps(document, indent=2),
        "in a string": json.dumps(compact),
        "pretty in a string": json.dumps(json.dumps(document, indent=2)),
    }


def _decoded(spelling: str, text: str) -> object:
    data = json.loads(text)
    return json.loads(data) if spelling.endswith("in a string") else data


@settings(max_examples=150)
@given(SECRET_KEYS, SECRET_VALUES)
def test_a_secret_keys_value_in_json_text_goes_whole(key: str, value: object) -> None:
    """Whole JSON text, in every spelling: nothing of the value is left, the text is still
    JSON, and it decodes to what `redact` makes of the data (one policy)."""
    document = _documents(key, value)
    for spelling, text in _spellings(document).items():
        redacted = redact_text(text)
        assert "zz" not in redacted, (spelling, text, redacted)
        assert _decoded(spelling, redacted) == redact(document), (spelling, redacted)


@settings(max_examples=60)
@given(SECRET_KEYS, SECRET_VALUES)
def test_json_text_cut_off_anywhere_keeps_no_piece_of_a_secret(key: str, value: object) -> None:
    """Cut at every length (a preview, partial arguments): the value is redacted to the
    end of the text when its end was cut off."""
    document = _documents(key, value)
    for spelling, text in _spellings(document).items():
        for length in range(len(text) + 1):
            redacted = redact_text(text[:length])
            assert "zz" not in redacted, (spelling, text[:length], redacted)


@settings(max_examples=60)
@given(SECRET_KEYS, SECRET_VALUES)
def test_python_reprs_of_a_secret_keys_value_go_whole(key: str, value: object) -> None:
    """`str(dict)` in a message: single-quoted strings, True/None."""
    text = repr(_documents(key, value))
    for length in range(len(text) + 1):
        assert "zz" not in redact_text(text[:length]), text[:length]
    assert "'host': 'db'" in redact_text(text)


def test_the_reported_leaks() -> None:
    """The outside review's examples, as text and as the cut of a large output."""
    output = {
        "credentials": {"user": "svc", "value": "S3CRET-one"},
        "passwords": ["S3CRET-two"],
        "api_keys": {"prod": "S3CRET-three"},
        "notes": "x" * 20000,
    }
    preview = cut(output, 16_384)
    assert isinstance(preview, dict)
    assert "S3CRET" not in preview["preview"]
    assert preview["preview"].startswith('{"credentials":"[REDACTED]","passwords":"[REDACTED]"')
    partial = '{"host": "db", "passwords": ["S3CRET-four", "S3CRET-five"], "auth": {"token2": "S3'
    assert redact_text(partial) == '{"host": "db", "passwords": "[REDACTED]", "auth": "[REDACTED]'
    assert "S3CRET" not in redact_text('password=["S3CRET-1]", "S3CRET-2"] and more')
    assert redact_text('{"password": "ab\\"S3CRET"}') == '{"password": "[REDACTED]"}'


@pytest.mark.parametrize("opener", ["[", "{", '["', '{"a": "', '[\\"', "[[[[", '{"a":['])
def test_an_unclosed_value_of_any_size_costs_one_pass(opener: str) -> None:
    """A secret value never closed, or one bracket after another: linear."""
    hostile = {
        "unclosed": '{"password": ' + opener + "a, " * 200_000,
        "many values": ('"password": ' + opener) * 60_000,
        "many closed": '"token": [1], ' * 60_000,
    }
    for name, text in hostile.items():
        assert finished(partial(redact_text, text)), f"redacting {name!r} did not finish"


@tool
def get_config() -> dict[str, object]:
    """A service's configuration, secrets included (as careless tools return them)."""
    return {
        "credentials": {"user": "svc", "value": "S3CRET-one"},
        "passwords": ["S3CRET-two"],
        "api_keys": {"prod": "S3CRET-three"},
        "password": "S3CRET-plain",
        "notes": "x" * 20_000,
    }


async def test_a_large_outputs_log_preview_and_spill_file_keep_no_secret(tmp_path: Path) -> None:
    """The call log cuts an output over its size limit to a preview of its JSON text; the
    executor spills a capped output to a file, and its preview goes to the log too."""
    logged = JsonlCallLog(tmp_path / "logs")
    capped = JsonlCallLog(tmp_path / "capped")
    plain = Executor(ToolRegistry([get_config]), sinks=[logged])
    spilling = Executor(
        ToolRegistry([get_config]),
        sinks=[capped],
        max_output_chars=1000,
        spill_dir=tmp_path / "spill",
    )
    await plain.run(ToolCall(name="get_config"), ExecutionContext())
    await spilling.run(ToolCall(name="get_config"), ExecutionContext())
    for executor in (plain, spilling):
        await executor.aclose()
    logged.close()
    capped.close()
    spilled = [p.read_text() for p in (tmp_path / "spill").glob("*")]
    lines = [p.read_text() for d in ("logs", "capped") for p in (tmp_path / d).glob("*.jsonl")]
    assert len(spilled) == 1
    assert len(lines) == 2
    for text in (*spilled, *lines):
        assert "S3CRET" not in text
        assert "x" * 100 in text  # the rest stays readable
        assert REDACTED in text
