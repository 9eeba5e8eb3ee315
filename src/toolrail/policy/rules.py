"""allow / ask / deny rules in the syntax agent users already write.

    read_path                        the tool, any arguments
    mcp__github__*                   a glob over tool names
    shell(git status*)               a glob over the tool's main argument (a command line)
    write_context_file(path:docs/*)  a glob over one named argument

How a call is matched (exactly):

1. The tool glob (`fnmatch`, case-sensitive) must match the tool's name.
2. A rule without parentheses then matches any arguments. A rule with a pattern reads one
   argument: the named one, or else the tool's main argument — the first present of
   `command`, `argv`, `cmd`, `path`, `url`, `query`, `name`, else the first argument.
3. That value is put in normal form (`policy/normalise.py`) before the glob sees it:
   a command (`command`, `argv`, `cmd`, `script`) is split into its simple commands, each
   with its program as a base name, wrappers (`env`, `nice`, `sudo`, ...) and git's leading
   options removed, words single-spaced and paths normalised; a path argument is
   normalised (`./.env` → `.env`). The pattern's whitespace is collapsed the same way.
4. A deny or ask rule matches a command if it matches *any* of its simple commands; one
   without a named argument reads every argument, not only the main one. If it matches
   only a command an unknown program might run from its arguments (`foo rm -rf /`), the
   call is asked.
   An allow rule set allows a command only if *every* simple command is matched by an
   allow rule and the split was sure (no `$(...)`, backticks, redirections, subshells,
   scripts, `VAR=` prefixes, and in a command line no word a shell would expand — `$X`,
   globs, `~/`, `{a,b}`; an argv list is read as it is). A command that some rule reads
   and that is not sure is asked, whatever the rules.

Verdicts: deny beats ask beats allow, whatever the order the rules were written in. When
there are allow rules, a call that none of them allows is **asked** (Claude Code's
semantics: what is not allowed is asked), so a missing rule is the safe case. With no
allow rules at all, a call no rule names is allowed (no policy means no restriction).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from toolrail.policy.normalise import Command, argument, command

Verdict = Literal["allow", "ask", "deny"]
NOT_ALLOWED = "(not in the allow list)"
"""The rule named when an allow list exists and allows nothing for this call."""

UNSURE = "(command not understood for sure: substitution, redirection, script or expansion)"
"""The rule named when argument rules read a command whose split was unsure."""

MAYBE = "(matches a command the program may run from its arguments)"
"""Added to a deny or ask rule that matches only a word an unknown program may run."""

_RULE = re.compile(r"^(?P<tool>[^()]+?)(?:\((?P<args>.*)\))?$", re.DOTALL)
_MAIN_ARGUMENTS = ("command", "argv", "cmd", "path", "url", "query", "name")
_COMMAND_KEYS = frozenset({"command", "argv", "cmd", "script"})


def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(pattern), re.DOTALL)


@dataclass(frozen=True, slots=True)
class Rule:
    """One parsed rule: a tool-name glob and, optionally, an argument glob."""

    text: str
    tool: str
    argument: str | None = None  # None: the tool's main argument
    pattern: str | None = None
    _tool: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _pattern: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_tool", _glob(self.tool))
        normal = " ".join(self.pattern.split()) if self.pattern is not None else None
        object.__setattr__(self, "_pattern", _glob(normal) if normal is not None else None)

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

    def names(self, tool: str) -> bool:
        """Whether this rule is about `tool` at all."""
        return self._tool.match(tool) is not None

    def matches(self, tool: str, arguments: Mapping[str, object] | None) -> bool:
        """Whether the rule, as a deny or ask rule, matches the call (for a command: any of
        its simple commands; without a named argument: any argument)."""
        return self._matches(tool, None if arguments is None else Call(arguments), every=True)

    def allows(self, tool: str, arguments: Mapping[str, object]) -> bool:
        """Whether this rule, as an allow rule, allows the call: for a command, every simple
        command matches and the split was sure (`Approve(always=...)` uses this)."""
        alone = Rules(allow=(self,))
        call = Call(arguments)
        return not alone._unsure(tool, call) and alone._allowed(tool, call) is not None

    def _matches(self, tool: str, call: Call | None, *, every: bool = False) -> bool:
        """`every`: a rule without a named argument reads every argument, not only the main
        one (deny and ask: a path under `file_path` is still the path)."""
        if not self.names(tool):
            return False
        if self._pattern is None:
            return True
        if call is None:  # deciding visibility: argument rules do not hide a tool
            return False
        texts = call.every_text() if every and self.argument is None else call.texts(self.argument)
        return any(self._pattern.match(text) for text in texts)

    def _maybe_matches(self, tool: str, call: Call) -> bool:
        """Whether a command an unknown program might run matches (`strace rm -rf /`)."""
        if self._pattern is None or not self.names(tool):
            return False
        names = (None, *call.keys()) if self.argument is None else (self.argument,)
        for name in names:
            found = call.command(name)
            if found is not None and any(self._pattern.match(t) for t in found.maybe_texts):
                return True
        return False

    def allows_part(self, tool: str, text: str) -> bool:
        return self.names(tool) and (self._pattern is None or bool(self._pattern.match(text)))


class Call:
    """A call's arguments, each put in normal form once, when a rule first reads it."""

    __slots__ = ("_arguments", "_seen")

    def __init__(self, arguments: Mapping[str, object]) -> None:
        self._arguments = arguments
        self._seen: dict[str | None, tuple[tuple[str, ...], Command | None]] = {}

    def texts(self, name: str | None) -> tuple[str, ...]:
        return self.read(name)[0]

    def keys(self) -> tuple[str, ...]:
        return tuple(self._arguments)

    def every_text(self) -> tuple[str, ...]:
        """The normal form of the main argument and of every other argument."""
        return tuple(text for name in (None, *self._arguments) for text in self.texts(name))

    def command(self, name: str | None) -> Command | None:
        """The argument as a command, if it is one."""
        return self.read(name)[1]

    def read(self, name: str | None) -> tuple[tuple[str, ...], Command | None]:
        if name not in self._seen:
            self._seen[name] = self._normalise(name)
        return self._seen[name]

    def _normalise(self, name: str | None) -> tuple[tuple[str, ...], Command | None]:
        key, value = _pick(self._arguments, name)
        if key is None:
            return (), None
        if key in _COMMAND_KEYS:
            found = command(value)
            return found.texts, found
        text = " ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        return (argument(key, text),), None


def _pick(arguments: Mapping[str, object], name: str | None) -> tuple[str | None, object]:
    for key in (name,) if name is not None else _MAIN_ARGUMENTS:
        if key in arguments:
            return key, arguments[key]
    if name is None:  # no well-known main argument: the first one
        for key, value in arguments.items():
            return key, value
    return None, None


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: Verdict | None  # None: no rule spoke
    rule: str | None = None


@dataclass(frozen=True, slots=True)
class Rules:
    """Lists of allow / ask / deny rules; `decide` applies deny > ask > allow, and asks
    what an allow list does not allow (see the module docstring)."""

    allow: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    _about: dict[str, tuple[Rules, Decision | None]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """Per tool name: the rules that name it, and their decision if no argument is read."""

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
        """The strongest verdict; `arguments=None` asks about the tool alone (visibility)."""
        about = self._about.get(tool)
        if about is None:
            about = self._rules_about(tool)
        rules, fixed = about
        if fixed is not None:
            return fixed  # no rule about this tool reads its arguments
        return rules._decide(tool, None if arguments is None else Call(arguments), bool(self.allow))

    def _rules_about(self, tool: str) -> tuple[Rules, Decision | None]:
        """The rules that name `tool` (the others cannot change its verdict), remembered."""
        rules = Rules(
            tuple(r for r in self.allow if r.names(tool)),
            tuple(r for r in self.ask if r.names(tool)),
            tuple(r for r in self.deny if r.names(tool)),
        )
        reads = any(r.pattern is not None for r in (*rules.allow, *rules.ask, *rules.deny))
        about = (rules, None if reads else rules._decide(tool, None, bool(self.allow)))
        if len(self._about) >= 4096:  # names come from registries: bounded, but be sure
            self._about.clear()
        self._about[tool] = about
        return about

    def _decide(self, tool: str, call: Call | None, allow_list: bool) -> Decision:
        """deny > ask > unsure > allow; what an allow list does not allow is asked."""
        for rule in self.deny:
            if rule._matches(tool, call, every=True):
                return Decision("deny", rule.text)
        for rule in self.ask:
            if rule._matches(tool, call, every=True):
                return Decision("ask", rule.text)
        if call is not None:
            for rule in (*self.deny, *self.ask):
                if rule._maybe_matches(tool, call):
                    return Decision("ask", f"{rule.text} {MAYBE}")
        if call is not None and self._unsure(tool, call):
            return Decision("ask", UNSURE)
        allowed = self._allowed(tool, call)
        if allowed is not None:
            return Decision("allow", allowed)
        return Decision("ask", NOT_ALLOWED) if allow_list else Decision(None)

    def _unsure(self, tool: str, call: Call) -> bool:
        """A command some argument rule reads could not be understood for sure."""
        for rule in (*self.deny, *self.ask, *self.allow):
            if rule.pattern is not None and rule.names(tool):
                found = call.command(rule.argument)
                if found is not None and not found.sure:
                    return True
        return False

    def _allowed(self, tool: str, call: Call | None) -> str | None:
        """The allow rule that allows the call, or None."""
        for rule in self.allow:
            if rule.names(tool) and rule.pattern is None:
                return rule.text  # the whole tool is allowed
        if call is None:
            return None
        for rule in self.allow:
            if not rule.names(tool) or rule.pattern is None:
                continue
            found = call.command(rule.argument)
            if found is None:
                if rule._matches(tool, call):
                    return rule.text
                continue
            if (
                found.sure
                and found.parts
                and all(
                    any(
                        r.argument == rule.argument and r.allows_part(tool, text)
                        for r in self.allow
                    )
                    for text in found.texts
                )
            ):
                return rule.text
        return None
