"""allow / ask / deny rules in the syntax agent users already write.

    read_path                      the tool, any arguments
    mcp__github__*                 a glob over tool names
    shell(git status*)             a glob over the tool's main argument (a command line)
    write_context_file(path:docs/*)  a glob over one named argument

Deny beats ask beats allow, whatever the order the rules were written in.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["allow", "ask", "deny"]
_RULE = re.compile(r"^(?P<tool>[^()]+?)(?:\((?P<args>.*)\))?$", re.DOTALL)
_MAIN_ARGUMENTS = ("command", "argv", "path", "url", "query", "name")


@dataclass(frozen=True, slots=True)
class Rule:
    """One parsed rule: a tool-name glob and, optionally, an argument glob."""

    text: str
    tool: str
    argument: str | None = None  # None: the tool's main argument
    pattern: str | None = None

    @classmethod
    def parse(cls, text: str) -> Rule:
        match = _RULE.match(text.strip())
        if match is None or not match.group("tool").strip():
            raise ValueError(f"cannot read the rule {text!r}; write e.g. 'shell(git status*)'")
        spec = match.group("args")
        if spec is None:
            return cls(text, match.group("tool").strip())
        key, colon, value = spec.partition(":")
        if colon and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key.strip()):
            return cls(text, match.group("tool").strip(), key.strip(), value)
        return cls(text, match.group("tool").strip(), None, spec)

    def matches(self, tool: str, arguments: Mapping[str, object] | None) -> bool:
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        if self.pattern is None:
            return True
        if arguments is None:  # deciding visibility: argument rules do not hide a tool
            return False
        value = _argument(arguments, self.argument)
        return value is not None and fnmatch.fnmatchcase(value, self.pattern)


def _argument(arguments: Mapping[str, object], name: str | None) -> str | None:
    keys = (name,) if name is not None else _MAIN_ARGUMENTS
    for key in keys:
        if key in arguments:
            value = arguments[key]
            if isinstance(value, list | tuple):
                return " ".join(str(v) for v in value)
            return str(value)
    if name is None:  # no well-known main argument: the first one
        for value in arguments.values():
            return " ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
    return None


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: Verdict | None  # None: no rule spoke
    rule: str | None = None


@dataclass(frozen=True, slots=True)
class Rules:
    """Lists of allow / ask / deny rules; `decide` applies deny > ask > allow."""

    allow: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()

    @classmethod
    def of(
        cls, *, allow: Iterable[str] = (), ask: Iterable[str] = (), deny: Iterable[str] = ()
    ) -> Rules:
        return cls(
            tuple(map(Rule.parse, allow)), tuple(map(Rule.parse, ask)), tuple(map(Rule.parse, deny))
        )

    def __add__(self, other: Rules) -> Rules:
        return Rules(self.allow + other.allow, self.ask + other.ask, self.deny + other.deny)

    def decide(self, tool: str, arguments: Mapping[str, object] | None) -> Decision:
        """The strongest verdict any rule gives; `arguments=None` asks about the tool alone."""
        checks: tuple[tuple[Verdict, tuple[Rule, ...]], ...] = (
            ("deny", self.deny),
            ("ask", self.ask),
            ("allow", self.allow),
        )
        for verdict, rules in checks:
            for rule in rules:
                if rule.matches(tool, arguments):
                    return Decision(verdict, rule.text)
        return Decision(None)
