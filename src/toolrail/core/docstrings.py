"""Read a tool's description and per-parameter descriptions from its docstring.

Understands Google (`Args:`), NumPy (`Parameters` + dashes) and Sphinx (`:param x:`) styles.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Examples?|Notes?|Attributes)"
    r":?\s*$",
    re.IGNORECASE,
)
_PARAM_SECTIONS = {"args", "arguments", "parameters", "params"}
# `name: text`, `name (type): text` (Google) or `name : type` / `name` (NumPy)
_ITEM = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*(?::\s*(.*))?$")
_SPHINX_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


@dataclass(frozen=True, slots=True)
class Docstring:
    summary: str
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> Docstring:
    """Split a docstring into its description and a description per parameter.

    >>> parse_docstring('''Add two numbers.
    ...
    ... Args:
    ...     a: the first
    ...     b (int): the second,
    ...         counted from zero
    ... ''').params
    {'a': 'the first', 'b': 'the second, counted from zero'}
    """
    if not doc:
        return Docstring("")
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    item_indent: int | None = None
    numpy_style = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if stripped and set(stripped) == {"-"}:  # NumPy underline
            continue
        sphinx = _SPHINX_PARAM.match(stripped)
        if sphinx:
            section, current = "sphinx", sphinx.group(1)
            params[current] = sphinx.group(2).strip()
            continue
        if stripped.startswith(":"):
            section, current = "other", None
            continue
        header = _SECTION.match(stripped) if indent == 0 else None
        underlined = index + 1 < len(lines) and set(lines[index + 1].strip()) == {"-"}
        if header and (stripped.endswith(":") or underlined):
            section, current, item_indent = header.group(1).lower(), None, None
            numpy_style = underlined  # NumPy puts the type after the colon, not text
            continue
        if section is None:
            summary.append(line)
            continue
        if not stripped or (section not in _PARAM_SECTIONS and section != "sphinx"):
            continue
        if item_indent is None:
            item_indent = indent
        item = _ITEM.match(stripped) if indent <= item_indent else None
        if item:
            current = item.group(1).lstrip("*")
            params[current] = "" if numpy_style else (item.group(2) or "").strip()
        elif current is not None:
            params[current] = f"{params[current]} {stripped}".strip()
    return Docstring("\n".join(summary).strip(), params)
