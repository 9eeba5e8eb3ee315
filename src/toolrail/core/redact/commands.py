"""Headers and commands that carry a password: `Authorization:` and `Cookie:` values,
`mysql -pX`, `sshpass -p X`, `.netrc`'s `password X`."""

from __future__ import annotations

import re

from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.quotes import _opens, _QuotesBefore
from toolrail.core.redact.reading import _BARS, _SP, _VALUE_WORD

_QUOTED_PART = "|".join(
    # not a quote that ends a JSON string (one followed by `,` `:` `]` `}`); no group to
    # capture the quote, which `re` cannot hold inside a possessive repeat
    rf"{quote}(?!\s*+[,:}}\]])[^{quote}\n\r]*+{quote}?"
    for quote in ('"', "'")
)
"""A quoted part of a header value, to its closing quote, or to its line's end when it does
not close (cut off, or longer than anything a reader would wrap)."""


# `: ` (with the quote opening the value, not one that ends a JSON string); after a JSON
# key, `": "` and only a string (`"Cookie": 1` or `[...]`: the assignments take it whole,
# and JSON stays JSON)
_HEADER_SEPARATOR = (
    '"' + _SP + "{0,8}+:" + _SP + '{0,8}+"|'
    "'?" + _SP + "{0,8}+[:=：＝]" + _SP + "{0,8}+(?:[\"'](?!\\s*+[,:}\\]]))?"
)
_HEADER = re.compile(  # any scheme (`token`, `Digest ...`): the whole header value, to
    # its line's end, with its quoted parts: a scheme's credential (`Bearer "..."`, or glued,
    # `token"..."`) and parameters (`Digest username="u", response="..."`, `a="b"; c="d"`),
    # and a quote inside a token (`ab'cd`); a quote after a space or before `,` `}` `]` or a
    # space ends it (the end of the string holding the header, or prose)
    r"((?i:authorization|cookie)(?:" + _HEADER_SEPARATOR + r"))(?=[^\"'\n\r])"
    r"(?:[A-Za-z][\w-]{0,31}[ \t]{0,4}(?:" + _QUOTED_PART + "))?"
    r"(?:\\.|=(?:" + _QUOTED_PART + r")|(?<=[\w+/=.~-])[\"'](?=[\w+/=.~-])"
    r"|[^\"'\n\r\\])*+"
)
# a value after a flag: quoted (`-p'x y'`) when its quote closes on the line, else a word
_WORD_OR_QUOTED = (
    r"""(?:(?<=')[^'\n]{1,4096}+(?=')|(?<=")[^"\n]{1,4096}+(?=")|""" + _VALUE_WORD + ")"
)
_MYSQL_PASSWORD = re.compile(  # `mysql -phunter22`: the value is glued to -p
    r"((?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb)\b[^\n]{0,256}?"
    + _SP
    + r"-p['\"]?)"
    + _WORD_OR_QUOTED
)
_SSHPASS = re.compile(
    r"(\bsshpass\b[^\n]{0,256}?" + _SP + "-p" + _SP + r"{0,8}['\"]?)" + _WORD_OR_QUOTED
)
_NETRC = re.compile(  # `machine h login u password X`, or `password X` opening a line
    r"((?:\blogin" + _SP + r"{1,8}[^\s]{1,256}" + _SP + r"{1,8}|^" + _SP + r"{0,64})"
    r"(?:password|passwd)" + _SP + r"{1,8}(?:(?:is|was)" + _SP + r"{1,8})?)"
    # neither a separator (`password -> X`), nor a copula (`password is X`), nor a table's
    # bar (psql's ` password | X`: the cells' pass reads it) is the value
    r"(?![-=]>)[^\s=:：＝→" + _BARS + r"][^\s]{0,511}",
    re.MULTILINE,
)


def _glued_password(quotes: dict[str, _QuotesBefore], found: re.Match[str]) -> str:
    """`mysql -p'x'`, `sshpass -p x`: the value goes, unless the quote after `-p` ends the
    string the command is in (`"mysql -u root -p", ...`): then it opens no value."""
    kept = found.group(1)
    quote = kept[-1]
    if quote in "'\"" and not _opens(quotes[quote], found.end(1) - 1):
        return found.group()
    return kept + REDACTED
