"""`name = value` in text wherever `is_secret_key(name)` holds, in any separator's
spelling, the value read whole (a string, a list or an object, a YAML value below)."""

from __future__ import annotations

import re

from toolrail.core.redact.flags import _cell_value_end
from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.names import is_secret_key
from toolrail.core.redact.quotes import _closes_on_its_line, _ends_a_string, _QuotesBefore
from toolrail.core.redact.reading import (
    _BARS,
    _ESCAPED_QUOTED,
    _ESCAPED_QUOTES,
    _ESCAPES_NO_QUOTE,
    _QUOTE_PAIRS,
    _SP,
    _SP_OR_CODE,
    _TERMINAL_CODE,
    _codes_start,
    _element_text,
    _indent_end,
    _within_quotes,
)
from toolrail.core.redact.structures import _ESCAPED_OPENING, _StructuresOf

# `name = value` in text, where the name is a whole run of name characters (never a piece
# of one) that `is_secret_key` calls secret: the same notion of a secret name, in any
# spelling, for text as for mapping keys. The name is matched alone, so a value is only
# consumed when it is replaced (`url=https://x?token=...` still finds `token=`).
# The name may be a quoted subscript set with `=` (`os.environ["DB_PASSWORD"] = X`,
# `$_ENV['API_KEY'] = X`; not a path's `$['password']: ...`).
# The separator is `=`, `:`, `:=`, Ruby's `=>`, an arrow (`->`, `→`), or a full-width `：`
# or `＝`, with any spaces around it (columns aligned far apart too); or, read as one, the
# `>` closing an XML element's tag (`<password>X</password>`: `_element_text`) and a
# table's bar between a name's cell and the next (`| password | X |`, `| password: | X |`,
# `` | `password` | ``, markdown's `| **password** |`: `_cell_value_end`).
# An element's tag is read from its `<`, with a namespace's prefix (`<wsse:Password`) and
# attributes (`<password type="text">`, over lines too) before its `>`; those are looked
# ahead at, so an attribute is read as a name in turn (`<div password='X'>`).
_NAME_ASSIGNED = re.compile(
    r"(?:(?P<tag><(?:[A-Za-z_][\w.-]{0,31}+:)?+)"
    # (after a colour, `\x1b[1mpin:`, the name is the code's rest)
    r"|(?<![A-Za-z0-9_.-])(?:(?<=\x1b\[)[0-?]{0,64}+[ -/]{0,4}+[@-~])?)"
    r"(?P<name>[A-Za-z0-9_.-]{1,128})"
    r"(?(tag)(?=(?P<element>(?:\s[^<>]{0,1024}+)?+(?<![/=-])>))|(?P<separator>"
    r"(?:[*`]{1,4}+|\\?(?:[\"'](?:\](?=[ \t]{0,32}+=))?+)?)"
    + _SP_OR_CODE
    + r"{0,32}+(?:[=-]>|→|(?::"
    + _SP
    + r"{0,8}+)?(?P<cell>["
    + _BARS
    + r"])|[:=：＝]=?)"
    + _SP_OR_CODE
    + r"{0,32}+))"
)
# The value after a secret name. A string is read with its escapes, so an escaped quote
# does not end it: `"..."`, `'...'`, and `\"...\"` inside JSON text held in a JSON string
# (where `\\` escapes the next escape) or `\'...\'` in a Python repr (`_ESCAPED_QUOTED`).
# A list or an object is taken to its matching bracket (`_Structures`). Anything else runs
# to a separator. Each alternative starts with a different character and no repeat can
# match what its neighbour does: linear.
_STRING_VALUE = re.compile(
    _ESCAPED_QUOTED + r'|"(?:[^"\\\n]++|\\[^\n])*+(")?'
    r"|'(?:[^'\\\n]++|\\[^\n])*+(')?"
    # to its closing quote, or cut off, to the line's end (or another opening: read once)
     + "".join(f"|{o}{_within_quotes(o)}*+([{c}])?" for o, c in _QUOTE_PAIRS.items())
)
_BARE_VALUE = re.compile(  # not into an escaped quote (`\\` is read whole: see `_VALUE_WORD`)
    # (a terminal code whole: `x\x1b[0m`, its `[` no bracket; `_codes_start` gives it back);
    # never a table's bar (`password: | X |`: the cell rule's), nor into an element's
    # closing tag (`<td>X</td>`)
    f"(?![{_BARS}])"
    r"(?:(?!</[A-Za-z])[^\s\"'&,;}\[\]\\\x1b]|"
    + _TERMINAL_CODE
    + r"|\x1b|"
    + _ESCAPES_NO_QUOTE
    + "){1,65536}"
)


_ASSIGNING = ("=", ":", "：", "＝", ">", "→", *_BARS)  # what sets a name apart from its value


def _redact_assignments(text: str) -> str:
    """`secret_name = value` with the value replaced whole, its quotes kept. In JSON text
    (the name quoted) a number, a list or an object is replaced by a string, so the text
    stays JSON; `null` stays, as `redact` keeps None."""
    parts: list[str] = []
    done = line_start = scanned = 0
    quotes_before = _QuotesBefore(text, '"')
    structures = _StructuresOf(text)
    for name in _NAME_ASSIGNED.finditer(text):
        if name.start() < done or not is_secret_key(name.group("name")):
            continue
        start = name.end("element") if name.group("element") else name.end()
        separator = name.group("separator")
        if name.group("element") or name.group("cell"):
            hidden: tuple[int, ...] | None  # what to hide, and where the value ends
            if name.group("cell"):  # `| password | X |`: the next cell, one word
                colon = ":" in separator  # (`password: |` opening a line is YAML's)
                hidden = _cell_value_end(text, name.start("name"), start, line_opens=not colon)
            else:  # `<password>X</password>`: the element's text, to its own closing tag
                # (a CDATA section's content, `<![CDATA[` and `]]>` kept)
                tag = text[name.start() + 1 : name.end("name")]
                hidden = _element_text(text, start, tag)
            if hidden is not None:
                parts += (text[done : hidden[0]], REDACTED, text[hidden[1] : hidden[-1]])
                done = hidden[-1]
                continue
            if not (name.group("cell") and ":" in separator):
                continue
            start = name.start("cell")  # `password: |`, no cell: a YAML block's header
            separator = text[name.end("name") : start]
        while text.startswith(("''", '""'), start) and _JOINED.match(text, start + 2):
            start += 2  # `password=''X`: an empty string, the value joined on by the shell
        if text.startswith("$'", start) and _closes_on_its_line(text, start + 2, "'"):
            start += 1  # a shell's `$'...'` quoting, closed on its line: `$` stays
        opening = text[start : start + 1]
        if (
            opening == '"'
            and separator[:1] != '"'
            and _ends_a_string(quotes_before, name.start(), start)
        ):
            continue  # `["PASSWORD=", "x"]`: that quote ends the string the name is in
        if (
            (opening == "'" or opening == '"')
            and separator[:1] != opening
            and text[name.start("name") - 1 : name.start("name")] == opening
        ):
            # `['CREDENTIAL=']` (a field's path), `'password=' + pw`: so too; but a value
            # joined on by the shell (`-d 'password='X`, `'token='"X"`, `"password="X`)
            # is the value
            start += 1
            if text.startswith("\\''", start):
                start += 2  # `'\''`: a quote the value opens with, then the rest quoted
            if not _JOINED.match(text, start) or text.startswith(REDACTED, start):
                continue
            if text.startswith("$'", start) and _closes_on_its_line(text, start + 2, "'"):
                start += 1
            opening = text[start : start + 1]
        if text.startswith("'\\''", start):
            start += 3  # (within a quoted string, `sh -c 'export TOKEN='\''X'`): so too
            opening = "'"
        tags = _TAGS_BETWEEN.match(text, start) if ":" in separator else None
        if tags is not None:  # `<b>Password:</b> X`, `<td>Password:</td><td>X</td>`
            start = tags.end()
            opening = text[start : start + 1]
        # quoted as the name is: `"passwords": [...]` and `"pin": 1234` stay JSON
        named = separator[:2] if separator.startswith("\\") else separator[:1]
        named = named if named in ('"', "'", *_ESCAPED_QUOTES) else ""
        if named == '"' and (next_line := _JSON_BELOW.match(text, start)) is not None:
            start = next_line.end()  # JSON's value on a line below its key: hidden there
            opening = text[start]
        elif ":" in separator or "：" in separator:  # YAML: a value on the lines below
            newline = text.rfind("\n", scanned, name.start())  # each line start found once
            line_start, scanned = (newline + 1 if newline >= 0 else line_start), name.start()
            below = _yaml_block_end(text, start, line_start, name.start())
            if below is not None:
                spaced = "" if separator[-1:].isspace() else " "
                parts += (text[done:start], spaced, REDACTED)
                done = below
                continue
        if opening == "[" or opening == "{":
            if text.startswith(REDACTED, start):
                continue  # an earlier pass's
            escaped = bool(named == '\\"' or _ESCAPED_OPENING.match(text, start))
            end, whole = structures[escaped].end(start)
            quote = named
            closed = quote if whole else ""
        elif value := _STRING_VALUE.match(text, start):
            quote = text[start : start + 2] if opening == "\\" else opening
            closed = value.group(value.lastindex) if value.lastindex is not None else ""
            if value.end() - start == len(quote) + len(closed):
                continue  # no value, or an empty one (as `redact` keeps "")
            if not closed and text.startswith(f"{REDACTED}:", start + len(quote)):
                continue  # hidden already, a quote left open (`['k='[REDACTED]: ...`)
            end = value.end()
        elif value := _BARE_VALUE.match(text, start):
            if value.group() in _NO_VALUE:
                continue
            quote = named
            end, closed = value.end(), quote
            if "\x1b" in value.group():  # `x\x1b[0m`: the colour is reset
                end = _codes_start(text, start, end)
            if ">" in value.group() and _in_a_tag(text, name.start()):
                end = _attribute_end(text, start, end)  # `<div token=X>...`
            elif tags is not None and "<" in value.group():
                end = text.index("<", start)  # `X<br>`: markup ends it
            if "*/" in value.group() and _in_a_comment(text, name.start()):
                end = text.index("*/", start)  # `/* password: X */`: the comment's close
                if end == start:
                    continue
        else:
            continue
        parts += (text[done:start], quote, REDACTED, closed)
        done = end
    return "".join(parts) + text[done:] if parts else text


_NO_VALUE = frozenset({"null", "None"})
# after a JSON key's `:`, its line's end and the spaces before its value on the next line:
# a string, a list or an object (a YAML list's `- ` below a quoted key stays YAML's; past a
# blank line, quoted prose)
_JSON_BELOW = re.compile(r"[ \t]*+\r?\n[ \t]{0,256}+(?=[\"\[{])")
_TAG_OPENING = re.compile(r"<[A-Za-z_][\w.:-]{0,63}+\s")


def _in_a_comment(text: str, at: int) -> bool:
    """Whether `at` is within a block comment (`/* ... */`) opened before it (on its line
    or a few lines up): a `*/` in a value there closes the comment (elsewhere, a value's)."""
    opening = text.rfind("/*", max(0, at - 1024), at)
    return opening >= 0 and text.find("*/", opening + 2, at) < 0


def _in_a_tag(text: str, at: int) -> bool:
    """Whether `at` is within an element's tag, among its attributes (`<a href=x token=`)."""
    opening = text.rfind("<", max(0, at - 1024), at)
    return (
        opening >= 0
        and text.find(">", opening, at) < 0
        and _TAG_OPENING.match(text, opening) is not None
    )


def _attribute_end(text: str, start: int, end: int) -> int:
    """Where an unquoted attribute's value from `start` ends: at its tag's `>` (or `/>`)."""
    closing = text.find(">", start, end)
    return closing - 1 if text[closing - 1] == "/" and closing - 1 > start else closing


# an element closed after a label, and others opened, before the value they label
_TAGS_BETWEEN = re.compile(
    r"(?:</[A-Za-z][\w:-]{0,31}+>\s{0,8}+){1,4}+(?:<[A-Za-z][\w:-]{0,31}+(?:\s[^<>]{0,256}+)?+>\s{0,8}+){0,4}+"
)
_JOINED = re.compile(r"[^\s\]\[,;:)}+|&<>#.]")  # what a shell joins onto a closed quote


# a YAML block scalar's header (`|`, `>-`, `|+2`), after an anchor or a tag, or nothing,
# to the end of the line
_BLOCK_OPENER = re.compile(
    r"(?:[&!][^\s]{0,256}+"
    + _SP
    + r"*+){0,2}+(?:[|>][0-9+-]{0,2})?"
    + _SP
    + r"*+(?:#[^\r\n]*+)?(?=\r?\n)"
)


def _yaml_block_end(text: str, start: int, line_start: int, name_at: int) -> int | None:
    """Where a YAML value opening at `start` ends when it is on the lines below its name (a
    block scalar, `password: |`, or a value, list or mapping on the next lines): after the
    last line indented more deeply than the name's (or as deeply, starting `- `); None when
    the name does not open its line as a YAML key does (`if password:` in code, `ERROR
    auth:` in a log) or no such line follows. Each line is looked at once."""
    if name_at - line_start > 64 or text[line_start:name_at].strip(" \t-\"'"):
        return None
    opener = _BLOCK_OPENER.match(text, start)
    if opener is None:
        return None
    indent = _indent_end(text, line_start) - line_start
    listed = text.startswith("-", line_start + indent)  # `- password:`: an item's key
    end = None
    at = opener.end() + (2 if text.startswith("\r\n", opener.end()) else 1)
    while at < len(text):
        newline = text.find("\n", at)
        line_end = len(text) if newline < 0 else newline
        content = _indent_end(text, at)
        if content < line_end and text[content] != "\r":  # not a blank line
            deeper = content - at > indent
            if not (deeper or (content - at == indent and not listed and text[content] == "-")):
                break
            end = line_end - (1 if text[line_end - 1] == "\r" else 0)
        at = line_end + 1
    return end
