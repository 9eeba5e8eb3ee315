"""The public generics are honestly typed: what mypy infers for the two @tool forms."""

from __future__ import annotations

from pathlib import Path

from mypy import api

PYPROJECT = Path(__file__).parent.parent / "pyproject.toml"
PROGRAM = '''
from pydantic import BaseModel
from toolrail import ExecutionContext, ExecutionFailed, Failure, Result, Success, ToolError, tool

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
'''


def test_tool_forms_infer_their_input_and_output_types(tmp_path: Path) -> None:
    """Functional form keeps its model; plain forms keep their output type."""
    program = tmp_path / "forms.py"
    program.write_text(PROGRAM)
    out, err, status = api.run(
        ["--config-file", str(PYPROJECT), "--cache-dir", str(tmp_path / "cache"), str(program)]
    )
    assert status == 0, out + err
    revealed = [
        line.split("Revealed type is ")[1]
        for line in out.splitlines()
        if "Revealed type is" in line
    ]
    assert revealed == [
        '"toolrail.core.tool.Tool[forms.Query, int]"',
        '"toolrail.core.tool.Tool[Any, str]"',
        '"toolrail.core.tool.Tool[Any, list[int]]"',
        '"toolrail.core.tool.Tool[Any, float]"',
    ]
