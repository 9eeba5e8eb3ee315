"""The package's layers, checked on the source: core imports nothing else of toolrail, and
dialects import nothing of models (models use dialects, not the other way round)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "toolrail"


def imported(path: Path) -> set[str]:
    """Every toolrail module a file imports, at any depth (including under TYPE_CHECKING)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] == "toolrail"}


@pytest.mark.parametrize(
    ("layer", "may_not_import"),
    [
        ("core", ("toolrail.",)),
        ("dialects", ("toolrail.models", "toolrail.orchestrator", "toolrail.executor")),
    ],
)
def test_a_layer_imports_only_what_is_below_it(layer: str, may_not_import: tuple[str, ...]) -> None:
    allowed_inside = f"toolrail.{layer}"
    for path in sorted((PACKAGE / layer).glob("*.py")):
        for name in imported(path):
            if name.startswith(allowed_inside):
                continue
            assert not name.startswith(may_not_import), f"{path.name} imports {name}"


def _prints_to_stdout(node: ast.AST) -> bool:
    """A `print(...)` without `file=`, or a write to `sys.stdout`."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name) and func.id == "print":
        return not any(k.arg == "file" for k in node.keywords)
    return (
        isinstance(func, ast.Attribute)
        and func.attr in ("write", "writelines")
        and ast.unparse(func.value) in ("sys.stdout", "sys.__stdout__")
    )


def test_the_library_never_writes_to_stdout() -> None:
    """A library is a guest: only the command line (`cli.py`, and a module run as a script)
    writes to stdout; diagnostics go to stdlib logging, which toolrail never points there."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "cli.py":
            continue
        tree = ast.parse(path.read_text())
        scripts = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)
        ]
        in_script = {id(inner) for block in scripts for inner in ast.walk(block)}
        for node in ast.walk(tree):
            if _prints_to_stdout(node) and id(node) not in in_script:
                raise AssertionError(
                    f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', '?')} writes to stdout"
                )
