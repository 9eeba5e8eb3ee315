"""What an HTML element's other attributes say is a secret: the `value` of a password input
(`<input type="password" value="X">`) and the `content` of a `<meta>` whose name names one
(`<meta name="api-key" content="X">`). An attribute named as a secret is the assignments'
(`<div password='X'>`); a `name`/`value` pair, the pair entries'."""

from __future__ import annotations

import re

from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.names import is_secret_key

_TAG = re.compile(r"<(?P<element>input|meta)\b[^<>]{0,2048}+>?", re.I)  # (cut off: to its end)
_ATTRIBUTE = re.compile(
    r"""(?P<name>[\w:.-]++)\s*+=\s*+(?:"(?P<double>[^"]*+)"?|'(?P<single>[^']*+)'?"""
    r"""|(?P<bare>[^\s"'>/]++))"""
)
_SAID = {"input": ("type", "value"), "meta": ("name", "content")}


def _marked_up(text: str) -> str:
    """The text with each password input's value and each secret meta's content hidden,
    their quotes kept."""
    return _TAG.sub(_hidden, text)


def _hidden(tag: re.Match[str]) -> str:
    says, holds = _SAID[tag.group("element").lower()]
    attributes = {found.group("name").lower(): found for found in _ATTRIBUTE.finditer(tag.group())}
    said, held = attributes.get(says), attributes.get(holds)
    if said is None or held is None:
        return tag.group()
    word = said.group("double") or said.group("single") or said.group("bare") or ""
    if not (word.lower() == "password" if says == "type" else is_secret_key(word)):
        return tag.group()
    value = next(group for group in ("double", "single", "bare") if held.group(group) is not None)
    start, end = held.span(value)
    if start == end:
        return tag.group()
    return tag.group()[:start] + REDACTED + tag.group()[end:]
