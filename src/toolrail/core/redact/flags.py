"""A secret flag's value in text: `--password X`, `--token=X`, an item of a list written
out, a table's next cell."""

from __future__ import annotations

import bisect
import re

from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.names import _DASHES, hides_next, is_secret_key
from toolrail.core.redact.quotes import _ends_a_string, _QuotesBefore
from toolrail.core.redact.reading import (
    _ANY_DASH,
    _BARS,
    _CODES,
    _CONTINUATION,
    _ESC,
    _ESCAPES_NO_QUOTE,
    _FLAG_OPENING,
    _OPENING_QUOTES,
    _QUOTE_PAIRS,
    _SP,
    _SPACE,
    _TERMINAL_CODE,
    _VALUE_WORD,
    _codes_start,
    _with_hidden,
    _within_quotes,
)
from toolrail.core.redact.structures import _bare_end, _StructuresOf

# `--password X`, `--db-token=X`, `--password 'x y'`: a flag whose value is a secret
# (`hides_next`) and how its value opens (a quote, or nothing: a word); the lookahead leaves
# the value for `_hidden_values`, which may be a flag itself.
# A flag also opens with dashes a word processor makes of `-` and `--` (`—password`; in
# ASCII JSON text `\u2014password`), not glued to a word. Its value is set apart by `=`,
# spaces (a tab escaped in JSON text too), a comma (an item of a YAML flow list,
# `[--password, x]`: see `_flow_item`), or a line continuation and a newline (`\`; a
# spaced PowerShell `` ` `` or cmd `^`, not markdown's code span), raw or escaped in JSON.
_FLAG_WORD = re.compile(
    r"(?P<flag>"
    + _FLAG_OPENING
    + r"[A-Za-z][\w.-]{0,63}+)"
    + "(?P<codes>"
    + _CODES
    + r")(?:=|"
    + _SP
    + r"{0,8}(?P<comma>,)"
    + _SP
    + r"{0,8}|"
    + _SP
    + r"{0,8}+"
    + _CONTINUATION
    + _SP
    + r"{0,32}|"
    + _SP
    + r"{0,8}+(?P<cell>["
    + _BARS
    + "])"
    + _SP
    + r"{0,8}+"  # a table's cell: see `_TABLE_VALUE`
    r"|" + _SPACE + "{1,8}"
    r"|(?=[" + _OPENING_QUOTES + "]))"  # `--token「X」`: a quote opening the value sets it apart
    r"(?:" + _TERMINAL_CODE + _SP + r"{0,8}+){0,16}+"
    r"(?:(?=(?P<v>\$?'|\\\"|\\'|\"|[" + _OPENING_QUOTES + r"]))"
    r"|(?=[^\s\"'=:\\]|[=:](?!\s)|\\(?![\"'\r\n])))"
)
# terminal codes around a flag in its item (`"\x1b[1m--token\x1b[0m"`), raw or spelt as
# escapes (`_ESC`): as between a flag and its value in text, they set nothing apart
_ITEM_CODES = r"(?:" + _ESC + r"\[[0-?]{0,64}+[ -/]{0,4}+[@-~]){0,16}+"
# a flag written as an item of a list (JSON, a Python repr, JSON text inside a JSON string,
# its quotes `\"`), the next item its value: a string (`v`, its opening quote left for the
# next match, which may be a flag itself) or a bare JSON value (`bare`: a number, a list, ...)
_FLAG_ITEM = re.compile(
    r"(?P<q>\\\"|[\"'])"
    + _ITEM_CODES
    + r"(?P<flag>"
    + _ANY_DASH
    + r"{1,3}[A-Za-z][\w.-]{0,63}+)"
    + _ITEM_CODES
    + r"(?P=q)"
    r"(?:\s|\\[nrt]){0,16},(?:\s|\\[nrt]){0,16}(?:(?=(?P<v>\\\"|[\"']))|(?=(?P<bare>[-\d\[{tfn])))"
)
_INNER_CHAR = r'[^"\\\n]++|\\[^"\\\n]'  # not a quote nor a backslash of the text inside
_SINGLE_QUOTED = (  # to its closing quote, or cut off: to the end of its line
    r"""(?:[^'\\\n"]++|\\[^\n]|"(?!\s*+(?:[,:}\]]|\Z)|[ \t]*+\r?\n))++(?=['\n]|\Z)"""
)
_ITEM_VALUE = {  # a flag's value after its opening quote, its escapes read, however long
    "": re.compile(_VALUE_WORD),  # not quoted: a word
    # JSON's quote: to its closing quote, or to the end of the line of cut-off JSON text
    '"': re.compile(r'(?:[^"\\\n]++|\\[^\n])++'),
    # a shell's or a repr's: to its closing quote on the line, or cut off, to the end of
    # the line, passing no `"` that ends a JSON string (one followed by `,` `:` `]` `}`, a
    # line's end or the text's); if that `"` comes first, only a word (a `'` inside a JSON
    # string opens no quote that runs over the rest of the line)
    "'": re.compile(_SINGLE_QUOTED + "|" + _VALUE_WORD),
    '\\"': re.compile(r"(?:" + _INNER_CHAR + r"|\\\\(?:\\\"|\\\\|" + _INNER_CHAR + r"))++"),
}
_ITEM_VALUE["$'"] = _ITEM_VALUE["'"]  # a shell's `$'...'`: read as `'...'`
# a repr's `\'...\'` (a string holding both quotes): to the escaped quote closing it
_ITEM_VALUE["\\'"] = re.compile(r"(?:[^'\\\n]++|\\[^'\n])++")
# the other quotes: to its closing quote, or not closed, to its line's end (as a name's)
_ITEM_VALUE.update(
    (opening, re.compile(_within_quotes(opening) + "++")) for opening in _QUOTE_PAIRS
)
_FLOW_VALUE = re.compile(r"""(?:[^\s"'\\,\]}]++|""" + _ESCAPES_NO_QUOTE + ")++")  # to , ] }
_FLAG_AHEAD = re.compile(_FLAG_OPENING + r"[A-Za-z][\w.-]{0,63}+(?![\w.=-])")  # not a value
# after a flag that hides its value, another (`--token --password x`) is a flag of its own
# only if a value of its own follows it: a word on its line (not a shell's `|`, `>`, ...)
# or an item, neither opening with a dash; else it is the first one's value
# (`--password -Secret4!`, `--token —tokenX` at the end of the line or before `--host`)
_OWN_VALUE = {
    True: re.compile(r"[\"']?" + _SP + r"++(?!" + _ANY_DASH + r"|[|&;<>#)`]|\d*+[<>]|\\$)\S", re.M),
    False: re.compile(r"[ \t]*+,\s*+(?:\\?[\"'])?+(?!" + _ANY_DASH + r"|[\]}])\S"),
}
_ESCAPED_DASH = re.compile(r"\\{1,2}u[0-9a-fA-F]{4}")
_DASH = re.compile(_ANY_DASH)
_WORD_CHAR = re.compile(r"\w")


def _in_a_word(text: str, flag: re.Match[str]) -> bool:
    """Whether a flag found in text is the end of a word, no flag (`create-secret`,
    `x-password`), set apart from what follows by a space, not `=` (`x-password=-X` assigns)."""
    at = flag.start()
    return (
        at > 0
        and _WORD_CHAR.match(text, at - 1) is not None
        and not text.startswith("=", flag.end("codes"))
    )


def _a_flags_value(text: str, flag: re.Match[str]) -> bool:
    """Whether a flag found glued to a word is in the value of a flag before it
    (`kubectl -n external-secrets get`: a namespace, no flag hiding `get`)."""
    at = flag.start()
    word = _WORD_BEFORE.search(text, max(0, at - 128), at)
    return word is not None and (
        _FLAG_BEFORE.search(text, max(0, word.start() - 80), word.start()) is not None
    )


_WORD_BEFORE = re.compile(r"\S{1,128}+\Z")  # (read to `at`: the end given to `search`)
_FLAG_BEFORE = re.compile(r"(?<!\S)--?[A-Za-z][\w.-]{0,63}+[ \t]++\Z")
# a flag's value in parentheses: PowerShell's expression, a cmdlet called (`-SecretValue
# (ConvertTo-SecureString 'X' -AsPlainText)`: what it holds that is a secret goes, read as
# that command's), or a string first (`-Password ('X')`: that string goes)
_PARENTHESISED = re.compile(r"\([ \t]*+(?:(?P<cmdlet>[A-Za-z]{2,32}+-[A-Za-z])|(?P<quote>['\"]))")


def _hidden_values(text: str, flags: re.Pattern[str]) -> str:
    """The value after each flag that hides it in argv data (`hides_next`), as a word
    (`--db-password X`, `--token 'x y'`) or as the next item of a list written out
    (`["psql", "--db-password", "X"`, cut off or not; a number or a list too, replaced by a
    string so JSON stays JSON); a bare `-p` only as an item (in prose it is more often a
    port than a password)."""
    parts: list[str] = []
    done = either = 0
    quotes_before = _QuotesBefore(text, '"')
    structures = _StructuresOf(text)
    if flags is _FLAG_WORD and _may_be_powershell(text):
        text = _powershell_values(text)
    for flag in flags.finditer(text):
        name, opening = flag.group("flag"), flag.group("v") or ""
        word = flags is _FLAG_WORD
        if (flag.start() < done and flag.start("flag") != either) or not _hides_value(name, word):
            continue
        if word and flag.group("cell"):  # `| --password | X |`: the next cell, one word
            if (cell := _cell_value_end(text, flag.start(), flag.end())) is not None:
                parts += [text[done : cell[0]], REDACTED]
                done = cell[1]
            continue  # (a cell of words says what the flag does; a shell's `|` is no value)
        if flag.groupdict().get("bare"):
            quote = flag.group("q")  # the value made a string, quoted as the flag is
            end = _bare_end(structures[quote == '\\"'], flag.end())
            if end > flag.end():
                parts += [text[done : flag.end()], f"{quote}{REDACTED}{quote}"]
                done = end
            continue
        start = flag.end() + len(opening)
        if word and text[start : start + 2].strip(" \t\r\n") in tuple(_BARS):
            continue  # a cell's bar at the end of its row, or a shell's `|`: no value
        if (
            word
            and not opening
            and _in_a_word(text, flag)
            and (_DASH.match(text, start) or _a_flags_value(text, flag))
        ):
            continue  # `create-secret --name x`: a word that is no flag has no dashed value
        if word and not opening and (expression := _PARENTHESISED.match(text, start)):
            if expression.group("cmdlet"):
                continue  # (a cmdlet called: its name no value; `_powershell_values`)
            opening = expression.group("quote")
            start = expression.end()
        after = _FLAG_AHEAD.match(text, start)
        if (
            after
            and _hides_value(after[0], word=False)
            and (word or text.startswith(opening, after.end()))
        ):
            if _OWN_VALUE[word].match(text, after.end() + (0 if word else len(opening))):
                continue  # `--no-auth-warning --pass x`: a flag of its own (an item whole)
            # the value, or a flag whose value starts with a dash: hidden, and its next too
            either = after.start()
        if word and opening == '"' and _ends_a_string(quotes_before, flag.start(), start - 1):
            continue  # `["--password=", "x"]`: that quote ends the string the flag is in
        if word and flag.group("comma"):
            if _flow_item(text, flag.start(), start - len(opening)):
                value = (  # not quoted: to `,` `]` `}`, none if one comes first
                    _ITEM_VALUE[opening] if opening else _FLOW_VALUE
                ).match(text, start)
            elif flag.start("comma") > flag.end("codes"):  # `--password ,x`: the comma
                value = _ITEM_VALUE[opening].match(text, start)  # begins the value
                start = flag.start("comma")
            else:
                continue
        else:
            value = _ITEM_VALUE[opening].match(text, start)
        if value is not None:
            parts += [text[done:start], REDACTED]
            done = value.end()
            if not opening and "\x1b" in value.group():  # `x\x1b[0m`: the colour is reset
                done = _codes_start(text, start, done)
    if not parts:
        return text
    parts.append(text[done:])
    return "".join(parts)


# the value in the cell after a flag's own (`| --password | X |`): one word, or a code
# span (`` `X` ``, its backticks kept), to the cell's end; a cell of words is what the flag
# does, in a documentation table
_TABLE_VALUE = re.compile(
    f"(?:`([^`{_BARS}\\r\\n]++)`|(?:[^{_BARS}\\s\\\\]|\\\\[^\\r\\n])++)"
    f"(?={_SP}*+(?:[{_BARS}]|\\r?\\n|\\Z))"
)
# what a documentation table's or a schema's cell says of a name, not its value: a type
# (a SQL one too, psql's `\d`), whether it is required, nothing (`| password | string |
# yes |`, `| token | integer |`, `| DB_PASSWORD | yes |` under `| Name | Secret |`); not
# `secret`, a demo's password as often as a column's heading
_SCHEMA_WORDS = frozenset(
    {
        *("string", "str", "text", "char", "bytes", "integer", "int", "number", "float"),
        *("double", "boolean", "bool", "object", "array", "list", "dict", "map", "null"),
        *("none", "yes", "no", "true", "false", "required", "optional", "n/a"),
        *("varchar", "uuid", "json", "jsonb", "bytea", "blob", "clob", "citext", "inet"),
        *("date", "datetime", "timestamp", "timestamptz", "bigint", "smallint", "numeric"),
        *("decimal", "real", "serial", "bigserial"),
        *("-", "–", "—", "✓", "✔", "✗", "x"),
    }
)
# a placeholder for a value, no value itself: `<password>`, or the name's own metavar
# (`| --token | TOKEN |`, `| --db-password | PASSWORD |`), never any capitalised word
_PLACEHOLDER = re.compile(r"<[^<>]{1,64}+>|(?P<metavar>[A-Z][A-Z_-]{1,63}+)")
_NOT_ALNUM = re.compile(r"[^a-z0-9]++")


def _cell_value_end(
    text: str, name_at: int, start: int, *, line_opens: bool = True
) -> tuple[int, int] | None:
    """What to hide (less the codes ending it) of the value in a table's cell opening at
    `start`, after a flag's or a name's cell opening at `name_at` (`| --password | X |`,
    `│ password │ X │`, psql's ` password | X` opening its line, a name in backticks);
    None if that is no cell (a shell's `|`), or its cell holds no one word (a cell of words
    says what the flag or the name is, in a documentation table), or a word that is no
    value: a type or a schema's word (`_SCHEMA_WORDS`), or a placeholder naming a secret
    (`_PLACEHOLDER`: `| --token | TOKEN |`). `line_opens`: a name opening its line opens a
    cell (not so after `password: |`, a YAML block's header)."""
    window = max(0, name_at - 64)
    before = text[window:name_at]
    line = before.rpartition("\n")
    if not before[-9:].rstrip(" \t`*").endswith(tuple(_BARS)) and (
        not line_opens or line[2].strip(" \t`*") or (not line[1] and window > 0)
    ):
        return None
    value = _TABLE_VALUE.match(text, start)
    if value is None:
        return None
    word = value.group(1) or value.group()
    if word.lower().rstrip(".,;") in _SCHEMA_WORDS or _is_placeholder(word, text, name_at, start):
        return None
    if value.group(1):
        return start + 1, value.end() - 1
    return start, _codes_start(text, start, value.end())


def _is_placeholder(word: str, text: str, name_at: int, start: int) -> bool:
    """Whether a cell's `word` stands for the value of the name whose cell opens at
    `name_at`: `<...>` naming a secret, or a metavar its name ends with (`TOKEN` for
    `--api-token`, `DB_PASSWORD` for `DB_PASSWORD`); `SUPERSECRET` is a password."""
    placeholder = _PLACEHOLDER.fullmatch(word)
    if placeholder is None:
        return False
    if placeholder.group("metavar") is None:
        return is_secret_key(word.strip("<>"))
    name = re.split(f"[{_BARS}]", text[name_at:start], maxsplit=1)[0]
    return _NOT_ALNUM.sub("", name.lower()).endswith(_NOT_ALNUM.sub("", word.lower()))


def _hides_value(flag: str, word: bool) -> bool:
    """Whether a flag found in text hides its value, as in argv data (`hides_next`); a bare
    `-p` only as an item (in prose it is more often a port than a password)."""
    if "\\" in flag:  # dashes escaped in ASCII JSON text (a name has no backslash)
        flag = _ESCAPED_DASH.sub("-", flag)
    return hides_next(flag) and not (word and flag.lstrip(_DASHES) == "p")


def _flow_item(text: str, flag_at: int, value_at: int) -> bool:
    """Whether a flag with a comma after it is an item of a flow list (`[--password, x]`:
    `[` or `,` before it) whose next item is its value, not another flag (`Options:
    --password, --token` lists flags)."""
    before = text[max(0, flag_at - 16) : flag_at].rstrip(" \t")
    return before.endswith(("[", ",")) and _FLAG_AHEAD.match(text, value_at) is None


# PowerShell's spellings of a secret given to a command (`_powershell_values`): a variable
# of the environment naming a secret (`Set-Item -Path Env:DB_PASSWORD -Value X`, `Env:\`
# too), or `ConvertTo-SecureString` given plain text (`-AsPlainText`, any prefix of it)
_POWERSHELL_WORDS = ("nv:", "NV:", "ecure", "ECURE", "lainText", "laintext", "LAINTEXT")


def _may_be_powershell(text: str) -> bool:
    """Whether text may hold what `_powershell_values` reads (`Env:`, `env:`, `ENV:`; the
    cmdlet, `-AsPlainText`, in the cases they are written in)."""
    return any(word in text for word in _POWERSHELL_WORDS)


_ENV_SETTING = re.compile(r"(?<![\w:$])(?i:env):\\?+(?P<name>[A-Za-z_][\w.-]{0,255}+)")
# (or what hid its name already: `$pw = ConvertTo-SecureString 'X' -AsPlainText` is an
# assignment to a secret's name, `$pw = [REDACTED] 'X' -AsPlainText` when read here)
# (a command in text: its words set apart by spaces, not an item of a list written out)
_SECURE_STRING = re.compile(
    r"(?:(?<![\w-])(?i:convertto-securestring)|=[ \t]{0,8}+(?P<hidden>"
    + re.escape(REDACTED)
    + r"))(?=[ \t]|"
    + _CONTINUATION
    + r"|[)|;\r\n]|\Z)"
)
# what ends a PowerShell command: a line's end (not continued), a statement's, a pipe, a
# parenthesis or a block; not within a string (read whole, on its line)
_COMMAND_END = re.compile(
    r"(?P<string>'(?:[^'\r\n]++|'')*+'|\"(?:[^\"`\r\n]++|`.)*+\")|(?:"
    + _CONTINUATION
    + r")|[\r\n;|&(){}]"
)
_PS_VALUE_FLAG = re.compile(r"(?<!\S)-(?i:value)(?::|[ \t]++(?:" + _CONTINUATION + r"[ \t]*+)?+)")
# a word of a command: a parameter (`-AsPlainText`, `-Key:$k`), a string (`'it''s'`, `"x"`,
# not closed: to the command's end), or a bare word
_PS_TOKEN = re.compile(
    r"[ \t]*+(?:" + _CONTINUATION + r"[ \t]*+)?+"
    r"(?:(?P<flag>--?[A-Za-z][\w-]{0,63}+)(?P<glued>[:=][^\s()|;]*+)?"
    r"|(?P<q>')(?:[^']++|'')*+'?|(?P<qq>\")(?:[^\"`]++|`.)*+\"?"
    r"|(?P<bare>[^\s'\"()|;&{}]++))"
)
_PLAIN_TEXT = frozenset("asplaintext"[:n] for n in range(3, 12))
_STRING = frozenset("string"[:n] for n in range(2, 7))
_TAKES_A_VALUE = frozenset({"key", "securekey", "erroraction", "ea", "outvariable", "ov"})


def _powershell_values(text: str) -> str:
    """PowerShell's secrets given to a command, hidden: a `-Value` in a command naming an
    environment variable that names a secret (`Set-Item -Path Env:DB_PASSWORD -Value X`,
    `New-Item Env:\\API_TOKEN -Value X`), and what `ConvertTo-SecureString` is given as
    plain text (`'X'`, `-String X`, or piped to it: `'X' | ConvertTo-SecureString
    -AsPlainText`); a variable (`$plain`) stays, as do the cmdlets and their switches."""
    hidden: list[tuple[int, int, str]] = []
    ends = [
        found.start()
        for found in _COMMAND_END.finditer(text)
        if not found.group("string") and found.group()[0] not in "`^\\"
    ]
    done = 0  # (each command read once)
    for env in _ENV_SETTING.finditer(text):
        if env.start() < done or not is_secret_key(env.group("name")):
            continue
        first, last = _command_around(ends, env.start(), len(text))
        done = last
        for flag in _PS_VALUE_FLAG.finditer(text, first, last):
            value = _PS_TOKEN.match(text, flag.end(), last)
            if value is not None and value.group("flag") is None:
                hidden.append(_token_hidden(value))
    for cmdlet in _SECURE_STRING.finditer(text):
        _, last = _command_around(ends, cmdlet.start(), len(text))
        following = _SECURE_STRING.search(text, cmdlet.end(), last)
        hidden += _plain_text(text, cmdlet, following.start() if following else last)
    return _with_hidden(text, [span for span in hidden if span[2]])


def _command_around(ends: list[int], at: int, length: int) -> tuple[int, int]:
    """Where the command holding `at` starts and ends, by what ends commands (`ends`)."""
    after = bisect.bisect_right(ends, at)
    return (ends[after - 1] + 1 if after else 0), (ends[after] if after < len(ends) else length)


def _token_hidden(token: re.Match[str]) -> tuple[int, int, str]:
    """A word of a command as it is hidden: a string's quotes kept; a variable, or an
    empty string, not hidden (an empty `shown`)."""
    start, end = token.start("q"), token.end()
    if token.group("q") or token.group("qq"):
        quote = token.group("q") or token.group("qq")
        start = token.start("q") if token.group("q") else token.start("qq")
        closed = end - start > 1 and token.string[end - 1] == quote
        inner = token.string[start + 1 : end - 1 if closed else end]
        return start, end, (quote + REDACTED + quote[: int(closed)]) if inner else ""
    bare = token.group("bare")
    start = token.start("bare")
    return start, end, "" if bare.startswith("$") else REDACTED


def _plain_text(text: str, cmdlet: re.Match[str], last: int) -> list[tuple[int, int, str]]:
    """What `ConvertTo-SecureString` found at `cmdlet` is given as plain text, its command
    read to `last`: its `-String`'s value or its first word not a parameter's, or a string
    piped to it; none without `-AsPlainText`."""
    tokens: list[re.Match[str]] = []
    at = cmdlet.end()
    while at < last and (token := _PS_TOKEN.match(text, at, last)) is not None:
        if token.end() == at:
            break
        at = token.end()
        tokens.append(token)
    plain, given = _plain_text_given(
        [
            (flag.lstrip("-").lower(), bool(token.group("glued")))
            if (flag := token.group("flag"))
            else None
            for token in tokens
        ],
        exact=bool(cmdlet["hidden"]),
    )
    if not plain:
        return []
    if given is not None:
        return [_token_hidden(tokens[given])]
    piped = _PIPED.search(text, max(0, cmdlet.start() - 1024), cmdlet.start())
    return [] if piped is None else [_token_hidden(piped)]


def _plain_text_given(
    parameters: list[tuple[str, bool] | None], *, exact: bool = False
) -> tuple[bool, int | None]:
    """Whether `ConvertTo-SecureString`'s parameters say `-AsPlainText` (any prefix of it;
    `exact`: whole), and which of them is the plain text it is given: its `-String`'s
    value, or its first word no parameter takes. Each is a flag's name, in lower case, and
    whether its value is glued to it (`-String:X`); or None, a word. An argv's items and a
    command's words in text are read alike."""
    plain = False
    given: int | None = None
    takes = ""
    for at, parameter in enumerate(parameters):
        if parameter is not None:
            name, glued = parameter
            plain = plain or (name == "asplaintext" if exact else name in _PLAIN_TEXT)
            takes = "" if glued else name
            continue
        if takes in _STRING or (given is None and takes not in _TAKES_A_VALUE):
            given = at
        takes = ""
    return plain, given


# a string piped to a command (`'X' | ConvertTo-SecureString`), read back from it
_PIPED = re.compile(
    r"""(?:(?P<q>')[^'\r\n]{0,1000}+'|(?P<qq>")[^"\r\n]{0,1000}+")(?=[ \t]*+\|[ \t]*+\Z)"""
)
