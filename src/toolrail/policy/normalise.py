"""One normal form for what a call asks, so that rules cannot be bypassed by spelling.

A command (a string, or an argv list) becomes its simple commands, each a list of words:

- a string is split like a POSIX shell would (`shlex`), at `;`, `&&`, `||`, `|`, `&` and
  newlines; quoting and repeated spaces stop mattering;
- leading `VAR=value` assignments are dropped, and wrapper programs are unwrapped with
  their own options (`env -i X=1 rm` → `rm`; also `nice`, `nohup`, `timeout`, `stdbuf`,
  `command`, `exec`, `sudo`, `doas`, `xargs`, `time`, `busybox`, `chrt`, `ionice`, `setsid`);
- the program is its base name (`/bin/rm`, `./rm` → `rm`);
- git's options before its subcommand are dropped (`git -C . -c k=v push` → `git push`);
- words that are paths are normalised (`./.env`, `a/../.env` → `.env`; `dir/` → `dir`).

Anything the split cannot be sure of — command or process substitution (`$(`, backticks,
`<(`), redirections, subshells, unbalanced quotes — marks the command *unsure*: a rule may
still deny or ask it, but nothing unsure is ever allowed.

Path arguments (`path`, `file`, ... or any value that looks like a relative path) are
normalised the same way, so a rule on `.env` also sees `./.env`.
"""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass

_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "\n"})
_UNSURE_MARKS = ("$(", "`", "<(", ">(", "${")
_PATH_KEYS = frozenset(
    {
        "path",
        "paths",
        "file",
        "files",
        "filename",
        "filepath",
        "dir",
        "directory",
        "target",
        "source",
        "destination",
        "dest",
        "src",
        "cwd",
    }
)

# wrapper → its options that take a value (besides `--opt=value`); anything else starting
# with "-" is an option without a value
_WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "command": frozenset(),
    "exec": frozenset({"-a"}),
    "sudo": frozenset({"-u", "--user", "-g", "--group", "-C", "-h", "-p", "-r", "-t", "-U"}),
    "doas": frozenset({"-u", "-C"}),
    "xargs": frozenset({"-a", "-d", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "-P", "-s"}),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "busybox": frozenset(),
    "chrt": frozenset(),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "setsid": frozenset(),
}
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_EXPANDING = ("$", "*", "?", "[", "{", "~")  # a program word the shell would rewrite
_MAX_DEPTH = 4
_TAKES_A_VALUE_AFTER_OPTIONS = {"timeout": 1, "chrt": 1}  # `timeout 5 rm`, `chrt 10 rm`
_GIT_OPTIONS_WITH_VALUE = frozenset(
    {
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--exec-path",
        "--config-env",
        "--super-prefix",
        "--list-cmds",
    }
)


@dataclass(frozen=True, slots=True)
class Command:
    """A command line in normal form: its simple commands, and whether the split is sure."""

    parts: tuple[tuple[str, ...], ...]
    sure: bool

    @property
    def texts(self) -> tuple[str, ...]:
        """Each simple command as one space-separated string, for glob matching."""
        return tuple(" ".join(words) for words in self.parts)


def command(value: object) -> Command:
    """The normal form of a command given as a string or as an argv list."""
    if isinstance(value, list | tuple):
        parts, sure = _simple([str(word) for word in value])
        return Command(parts, sure)
    return _line(str(value), depth=0)


def _line(text: str, depth: int) -> Command:
    sure = not any(mark in text for mark in _UNSURE_MARKS)
    try:
        lexer = shlex.shlex(text.replace("\n", " ; "), posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to whitespace, and never allow
        tokens, sure = text.split(), False
    parts: list[tuple[str, ...]] = []
    current: list[str] = []
    for token in [*tokens, ";"]:
        if token in _SEPARATORS or (token and set(token) <= set("<>()&|;")):
            if token not in _SEPARATORS:  # redirection, subshell, odd operator
                sure = False
            found, found_sure = _simple(current, depth)
            parts.extend(found)
            sure = sure and found_sure
            current = []
        else:
            current.append(token)
    return Command(tuple(parts), sure)


def _simple(argv: list[str], depth: int = 0) -> tuple[tuple[tuple[str, ...], ...], bool]:
    """One simple command's normal form, and any command it runs in turn (`sh -c`, `eval`,
    `find -exec`) as further parts; whether all of it was understood."""
    words = _unwrapped(argv)
    if not words:
        return (), True
    program = posixpath.basename(words[0].rstrip("/")) or words[0]
    sure = not any(mark in program for mark in _EXPANDING)  # `$X -rf /`, `/bin/r?`
    rest = words[1:]
    if program == "git":
        rest, git_sure = _git_subcommand_first(rest)
        sure = sure and git_sure
    this = (program, *(path_word(word) for word in rest))
    inner = _inner_command(program, rest)
    if inner is None:
        return (this,), sure
    if depth >= _MAX_DEPTH:
        return (this,), False
    nested = inner if isinstance(inner, Command) else _line(inner, depth + 1)
    return (this, *nested.parts), sure and nested.sure


def _unwrapped(argv: list[str]) -> list[str]:
    words = list(argv)
    while words and _is_assignment(words[0]):
        words.pop(0)
    while words:
        program = posixpath.basename(words[0]) or words[0]
        if program not in _WRAPPERS:
            break
        words = _unwrap(program, words[1:])
        while words and _is_assignment(words[0]):  # env X=1 rm
            words.pop(0)
    return words


def _inner_command(program: str, rest: list[str]) -> str | Command | None:
    """The command a shell (`sh -c X`), `eval` or `find -exec` runs, if any."""
    if program == "eval":
        return " ".join(rest)
    if program in _SHELLS:
        for index, word in enumerate(rest):
            if word.startswith("-") and not word.startswith("--") and "c" in word:
                return rest[index + 1] if index + 1 < len(rest) else ""
        return Command((), sure=False)  # a script or stdin: what it runs is unknown
    if program == "find":
        found: list[tuple[str, ...]] = []
        sure = True
        for index, word in enumerate(rest):
            if word in _FIND_EXEC:
                tail = rest[index + 1 :]
                end = next((i for i, w in enumerate(tail) if w in (";", "+")), len(tail))
                parts, part_sure = _simple(tail[:end], _MAX_DEPTH)
                found.extend(parts)
                sure = sure and part_sure
        return Command(tuple(found), sure) if found else None
    return None


def _unwrap(wrapper: str, words: list[str]) -> list[str]:
    takes_value = _WRAPPERS[wrapper]
    index = 0
    while index < len(words) and words[index].startswith("-") and words[index] != "-":
        option = words[index]
        index += 1
        if option == "--":
            break
        if option in takes_value and "=" not in option:
            index += 1
    index += _TAKES_A_VALUE_AFTER_OPTIONS.get(wrapper, 0)
    return words[index:]


def _git_subcommand_first(words: list[str]) -> tuple[list[str], bool]:
    """git's words from its subcommand on; unsure if an option defines an alias (which can
    make any subcommand name run anything)."""
    index, sure = 0, True
    while index < len(words) and words[index].startswith("-"):
        option = words[index]
        index += 1
        if option in _GIT_OPTIONS_WITH_VALUE:
            value = words[index] if index < len(words) else ""
            sure = sure and not (option == "-c" and value.lower().startswith("alias."))
            index += 1
        elif option.startswith(("-c", "--config-env")) and "alias." in option.lower():
            sure = False
    return words[index:], sure


def _is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and name.replace("_", "a").isalnum() and not name[:1].isdigit()


def path_word(word: str) -> str:
    """A word that is a relative or absolute path, normalised; other words as they are."""
    if (
        word.startswith("-")
        or "://" in word
        or not ("/" in word or word.startswith("."))
        or any(space.isspace() for space in word)  # a quoted phrase, not a path
    ):
        return word
    normal = posixpath.normpath(word)
    return normal if normal != "." or word in (".", "./") else word


def argument(key: str | None, value: str) -> str:
    """A named argument's value in normal form: paths normalised for path-like keys."""
    if key is not None and key.lower() in _PATH_KEYS:
        return path_word(value) if value else value
    return value
