"""A tool may declare a parameter secret whatever its name: pydantic's `SecretStr` (its
schema says `writeOnly` and `format: "password"`), or either in a raw JSON Schema. The
redaction policy knows secrets by name (`password`, `api_key`, ...); a declared secret
named `blob` was logged, streamed and put in spans in plain. Its value is now masked in
every record of a call (the log, events, stream lines, spans, approval requests, the
outcome's call), found and hidden where the tool's own words quote it, and still given to
the tool whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, create_model
from typing_extensions import TypeAliasType

from tests.observe.conftest import recording_provider
from toolrail import (
    AgentToolTable,
    ExecutionContext,
    Executor,
    JsonlCallLog,
    ToolCall,
    ToolStreamHandler,
    tool,
)
from toolrail.core.declared import Masked, masked, secret_names
from toolrail.core.hidden import hidden_texts
from toolrail.core.params import JsonSchemaParameters, PydanticParameters
from toolrail.core.redact import REDACTED, redact
from toolrail.core.tool import Tool
from toolrail.observe.otel import OtelSink
from toolrail.policy import Gates, Rules
from toolrail.policy.approvals import ApprovalRequest, Approve
from toolrail.recording.eventjson import event_data
from toolrail.recording.events import ToolEvent
from toolrail.registry import ToolRegistry

pytestmark = pytest.mark.anyio

SECRET = "Model-S3cret-Value"
EDITED = "Edited-S3cret-Value"
GOT: list[str] = []


class Vault(BaseModel):
    label: str
    material: SecretStr


@tool(describe=lambda a: f"connecting to {a.host}")
async def connect(host: str, blob: SecretStr, ctx: ExecutionContext) -> str:
    """Connect with a credential blob."""
    GOT.append(blob.get_secret_value())
    ctx.report_progress(0.5, message=f"trying {blob.get_secret_value()}")
    raise RuntimeError(f"cannot connect to {host} with {blob.get_secret_value()}")


@tool(describe=lambda a: f"opening {a.vault.label} with {a.vault.material.get_secret_value()}")
async def nested(vault: Vault, spare: SecretStr | None = None) -> str:
    """Open a vault."""
    raise RuntimeError(f"vault {vault.label} refused {vault.material.get_secret_value()}")


RAW_SCHEMA = {
    "type": "object",
    "properties": {
        "blob": {"type": "string", "format": "password"},
        "host": {"type": "string"},
        "seed": {"type": "string", "writeOnly": True},
    },
    "required": ["host", "blob"],
}


async def _raw_execute(args: dict[str, Any], ctx: ExecutionContext) -> Any:
    from returns.result import Failure

    from toolrail.core.errors import ExecutionFailed

    GOT.append(args["blob"])
    return Failure(ExecutionFailed(message=f"server said no to {args['blob']}"))


raw = Tool(
    name="raw_connect",
    description="A foreign tool with a raw schema.",
    parameters=JsonSchemaParameters(RAW_SCHEMA),
    execute=_raw_execute,
)


class Recorded:
    def __init__(self, tmp_path: Path) -> None:
        self.path = tmp_path
        self.events: list[ToolEvent] = []
        self.lines: list[str] = []
        self.log = JsonlCallLog(tmp_path)
        self.exporter = InMemorySpanExporter()
        self.spans = OtelSink(recording_provider(self.exporter), record_content=True)
        self.stream = ToolStreamHandler(on_update=lambda update: self.lines.append(update.text))

    @property
    def sinks(self) -> list[Any]:
        return [self.events.append, self.log, self.spans, self.stream]

    def texts(self) -> dict[str, str]:
        self.log.close()
        assert self.spans.flush()
        spans = self.exporter.get_finished_spans()
        return {
            "the log": "\n".join(p.read_text() for p in self.path.glob("*.jsonl")),
            "the events": json.dumps([event_data(e) for e in self.events]),
            "the spans": json.dumps([dict(s.attributes or {}) for s in spans])
            + "".join(str(s.status.description) for s in spans),
            "the stream": "\n".join(self.lines),
        }


def _assert_quiet(texts: dict[str, str], *secrets: str) -> None:
    for where, text in texts.items():
        for secret in secrets:
            assert secret not in text, f"{where} shows {secret!r}: {text[:2000]}"


@pytest.mark.parametrize("name", ["connect", "raw_connect"])
@pytest.mark.parametrize("as_text", [True, False])
async def test_a_declared_secret_is_in_no_record_and_the_tool_gets_it(
    name: str, as_text: bool, tmp_path: Path
) -> None:
    GOT.clear()
    seen = Recorded(tmp_path)
    executor = Executor(ToolRegistry([connect, raw]), sinks=seen.sinks)
    arguments: dict[str, Any] = {"host": "db.internal", "blob": SECRET}
    call = ToolCall(name=name, arguments=json.dumps(arguments) if as_text else arguments)
    outcome = await executor.run(call, ExecutionContext())
    assert GOT == [SECRET]  # the tool got the value whole
    texts = seen.texts()
    texts["the model's error"] = str(outcome.result.failure())
    texts["the outcome's call"] = repr(outcome.call) + orjson.dumps(outcome.call.arguments).decode()
    _assert_quiet(texts, SECRET)
    assert "db.internal" in texts["the log"]  # what is not declared secret stays
    if name == "raw_connect":  # no `describe` of its own: the default line skips the secret
        assert "raw_connect: db.internal" in texts["the stream"]
    [line] = (tmp_path / p for p in [next(tmp_path.glob("*.jsonl"))])
    record = orjson.loads(line.read_bytes().splitlines()[0])
    assert record["args"] == {"host": "db.internal", "blob": REDACTED}


async def test_a_secret_in_a_nested_model_or_an_optional_one_is_masked(tmp_path: Path) -> None:
    seen = Recorded(tmp_path)
    executor = Executor(ToolRegistry([nested]), sinks=seen.sinks)
    arguments = {"vault": {"label": "prod", "material": SECRET}, "spare": "Spare-S3cret-9"}
    outcome = await executor.run(ToolCall(name="nested", arguments=arguments), ExecutionContext())
    texts = seen.texts()
    texts["the model's error"] = str(outcome.result.failure())
    _assert_quiet(texts, SECRET, "Spare-S3cret-9")
    assert "vault prod refused [REDACTED]" in texts["the model's error"]
    assert "opening prod with [REDACTED]" in texts["the stream"]  # the tool's own line


async def test_a_call_refused_by_validation_logs_no_declared_secret(tmp_path: Path) -> None:
    seen = Recorded(tmp_path)
    executor = Executor(ToolRegistry([connect]), sinks=seen.sinks)
    arguments = {"host": 42, "blob": SECRET}  # the host is wrong: the call never runs
    outcome = await executor.run(ToolCall(name="connect", arguments=arguments), ExecutionContext())
    assert outcome.result.failure().kind == "invalid_arguments"
    _assert_quiet(seen.texts(), SECRET)


async def test_a_wrongly_typed_declared_secret_is_not_quoted_by_validation() -> None:
    executor = Executor(ToolRegistry([connect]))
    call = ToolCall(name="connect", arguments={"host": "db", "blob": 48213377})
    outcome = await executor.run(call, ExecutionContext())
    assert "48213377" not in str(outcome.result.failure())


@pytest.mark.parametrize("name", ["connect", "raw_connect"])
async def test_a_person_edit_of_a_declared_secret_is_hidden_too(name: str, tmp_path: Path) -> None:
    GOT.clear()
    asked: list[ApprovalRequest] = []

    async def edit(request: ApprovalRequest) -> Approve:
        asked.append(request)
        return Approve(arguments={"host": "db", "blob": EDITED})

    seen = Recorded(tmp_path)
    gates = Gates(rules=Rules.of(ask=[name]), approver=edit)
    executor = Executor(ToolRegistry([connect, raw]), gates=gates, sinks=seen.sinks)
    call = ToolCall(name=name, arguments={"host": "db", "blob": SECRET})
    outcome = await executor.run(call, ExecutionContext())
    assert GOT == [EDITED]
    texts = seen.texts()
    texts["the model's error"] = str(outcome.result.failure())
    texts["the approval request"] = json.dumps(asked[0].to_json())
    texts["the outcome's metadata"] = orjson.dumps(dict(outcome.metadata), default=str).decode()
    _assert_quiet(texts, SECRET, EDITED)


async def test_an_approval_request_for_a_raw_schema_tool_masks_its_declared_secret() -> None:
    gates = Gates(rules=Rules.of(ask=["raw_connect"]))
    executor = Executor(ToolRegistry([raw]), gates=gates)
    call = ToolCall(name="raw_connect", arguments={"host": "db", "blob": SECRET, "seed": "x"})
    await executor.run(call, ExecutionContext())
    [request] = gates.pending
    assert request.arguments == {"host": "db", "blob": REDACTED, "seed": REDACTED}
    pending = await executor.resume(request.id, Approve())
    assert GOT[-1] == SECRET  # approved, the tool still gets the value the model sent
    assert SECRET not in str(pending.unwrap().result.failure())


def test_secret_names_are_read_from_the_schema() -> None:
    assert secret_names(RAW_SCHEMA) == frozenset({"blob", "seed"})
    assert connect.parameters.secret_names == frozenset({"blob"})
    assert nested.parameters.secret_names == frozenset({"material", "spare"})
    assert JsonSchemaParameters({"type": "object"}).secret_names == frozenset()
    assert PydanticParameters(Vault).secret_names == frozenset({"material"})
    deep: dict[str, Any] = {"type": "object"}
    for _ in range(200):  # no recursion error, whatever the nesting
        deep = {"type": "object", "properties": {"x": deep}}
    assert secret_names(deep) == frozenset()


def test_a_masked_value_reads_as_redacted_and_reveals_itself_only_to_hidden() -> None:
    value = Masked(SECRET)
    assert value == REDACTED
    for spelled in (str(value), repr(value), json.dumps(value), orjson.dumps(value).decode()):
        assert SECRET not in spelled
    assert f"{value}" == REDACTED
    assert value.get_secret_value() == SECRET
    assert SECRET in hidden_texts({"blob": value}).texts
    assert redact({"blob": value}) == {"blob": REDACTED}
    shown = masked('{"a": {"blob": "x1"}, "b": [{"blob": 3}], "c": null}', frozenset({"blob"}))
    assert shown == {"a": {"blob": REDACTED}, "b": [{"blob": REDACTED}], "c": None}
    assert masked('{"blob": null}', frozenset({"blob"})) == {"blob": None}
    assert masked("not json", frozenset({"blob"})) == REDACTED  # unreadable: masked whole
    assert masked("not json", frozenset({"blob"})).get_secret_value() == "not json"
    same = {"host": "x"}
    assert masked(same, frozenset()) is same


# -- found by an outside review of the first version --

KEY = "Review-S3cret-Value-9"


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    host: str
    blob: SecretStr = Field(alias="credential")


class Choices(BaseModel):
    host: str
    blob: SecretStr = Field(validation_alias=AliasChoices("blob", "other"))  # type: ignore[pydantic-alias]


ApiKey = TypeAliasType("ApiKey", SecretStr)


async def _quoting(args: Any, ctx: ExecutionContext) -> Any:
    from returns.result import Failure

    from toolrail.core.errors import ExecutionFailed

    GOT.append(json.dumps(unmasked_text(args)))
    return Failure(ExecutionFailed(message=f"refused {json.dumps(unmasked_text(args))}"))


def unmasked_text(args: Any) -> Any:
    """What the tool was given, as plain data (a pydantic model's secrets revealed)."""
    if isinstance(args, BaseModel):
        return {
            k: v.get_secret_value() if isinstance(v, SecretStr) else unmasked_text(v)
            for k, v in args
        }
    if isinstance(args, dict):
        return {
            k: v.get_secret_value() if isinstance(v, SecretStr) else unmasked_text(v)
            for k, v in args.items()
        }
    if isinstance(args, list):
        return [a.get_secret_value() if isinstance(a, SecretStr) else a for a in args]
    return args


def _pydantic(name: str, annotation: Any) -> Tool[Any, Any]:
    model = create_model(name.title(), host=(str, "h"), keys=(annotation, ...))
    return Tool(name=name, description="d", parameters=PydanticParameters(model), execute=_quoting)


def _raw(name: str, keys: dict[str, Any], **root: Any) -> Tool[Any, Any]:
    schema = {"type": "object", "properties": {"host": {"type": "string"}, "keys": keys}, **root}
    return Tool(
        name=name, description="d", parameters=JsonSchemaParameters(schema), execute=_quoting
    )


PASSWORD = {"type": "string", "format": "password"}
SHAPES: dict[str, tuple[Tool[Any, Any], dict[str, Any]]] = {
    "dict of SecretStr": (_pydantic("dicts", dict[str, SecretStr]), {"keys": {"gh": KEY}}),
    "list of SecretStr": (_pydantic("lists", list[SecretStr]), {"keys": [KEY]}),
    "a type alias ($ref)": (_pydantic("aliased_type", ApiKey), {"keys": KEY}),
    "raw items": (_raw("raw_items", {"type": "array", "items": PASSWORD}), {"keys": [KEY]}),
    "raw additionalProperties": (
        _raw("raw_values", {"type": "object", "additionalProperties": PASSWORD}),
        {"keys": {"gh": KEY}},
    ),
    "raw patternProperties": (
        _raw("raw_patterns", {"type": "object", "patternProperties": {"^k": PASSWORD}}),
        {"keys": {"kgh": KEY}},
    ),
    "raw $ref": (
        _raw("raw_ref", {"$ref": "#/$defs/Pw"}, **{"$defs": {"Pw": PASSWORD}}),
        {"keys": KEY},
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
async def test_secrets_in_containers_and_behind_refs_are_declared(
    shape: str, tmp_path: Path
) -> None:
    GOT.clear()
    declaring, arguments = SHAPES[shape]
    assert "keys" in declaring.parameters.secret_names
    seen = Recorded(tmp_path)
    executor = Executor(ToolRegistry([declaring]), sinks=seen.sinks)
    call = ToolCall(name=declaring.name, arguments=json.dumps(arguments))
    outcome = await executor.run(call, ExecutionContext())
    assert KEY in GOT[0]  # the tool got the value
    texts = seen.texts()
    texts["the model's error"] = str(outcome.result.failure())
    texts["the outcome's call"] = orjson.dumps(outcome.call.arguments).decode()
    _assert_quiet(texts, KEY)


def _by_alias(model: type[BaseModel]) -> Tool[Any, Any]:
    return Tool(
        name=model.__name__.lower(),
        description="d",
        parameters=PydanticParameters(model),
        execute=_quoting,
    )


@pytest.mark.parametrize(
    ("model", "arguments"),
    [
        (Aliased, {"host": "h", "credential": KEY}),
        (Aliased, {"host": "h", "blob": KEY}),  # populate_by_name: the field's own name
        (Choices, {"host": "h", "other": KEY}),  # the second alias choice
    ],
)
async def test_every_spelling_of_a_declared_field_is_masked(
    model: type[BaseModel], arguments: dict[str, str], tmp_path: Path
) -> None:
    GOT.clear()
    seen = Recorded(tmp_path)
    declaring = _by_alias(model)
    executor = Executor(ToolRegistry([declaring]), sinks=seen.sinks)
    outcome = await executor.run(
        ToolCall(name=declaring.name, arguments=arguments), ExecutionContext()
    )
    assert KEY in GOT[0]
    texts = seen.texts()
    texts["the model's error"] = str(outcome.result.failure())
    _assert_quiet(texts, KEY)


@pytest.mark.parametrize(
    "arguments",
    [
        '{"host": NaN, "blob": "' + KEY + '"}',  # pydantic reads NaN, orjson does not
        '{"host": "db", "blob": "' + KEY,  # cut off mid-stream
        '{"host": "db", "blob": "' + KEY + '"} trailing',
    ],
)
async def test_json_text_only_pydantic_reads_or_nobody_reads_is_masked(
    arguments: str, tmp_path: Path
) -> None:
    seen = Recorded(tmp_path)
    executor = Executor(ToolRegistry([connect]), sinks=seen.sinks)
    outcome = await executor.run(ToolCall(name="connect", arguments=arguments), ExecutionContext())
    texts = seen.texts()
    texts["the model's error"] = str(outcome.result.failure())
    texts["the outcome's call"] = orjson.dumps(outcome.call.arguments).decode()
    _assert_quiet(texts, KEY)


async def test_a_call_the_agent_may_not_make_is_masked_too(tmp_path: Path) -> None:
    seen = Recorded(tmp_path)
    table = AgentToolTable({"reader": ["read_*"]})
    executor = Executor(ToolRegistry([connect]), agents=table, sinks=seen.sinks)
    call = ToolCall(name="connect", arguments={"host": "db", "blob": KEY})
    outcome = await executor.run(call, ExecutionContext(agent="reader"))
    assert outcome.result.failure().kind == "not_allowed"
    texts = seen.texts()
    texts["the outcome's call"] = orjson.dumps(outcome.call.arguments).decode()
    _assert_quiet(texts, KEY)


class Thing:
    """A type with no JSON Schema."""


class Arbitrary(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    host: str
    thing: Thing | None = None


class NoSchema(JsonSchemaParameters):
    def json_schema(self) -> dict[str, Any]:
        raise RuntimeError("schema service down")


async def _ran(args: Any, ctx: ExecutionContext) -> Any:
    from returns.result import Success

    return Success("ran")


@pytest.mark.parametrize(
    "parameters", [PydanticParameters(Arbitrary), NoSchema({"type": "object"})]
)
async def test_a_tool_whose_schema_cannot_be_made_still_runs(
    parameters: Any, tmp_path: Path
) -> None:
    seen = Recorded(tmp_path)
    odd = Tool(name="odd", description="d", parameters=parameters, execute=_ran)
    executor = Executor(ToolRegistry([odd]), sinks=seen.sinks)
    outcome = await executor.run(ToolCall(name="odd", arguments={"host": "h"}), ExecutionContext())
    assert outcome.result.unwrap() == "ran"


@pytest.mark.parametrize("name", ["connect", "raw_connect"])
async def test_an_approver_copying_the_request_keeps_the_models_secret(name: str) -> None:
    GOT.clear()

    async def edit_host(request: ApprovalRequest) -> Approve:
        return Approve(arguments={**request.arguments, "host": "other"})

    gates = Gates(rules=Rules.of(ask=[name]), approver=edit_host)
    executor = Executor(ToolRegistry([connect, raw]), gates=gates)
    call = ToolCall(name=name, arguments={"host": "db", "blob": KEY})
    outcome = await executor.run(call, ExecutionContext())
    assert GOT == [KEY]  # not "[REDACTED]", not "**********"
    assert KEY not in str(outcome.result.failure())
