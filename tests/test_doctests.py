"""Every `>>>` example in src/toolrail runs as a doctest, module by module."""

from __future__ import annotations

import doctest
import importlib
import io
import sys
from pathlib import Path

import pytest

import toolrail

PACKAGE = Path(toolrail.__file__).parent


def _module_names() -> list[str]:
    """Every module of the package, found by file so that nothing is imported to list them."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _module_names()


def test_the_doctests_cover_the_whole_package() -> None:
    """Subpackages are walked too, the ones with examples among them."""
    assert "toolrail.core.redact" in MODULES
    assert "toolrail.registry" in MODULES
    assert "toolrail.routing.router" in MODULES
    assert len(MODULES) > 50
    redact = importlib.import_module("toolrail.core.redact")
    assert any(test.examples for test in doctest.DocTestFinder().find(redact))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    """A module's `>>>` examples give what they show; a module of a missing extra is skipped."""
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        # toolrail's own modules re-raise a missing extra with its pip line, the cause kept
        missing = error.name or getattr(error.__cause__, "name", None)
        if missing is None or missing.split(".")[0] == "toolrail":
            raise
        pytest.skip(f"{name} needs {missing}, an optional extra that is not installed")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = io.StringIO()
    for test in doctest.DocTestFinder().find(module, name):
        runner.run(test, out=report.write)
    assert runner.failures == 0, report.getvalue()


def test_a_module_of_a_missing_extra_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without rich, toolrail.recording.ui cannot import: its doctests are skipped, naming why."""
    for loaded in [m for m in sys.modules if m == "rich" or m.startswith("rich.")] + ["rich"]:
        monkeypatch.setitem(sys.modules, loaded, None)
    monkeypatch.delitem(sys.modules, "toolrail.recording.ui", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"toolrail\.recording\.ui needs rich"):
        test_docstring_examples_run("toolrail.recording.ui")
