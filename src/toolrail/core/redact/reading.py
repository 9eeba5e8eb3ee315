"""The pieces every text pass reads with: spaces and terminal codes, quotes, dashes, a word
as a value, and replacing the spans found."""

from __future__ import annotations

import re

from toolrail.core.redact.names import _DASHES

# space within a line, in any script's spelling (a non-breaking space, an ideographic one)
_SP = r"[^\S\r\n]"
# a terminal's escape code (a CSI sequence: a colour, `\x1b[0m`, an erased line, `\x1b[K`),
# which shows nothing: between a name or a flag and its value it sets apart nothing the
# value is read without, and those ending a value are no part of it (the colour is reset)
_TERMINAL_CODE = r"\x1b\[[0-?]{0,64}+[ -/]{0,4}+[@-~]"
_CODES = "(?:" + _TERMINAL_CODE + "){0,16}+"
# the escape opening a terminal code, raw or spelt as an escape: in JSON text (`\u001b`, or
# `\\u001b` in JSON text held in a JSON string), a Python repr (`\x1b`), a shell (`\033`)
_ESC = r"(?:\x1b|\\{1,2}(?:u001[bB]|x1[bB]|033))"
# a table's bar between cells: ASCII's, and a box-drawing table's (`│ password │ X │`)
_BARS = "|│┃║"
_SP_OR_CODE = "(?:" + _SP + "|" + _TERMINAL_CODE + ")"  # (no code opens with a space)
# a JSONC (or JavaScript) comment read whole, so a bracket or a quote in one is none: to its
# line's end, or its `*/` (one never closed runs to the end); and one read where a structure
# is looked for from every bracket, 256 characters at most and closed (linear however many)
_COMMENT = r"//[^\n]*+|/\*(?:[^*]++|\*(?!/))*+(?:\*/)?"
_SHORT_COMMENT = r"//[^\n]{0,256}+(?![^\n])|/\*(?:[^*]|\*(?!/)){0,256}+\*/"
# the quotes other than `"` and `'` a value is written in (a word processor's, CJK corner
# brackets, guillemets, full-width ones), each opening one and what closes it
_QUOTE_PAIRS = {
    "“": "”",
    "„": "“”",
    "”": "”",
    "‘": "’",
    "‚": "‘’",
    "«": "»",
    "»": "«»",
    "‹": "›",
    "›": "‹›",
    "「": "」",
    "『": "』",
    "〈": "〉",
    "《": "》",
    "【": "】",
    "〔": "〕",
    "〝": "〞〟",
    "＂": "＂",
    "＇": "＇",
}
_OPENING_QUOTES = "".join(_QUOTE_PAIRS)


def _within_quotes(opening: str) -> str:
    """A character of a value opened by one of the other quotes: to its closing quote, or,
    not closed (a preview cut off, a closing quote mistyped), to its line's end; another
    opening ends it too, so each stretch is read once. A flag's value and a name's read it
    so alike (`--password「x y`, `password=「x y`)."""
    return f"[^{opening}{_QUOTE_PAIRS[opening]}\\r\\n]"


_ANY_QUOTE = "".join(sorted({*_OPENING_QUOTES, *"".join(_QUOTE_PAIRS.values())}))
# a word: to a space or a quote, and not into an escaped quote (`\"` in JSON text; `\\`,
# an escaped backslash, is read whole, so the quote after it still ends the string)
_ESCAPES_NO_QUOTE = r"\\\\|\\(?![\"\\\r\n])"
"""An escaped backslash, read whole, or a backslash escaping anything but a quote (or a line
end: a backslash before one continues the line, it is no part of a word)."""


def _escaped_quoted(quote: str) -> str:
    """A string in escaped quotes `quote` (`\\"...\\"`, `\\'...\\'`), read with its escapes
    (`\\\\` escapes the next escape), to its closing escaped quote (caught) or, cut off, its
    line's end."""
    return rf"\\{quote}(?:[^{quote}\\\n]++|\\[^{quote}\\\n]|\\\\(?:[^\\\n]|\\[^\n]))*+(\\{quote})?"


# a string in text held in a JSON string (`\"...\"`), or in a Python repr of a string holding
# both kinds of quote (`'... --password=\'X\' -e "..."'`): read alike, each to its own quote
_ESCAPED_QUOTED = _escaped_quoted('"') + "|" + _escaped_quoted("'")
_ESCAPED_QUOTES = ('\\"', "\\'")
_VALUE_WORD = r"""(?:[^\s"'\\]++|""" + _ESCAPES_NO_QUOTE + ")++"
_UNICODE_DASH = (  # one of `_DASHES` but `-`, raw or escaped in JSON text (`\u2014`, `\\u2014`)
    "(?:[" + _DASHES[1:] + r"]|\\{1,2}u(?i:" + "|".join(f"{ord(d):04x}" for d in _DASHES[1:]) + "))"
)
_ANY_DASH = "(?:-|" + _UNICODE_DASH + ")"
# not glued to a word: after a non-word character, or an escape of one in JSON text
_NOT_GLUED = r"(?:(?<!\w)|(?<=\\[nrtfb])|(?<=\\u[0-9a-fA-F]{4}))"
_FLAG_OPENING = "(?:--?|" + _NOT_GLUED + _UNICODE_DASH + ")" + _ANY_DASH + "{0,2}"
# a space, raw or escaped in JSON text (a tab, a no-break space, ...), once or twice over
_SPACE = r"(?:" + _SP + r"|\\{1,2}t|\\u(?:00[aA]0|200[0-9aA]|202[fF]|205[fF]|3000))"
# a line continuation: a shell's `\` at a line's end, or PowerShell's `` ` `` or cmd's `^`
# after a space (not markdown's code span), the line's end raw or escaped in JSON text
# (`\\\n`, `` `\n ``): the two lines are one command, as if a space stood for it
_CONTINUATION = r"(?:\\(?:\r?\n|\\\\(?:r\\)?n)|(?<=" + _SP + r")[`^](?:\r?\n|\\(?:r\\)?n))"


def _reach(pattern: re.Pattern[str], text: str, at: int, end: int | None = None) -> int:
    """Where `pattern`, which matches nothing too, ends matched at `at` (before `end`)."""
    found = pattern.match(text, at, len(text) if end is None else end)
    return at if found is None else found.end()


_TERMINAL_CODE_WHOLE = re.compile(_TERMINAL_CODE)


def _codes_start(text: str, start: int, end: int) -> int:
    """Where the terminal codes that end the word `text[start:end]` start (`end` if none
    do), read from its end, each code once; the word is never left empty."""
    while end > start and "@" <= text[end - 1] <= "~":
        opening = text.rfind("\x1b[", max(start + 1, end - 72), end)
        if opening < 0 or _TERMINAL_CODE_WHOLE.fullmatch(text, opening, end) is None:
            break
        end = opening
    return end


_INDENT = re.compile(r"[ \t]*")


def _with_hidden(text: str, hidden: list[tuple[int, int, str]]) -> str:
    """`text` with each span `(start, end, shown)` of `hidden` replaced by `shown`; a span
    within one replaced already (a part of a value hidden whole) is skipped."""
    if not hidden:
        return text
    parts: list[str] = []
    done = 0
    for start, end, shown in sorted(hidden):
        if start >= done:
            parts += (text[done:start], shown)
            done = end
    return "".join(parts) + text[done:]


_SPACES = re.compile(r"\s*+")


def _indent_end(text: str, at: int) -> int:
    found = _INDENT.match(text, at)
    return found.end() if found is not None else at


# An XML element's text (`<password>X</password>`): to its own closing tag, or cut off
# (at the end of the text, or within its closing tag: `<password>X<`) one word glued to its
# start tag, not only closing quotes and stops (`echo "<TOKEN>"`: a placeholder quoted);
# another tag ending it first makes it no value (`Enter <token> here.</p>`: a placeholder
# in prose), nor does a text of spaces alone
_ELEMENT_TEXT = re.compile(r"[^<]++")
_GLUED_WORD = re.compile(r"(?![\"'`)\]},;.]++$)[^<\s]++")
_XML_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-")


def _element_text_end(text: str, start: int, tag: str) -> int | None:
    """Where the text of the element `tag` (its qualified name, `wsse:Password`) opening at
    `start` ends, as `_ELEMENT_TEXT` tells; None if it has none."""
    found = _ELEMENT_TEXT.match(text, start)
    if found is None or found.group().isspace():
        return None
    end = found.end()
    closing = "</" + tag.lower()
    after = text[end : end + len(closing) + 1].lower()
    if after.startswith(closing) and after[len(closing) :] not in _XML_NAME_CHARS:
        return end  # (its own closing tag; cut off after its name, or `>` or a space next)
    if end + len(after) == len(text) and (closing + ">").startswith(after):
        return end if _GLUED_WORD.fullmatch(text, start, end) else None  # cut off
    return None


# An element's text that is a CDATA section (`<password><![CDATA[X]]></password>`, spaces
# around it too), its content the value, whatever it holds (`<`, `&`): to `]]>`, adjacent
# sections read as one (`]]]]><![CDATA[>`: a `]]>` in a value), or cut off, to the end. A
# section's content is read to the next opening too, so each stretch is read once.
_CDATA_OPENING = re.compile(r"\s*+<!\[CDATA\[")
_CDATA_CONTENT = re.compile(r"(?:[^\]<]++|\](?!\]>)|<(?!!\[CDATA\[))*+(?P<closed>\]\]>)?")


def _element_text(text: str, start: int, tag: str) -> tuple[int, int, int] | None:
    """The text of the element `tag` opening at `start` as a value: where what is hidden
    starts and ends (a CDATA section's content: `<![CDATA[` and `]]>` stay), and where the
    text ends; None if it has none (`_element_text_end`, or an empty section)."""
    cdata = _CDATA_OPENING.match(text, start)
    if cdata is None:
        end = _element_text_end(text, start, tag)
        return None if end is None else (start, end, end)
    content = at = cdata.end()
    while True:
        section = _CDATA_CONTENT.match(text, at)
        assert section is not None  # (matches nothing at least)
        at = section.end()
        if not (section.group("closed") and text.startswith("<![CDATA[", at)):
            break
        at += 9  # (`<![CDATA[`: the next section goes on the value)
    hidden_end = at - 3 if section.group("closed") else at
    return None if hidden_end == content else (content, hidden_end, at)
