"""Commands that store a secret: the value they store, in a shell line, an argv, or an argv
written out as a list in text.

That a value is a secret is said by the command, not by a flag's or a key's name (`gh
secret set NAME --body X`, `fly secrets set STRIPE=X`), so no other pass hides it. `_STORES`
is the table: a program (by its name, `/usr/bin/gh` too) and the words of its subcommand
(global flags, any number, may come between them: `kubectl -n prod create secret generic`)
name a store, and the store says which of its arguments are the value:

- `flags`: a flag whose value is the secret, in any spelling (`--body X`, `--body=X`, `-b
  X`, `-bX`);
- `literals`: a flag whose value is `KEY=VALUE`, the key kept (`--from-literal=k=X`);
- `assigned`: an operand `KEY=VALUE` is one, the key kept (`STRIPE=X`, `api=X`);
- `positional`: an operand after the first, the name, is the value (`API X`); with
  `named_secret`, only when the name, or a key path's last part, names a secret (`setx
  DB_PASSWORD X`, `consul kv put config/db/password X`; `setx PATH C:\\bin` stays), or
  a flag of the store's marks it one (`marked`: `pulumi config set --secret K X`);
- `piped`: the value is given on the input, so what `echo`, `printf` or PowerShell's
  `Write-Output` writes into the pipeline (`echo -n X | gh secret set NAME`, through `| tr
  -d '\\n' |` too), a string alone opening a command (PowerShell's `'X' | gh secret set N`),
  a here-string (`<<< X`) and a here-document's lines (`<<EOF`) are;
- `files`: what opens a value that is a file's path, not the secret (vault's `@file`);
- `options`: the store's own flags taking a value that is no secret (doppler's `--config
  dev`); `slashes`: Windows' flags (`/M`; `/S host`; `/P X`, a password).

Names, keys, flags and paths stay; a value goes whole, its quotes kept (`--body "[REDACTED]"`,
`"STRIPE=[REDACTED]"`); an empty one stays (`--body ""`). A command's words are read as a
shell reads them, over a line continued (`\\`, `` ` `` or `^` and a line break), to what
ends the command (`;`, `|`, `&`, a parenthesis, a backtick, a line's end) or a quote ending
the string the command is written in (`'fly secrets set A=X', ...`); a redirection's target
is no argument. A quoted word is read to its closing quote over lines (within
`_OVER_LINES`; else to its line's end), `$(...)` too, so `--body "$(cat <<'EOF' ... EOF
)"` goes whole. A word that is a placeholder in a usage line or a help text is no value
(`KEY=VALUE`, `K=V...`, `[flags]`, `<value>`, `...`; not `hunter2...`, a value cut
short), nor, unquoted, a word of prose (`gh secret set with --body and the value`: `and`):
the rule is kept wherever the command is, since a log's `ran: gh secret set ...` is one
too. In a sed expression (`'s/gh secret set X --body Y/.../'`) a value ends at the `/`.
A list written out and cut off inside an item (a preview) has that item read to its end.
What lists a store's secrets or deletes one (`gh secret list`, `vault kv get`) is no store.

>>> from toolrail.core.redact import redact_text
>>> redact_text("echo -n hunter2 | gh secret set DB --repo o/r && fly secrets set A='x y'")
"echo -n [REDACTED] | gh secret set DB --repo o/r && fly secrets set A='[REDACTED]'"
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toolrail.core.redact.held import _HELD, _held_content
from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.names import is_secret_key
from toolrail.core.redact.reading import _CONTINUATION, _SP, _reach, _with_hidden


@dataclass(frozen=True, slots=True)
class _Store:
    """Which arguments of a command that stores a secret are the value (see the module)."""

    flags: frozenset[str] = frozenset()
    literals: frozenset[str] = frozenset()
    assigned: bool = False
    positional: bool = False
    piped: bool = False
    files: str = ""
    options: frozenset[str] = frozenset()
    named_secret: bool = False
    marked: str = ""
    slashes: bool = False


_FROM_INPUT = _Store(piped=True)
_ASSIGNED = _Store(assigned=True)
_LOGIN = _Store(flags=frozenset({"-p", "--password"}), piped=True)
_STORES: dict[str, dict[tuple[str, ...], _Store]] = {
    "gh": {("secret", "set"): _Store(flags=frozenset({"--body", "-b"}), piped=True)},
    "fly": {("secrets", "set"): _ASSIGNED, ("secrets", "import"): _FROM_INPUT},
    "doppler": {
        ("secrets", "set"): _Store(
            assigned=True,
            positional=True,
            piped=True,
            options=frozenset(
                {"--project", "-p", "--config", "-c", "--scope", "--configuration"}
                | {"--api-host", "--dashboard-host", "--type", "--visibility", "--timeout"}
            ),
        )
    },
    "supabase": {("secrets", "set"): _ASSIGNED},
    "vault": {
        words: _Store(assigned=True, piped=True, files="@")
        for words in (("kv", "put"), ("kv", "patch"), ("write",))
    },
    "kubectl": {
        ("create", "secret", "generic"): _Store(literals=frozenset({"--from-literal"})),
        ("create", "secret", "docker-registry"): _Store(flags=frozenset({"--docker-password"})),
    },
    "heroku": {("config:set",): _ASSIGNED},  # config vars are where Heroku keeps credentials
    "dokku": {("config:set",): _ASSIGNED},
    "az": {("keyvault", "secret", "set"): _Store(flags=frozenset({"--value"}), files="@")},
    "gcloud": {("secrets", "create"): _FROM_INPUT, ("secrets", "versions", "add"): _FROM_INPUT},
    "docker": {("secret", "create"): _FROM_INPUT, ("login",): _LOGIN},
    "podman": {("login",): _LOGIN},
    "nerdctl": {("login",): _LOGIN},
    "buildah": {("login",): _LOGIN},
    "skopeo": {("login",): _LOGIN},
    "oras": {("login",): _LOGIN},
    "crane": {("auth", "login"): _LOGIN},
    "helm": {("registry", "login"): _LOGIN},
    "glab": {
        (noun, verb): _Store(
            flags=frozenset({"--value", "-v"}),
            positional=True,
            piped=True,
            options=frozenset({"--scope", "-s", "--type", "-t", "--group", "-g", "--repo", "-R"})
            | frozenset({"--description", "-d", "--environment-scope"}),
        )
        for noun in ("variable", "var")
        for verb in ("set", "update")
    },
    "netlify": {
        ("env:set",): _Store(
            positional=True, options=frozenset({"--context", "--scope", "--filter"})
        )
    },
    "vercel": {("env", "add"): _FROM_INPUT},  # (its name, environment and branch: no value)
    "railway": {("variables",): _Store(literals=frozenset({"--set"}))},
    "pulumi": {
        ("config", "set"): _Store(
            positional=True,
            named_secret=True,
            marked="--secret",
            piped=True,  # (no value given: it is read from the input)
            options=frozenset({"--stack", "-s", "--config-file", "--cwd", "-C"}),
        )
    },
    "wrangler": {("secret", "put"): _FROM_INPUT},
    # a value stored under a name: a secret when the name (a key path's last part) names one
    "setx": {(): _Store(positional=True, named_secret=True, slashes=True)},
    "consul": {
        ("kv", "put"): _Store(
            positional=True,
            named_secret=True,
            files="@",
            options=frozenset({"-datacenter", "-token", "-http-addr", "-namespace"})
            | frozenset({"-partition", "-flags", "-modify-index", "-ca-file", "-acquire"}),
        )
    },
    "etcdctl": {
        words: _Store(
            positional=True,
            named_secret=True,
            options=frozenset({"--endpoints", "--user", "--cacert", "--cert", "--key"})
            | frozenset({"--lease", "--dial-timeout", "--command-timeout", "--ttl"}),
        )
        for words in (("put",), ("set",))
    },
}
_STORES["flyctl"] = _STORES["fly"]
_STORES["ntl"] = _STORES["netlify-cli"] = _STORES["netlify"]
_STORES["vc"] = _STORES["vercel"]
_STORES["oc"] = _STORES["kubectl"]
_SUBCOMMAND_WORDS = frozenset(word for stores in _STORES.values() for key in stores for word in key)
# (what an argv of a store holds: its subcommand's first word, or a program taking none)
_SUBCOMMAND_OPENINGS = frozenset(
    key[0] if key else program for program, stores in _STORES.items() for key in stores
)


def _may_store(text: str) -> bool:
    """Whether `text` may hold a command of `_STORES`: one of its words is in every one."""
    return (
        "secret" in text
        or "vault" in text
        or "config:set" in text
        or "login" in text
        or "setx" in text
        or "consul" in text
        or "etcdctl" in text
        or "glab" in text
        or "env:set" in text  # (netlify's, `ntl`'s)
        or "vercel" in text
        or "env add" in text  # (`vc`'s)
        or "railway" in text
        or "pulumi" in text
    )


# --- which arguments are the value ----------------------------------------------------------


def _program(item: str | None) -> str | None:
    """The store's program an argv item names (`gh`, `/usr/bin/gh`, `gh.exe`), if any."""
    if item is None or item in _STORES:
        return item
    if not item.endswith(_PROGRAM_ENDINGS):
        return None
    name = item.replace("\\", "/").rsplit("/", 1)[-1]
    name = name[:-4] if name.endswith(".exe") else name
    return name if name in _STORES else None


_PROGRAM_ENDINGS = tuple(
    f"{separator}{program}{exe}"
    for program in _STORES
    for separator in ("/", "\\", "")
    for exe in ("", ".exe")
    if separator or exe
)


def _store_at(
    items: list[str | None], at: int, more: Callable[[], bool] = lambda: False
) -> tuple[_Store | None, int]:
    """The store whose program is `items[at]`, and where its arguments start; or None, and
    where reading stopped (the word that names no store: no program before it need be read
    again, so each word is read twice at most). A flag before a subcommand's word is
    skipped, and its value, a word that is no subcommand's (`kubectl -n prod create secret
    ...`), however many. `more`: reads one more item into `items`, if there is one (a
    command read as it goes)."""
    stores = _STORES.get(_program(items[at]) or "")
    if stores is None:
        return None, at + 1
    if () in stores:  # (a program taking no subcommand: `setx`)
        return stores[()], at + 1
    said: tuple[str, ...] = ()
    i = at + 1
    while i < len(items) or more():
        word = items[i]
        if word is None:
            return None, i
        if word.startswith("-"):
            i += 1
            if "=" not in word and (i < len(items) or more()):
                following = items[i]
                if following is not None and not following.startswith("-"):
                    i += following not in _SUBCOMMAND_WORDS
            continue
        said += (word,)
        if said in stores:
            return stores[said], i + 1
        if not any(key[: len(said)] == said for key in stores):
            return None, i
        i += 1
    return None, i


_WHOLE, _AFTER_KEY = 0, 1  # how the next item is the value: whole, or after its `KEY=`


def _value_offsets(items: Sequence[str | None], start: int, store: _Store) -> dict[int, int]:
    """Where each argument of `store` from `items[start]` on that holds the value starts
    being it: its index, and the offset in it (after `--body=`, `KEY=`); an empty value, a
    file's path (`_Store.files`) and a non-string item's key are none."""
    found: dict[int, int] = {}
    next_value: int | None = None
    named = False  # an operand not `KEY=VALUE`, the name, came (`positional`)
    secret = not store.named_secret  # the name names a secret (`named_secret`)
    operands: list[int] = []  # the operands after the name (`positional`)
    skip = False  # the item is an option's value (`options`, a slash's: `/S host`)
    for at in range(start, len(items)):
        item = items[at]
        if skip:
            skip = False
        elif next_value is not None:
            found[at] = _after_key(item) if next_value == _AFTER_KEY else 0
            next_value = None
        elif item is None:  # (a number, ...: no flag, no key)
            if store.positional and named:
                operands.append(at)
            named = True
        elif store.slashes and len(item) == 2 and item[0] == "/" and item[1].isalpha():
            if item[1] in "Pp":  # `/P password`
                next_value = _WHOLE
            else:  # `/M` alone, `/S host`, `/U user`
                skip = item[1] not in "Mm"
        elif item.startswith("-") and len(item) > 1:
            flag, equals, value = item.partition("=")
            if flag == store.marked:
                secret = True
            elif flag in store.options:
                skip = not equals
            elif flag in store.flags:
                if equals:
                    found[at] = len(flag) + 1
                else:
                    next_value = _WHOLE
            elif flag in store.literals:
                if equals:
                    found[at] = len(flag) + 1 + _after_key(value)
                else:
                    next_value = _AFTER_KEY
            elif len(flag) > 2 and flag[1] != "-" and flag[:2] in store.flags:  # `-bX`
                found[at] = 2
        elif store.positional and named:  # after the name, whatever it is (`API a=b`)
            operands.append(at)
        elif store.assigned and "=" in item:
            found[at] = item.index("=") + 1
        else:
            named = True
            if store.named_secret:
                secret = secret or is_secret_key(
                    item.replace("\\", "/").rstrip("/").rpartition("/")[2]
                )
    if secret:  # (known once every argument is read: a marking flag may come last)
        found.update(dict.fromkeys(operands, 0))
    return {
        at: offset
        for at, offset in found.items()
        if (item := items[at]) is None or _is_value(item, offset, store)
    }


def _is_value(item: str, offset: int, store: _Store) -> bool:
    """Whether `item` from `offset` on is a value: not empty, not a file's path
    (`_Store.files`), not `-` (the input)."""
    if offset >= len(item) or (store.files and item.startswith(store.files, offset)):
        return False
    return not (offset == len(item) - 1 and item[offset] == "-")


def _after_key(item: str | None) -> int:
    """Where a `KEY=VALUE` item's value starts (0 if it has no key: it is all value)."""
    return item.index("=") + 1 if item is not None and "=" in item else 0


def _argv_values(items: Sequence[object]) -> dict[int, int]:
    """The items of an argv that are a stored secret (see `_value_offsets`): after the
    first program naming a store, all that follows is its arguments."""
    # (a store's subcommand opens with one of `_SUBCOMMAND_OPENINGS`, which most lists hold
    # not: a list of strings is asked at once, others item by item)
    if items and type(items[0]) is str:
        try:
            if _SUBCOMMAND_OPENINGS.isdisjoint(items):
                return {}
        except TypeError:  # (a list or a mapping among the strings)
            pass
    else:
        for item in items:  # (a loop, not `any()`: most lists are short)
            if type(item) is str and item in _SUBCOMMAND_OPENINGS:
                break
        else:
            return {}
    words = [item if isinstance(item, str) else None for item in items]
    at = 0
    while at < len(words):
        word = words[at]
        if word is not None and _program(word) is not None:
            store, at = _store_at(words, at)
            if store is not None:
                return _value_offsets(words, at, store)
        else:
            at += 1
    return {}


def _echoed(words: Sequence[str | None]) -> int:
    """Where what `echo` or `printf` (`words[0]`) writes starts: echo's operands after its
    flags (`-n`, `-e`); printf's after its format, or the format when nothing follows it."""
    operands = 1
    if words[0] in ("write-output", "Write-Output"):
        while (words[operands : operands + 1] or [None])[0] in _WRITE_OUTPUT_FLAGS:
            operands += 1
        return operands
    if words[0] == "echo":
        while operands < len(words) and _ECHO_FLAG.fullmatch(words[operands] or "") is not None:
            operands += 1
    elif words[operands : operands + 1] == ["--"]:
        operands += 1
    if words[0] == "printf" and len(words) - operands > 1:
        operands += 1  # the format: `printf '%s' X`
    return operands


_ECHO_FLAG = re.compile(r"-[neE]++")
_WRITE_OUTPUT_FLAGS = frozenset({"-NoEnumerate", "-InputObject", "-noenumerate", "-inputobject"})


# --- a command in text: its words as a shell reads them --------------------------------------

# the program, after a path or none (`/usr/local/bin/gh`, `./gh`), not within a word
_STORE_PROGRAM = re.compile(
    r"(?<![\w.~/\\-])/?+(?:[\w.~-]++/)*+(?:"
    + "|".join(sorted(_STORES, key=len, reverse=True))
    + r")(?:\.exe)?+(?![\w./\\-])"
)
_FEEDER = re.compile(
    r"(?<![\w.~/\\-])(?:echo|printf|cat|[Ww]rite-[Oo]utput)(?![\w./\\-])"
    # a string alone, as PowerShell writes one into a pipeline (`'X' | gh secret set N`),
    # opening a command: a line's, or after `;` `&` `|` `(` `{` a backtick, a prompt
    r"|(?:^|(?<=[;&|({`>\n])|(?<=\$ ))[ \t]*+(?P<literal>)(?=['\"])",
    re.M,
)
# between words: spaces, and a line continued (a shell's `\`, PowerShell's `` ` ``, cmd's `^`)
_SPACES = r"(?:" + _SP + r"++|" + _CONTINUATION + ")"
_GAP = re.compile(_SPACES + "*+")
# A word's parts: quoted (to the closing quote on its line, or not closed, to the line's
# end), an escape, a bare run, `$(...)`. A quote within a word that is followed by what
# closes a string in JSON or a repr (`,` `:` `)` `}` `]`, the line's end) ends the string the
# command is written in, and the word; not after `=` (`A="}x"`: it opens the value). Each
# part opens with its own character: linear.
_NOT_CLOSING = r"(?:(?<=={opening})|(?![ \t]*+(?:[,:)}}\]]|\r?\n|\Z)))"


def _quoted_parts(guarded: bool) -> str:
    def guard(opening: str) -> str:
        return _NOT_CLOSING.format(opening=opening) if guarded else ""

    # to the closing quote over lines, within `_OVER_LINES` characters; else to the line's end
    return (
        "'" + guard("'") + f"(?:[^']{{0,{_OVER_LINES}}}+'|[^'\n]*+'?)"
        r"|\$'" + guard(r"\$'") + f"(?:(?:[^'\\\\]|\\\\[\\s\\S]){{0,{_OVER_LINES}}}+'"
        r"|(?:[^'\\\n]++|\\.)*+'?)"
        r'|"' + guard('"') + f'(?:(?:[^"\\\\]|\\\\[\\s\\S]){{0,{_OVER_LINES}}}+"'
        r'|(?:[^"\\\n]++|\\.)*+"?)'
    )


_OVER_LINES = 65_536
"""How far a quoted word, or `$(...)`, is read over lines to its closing quote (or bracket)."""
_BARE_PART = (  # (`${{ secrets.X }}`: a workflow's expression, one part)
    r"\\[^\r\n]|[^\s'\"\\;|&<>()`$]++"
    f"|\\$\\((?:[^()]{{0,{_OVER_LINES}}}+\\)|[^()\\n]*+\\)?)"
    r"|\$\{\{[^}\n]{0,256}+\}\}|\$"
)
_PART = re.compile(_quoted_parts(False) + "|" + _BARE_PART)
_WORD_PATTERN = (
    "(?:" + _quoted_parts(False) + "|" + _BARE_PART + ")"
    "(?:" + _quoted_parts(True) + "|" + _BARE_PART + ")*+"
)
_WORD = re.compile(_WORD_PATTERN)
# the next word and the spaces before it (`glued`: none needed, after a `|`)
_NEXT_WORD = {
    glued: re.compile(_SPACES + ("*+" if glued else "++") + "(?P<word>" + _WORD_PATTERN + ")")
    for glued in (False, True)
}
_REDIRECT = re.compile(r"(?P<op><<<|<<-?|[<>]>?&?)" + _SP + "*+")
_DIGITS = re.compile(r"\d++")


class _Words:
    """The words of one command in text from `at`, read as far as asked: their spans, what
    redirects its input (here-strings' words, here-documents' delimiters), and, once it
    ended, where (`end`)."""

    __slots__ = ("at", "delimiters", "end", "glued", "herestrings", "spans", "text")

    def __init__(self, text: str, at: int, *, glued: bool = False) -> None:
        self.text, self.at, self.glued = text, at, glued  # `glued`: no space before a word
        self.spans: list[tuple[int, int]] = []
        self.herestrings: list[tuple[int, int]] = []
        self.delimiters: list[str] = []
        self.end: int | None = None

    def read(self, most: int) -> None:
        text = self.text
        while self.end is None and len(self.spans) < most:
            word = _NEXT_WORD[self.glued].match(text, self.at)
            self.glued = False
            if word is not None:
                self.spans.append(word.span("word"))
                self.at = word.end()
                continue
            gap = _reach(_GAP, text, self.at)
            if not text.startswith(("<", ">"), gap):
                self.end = gap  # what ends the command, or the text's end
                return
            self._redirect(gap)

    def _redirect(self, at: int) -> None:
        """A redirection: its target no argument (`2>&1`: nor the descriptor before it)."""
        text = self.text
        if self.spans and self.spans[-1][1] == at and _DIGITS.fullmatch(text, *self.spans[-1]):
            self.spans.pop()
        redirect = _REDIRECT.match(text, at)
        assert redirect is not None  # (`<` or `>` at least)
        target = _WORD.match(text, redirect.end())
        if target is None:  # no target: the command ends
            self.at = self.end = redirect.end()
            return
        if redirect["op"] == "<<<":
            self.herestrings.append(target.span())
        elif redirect["op"].startswith("<<") and target.end() - target.start() <= 64:
            self.delimiters.append(_unquoted(target.group()).replace("\\", ""))
        self.at = target.end()

    def more(self, items: list[str | None]) -> bool:
        """Whether one more word was read, onto `items` too (as `items()` gives it)."""
        count = len(self.spans)
        self.read(count + 1)
        if len(self.spans) <= count:
            return False
        items.append(_unquoted(self.text[slice(*self.spans[-1])]))
        return True

    def items(self) -> list[str | None]:
        """The words as the table reads them: a word in quotes whole without them."""
        return [_unquoted(self.text[start:end]) for start, end in self.spans]


def _unquoted(word: str) -> str:
    """A word with the quotes opening it and closing it taken off (`'--from-literal=k=X'`):
    an offset in it is one more in the word when it opened with a quote (`_hide`)."""
    if word[:1] in ("'", '"'):
        return word[1:-1] if len(word) > 1 and word[-1] == word[0] else word[1:]
    return word


def _hidden_word(text: str, start: int, end: int, offset: int) -> tuple[int, int, str] | None:
    """The span of the word `text[start:end]` from `offset` on, and what shows instead: the
    value hidden, the quotes of a quoted value kept (`"[REDACTED]"`, `'STRIPE=[REDACTED]'`),
    whole otherwise; None for an empty one (`""`)."""
    at = start + offset
    for part in _PART.finditer(text, start, end):
        if part.end() <= at:
            continue
        found = part.group()
        opening = "$'" if found.startswith("$'") else found[:1]
        if opening not in _QUOTES:
            return at, end, REDACTED
        closing = opening[-1] if _closed(found, opening) else ""
        if part.start() < at:  # within a quoted part (`"STRIPE=X"`): its closing quote stays
            return at, end, REDACTED + (closing if part.end() == end else "")
        if part.end() < end:  # quoted parts and others: the rest whole
            return at, end, REDACTED
        if len(found) == len(opening) + len(closing):
            return None  # `""`: no value
        return at, end, opening + REDACTED + closing
    return None


_QUOTES = ("'", '"', "$'")


def _closed(part: str, opening: str) -> bool:
    """Whether a quoted part ends with its closing quote (not an escaped one in `"..."`)."""
    if len(part) <= len(opening) or part[-1] != opening[-1]:
        return False
    if opening == "'":
        return True
    escapes = len(part) - 1 - len(part[:-1].rstrip("\\"))
    return escapes % 2 == 0


def _stored_secrets(text: str, held: list[str]) -> str:
    """The text with the value each command of `_STORES` in it stores hidden: in a shell
    line (and what it is fed, `echo X |`, `<<< X`, a here-document), or in a list written
    out (`['gh', 'secret', 'set', 'N', '--body', 'X']`); a string `_held_strings` held out
    is hidden where it is held. Each stretch of text is read twice at most: a store's words
    from its program to its end, what feeds it between the last store's end and its
    program, a program's words up to the one that names no store (`_store_at`: the search
    for the next program goes on from there)."""
    hidden: list[tuple[int, int, str]] = []
    done = at = 0  # where the last store read ends, and where to look for the next
    while (program := _STORE_PROGRAM.search(text, at)) is not None:
        at = program.end()
        quote = text[program.start() - 1 : program.start()]
        if quote in ("'", '"') and text.startswith(quote, at):
            listed = _listed_store(text, program, held, hidden)
            at = done = max(at, listed)
            continue
        if _bare_listed(text, program.start()) and _BARE_NEXT.match(text, at):
            listed = _listed_store(text, program, held, hidden, bare=True)
            at = done = max(at, listed)
            continue
        words = _Words(text, at)
        items: list[str | None] = [program.group()]
        store, first = _store_at(items, 0, functools.partial(words.more, items))
        if store is None:  # (from the word that named no store on)
            at = max(at, words.spans[first - 1][0] if first <= len(words.spans) else words.at)
            continue
        words.read(len(text))
        items = [program.group(), *words.items()]
        substituted = len(hidden)
        for index, offset in _value_offsets(items, first, store).items():
            start, end = words.spans[index - 1]
            if not _no_value(text[start:end], offset):
                _hide(hidden, text, (start, end), offset)
        if program.group().startswith("s/"):  # in sed's `s/.../.../`: a value ends at a `/`
            hidden[substituted:] = [_to_slash(text, *span) for span in hidden[substituted:]]
        end = len(text) if words.end is None else words.end
        if store.piped:
            for herestring in words.herestrings:
                _hide(hidden, text, herestring, 0)
            delimiters = [*_fed(text, done, program.start(), hidden), *words.delimiters]
            end = _here_documents(text, end, delimiters, hidden)
        at = done = max(at, end)
    return _with_hidden(text, hidden)


def _to_slash(text: str, start: int, end: int, shown: str) -> tuple[int, int, str]:
    """A value's hidden span in a sed expression (`'s/gh secret set X --body Y/.../'`): to
    the `/` ending the pattern, not past it."""
    slash = text.find("/", start, end)
    return (start, end, shown) if slash < 0 else (start, slash, REDACTED)


def _no_value(word: str, offset: int) -> bool:
    """Whether a word a store's value would be is none: a placeholder in a usage line or a
    help text (`KEY=VALUE`, `K=V...`, `--body <value>`, `[flags]`, `...`), or, unquoted, a
    word of prose (`gh secret set with --body and the value`)."""
    quoted = word[:1] in ("'", '"')
    value = _unquoted(word)[offset:]
    if _BRACKETED.fullmatch(value) is not None or value == "...":
        return True
    stem = value.removesuffix("]").removesuffix("...").removesuffix("…")
    if len(stem) < len(value.removesuffix("]")) and _ANY_METAVAR.fullmatch(stem) is not None:
        return True  # `K=V...`, `VALUE...`, `<value>...` (not `hunter2...`, a value cut short)
    if _ANGLE_PLACEHOLDER.fullmatch(value) is not None:
        return True
    metavar = _METAVAR.fullmatch(value)
    if metavar is not None and metavar["last"] in _METAVAR_WORDS:
        return True
    return not quoted and value in _PROSE_WORDS


_BRACKETED = re.compile(r"\[(?:[a-z]++(?:-[a-z]++)*+\]|[A-Z]++(?:_[A-Z]++)*+\]?)")
# (words, a digit at most after them: `<000000>` and `<A00000>` are values)
_ANGLE_PLACEHOLDER = re.compile(r"<[A-Za-z_][A-Za-z_ .:-]{0,63}+\d?+>")
_ANY_METAVAR = re.compile(
    r"\[?+(?:[A-Z]++(?:[_-][A-Z]++)*+\d?+|" + _ANGLE_PLACEHOLDER.pattern + ")"
)
_METAVAR = re.compile(r"(?:[A-Z]++[_-])*+(?P<last>[A-Z]++)\d?+")
_METAVAR_WORDS = frozenset(
    {"VALUE", "VAL", "SECRET", "TOKEN", "PASSWORD", "DATA", "TEXT", "STRING", "BODY"}
)
# (a secret that is one of these words is none a store is given)
_PROSE_WORDS = frozenset(
    {"and", "or", "the", "a", "an", "to", "with", "then", "of", "in", "on", "for", "from"}
    | {"your", "its", "it", "this", "that", "is", "as", "value", "flag", "option"}
)


def _hide(
    hidden: list[tuple[int, int, str]], text: str, word: tuple[int, int], offset: int
) -> None:
    """The word spanning `word` hidden from `offset` in it as the table reads it (without
    the quote opening it: `_unquoted`)."""
    start, end = word
    shown = _hidden_word(text, start, end, offset + (text[start] in ("'", '"')))
    if shown is not None:
        hidden.append(shown)


def _fed(text: str, done: int, program_at: int, hidden: list[tuple[int, int, str]]) -> list[str]:
    """What a store whose program opens at `program_at` is fed in a pipeline, read from
    `done` (where the last store read ended) on: the operands of each `echo` or `printf`
    in it hidden, and its here-strings; the delimiters of its here-documents."""
    pipe = _pipe_before(text[done:program_at])
    if pipe is None:
        return []
    pipe += done
    search = done
    while (feeder := _FEEDER.search(text, search, pipe)) is not None:
        segments: list[tuple[str, _Words]] = []
        literal = feeder["literal"] is not None  # (a string alone: its command is "")
        command = "" if literal else feeder.group()
        words = _Words(text, feeder.end(), glued=literal)
        if literal:
            words.read(2)
            if len(words.spans) != 1:  # a string opening a command of words (`'' echo X`)
                search = feeder.end() + 1
                continue
        while True:
            words.read(len(text))
            segments.append((command, words))
            end = len(text) if words.end is None else words.end
            if end == pipe:
                return _fed_values(text, segments, hidden)
            if end > pipe or not text.startswith("|", end) or text.startswith("||", end):
                break
            words = _Words(text, end + 1, glued=True)
            words.read(1)
            if not words.spans:
                break
            command = text[slice(*words.spans.pop())]
        search = max(feeder.end(), end)
    return []


def _pipe_before(before: str) -> int | None:
    """Where the `|` feeding a command whose words `before` precedes is: the last thing in
    it, spaces and a line continued aside, and what runs the program (`npx`, `sudo -E`,
    `env K=V`: `_RUNNERS`, their flags, variables set)."""
    for _ in range(_RUNNERS_READ + 1):
        before = before.rstrip()
        if before.endswith("\\"):  # `| \` and a line break
            before = before[:-1].rstrip()
        if before.endswith("|"):
            return None if before.endswith("||") else len(before) - 1
        kept_word = before.rsplit(None, 1)
        if len(kept_word) < 2:
            return None
        before, word = kept_word
        if not (word in _RUNNERS or word.startswith("-") or "=" in word):
            return None
    return None


_RUNNERS = frozenset(
    {"npx", "bunx", "pnpx", "dlx", "pnpm", "yarn", "sudo", "doas", "env", "exec", "command"}
)
_RUNNERS_READ = 4


def _fed_values(
    text: str, segments: list[tuple[str, _Words]], hidden: list[tuple[int, int, str]]
) -> list[str]:
    delimiters: list[str] = []
    for command, words in segments:
        first = 0
        if command in ("echo", "printf") or command.lower() == "write-output":
            first = _echoed([command, *words.items()])
        if (not command and len(words.spans) == 1) or 0 < first == len(words.spans):
            _hide_fed(hidden, text, words.spans[-1])  # one word (a string alone: PowerShell's)
        elif 0 < first < len(words.spans):  # the words it joins: hidden as one
            hidden.append((words.spans[first - 1][0], words.spans[-1][1], REDACTED))
        for herestring in words.herestrings:
            _hide(hidden, text, herestring, 0)
        delimiters += words.delimiters
    return delimiters


def _hide_fed(hidden: list[tuple[int, int, str]], text: str, word: tuple[int, int]) -> None:
    """One word fed to a store hidden in its quotes, unless it is no value: empty (`''`),
    `-`, a placeholder (`'<value>'`: `_no_value`)."""
    written = text[slice(*word)]
    if _unquoted(written) not in ("", "-") and not _no_value(written, 0):
        _hide(hidden, text, word, 0)


def _here_documents(
    text: str, end: int, delimiters: list[str], hidden: list[tuple[int, int, str]]
) -> int:
    """The lines of each here-document opened on the line a command ends on (`end`), in
    turn, hidden (each whole), to its delimiter's line, or not closed, to the text's end;
    where the last one ends (`end` when none opened)."""
    if not delimiters:
        return end
    newline = text.find("\n", end)
    for delimiter in delimiters:
        if newline < 0:
            return len(text)
        body = newline + 1
        closing = re.compile(r"^[ \t]*+" + re.escape(delimiter) + r"[ \t]*+\r?$", re.M)
        found = closing.search(text, body)
        body_end = len(text) if found is None else max(body, found.start() - 1)
        if body_end > body and text[body_end - 1] == "\r":
            body_end -= 1
        if body_end > body:
            hidden.append((body, body_end, REDACTED))
        if found is None:
            return len(text)
        newline = found.end() if found.end() < len(text) else -1
    return len(text) if newline < 0 else newline


# an item of a list written out after the program's (JSON's `"`, a repr's `'`; a string
# `_held_strings` held out, `"\0N\0"`, too)
# (or, cut off, not closed: to its line's end, the list's last item read)
_LIST_ITEM = re.compile(
    r"""\s{0,64}+,\s{0,64}+(?:"((?:[^"\\\n]++|\\.)*+)"?|'((?:[^'\\\n]++|\\.)*+)'?)"""
)
# a program's arguments given apart from it (`"command": "gh", "args": [`), to their first
_ARGUMENTS_APART = re.compile(
    r"""\s{0,64}+,\s{0,64}+(["'])(?:args|argv|arguments)\1\s{0,64}+:\s{0,64}+\[(?=\s{0,64}+["'])"""
)
_FIRST_ITEM = re.compile(_LIST_ITEM.pattern.replace(r"\s{0,64}+,", "", 1))
# a YAML flow list's items need no quotes (`args: [gh, secret, set, N, --body, X]`): its
# program opens it, or follows an item, and an item follows; an item is quoted, or a run
# to its `,` or `]` (its trailing spaces not in it)
_BARE_NEXT = re.compile(r"\s*+,")
_BARE_ITEM = re.compile(_LIST_ITEM.pattern[:-1] + r"|([^\s,\[\]\"'](?:[^,\[\]\n]*[^\s,\[\]])?))")


def _bare_listed(text: str, start: int) -> bool:
    """Whether the word at `start` is an item of a YAML flow list: after its `[` or an
    item's `,` (spaces between)."""
    before = text[max(0, start - 64) : start].rstrip()
    return before.endswith(("[", ","))


def _listed_store(
    text: str,
    program: re.Match[str],
    held: list[str],
    hidden: list[tuple[int, int, str]],
    *,
    bare: bool = False,
) -> int:
    """A store's argv written out as a list whose item `program` is (quoted, or `bare`, a
    YAML flow list's), or a program given apart from its list of arguments (`{'command':
    'gh', 'args': [...]}`, a repr or JSON cut off): its values hidden in their items (a
    held string's in `held`). Returns where what was read of the list ends."""
    spans = [program.span()]
    items: list[str | None] = [program.group()]
    holding: dict[int, int] = {}  # an item's index: the held string's it is
    at = program.end() + (0 if bare else 1)
    listed = _BARE_ITEM if bare else _LIST_ITEM
    if not bare and (arguments := _ARGUMENTS_APART.match(text, at)) is not None:
        at, listed = arguments.end(), _FIRST_ITEM

    def more() -> bool:
        """Whether one more item was read onto `items` (none after one cut off)."""
        nonlocal at, listed
        item = listed.match(text, at)
        if item is None or (spans[-1][1] == at and len(spans) > 1 and not bare):
            return False
        group = item.lastindex or 0
        content = item.group(group)
        # (a NUL in the text as it came: nothing was held out, `"\x000\x00"` is its own)
        if group == 1 and held and (index := _HELD.fullmatch(f'"{content}"')) is not None:
            holding[len(items)] = int(index[1])
            content = _held_content(held[int(index[1])])[0]
        spans.append(item.span(group))
        items.append(content)
        at = item.end()
        listed = _BARE_ITEM if bare else _LIST_ITEM
        return True

    store, first = _store_at(items, 0, more)
    if store is None:  # (from the item that named no store on, its quote)
        return spans[first][0] - 1 if first < len(spans) else at
    while more():
        pass
    for index, offset in _value_offsets(items, first, store).items():
        if index in holding:
            _hide_held(held, holding[index], offset)
        elif spans[index][0] + offset < spans[index][1]:
            hidden.append((spans[index][0] + offset, spans[index][1], REDACTED))
    return at


def _hide_held(held: list[str], index: int, offset: int) -> None:
    """A string `_held_strings` held out, its value from `offset` on hidden."""
    literal = held[index]
    content, closed = _held_content(literal)
    if content is None:
        return
    encoded = json.dumps(content[:offset] + REDACTED, ensure_ascii=literal.isascii())
    held[index] = encoded if closed else encoded[:-1]
