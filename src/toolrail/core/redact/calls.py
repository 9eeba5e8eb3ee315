"""A call setting a secret by its name, then its value: `setenv("API_KEY", "X")`,
`[Environment]::SetEnvironmentVariable('DB_PASSWORD', 'X', 'User')`,
`os.environ.setdefault("DB_PASSWORD", "X")`. The name is the call's first argument, a
string naming a secret (`is_secret_key`), and the value its second, a string: hidden whole,
its quotes kept (not closed on its line, cut off: to the line's end). Only a call's (after
a name and `(`): a tuple of names (`("username", "password", "email")`) sets nothing."""

from __future__ import annotations

import re

from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.names import is_secret_key

_NAME_THEN_VALUE = re.compile(
    r"(?<=[\w\]]\()[ \t]*+(?P<quote>[\"'])(?P<name>[A-Za-z0-9_.:-]{1,128}+)(?P=quote)"
    r"[ \t]*+,[ \t]*+(?P<open>[\"'])"
    r"(?P<value>(?:(?!(?P=open))[^\\\n]|\\[^\n]){0,65536}+)(?P<close>(?P=open))?+"
)


def _named_then_valued(text: str) -> str:
    """`text` with the value of each call setting a secret by its name hidden."""
    return _NAME_THEN_VALUE.sub(_hidden, text)


def _hidden(found: re.Match[str]) -> str:
    if not found.group("value") or not is_secret_key(found.group("name")):
        return found.group()
    kept = found.group()[: found.start("value") - found.start()]
    return kept + REDACTED + (found.group("close") or "")
