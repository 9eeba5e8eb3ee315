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
        argv = [str(word) for word in value]
        return Command((_simple(argv),), sure=True) if argv else Command((), sure=True)
    text = str(value)
    sure = not any(mark in text for mark in _UNSURE_MARKS)
    try:
        lexer = shlex.shlex(text.replace("\n", " ; "), posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to whitespace, and never allow
        tokens, sure = text.split(), False
    parts: list[tuple[str, ...]] = []
    current: list[str] = []
    for token in tokens:
        if token in _SEPARATORS:
            if current:
                parts.append(_simple(current))
            current = []
        elif token and set(token) <= set("<>()&|;"):  # redirection, subshell, odd operator
            sure = False
            if current:
                parts.append(_simple(current))
            current = []
        else:
            current.append(token)
    if current:
        parts.append(_simple(current))
    return Command(tuple(parts), sure)


def _simple(argv: list[str]) -> tuple[str, ...]:
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
    if not words:
        return ()
    program = posixpath.basename(words[0].rstrip("/")) or words[0]
    rest = words[1:]
    if program == "git":
        rest = _git_subcommand_first(rest)
    return (program, *(path_word(word) for word in rest))


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


def _git_subcommand_first(words: list[str]) -> list[str]:
    index = 0
    while index < len(words) and words[index].startswith("-"):
        option = words[index]
        index += 1
        if option in _GIT_OPTIONS_WITH_VALUE:
            index += 1
    return words[index:]


def _is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and name.replace("_", "a").isalnum() and not name[:1].isdigit()


def path_word(word: str) -> str:
    """A word that is a relative or absolute path, normalised; other words as they are."""
    if word.startswith("-") or "://" in word or not ("/" in word or word.startswith(".")):
        return word
    normal = posixpath.normpath(word)
    return normal if normal != "." or word in (".", "./") else word


def argument(key: str | None, value: str) -> str:
    """A named argument's value in normal form: paths normalised for path-like keys."""
    if key is not None and key.lower() in _PATH_KEYS:
        return path_word(value) if value else value
    return value
