"""A call setting a secret by its name, then its value: `setenv("API_KEY", "X")`,
`[Environment]::SetEnvironmentVariable('DB_PASSWORD', 'X', 'User')`,
`os.environ.setdefault("DB_PASSWORD", "X")`, `config.set("db", "password", "X")`,
`ssm.put_parameter("/prod/db/password", "X")` (a path: its last part),
`setattr(settings, "SECRET_KEY", "X")`. The name is the call's first argument (or its
second, after a section's or `setattr`'s object), a string naming a secret
(`is_secret_key`), and the value the next, a string (prefixed too: `f"..."`, `$"..."`;
triple-quoted, a template literal's backticks):
hidden whole, its quotes kept (not closed on its line, cut off: to the line's end). The
arguments may be spread over lines, as a formatter writes them. Only a call's (after a
name and `(`): a tuple of names (`("username", "password", "email")`) sets nothing, nor do
calls whose second argument is no value (`s.replace("password", "passphrase")`,
`re.sub("token", "***", line)`, `_("password", "Enter your password")`)."""

from __future__ import annotations

import re

from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.names import is_secret_key

_NAME_THEN_VALUE = re.compile(
    r"(?P<callee>[\w\]]{1,64}+)[ \t]{0,4}+\(\s{0,64}+"
    # (three strings: the first may be a section's name, `config.set("db", "password", X)`;
    # or an object whose attribute `setattr` sets, `setattr(settings, "SECRET_KEY", X)`)
    r"(?:(?:(?P<section>[\"'][\w .:/-]{0,64}+[\"'])|(?P<object>[A-Za-z_][\w.]{0,127}+))"
    r"\s{0,64}+,\s{0,64}+(?=[\"'][A-Za-z0-9_.:/-]{1,128}+[\"']\s*+,))?"
    r"(?P<quote>[\"'])(?P<name>[A-Za-z0-9_.:/-]{1,128}+)(?P=quote)"
    r"[ \t]*+,\s{0,64}+[frbuFRBU$@]{0,2}+(?P<open>\"\"\"|'''|[\"'`])"
    r"(?P<value>(?:(?!(?P=open))[^\\\n]|\\[^\n]){0,65536}+)(?P<close>(?P=open))?+"
)
# what is called with a secret's name and something that is no value: a string's
# replacement or pattern, a translation's text, an error's message
_NO_SETTER = frozenset(
    {"replace", "sub", "subn", "split", "rsplit", "partition", "startswith", "endswith"}
    | {"find", "index", "count", "strip", "translate", "_", "t", "gettext", "ngettext"}
)


# what is called with a parameter's path and its value (`ssm.put_parameter`, `client.set`)
_STORES_BY_PATH = re.compile(r"(?i)put|set|write|store|param")


def _named_then_valued(text: str) -> str:
    """`text` with the value of each call setting a secret by its name hidden."""
    return _NAME_THEN_VALUE.sub(_hidden, text)


def _hidden(found: re.Match[str]) -> str:
    callee = found.group("callee").rpartition(".")[2]
    if callee in _NO_SETTER or callee.endswith(("Error", "Exception")):
        return found.group()
    if "/" in found.group("name") and _STORES_BY_PATH.search(callee) is None:
        return found.group()  # `open("/run/secrets/token", "r")`: a file's path, no name
    if found.group("object") is not None and callee != "setattr":
        return found.group()  # (any other call's first argument is no section)
    if found.group("open") == "`" and "${" in found.group("value"):
        return found.group()  # a template of code (`` `Basic ${credentials}` ``): no value
    section = found.group("section")
    if section is not None and callee.lower() != "set":  # no section: the first is the name
        value = (found.start("name"), found.end("name"))
        if not is_secret_key(_last_part(section[1:-1])) or value[0] == value[1]:
            return found.group()
    else:
        value = (found.start("value"), found.end("value"))
        if value[0] == value[1] or not is_secret_key(_last_part(found.group("name"))):
            return found.group()
    text, start = found.string, found.start()
    return text[start : value[0]] + REDACTED + text[value[1] : found.end()]


def _last_part(name: str) -> str:
    """A name's last part, when it is a path (`/prod/db/password`: an SSM parameter's)."""
    return name.rstrip("/").rpartition("/")[2]
