"""@tool in both forms, and Tool's own checks."""

from __future__ import annotations

import threading
from typing import Annotated

import pytest
from pydantic import BaseModel, Field
from returns.result import Failure, Result, Success

from toolrail import (
    ExecutionContext,
    ExecutionFailed,
    ParameterSchema,
    Tool,
    ToolAnnotations,
    ToolError,
    tool,
)

pytestmark = pytest.mark.anyio
CTX = ExecutionContext()


class Query(BaseModel):
    text: str = Field(description="what to look for")


@tool(tags=["docs"], permissions=["fs:read"], timeout_s=2)
async def lookup(args: Query, ctx: ExecutionContext) -> Result[str, ToolError]:
    """Look something up."""
    return Success(f"{ctx.agent}:{args.text}")


@tool
def add(a: int, b: int = 2) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


@tool(name="thread_name")
def which_thread() -> str:
    """Say which thread runs this."""
    return threading.current_thread().name


@tool
async def explode(reason: str) -> str:
    """Always fails."""
    raise LookupError(reason)


async def test_functional_form_keeps_model_and_result() -> None:
    """The body's Result is returned as is; options land on the Tool."""
    assert lookup.name == "lookup"
    assert lookup.description == "Look something up."
    assert lookup.tags == frozenset({"docs"})
    assert lookup.permissions == frozenset({"fs:read"})
    assert lookup.timeout_s == 2
    args = lookup.parameters.validate({"text": "x"}).unwrap()
    assert await lookup.execute(args, CTX) == Success("default:x")
    assert lookup.input_schema()["properties"]["text"]["description"] == "what to look for"  # type: ignore[index]


async def test_plain_form_builds_model_from_parameters_and_docstring() -> None:
    """Parameters become the input model; the docstring describes tool and parameters."""
    schema = add.input_schema()
    assert add.description == "Add two integers."
    assert schema["required"] == ["a"]
    assert schema["additionalProperties"] is False
    props = schema["properties"]
    assert props["a"]["description"] == "the first"  # type: ignore[index]
    assert props["b"]["default"] == 2  # type: ignore[index]
    args = add.parameters.validate('{"a": 40}').unwrap()
    assert await add.execute(args, CTX) == Success(42)


async def test_sync_functions_run_off_the_event_loop() -> None:
    """A sync tool runs in a worker thread, not the loop's thread."""
    args = which_thread.parameters.validate({}).unwrap()
    result = await which_thread.execute(args, CTX)
    assert result.unwrap() != threading.current_thread().name


async def test_plain_form_turns_exceptions_into_execution_failed() -> None:
    """A raised exception becomes Failure(ExecutionFailed) naming its type."""
    args = explode.parameters.validate({"reason": "gone"}).unwrap()
    result = await explode.execute(args, CTX)
    assert result == Failure(
        ExecutionFailed(message="LookupError: gone", exception_type="LookupError")
    )


async def test_plain_form_passes_a_returned_result_through() -> None:
    """A plain function that returns a Result is not wrapped twice."""

    @tool
    def check(n: int) -> Result[int, ToolError]:
        """Check n."""
        return Failure(ExecutionFailed(message="odd", model_can_fix=True)) if n % 2 else Success(n)

    odd = await check.execute(check.parameters.validate({"n": 3}).unwrap(), CTX)
    even = await check.execute(check.parameters.validate({"n": 4}).unwrap(), CTX)
    assert odd == Failure(ExecutionFailed(message="odd", model_can_fix=True))
    assert even == Success(4)


async def test_plain_form_may_take_the_context() -> None:
    """A parameter typed ExecutionContext receives the context and is not in the schema."""

    @tool
    def who(greeting: str, ctx: ExecutionContext) -> str:
        """Greet the caller."""
        return f"{greeting}, {ctx.agent}"

    assert list(who.input_schema()["properties"]) == ["greeting"]  # type: ignore[call-overload]
    args = who.parameters.validate({"greeting": "hi"}).unwrap()
    assert await who.execute(args, ExecutionContext(agent="ada")) == Success("hi, ada")


async def test_parameter_names_that_clash_with_pydantic_still_work() -> None:
    """Parameters named like BaseModel attributes keep their names in the schema."""

    @tool
    def dump(json: str, copy: Annotated[int, Field(ge=0)] = 0) -> str:
        """Echo."""
        return json * (copy + 1)

    assert set(dump.input_schema()["properties"]) == {"json", "copy"}  # type: ignore[call-overload]
    args = dump.parameters.validate({"json": "x", "copy": 2}).unwrap()
    assert await dump.execute(args, CTX) == Success("xxx")


def test_definition_errors_are_loud_and_say_how_to_fix() -> None:
    """Bad names, missing descriptions and untyped parameters fail at definition time."""
    with pytest.raises(ValueError, match=r"invalid tool name 'read file'.*'read_file'"):

        @tool(name="read file")
        def a() -> None:
            """A."""

    with pytest.raises(ValueError, match="needs a description"):

        @tool
        def b() -> None:
            pass

    with pytest.raises(TypeError, match="needs a type annotation"):

        @tool
        def c(x) -> None:  # type: ignore[no-untyped-def]
            """C."""

    with pytest.raises(TypeError, match="named parameter"):

        @tool
        def d(*items: int) -> None:
            """D."""


def test_tool_checks_its_fields() -> None:
    """Names longer than 64 characters and non-positive timeouts are refused."""

    async def run(args: Query, ctx: ExecutionContext) -> Result[str, ToolError]:
        return Success("")

    params = ParameterSchema.from_model(Query)
    with pytest.raises(ValueError, match="invalid tool name"):
        Tool(name="x" * 65, description="d", parameters=params, execute=run)
    with pytest.raises(ValueError, match="timeout_s must be positive"):
        Tool(name="x", description="d", parameters=params, execute=run, timeout_s=0)
    made = Tool(name="x" * 64, description="d", parameters=params, execute=run, tags={"a"})  # type: ignore[arg-type]
    assert made.tags == frozenset({"a"})


def test_annotations_follow_mcp_defaults() -> None:
    """Not read-only, possibly destructive, not idempotent, open world — as MCP says."""
    hints = ToolAnnotations()
    assert (hints.read_only, hints.destructive, hints.idempotent, hints.open_world) == (
        False,
        True,
        False,
        True,
    )
    assert not hints.safe_to_retry
    assert ToolAnnotations(read_only=True).safe_to_retry
    # a read-only tool's world is closed unless it says otherwise
    assert ToolAnnotations(read_only=True) == ToolAnnotations(read_only=True, open_world=False)
    assert ToolAnnotations(read_only=True, open_world=True).open_world is True


async def test_a_decorated_function_stays_callable_as_itself() -> None:
    """`add(1, 2)` calls the function: no validation, no Result; the functional form's call
    gives the coroutine the function returns."""
    assert add(1, 2) == 3
    assert add(a=1) == 3
    assert await lookup(Query(text="x"), CTX) == Success("default:x")
    assert isinstance(add, Tool)
    assert (await add.execute(add.parameters.check({"a": 1}), CTX)) == Success(3)
