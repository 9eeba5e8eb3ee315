"""Commands that store a secret (`stores`' table), read in text: in a shell line, or an
argv written out as a list.

A value goes whole, its quotes kept (`--body "[REDACTED]"`, `"STRIPE=[REDACTED]"`); an empty
one stays (`--body ""`). A command's words are read as a shell reads them, over a line
continued (`\\`, `` ` `` or `^` and a line break), to what ends the command (`;`, `|`, `&`,
a parenthesis, a backtick, a line's end) or a quote ending the string the command is written
in (`'fly secrets set A=X', ...`); a redirection's target is no argument. A quoted word is
read to its closing quote over lines (within `_OVER_LINES`; else to its line's end),
`$(...)` too, so `--body "$(cat <<'EOF' ... EOF )"` goes whole. A word that is a placeholder
in a usage line or a help text is no value (`KEY=VALUE`, `K=V...`, `[flags]`, `<value>`,
`...`; not `hunter2...`, a value cut short), nor, unquoted, a word of prose (`gh secret set
with --body and the value`: `and`): the rule is kept wherever the command is, since a log's
`ran: gh secret set ...` is one too. In a sed expression (`'s/gh secret set X --body
Y/.../'`) a value ends at the `/`. A list written out and cut off inside an item (a preview)
has that item read to its end.

>>> from toolrail.core.redact import redact_text
>>> redact_text("echo -n hunter2 | gh secret set DB --repo o/r && fly secrets set A='x y'")
"echo -n [REDACTED] | gh secret set DB --repo o/r && fly secrets set A='[REDACTED]'"
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence

from toolrail.core.redact.held import _HELD, _held_content
from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.reading import _CONTINUATION, _SP, _reach, _with_hidden
from toolrail.core.redact.stores import _STORES, _store_at, _value_offsets


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
        holding = _holding(items, held)
        substituted = len(hidden)
        for index, offset in _value_offsets(items, first, store).items():
            start, end = words.spans[index - 1]
            if index in holding:  # a JSON string held out: hidden where it is held
                _hide_held(held, holding[index], offset)
            elif not _no_value(text[start:end], offset):
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


def _holding(items: list[str | None], held: list[str]) -> dict[int, int]:
    """The items that are strings `_held_strings` held out (`"\\0N\\0"`), by index: which
    held string each is, the item made what it holds (`"API_KEY=X"` is a key and a value)."""
    holding: dict[int, int] = {}
    if not held:
        return holding
    for index, item in enumerate(items):
        if item is not None and (found := _HELD.fullmatch(f'"{item}"')) is not None:
            content = _held_content(held[int(found[1])])[0]
            if content is not None:
                holding[index], items[index] = int(found[1]), content
    return holding


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
