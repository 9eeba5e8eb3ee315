"""Tricky tool input models: nested, recursive, optional, defaults, Literal/Enum,
discriminated unions, maps, tuples, constrained fields, formats, 100 fields, and raw JSON
Schema as real MCP servers publish it."""

from __future__ import annotations

from datetime import date, datetime
from enum import IntEnum, StrEnum
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import AnyUrl, BaseModel, Field, create_model
from returns.result import Result, Success

from toolrail import ExecutionContext, ParameterSchema, Tool, ToolError
from toolrail.registry import AnyTool


async def _ok(args: object, ctx: ExecutionContext) -> Result[object, ToolError]:
    return Success("ok")


def _tool(name: str, model: type[BaseModel]) -> AnyTool:
    return Tool(
        name=name,
        description=model.__doc__ or name,
        parameters=ParameterSchema.from_model(model),
        execute=_ok,
    )


def _raw(name: str, schema: dict[str, Any]) -> AnyTool:
    return Tool(
        name=name,
        description=f"{name} (raw JSON Schema)",
        parameters=ParameterSchema.from_json_schema(schema),
        execute=_ok,
    )


class Scalars(BaseModel):
    """Plain scalars."""

    text: str
    count: int
    ratio: float
    on: bool


class Defaults(BaseModel):
    """Optional fields with defaults, None or not."""

    n: int = 5
    label: str = "x"
    maybe: int | None = None
    maybe_five: int | None = 5


class Point(BaseModel):
    x: int
    y: int = 0


class Nested(BaseModel):
    """A nested model and a list of them."""

    origin: Point
    path: list[Point] = []


class Tree(BaseModel):
    """A recursive model."""

    value: int
    children: list[Tree] = []


class Words(BaseModel):
    """String literals."""

    mode: Literal["fast", "slow"]
    tone: Literal["calm"] = "calm"


class Numbers(BaseModel):
    """Integer and mixed literals."""

    level: Literal[1, 2, 3]
    flag: Literal[True] = True
    mixed: Literal["a", 2] = "a"


class Color(StrEnum):
    RED = "red"
    BLUE = "blue"


class Size(IntEnum):
    S = 1
    M = 2


class Enums(BaseModel):
    """Enums of strings and of integers."""

    color: Color
    size: Size = Size.S


class Cat(BaseModel):
    kind: Literal["cat"]
    meows: int = 1


class Dog(BaseModel):
    kind: Literal["dog"]
    barks: bool = True


class Pets(BaseModel):
    """A discriminated union."""

    pet: Annotated[Cat | Dog, Field(discriminator="kind")]


class Loose(BaseModel):
    """A plain union."""

    value: int | str
    other: float | bool | None = None


class Maps(BaseModel):
    """A map of counts."""

    counts: dict[str, int]


class Tuples(BaseModel):
    """A fixed-length tuple."""

    pair: tuple[int, str]


class Bounded(BaseModel):
    """Numeric bounds."""

    age: int = Field(ge=0, le=150)
    score: float = Field(gt=0, lt=1)
    step: int = Field(multiple_of=5, default=10)


class Strings(BaseModel):
    """String constraints."""

    code: str = Field(min_length=2, max_length=8)
    slug: str = Field(pattern=r"^[a-z]+$")


class Formats(BaseModel):
    """Formats."""

    when: datetime
    day: date
    id: UUID
    link: AnyUrl


class Lists(BaseModel):
    """Array bounds and uniqueness."""

    tags: list[str] = Field(min_length=1, max_length=3)
    ids: set[int] = set()


class Blob(BaseModel):
    """Bytes."""

    data: bytes


class Anything(BaseModel):
    """An untyped field."""

    payload: Any
    note: str = ""


class Deep(BaseModel):
    """Optional nesting."""

    inner: Nested | None = None


Wide = create_model(  # type: ignore[call-overload]
    "Wide", __doc__="A hundred fields.", **{f"f{i}": (int, i) for i in range(100)}
)


class Described(BaseModel):
    """A $ref with a description beside it."""

    home: Point = Field(description="where it is")


CORPUS: list[AnyTool] = [
    _tool("scalars", Scalars),
    _tool("defaults", Defaults),
    _tool("nested", Nested),
    _tool("tree", Tree),
    _tool("words", Words),
    _tool("numbers", Numbers),
    _tool("enums", Enums),
    _tool("pets", Pets),
    _tool("loose", Loose),
    _tool("maps", Maps),
    _tool("tuples", Tuples),
    _tool("bounded", Bounded),
    _tool("strings", Strings),
    _tool("formats", Formats),
    _tool("lists", Lists),
    _tool("blob", Blob),
    _tool("anything", Anything),
    _tool("deep", Deep),
    _tool("wide", Wide),
    _tool("described", Described),
    # as the reference MCP servers publish them (filesystem, fetch, git, time, memory)
    _raw(
        "fs_read",
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "head": {"type": "number", "description": "first N lines"},
                "tail": {"type": "number"},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
    _raw(
        "fetch",
        {
            "type": "object",
            "properties": {
                "url": {"type": "string", "format": "uri", "minLength": 1},
                "max_length": {
                    "type": "integer",
                    "default": 5000,
                    "exclusiveMaximum": 1000000,
                    "exclusiveMinimum": 0,
                },
                "start_index": {"type": "integer", "default": 0, "minimum": 0},
                "raw": {"type": "boolean", "default": False},
            },
            "required": ["url"],
        },
    ),
    _raw(
        "git_log",
        {
            "type": "object",
            "properties": {
                "repo_path": {"type": "string"},
                "max_count": {"type": "integer", "default": 10},
                "start_timestamp": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
            "required": ["repo_path"],
        },
    ),
    _raw(
        "memory_relations",
        {
            "type": "object",
            "properties": {
                "relations": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "from": {"type": "string"},
                            "to": {"type": "string"},
                            "relationType": {"type": "string"},
                        },
                        "required": ["from", "to", "relationType"],
                        "additionalProperties": False,
                    },
                }
            },
            "required": ["relations"],
        },
    ),
    _raw(
        "search",
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "mode": {"const": "fast"},
                "target": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "limit": {"type": ["integer", "null"], "default": 5, "minimum": 1},
                "order": {"enum": ["asc", "desc", None]},
                "ref": {"$ref": "#/definitions/Thing"},
            },
            "required": ["mode"],
            "additionalProperties": True,
            "definitions": {
                "Thing": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}},
                    "required": ["id"],
                }
            },
        },
    ),
    _raw("now", {"type": "object", "properties": {}}),
    _raw(
        "headers",
        {
            "type": "object",
            "properties": {
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                "timeout": {"type": "number", "minimum": 0, "default": 30},
            },
        },
    ),
]
