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
