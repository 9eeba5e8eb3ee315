"""One normal form for what a call asks, so that rules cannot be bypassed by spelling.

A command (a string, or an argv list) becomes its simple commands, each a list of words:

- a string is split like a POSIX shell would (`shlex`), at `;`, `&&`, `||`, `|`, `&` and
  newlines; quoting and repeated spaces stop mattering; a line continuation (`\\` newline)
  joins two lines, as the shell joins them (`r\\⏎m` is `rm`);
- leading `VAR=value` assignments are dropped, and wrapper programs are unwrapped with
  their own options (`env -i X=1 rm` → `rm`; also `nice`, `nohup`, `timeout`, `stdbuf`,
  `command`, `exec`, `sudo`, `doas`, `xargs`, `time`, `busybox`, `chrt`, `ionice`, `setsid`);
- the program is its base name (`/bin/rm`, `./rm` → `rm`);
- git's options before its subcommand are dropped (`git -C . -c k=v push` → `git push`);
- words that are paths are normalised (`./.env`, `a/../.env` → `.env`; `dir/` → `dir`), a
  `\\` read as a separator, as the built-in openers read it (`.\\.env` → `.env`).

Anything the split cannot be sure of — command or process substitution (`$(`, backticks,
`<(`), redirections, subshells, unbalanced quotes, a carriage return — marks the command
*unsure*: a rule may still deny or ask it, but nothing unsure is ever allowed.

Path arguments (`path`, `file`, ... or any value that looks like a relative path) are
normalised the same way, so a rule on `.env` also sees `./.env`.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass

_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "\n"})
# `\r`: a shell reads it as a character of a word, but it hides what comes before it when
# shown, and other shells and terminals read it otherwise
_UNSURE_MARKS = ("$(", "`", "<(", ">(", "${", "\r")


@dataclass(frozen=True, slots=True)
class _Wrapper:
    """A program that runs another command given after its own options."""

    values: frozenset[str] = frozenset()  # options taking a value (also `--o=v`, `-ov`)
    safe: frozenset[str] | None = None  # options that cannot change what runs; None: all
    positionals: int = 0  # words between its options and the command (`timeout 5 rm`)
    sure: bool = True  # False: other privileges, other arguments, or files written
    line: frozenset[str] = frozenset()  # options whose value is a shell line (`su -c`)
    joins: bool = False  # runs the rest joined as a shell line (`watch`)
    anywhere: bool = False  # a `line` option counts anywhere (`su root -c X`)
    needs_line: bool = False  # without a `line` option it runs an unknown shell (`su`)


def _w(values: str = "", **kwargs: object) -> _Wrapper:
    return _Wrapper(frozenset(values.split()), **kwargs)  # type: ignore[arg-type]


def _f(options: str) -> frozenset[str]:
    return frozenset(options.split())


# Programs that run a command given after their own options. A dropped option not in
# `safe`, or any wrapper marked unsure, makes the command unsure: an allow list asks, while
# deny and ask rules still see the command it runs.
_WRAPPERS: dict[str, _Wrapper] = {
    "env": _w(
        "-u --unset -C --chdir -S --split-string -a --argv0",
        safe=_f("-i --ignore-environment -u --unset -0 --null -v --debug -"),
    ),
    "nice": _w("-n --adjustment"),
    "nohup": _w(),
    "timeout": _w("-s --signal -k --kill-after", positionals=1),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "command": _w(safe=_f("-p")),
    "exec": _w("-a"),
    "builtin": _w(),
    "sudo": _w(
        "-u --user -g --group -C --close-from -h --host -p --prompt -r --role -t --type"
        " -U --other-user -D --chdir -R --chroot -T --command-timeout",
        sure=False,
    ),
    "doas": _w("-u -C", sure=False),
    "pkexec": _w("--user", sure=False),
    "su": _w("-s --shell -g --group -G --supp-group -w --whitelist-environment",
             sure=False, line=_f("-c --command --session-command"), needs_line=True,
             anywhere=True),
    "runuser": _w("-u --user -s --shell -g --group -G --supp-group -w",
                  sure=False, line=_f("-c --command --session-command"), anywhere=True),
    "sg": _w(sure=False, positionals=1, line=_f("-c"), joins=True, anywhere=True),
    "script": _w(
        "-E --echo -I --log-in -O --log-out -B --log-io -T --log-timing -m --logging-format",
        sure=False, line=_f("-c --command"), needs_line=True,
    ),
    "flock": _w("-w --timeout -E --conflict-exit-code", positionals=1, line=_f("-c --command")),
    "watch": _w("-n --interval -d --differences", joins=True),
    "xargs": _w("-a -d -E -e -I -i -L -l -n -P -s --arg-file --delimiter --max-args"
                " --max-procs --max-chars --replace", sure=False),
    "time": _w("-f --format -o --output", safe=_f("-p --portability -v --verbose -f --format"
                                                 " -q --quiet")),
    "busybox": _w(),
    "chrt": _w(positionals=1),
    "ionice": _w("-c -n -p --class --classdata --pid"),
    "setsid": _w(),
    "strace": _w("-e -o -p -s -u -E -a -b -I -O -S -P -X -U", sure=False),
    "ltrace": _w("-e -o -p -s -u -a -A -D -F -l -n -x -L", sure=False),
    "unbuffer": _w(),
    "chroot": _w("--userspec --groups", positionals=1, sure=False),
    "taskset": _w(positionals=1),
    "nsenter": _w("-t --target -S --setuid -G --setgid", sure=False),
    "unshare": _w("-S --setuid -G --setgid -R --root -w --wd --map-user --map-group",
                  sure=False),
    "setpriv": _w("--reuid --regid --ruid --rgid --euid --egid --groups --inh-caps"
                  " --ambient-caps --bounding-set --securebits", sure=False),
    "prlimit": _w("-p --pid"),
    "chpst": _w("-u -U -e -/ -n -l -L -m -d -o -p -f -c", sure=False),
    "systemd-run": _w("-u --unit -p --property -E --setenv -M --machine -H --host --slice"
                      " --description --uid --gid --working-directory", sure=False),
    "faketime": _w("-f", positionals=1),
    "numactl": _w("-N -C -m -p -i --cpunodebind --physcpubind --membind --preferred"
                  " --interleave"),
    "valgrind": _w(),
    "catchsegv": _w(),
    "eatmydata": _w(),
    "nocache": _w(),
    "proxychains": _w("-f"),
    "proxychains4": _w("-f"),
    "torsocks": _w("-u -p -a -P --user --pass --address --port"),
    "tsocks": _w(),
    "caffeinate": _w("-t -w"),
    # shell words that start a command rather than name a program
    "!": _w(),
    "{": _w(sure=False),
    "if": _w(sure=False),
    "while": _w(sure=False),
    "until": _w(sure=False),
    "then": _w(),
    "else": _w(),
    "elif": _w(sure=False),
    "do": _w(),
}  # fmt: skip
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_EXPANDING = ("$", "*", "?", "[", "{", "~")  # a program word the shell would rewrite
_MAX_DEPTH = 4
_MAX_MAYBE = 32  # words of one simple command looked at as a possible inner command
_SYSTEM_DIRS = frozenset({"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"})
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
        "--attr-source",
    }
)
# git's options before its subcommand that cannot change what runs or which repository and
# configuration it reads; any other (`-c`, `-C`, `--git-dir`, `--exec-path`, `-p`, ...) does
_GIT_SAFE_OPTIONS = frozenset(
    {
        "--no-pager",
        "-P",
        "--no-replace-objects",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--no-advice",
    }
)


@dataclass(frozen=True, slots=True)
class Command:
    """A command line in normal form: its simple commands, whether the split is sure, and
    commands an unknown program might run from its arguments (`strace rm`, `foo rm`)."""

    parts: tuple[tuple[str, ...], ...]
    sure: bool
    maybe: tuple[tuple[str, ...], ...] = ()

    @property
    def texts(self) -> tuple[str, ...]:
        """Each simple command as one space-separated string, for glob matching."""
        return tuple(" ".join(words) for words in self.parts)

    @property
    def maybe_texts(self) -> tuple[str, ...]:
        """Each possible inner command as one string (deny and ask rules look at these)."""
        return tuple(" ".join(words) for words in self.maybe)


def command(value: object) -> Command:
    """The normal form of a command given as a string or as an argv list."""
    if isinstance(value, list | tuple):
        return _simple([str(word) for word in value], depth=0)
    return _line(str(value), depth=0)


def _join(found: list[Command], sure: bool = True) -> Command:
    return Command(
        tuple(part for one in found for part in one.parts),
        sure and all(one.sure for one in found),
        tuple(part for one in found for part in one.maybe),
    )


def _line(text: str, depth: int) -> Command:
    if depth > _MAX_DEPTH:
        return Command((), sure=False)
    text = _lines_joined(text)
    sure = not any(mark in text for mark in _UNSURE_MARKS)
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.whitespace = " \t"  # a shell's blanks; `\r` is a word's character
        lexer.commenters = ""  # shlex ends a word at `#`; a shell does not (`status#; rm`)
        tokens = list(lexer)
        # a comment, or a word the shell would expand (`.en?`, `$X`, `~/x`, `{a,b}`): what
        # runs is not what is written, so it is never allowed (quotes are gone by here, so
        # a quoted glob counts too: the safe side)
        sure = sure and not any(token.startswith("#") or _expands(token) for token in tokens)
    except ValueError:  # unbalanced quotes: fall back to whitespace, and never allow
        tokens, sure = text.split(), False
    found: list[Command] = []
    current: list[str] = []
    for token in [*tokens, ";"]:
        if token in _SEPARATORS or (token and set(token) <= set("<>()&|;")):
            if token not in _SEPARATORS:  # redirection, subshell, odd operator
                sure = False
            found.append(_simple(current, depth))
            current = []
        else:
            current.append(token)
    return _join(found, sure)


def _lines_joined(text: str) -> str:
    """`text` as a shell first reads it: a line continuation (`\\` newline) is removed,
    joining two lines (`r\\⏎m` is `rm`), and any other newline outside quotes ends a command
    (` ; `). Quoting decides, as in the shell: `'...'`, `$'...'` and an escaping `\\` keep
    what they quote, and a comment ends at its newline, continued or not."""
    if "\n" not in text:
        return text
    out: list[str] = []
    quote, index, start = "", 0, True  # start: a `#` here begins a comment
    while index < len(text):
        pair = text[index : index + 2]
        if pair == "\\\n" and quote in ("", '"'):
            index += 2
            continue
        if pair[0] == "\\" and quote not in ("'", "#"):  # an escaped character, as it is
            out.append(pair)
            index, start = index + len(pair), False
            continue
        char = "$'" if pair == "$'" and not quote else text[index]
        if not quote and (char in ("'", '"', "$'") or (char == "#" and start)):
            quote = char
        elif quote and char == ("\n" if quote == "#" else quote[-1]):
            quote = ""
        out.append(" ; " if char == "\n" and not quote else char)
        index += len(char)
        start = not quote and char in " \t\n;&|()<>"
    return "".join(out)


def _expands(word: str) -> bool:
    """Whether a shell would rewrite this word: parameters, globs, a leading tilde, braces."""
    return (
        "$" in word
        or any(mark in word for mark in "*?[")
        or word.startswith("~")
        or ("{" in word and "}" in word)
    )


def _simple(argv: list[str], depth: int) -> Command:
    """One simple command's normal form, and any command it runs in turn (`sh -c`, `eval`,
    `find -exec`, a wrapper's command line) as further parts; whether all of it was
    understood."""
    words, sure, ran = _unwrapped(argv, depth)
    if ran is not None:
        return _join([ran], sure)
    if not words:
        return Command((), sure)
    program = _base(words[0])
    sure = sure and not any(mark in program for mark in _EXPANDING)  # `$X -rf /`, `/bin/r?`
    sure = sure and not _elsewhere(words[0])
    rest = words[1:]
    if program == "git":
        rest, git_sure = _git_subcommand_first(rest)
        sure = sure and git_sure
    this = Command(((program, *(path_word(word) for word in rest)),), sure)
    inner = _inner_command(program, rest, depth)
    if inner is None:
        return Command(this.parts, sure, _maybe(rest))
    return _join([this, inner])


def _base(word: str) -> str:
    return posixpath.basename(word.rstrip("/")) or word


def _elsewhere(word: str) -> bool:
    """A program named by a path outside the system directories (`./git`, `/tmp/x/git`):
    not the program a rule names, though deny rules still see its base name."""
    return "/" in word and posixpath.dirname(posixpath.normpath(word)) not in _SYSTEM_DIRS


def _maybe(rest: list[str]) -> tuple[tuple[str, ...], ...]:
    """Each later word that could name a program starts a command the program might run
    (`strace rm -rf /`, `unknown-wrapper rm -rf /`): deny and ask rules look at them."""
    found: list[tuple[str, ...]] = []
    for index, word in enumerate(rest[:_MAX_MAYBE]):
        if _PROGRAM_WORD.fullmatch(word):
            found.append((_base(word), *(path_word(w) for w in rest[index + 1 :])))
    return tuple(found)


_PROGRAM_WORD = re.compile(r"(?:[\w.+-]{0,64}/){0,16}[A-Za-z_][\w.+-]{0,63}")


def _unwrapped(argv: list[str], depth: int) -> tuple[list[str], bool, Command | None]:
    """The words from the program a chain of wrappers runs on (`env X=1 nice rm` → rm),
    whether nothing dropped can change what runs, or the command line a wrapper runs."""
    words, sure = list(argv), True
    for _ in range(64):  # a wrapper chain is short; a longer one is not understood
        while words and _is_assignment(words[0]):
            words.pop(0)
            sure = False  # `PAGER=x git`, `GIT_DIR=/tmp/o git`: the environment decides
        if not words:
            return words, sure, None
        wrapper = _WRAPPERS.get(_base(words[0]))
        if wrapper is None:
            return words, sure, None
        sure = sure and not _elsewhere(words[0])
        words, wrapper_sure, ran = _unwrap(_base(words[0]), wrapper, words[1:], depth)
        sure = sure and wrapper_sure
        if ran is not None:
            return [], sure, ran
    return words, False, None


def _unwrap(
    name: str, wrapper: _Wrapper, words: list[str], depth: int
) -> tuple[list[str], bool, Command | None]:
    """A wrapper's words after its options: the command it runs (or its command line)."""
    sure, index = wrapper.sure, 0
    for round_ in range(2):  # options, positionals, then options again (`su root -c X`)
        while index < len(words) and words[index].startswith("-"):
            word = words[index]
            index += 1
            if word == "--":
                break
            if word == "-" and name not in ("env", "su"):
                index -= 1
                break
            option, value = _option(word, wrapper, name)
            if value is None and (option in wrapper.values or option in wrapper.line):
                value = words[index] if index < len(words) else ""
                index += 1
            if wrapper.safe is not None and option not in wrapper.safe:
                sure = False
            if option in wrapper.line:
                return [], sure, _line(value or "", depth + 1)
            if name == "env" and option in ("-S", "--split-string"):
                try:
                    split = shlex.split(value or "")
                except ValueError:
                    split = (value or "").split()
                # the value is the command, split into words (env runs no shell); rules also
                # read it as a line, so a `;` in it hides nothing from them
                as_words = _simple([*split, *words[index:]], depth + 1)
                return [], False, _join([as_words, _line(value or "", depth + 1)])
        if round_ == 0:
            index += wrapper.positionals
    for later, word in enumerate(words[index:] if wrapper.anywhere else ()):
        option, value = _option(word, wrapper, name)
        if option in wrapper.line:  # `su root -c X`: the user's shell gets `-c X`
            following = words[index + later + 1 : index + later + 2]
            return [], False, _line(value if value is not None else "".join(following), depth + 1)
    if wrapper.needs_line:  # `su`, `script` without -c: an interactive shell, unknown
        return [], False, Command((), sure=False)
    if wrapper.joins:  # `watch rm -rf /` runs `sh -c "rm -rf /"`; rules also read the
        # words as they were given, so quoting lost in the join hides nothing from them
        joined = _line(" ".join(words[index:]), depth + 1)
        return [], sure, _join([joined, _simple(words[index:], depth + 1)])
    return words[index:], sure, None


def _option(word: str, wrapper: _Wrapper, name: str) -> tuple[str, str | None]:
    """An option word and its attached value (`--o=v`, `-ov` for an option taking one)."""
    if word.startswith("--"):
        option, equals, value = word.partition("=")
        return option, value if equals else None
    short = word[:2]
    takes = wrapper.values | wrapper.line
    if len(word) > 2 and (short in takes or (name == "env" and short == "-S")):
        return short, word[2:]
    return word, None


def _inner_command(program: str, rest: list[str], depth: int) -> Command | None:
    """The command a shell (`sh -c X`), `eval` or `find -exec` runs, if any."""
    if program == "eval":
        return _line(" ".join(rest), depth + 1)
    if program in _SHELLS:
        for index, word in enumerate(rest):
            if word.startswith("-") and not word.startswith("--") and "c" in word:
                return _line(_command_string(rest[index + 1 :]), depth + 1)
        return Command((), sure=False)  # a script or stdin: what it runs is unknown
    if program == "find":
        found: list[Command] = []
        for index, word in enumerate(rest):
            if word in _FIND_EXEC:
                tail = rest[index + 1 :]
                end = next((i for i, w in enumerate(tail) if w in (";", "+")), len(tail))
                found.append(_simple(tail[:end], _MAX_DEPTH))
        return _join(found) if found else None
    return None


def _command_string(words: list[str]) -> str:
    """What `sh -c` runs: its first word that is not an option (`sh -c -e -- 'rm x'`: options
    may come between `-c` and the command; `-o NAME` takes a value; `--` ends them)."""
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            return words[index + 1] if index + 1 < len(words) else ""
        if word in ("-o", "+o"):
            index += 2
        elif len(word) > 1 and word[0] in "-+":
            index += 1
        else:
            return word
    return ""


def _git_subcommand_first(words: list[str]) -> tuple[list[str], bool]:
    """git's words from its subcommand on; unsure if an option before the subcommand can
    change what runs or which repository and configuration git reads (`-c`, `-C`,
    `--git-dir`, `--exec-path`, `--config-env`, `-p`, ...)."""
    index, sure = 0, True
    while index < len(words) and words[index].startswith("-"):
        option = words[index]
        index += 1
        if option == "--":
            break
        if option in _GIT_OPTIONS_WITH_VALUE:
            index += 1
        sure = sure and option in _GIT_SAFE_OPTIONS
    return words[index:], sure


def _is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and name.replace("_", "a").isalnum() and not name[:1].isdigit()


def slashed(path: str) -> str:
    """`path` with each of its separators written `/`: a `\\` separates too, as on Windows.
    The one reading of a path, for the rules and the built-in openers (`builtin/paths.py`)."""
    return path.replace("\\", "/")


def path_word(word: str) -> str:
    """A word that is a relative or absolute path, normalised; other words as they are."""
    text = slashed(word)
    if (
        word.startswith("-")
        or "://" in word  # a URL as written; `x:\\y` is a path (`x:/y`)
        or not ("/" in text or text.startswith("."))
        or any(space.isspace() for space in word)  # a quoted phrase, not a path
    ):
        return word
    return posixpath.normpath(text)


def argument(key: str | None, value: str) -> str:
    """A named argument's value in normal form: whatever its key, a value that looks like a
    path is normalised (`./.env`, `a/../.env`, `.env/` → `.env`)."""
    del key  # every key: a tool may call its path `file_path`, `p` or anything else
    return path_word(value) if value else value
