"""The public generics are honestly typed: what mypy infers for the two @tool forms."""

from __future__ import annotations

from pathlib import Path

from mypy import api

PYPROJECT = Path(__file__).parent.parent / "pyproject.toml"
PROGRAM = '''
from pydantic import BaseModel
from toolrail import (
    ExecutionContext, ExecutionFailed, Failure, Result, Success, Tool, ToolError, tool
)

class Query(BaseModel):
    text: str

@tool
async def functional(args: Query, ctx: ExecutionContext) -> Result[int, ToolError]:
    """F."""
    return Success(len(args.text))

@tool
def plain(a: int) -> str:
    """P."""
    return str(a)

@tool(name="options")
async def with_options(a: int) -> list[int]:
    """O."""
    return [a]

@tool
def returns_result(a: int) -> Result[float, ToolError]:
    """R."""
    return Failure(ExecutionFailed(message="no")) if a < 0 else Success(a / 2)

reveal_type(functional)
reveal_type(plain)
reveal_type(with_options)
reveal_type(returns_result)

wide: Tool[Query, int] = functional  # still a Tool of its input and output
reveal_type(plain(1))
coroutine = functional(Query(text="x"), ExecutionContext())
_ = reveal_type(coroutine)
reveal_type(returns_result(a=2))
plain("one")  # E: a call is checked against the function's own parameters
'''


def test_tool_forms_infer_their_input_and_output_types(tmp_path: Path) -> None:
    """Functional form keeps its model; plain forms keep their output type; a decorated
    function is still called as itself, with its own parameters and return type."""
    program = tmp_path / "forms.py"
    program.write_text(PROGRAM)
    out, err, status = api.run(
        ["--config-file", str(PYPROJECT), "--cache-dir", str(tmp_path / "cache"), str(program)]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 1, out + err
    assert 'incompatible type "str"; expected "int"' in errors[0]
    assert status == 1, out + err
    revealed = [
        line.split("Revealed type is ")[1]
        for line in out.splitlines()
        if "Revealed type is" in line
    ]
    result = "returns.result.Result[{}, toolrail.core.errors.ToolError]"
    coroutine = "typing.Coroutine[Any, Any, {}]"
    assert revealed == [
        '"toolrail.core.tool.FunctionTool[forms.Query, int, '
        "[forms.Query, toolrail.core.context.ExecutionContext[None]], "
        f'{coroutine.format(result.format("int"))}]"',
        '"toolrail.core.tool.FunctionTool[Any, str, [a: int], str]"',
        '"toolrail.core.tool.FunctionTool[Any, list[int], [a: int], '
        f'{coroutine.format("list[int]")}]"',
        f'"toolrail.core.tool.FunctionTool[Any, float, [a: int], {result.format("float")}]"',
        '"str"',
        f'"{coroutine.format(result.format("int"))}"',
        f'"{result.format("float")}"',
    ]
