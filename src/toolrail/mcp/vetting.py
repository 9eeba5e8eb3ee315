"""What a server says about its tools, made fit for a model: invisible and control
characters stripped, sizes capped, and hidden instructions flagged for a person to see."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import orjson

MAX_DESCRIPTION = 4_096
MAX_SCHEMA_BYTES = 65_536
MAX_SCHEMA_DEPTH = 32

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_SUSPICIOUS = tuple(
    (re.compile(pattern, re.I), why)
    for pattern, why in (
        (r"<\s*/?\s*(important|system|instructions?|secret|hidden|admin)\b", "a tag"),
        (r"\bignore\s+(all\s+)?(previous|prior|above|other)\s+instructions", "an override"),
        (r"\b(do\s+not|don't|never)\s+(tell|mention|inform|reveal|show)\b", "secrecy"),
        (r"\bwhen\s+(the\s+)?[\w.-]+\s+tool\s+is\s+(used|called|invoked)", "shadowing"),
        (r"\b(before|after)\s+(using|calling)\s+(any|every|other|the\s+\w+)\s+tools?", "shadowing"),
        (r"(~/\.ssh|id_rsa|\.env\b|mcp\.json|api[_ ]?keys?|credentials)", "a secret's path"),
    )
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Vetted:
    """A description and schema as a model will see them, and what looked wrong."""

    description: str
    schema: dict[str, Any]
    findings: tuple[str, ...]


def clean(text: str, limit: int = MAX_DESCRIPTION) -> tuple[str, tuple[str, ...]]:
    """`text` without ANSI escapes, control, format (bidi, zero-width, tag) or hidden
    variation characters, cut to `limit`; and what was found.

    >>> clean("add\\u202e numbers\\U000e0041")
    ('add numbers', ('2 invisible characters',))
    """
    findings: list[str] = []
    stripped = _ANSI.sub("", text)
    if stripped != text:
        findings.append("terminal escape sequences")
    kept = "".join(ch for ch in stripped if _visible(ch))
    if len(kept) != len(stripped):
        findings.append(f"{len(stripped) - len(kept)} invisible characters")
    if len(kept) > limit:
        findings.append(f"{len(kept)} characters, cut to {limit}")
        kept = kept[:limit] + "…"
    return kept, tuple(findings)


def _visible(ch: str) -> bool:
    if ch in "\n\t":
        return True
    if "\U000e0100" <= ch <= "\U000e01ef":  # variation selectors that can smuggle bytes
        return False
    return unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs")


def suspicious(text: str) -> tuple[str, ...]:
    """Phrases that instruct a model rather than describe a tool."""
    return tuple(f"{why}: {m.group(0)!r}" for rx, why in _SUSPICIOUS if (m := rx.search(text)))


def vet(description: str, schema: dict[str, Any]) -> Vetted | str:
    """The vetted tool text, or why the schema cannot be used at all."""
    if (depth := _depth(schema)) > MAX_SCHEMA_DEPTH:
        return f"input schema nested {depth}+ levels deep (at most {MAX_SCHEMA_DEPTH})"
    try:
        size = len(orjson.dumps(schema))
    except (TypeError, orjson.JSONEncodeError) as error:
        return f"input schema is not plain JSON ({error})"
    if size > MAX_SCHEMA_BYTES:
        return f"input schema of {size} bytes (at most {MAX_SCHEMA_BYTES})"
    text, findings = clean(description)
    found = [*findings, *suspicious(text)]
    cleaned = _clean_schema(schema, found)
    return Vetted(description=text, schema=cleaned, findings=tuple(found))


def _depth(value: object, level: int = 0) -> int:
    """How deep a JSON value nests, counted without recursion past the limit."""
    stack: list[tuple[object, int]] = [(value, level)]
    deepest = 0
    while stack:
        item, at = stack.pop()
        deepest = max(deepest, at)
        if at > MAX_SCHEMA_DEPTH:
            return at
        if isinstance(item, dict):
            stack.extend((child, at + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, at + 1) for child in item)
    return deepest


def _clean_schema(schema: Any, found: list[str]) -> Any:
    """The schema with every `description` and `title` cleaned and checked."""
    if isinstance(schema, list):
        return [_clean_schema(item, found) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("description", "title") and isinstance(value, str):
            text, findings = clean(value, MAX_DESCRIPTION // 4)
            found.extend(f"schema {key}: {f}" for f in (*findings, *suspicious(text)))
            out[key] = text
        else:
            out[key] = _clean_schema(value, found)
    return out
