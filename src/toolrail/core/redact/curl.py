"""curl's `-u user:password`: the password after the first colon, in text and in an argv."""

from __future__ import annotations

import json
import re

from toolrail.core import redact as _policy  # called back: the policy recurses
from toolrail.core.redact.held import _HELD, _held_content
from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.quotes import _opens, _quote_counts
from toolrail.core.redact.reading import _ANY_DASH, _SP, _UNICODE_DASH, _reach

# `curl -u user:password` (`--user`, `-U`, `--proxy-user`, `-su` among other flags; `—user`
# as a word processor writes it): all of the argument after its first colon, where curl
# splits it, is the password (`_curl_passwords`). The argument is an item of a list written
# out (`"-u", "me:pw"`), the rest of the flag's own item (`"-u me:p w"`), or else a word
# as the shell reads it, in parts (`"me":"pw"`, `me:"p w"`, `$'me:pw'`, `me:p\ w`).
_CURL_CLUSTER = "[sSfLkvIiGgjJlNnOqRZpaV#0-6]{0,8}?"  # flags taking no value (`-fsSLu`)
_CURL_USER_FLAG = re.compile(
    r"(?<![^\s\"'])(?:(?:" + _ANY_DASH + "{2}|" + _UNICODE_DASH + ")(?:proxy-user|user)(?![\\w-])"
    r"|" + _ANY_DASH + _CURL_CLUSTER + "[uU])"
)
_CURL_GAP = re.compile(  # between the flag and its word: spaces, `=`, a line continued
    r"(?:" + _SP + r"{0,256}+\\\r?\n" + _SP + r"{0,256}+|" + _SP + r"{1,256}+|=)?"
)
_QUOTED_ITEM = {  # the rest of an item the flag opens, to its closing quote (escapes read)
    quote: re.compile(r"(?:[^\\" + quote + r"]|\\.)*+", re.DOTALL) for quote in "'\""
}
_NEXT_ITEM = re.compile(  # `"-u", "me:pw"`: from the closing quote of the flag's item
    r"[\"']\s{0,16},\s{0,16}(\"(?:[^\"\\]|\\.)*+\"?|'(?:[^'\\]|\\.)*+'?)", re.DOTALL
)


# A part of a shell word. A quoted part ends at its closing quote (on a later line too), or
# at the end of the text (a preview cut); a quote that closes neither way is a character.
# After a flag in a "string" (`"curl -u me:pw", "x"`), a `"` before what ends a string in
# JSON (`,` `]` `}` `:`, a space, the end) ends that string, and the word.
def _shell_parts(opens: str = "") -> str:
    """The parts; `opens`, what must follow a `"` that opens a part or is one. A bare part
    runs to the shell's whitespace, ASCII's (a no-break space is a character to it)."""
    return (
        r"\$'(?:[^'\\]|\\.){0,4096}+(?:'|\\?\Z)|'[^']{0,4096}+(?:'|\Z)"
        r"|\""
        + opens
        + r"(?:[^\"\\]|\\.){0,4096}+(?:\"|\\?\Z)|\\.|[^ \t\n\r\f\v\"'\\$]++|\$|'|\\|\""
        + opens
    )


_SHELL_PART = re.compile(_shell_parts(), re.DOTALL)
_CURL_WORD = {
    inside: re.compile("(?:" + _shell_parts(opens) + ")++", re.DOTALL)
    for inside, opens in (("", ""), ('"', r"(?![,\]}:\s]|\Z)"))
}
_COLON_OR_HELD = re.compile(r':|"\0(\d++)\0"')
_CLOSING = {"'": "'", '"': '"', "$": "'"}  # the quote closing a part opened so
_ENDS_AN_ITEM = ("", ",", "]", "}", ")", ":", "\n", "\r")


def _curl_passwords(text: str, held: list[str]) -> str:
    """The text with the password after each curl user flag hidden (see `_CURL_USER_FLAG`),
    and in each string held out (`_held_strings`) that is a flag with its value."""
    quotes = _quote_counts(text)
    parts: list[str] = []
    done = at = 0
    while (flag := _CURL_USER_FLAG.search(text, at)) is not None:
        at = flag.end()
        quote = text[flag.start() - 1 : flag.start()]
        if quote in ("'", '"'):  # the flag opens an item (or a quoted word)
            end = _reach(_QUOTED_ITEM[quote], text, at)
            if end > at:  # a value in the flag's own item: `"-u me:p w"`, `"--user=me:pw"`
                start = _reach(_CURL_GAP, text, at, end)
                shown = _after_colon(held, text[start:end])
            elif (item := _NEXT_ITEM.match(text, at)) is not None and item[0][0] == quote:
                start, end = item.start(1), item.end(1)
                shown = _after_colon(held, item[1], quoted=True)
            elif text.startswith(quote, at) and text[at + 1 : at + 2] not in _ENDS_AN_ITEM:
                start, end, shown = _curl_word(text, at + 1, held, "")  # `'-u' 'me:pw'`
            else:  # `["--user", {...}]`, `{"--user": ...}`: no value to read
                continue
        else:
            inside = "" if _opens(quotes['"'], flag.start()) else '"'
            start, end, shown = _curl_word(text, at, held, inside)
        if shown is not None:
            parts += (text[done:start], shown)
            done = end
        at = max(at, end)
    if held:
        for index, literal in enumerate(held):  # `["curl", "-u me:pw sk-..."]`
            content = _held_content(literal)[0]
            if content is not None and _curl_user_flag(content):
                _hide_held_password(held, index)
    return "".join(parts) + text[done:] if parts else text


def _curl_word(text: str, at: int, held: list[str], inside: str) -> tuple[int, int, str | None]:
    """Where the shell word after a flag ending at `at` starts and ends, and what it shows
    instead (None: itself), the password after its first colon hidden and a quote the
    colon is in closed again."""
    start = _reach(_CURL_GAP, text, at)
    word = _CURL_WORD[inside].match(text, start)
    if word is None:
        return start, start, None
    for part in _SHELL_PART.finditer(text, start, word.end()):
        found = part.group()
        if held and (index := _HELD.fullmatch(found)) is not None:
            if _hide_held_password(held, int(index[1])):
                return start, word.end(), text[start : part.end()]
            continue
        colon = found.find(":")
        if colon >= 0:
            kept = part.start() + colon + 1
            if not text[kept : word.end()].strip("'\"$\\\r\n"):  # `-u KEY:`: the key is the user
                return start, word.end(), REDACTED + ":"
            closed = _CLOSING.get(found[0], "") if len(found) > 1 else ""
            return start, word.end(), text[start:kept] + REDACTED + closed
    return start, word.end(), None  # `-u me`: curl asks for the password


def _after_colon(held: list[str], value: str, *, quoted: bool = False) -> str | None:
    """An item's `user:password` (`quoted`: with its quotes) as `user:[REDACTED]`; None if
    it shows no password. A string held out (`_held_strings`) keeps its user."""
    if quoted and held and (index := _HELD.fullmatch(value)) is not None:
        return value if _hide_held_password(held, int(index[1])) else None
    closing = value[-1] if quoted and len(value) > 1 and value[-1] == value[0] else ""
    for found in _COLON_OR_HELD.finditer(value, 1 if quoted else 0):
        if found.group() == ":":
            if found.end() >= len(value) - len(closing):  # `KEY:`: the user is the key
                return f"{value[0]}{REDACTED}:{closing}" if quoted else REDACTED + ":"
            return value[: found.end()] + REDACTED + (value[0] if quoted else "")
        if held and _hide_held_password(held, int(found[1])):
            return value[: found.end()] + (value[0] if quoted else "")
    return None


def _hide_held_password(held: list[str], index: int) -> bool:
    """The held string as `user:[REDACTED]`, if it holds a colon: curl splits its argument
    at the first, and the rest of it, spaces and all, is the password."""
    literal = held[index]  # as `_held_strings` encoded it (redacted): cut off if the text was
    content, closed = _held_content(literal)
    if content is None or ":" not in content:
        return False
    encoded = json.dumps(_user_kept(content), ensure_ascii=literal.isascii())
    held[index] = encoded if closed else encoded[:-1]
    return True


def _user_kept(value: str) -> str:
    """curl's `user:password` as `user:[REDACTED]` (a value with no colon goes whole, and
    the user of an empty password: `KEY:` is how many APIs take a key)."""
    user, colon, password = value.partition(":")
    if colon and not password:  # `KEY:`: an API key as the user, no password
        return REDACTED + ":"
    return _policy.redact_text(user) + colon + REDACTED if colon else REDACTED


def _curl_user_flag(item: str) -> str | None:
    """What follows curl's user flag opening an argv item (`-u`, `--user`, `—user`, `-su`):
    "" for the flag alone, else the value glued to it (`-uuser:pw`, `--user=user:pw`,
    `-u user:pw` as one item); None if no such flag opens it."""
    flag = _CURL_USER_FLAG.match(item)
    if flag is None:
        return None
    return item[_reach(_CURL_GAP, item, flag.end()) :]


def _is_curl(item: object) -> bool:
    """Whether an argv item names curl (`curl`, `/usr/bin/curl`, `CURL.EXE`)."""
    if not isinstance(item, str) or not (
        item[-4:].lower() == "curl" or item[-8:].lower() == "curl.exe"
    ):
        return False
    return item.replace("\\", "/").rsplit("/", 1)[-1].lower() in ("curl", "curl.exe")
