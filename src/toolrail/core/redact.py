"""The one redaction policy: secrets never reach a log, a screen, a file or a diagnostic.

Every place a value can surface uses it — the JSONL log (arguments, outputs, error messages
and details), the stream handler's progress text, spill files, library diagnostics, the
MCP server's error text, and the errors a call returns (`ExecutionFailed.from_exception`
and every `ArgumentIssue` redact their text when they are made):

- `is_secret_key(name)`: whether a name names a secret, in any spelling (`api_key`,
  `apiToken`, `dbPassword`, `secretKey`, `signingKey`, `X-Api-Key`, `Authorization`,
  `AccountKey`, `dsn`, `connectionString`, `DATABASE_URL`, `mfa_code`, `otp`, `masterKey`,
  `license_key`, `ssh_key`, `sig` and `X-Amz-Signature` (presigned URLs), ...); not
  `max_tokens`, `tokenizer`, nor `session` (a word too common to hide on its own; session
  ids and tokens are caught as `sessionId` and `session_token`), nor a reference to where a
  secret is kept (`secretKeyRef`, `passwordSecretRef`);
- `redact(value)`: a copy of JSON-like data where values under secret-named keys are
  replaced, a key that is a secret itself (`{"sk-...": 1}`, `{"password=x": 1}`) is
  redacted as text (`redact_name`; its entry stays, under a name of its own), argv flags
  like `--password X` / `--token=X` lose their values (`mysql -pX`, `sshpass -pX`, and
  curl's `-u user:pw` its password), a pair `["Authorization", "..."]` loses its second
  item, a name/value entry (`{"name": "DB_PASSWORD", "value": "..."}`, `{"Key": "password",
  "Value": ...}`, `ParameterKey`/`ParameterValue`) its value, as `{name: value}` would, and
  every string goes through `redact_text`;
- `redact_text(text)`: token-like substrings replaced — provider keys (`sk-...`,
  `sk-ant-...`), GitHub (`ghp_`, `gho_`, `github_pat_`), GitLab, Slack, AWS (`AKIA...`),
  Google (`AIza...`), Stripe, Hugging Face, npm, PyPI, JWTs — at the start of a run of
  token characters or after `.`, `_`, `-`, and the distinctive prefixes (`sk-ant-`,
  `sk-proj-`, `ghp_`, `github_pat_`, `AKIA`, `xoxb-`, `sk_live_`, `hf_`, `npm_`, `pypi-`,
  `glpat-`) anywhere, even glued to what precedes them (`Xghp_...`); PEM private keys
  (encrypted ones, and with escaped `\\n` inside JSON text); any `Authorization:` value
  whatever its scheme, and `Cookie:` / `Set-Cookie:` values; `Bearer`/`Basic`
  credentials; `user:pass@` in URLs (to the last `@`, or with a `/` in the password; the
  user may be empty, `redis://:pass@host`) and a long token as the user
  (`https://TOKEN@host`); a Slack webhook URL's path; `mysql -pX`, `sshpass -p X`,
  `curl -u user:X`, `.netrc`'s `password X`, a URL's `?key=X`; and `name = value` /
  `name: value` / `"name": "value"` (also inside JSON text; and `=>`, `->`, `→`, `：`, `＝`, any
  Unicode space, a YAML value on the lines below `name:`, an XML element `<name>value</name>`,
  a table's row `| name | value |`) wherever `is_secret_key(name)`
  holds, so text and mapping keys share one notion of a secret name (`secretKey=`,
  `AccountKey=`, `DB_PASSWORD=`, `SECRET_KEY_BASE=`), and `--secret X` written in text,
  or as an argv's items in a YAML block list (`- --secret` then `- X`), read as `redact`
  reads the list, and a name/value entry written as YAML (`- name: DB_PASSWORD` then
  `value: X`; indented JSON text too) or as a mapping on one line (JSON text cut off or
  after a log's prefix, a Python repr, a YAML flow mapping) or as pairs on one line outside
  any brackets (`name=DB_PASSWORD value=X`, an XML element's attributes, a JSON fragment),
  read as `redact` reads it. A flag's or a name's value in other quotes (`--token「X」`,
  `“X”`, `«X»`) goes with its quotes kept, and terminal codes in a flag's item hide nothing.
  The value goes whole, whatever it is: a string read with its escapes, a number, a list
  or an object to its matching bracket (JSON text stays JSON: `"passwords": "[REDACTED]"`,
  as `redact` gives for the data), or to the end of text cut off inside it (a preview).
  JSON text that is a document whole is redacted as its data is, by `redact`, and written
  as it was (indented or not): text and data agree by construction, and JSON text held in
  its strings is read as JSON at any depth. In other text (a line of a log, a preview cut
  off) each JSON string is also redacted as the text it holds, decoded;
- `redact_name(name)`: a name someone supplied (a key, the tool a model asked for when no
  tool answers to it) as it may be shown: `redact_text`, remembered for names that recur;
- `cut(value, max_bytes)`: redacted, then cut to size with a marker — the redaction looks
  past the cut, so a secret straddling it is replaced whole, never left as a prefix.

Every pattern is linear: no overlapping quantifiers, every repeat bounded or possessive
over what the next part cannot match, so a hostile 10 MB output costs a few passes over
it, never a backtracking stall.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import cast

import orjson

REDACTED = "[REDACTED]"
MAX_DEPTH = 64
"""How deep `redact` looks into data; a value deeper down is shown as `TOO_DEEP`."""
TOO_DEEP = "[TOO DEEP]"

# a key is secret if one of its words is one of these ("access_token", "X-Auth-Token",
# "clientSecret"), or its letters spell one of the compounds ("apitoken", "DBPASSWORD");
# "max_tokens" and "tokenizer" are not
_SECRET_WORDS = frozenset(
    {
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "authorization",
        "auth",
        "cookie",
        "credential",
        "credentials",
        "pwd",
        "bearer",
        "otp",
        "pin",
        "pass",
        "passcode",
        "creds",
        "jwt",
        "pw",
        "dsn",  # a data source name carries its password (`sentryDsn`, `DSN`)
        "totp",
        "sig",  # a shared access signature (`sig=` in an Azure SAS URL)
    }
)
_SECRET_PARTS = ("password", "passwd", "passphrase", "secret", "credential", "privatekey")
_SECRET_COMPOUNDS = (
    "encryptionkey",
    "apikey",
    "accesskey",
    "sessionid",
    "clientsecret",
    "authkey",
    "signingkey",
    "accountkey",  # Azure storage
    "connectionstring",
    "connstring",
    "databaseurl",
    "mfacode",
    "2facode",
    "masterkey",
    "licensekey",
    "licencekey",
    "sshkey",
    "amzsignature",  # presigned URLs: `X-Amz-Signature=`, `X-Goog-Signature=`
    "googsignature",
)
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# a name's last word saying it names where a secret is kept, not the secret: Kubernetes'
# `secretKeyRef` and `secretRef`, `passwordSecretRef`; one word (`secretref`) is no reference
_REFERENCE_WORDS = frozenset({"ref", "refs", "reference"})


@functools.lru_cache(maxsize=4096)  # the same flags come back call after call
def hides_next(flag: str) -> bool:
    """Whether an argv flag's value is the next item and a secret: `--password`,
    `--db-password`, `-token`, `--pass`, `-p` (mysql's, sshpass's), also opened with the
    dashes a word processor makes (`—password`).

    >>> [hides_next(f) for f in ("--db-password", "-p", "--verbose", "--max-tokens")]
    [True, True, False, False]
    """
    name = flag.lstrip(_DASHES)
    return is_secret_key(name) or name in ("pass", "p")


_DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uff0d"
"""What a flag opens with: `-`, and the dashes a word processor or a font makes of it (a
hyphen, figure, en and em dash, a bar, a minus sign, a full-width hyphen-minus)."""


@functools.lru_cache(maxsize=4096)  # the same keys come back call after call
def is_secret_key(key: str) -> bool:
    """Whether a mapping key names a secret.

    >>> [is_secret_key(k) for k in ("api_key", "apiToken", "max_tokens", "DBPASSWORD")]
    [True, True, False, True]
    """
    words = [w.lower() for w in _WORD.findall(key)]
    if words[-1:] and words[-1] in _REFERENCE_WORDS:
        return False  # where a secret is kept (`secretKeyRef`, `passwordSecretRef`): no secret
    if any(w in _SECRET_WORDS for w in words):
        return True
    joined = "".join(words)
    return (
        any(part in joined for part in _SECRET_PARTS)
        or any(compound in joined for compound in _SECRET_COMPOUNDS)
        or (joined.endswith("token") and len(joined) > len("token"))
    )


# Tokens are found in two linear steps: maximal runs of token characters (each character
# is looked at once), then each family matched only at the start of a run. Searching for
# the families directly would rescan a long run from every "eyJ" or "sk-" inside it:
# quadratic, which is how a 24 KB output once stalled the event loop.
_RUN = re.compile(r"[A-Za-z0-9_.-]{8,}")
# space within a line, in any script's spelling (a non-breaking space, an ideographic one)
_SP = r"[^\S\r\n]"
# a terminal's escape code (a CSI sequence: a colour, `\x1b[0m`, an erased line, `\x1b[K`),
# which shows nothing: between a name or a flag and its value it sets apart nothing the
# value is read without, and those ending a value are no part of it (the colour is reset)
_TERMINAL_CODE = r"\x1b\[[0-?]{0,64}+[ -/]{0,4}+[@-~]"
_CODES = "(?:" + _TERMINAL_CODE + "){0,16}+"
_SP_OR_CODE = "(?:" + _SP + "|" + _TERMINAL_CODE + ")"  # (no code opens with a space)
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
_ANY_QUOTE = "".join(sorted({*_OPENING_QUOTES, *"".join(_QUOTE_PAIRS.values())}))
_PREFIXED = (
    r"[srp]k-[A-Za-z0-9_-]{16,}"  # OpenAI / Anthropic keys (sk-..., sk-ant-..., sk-proj-...)
    r"|gh[pousr]_[A-Za-z0-9]{20,}"  # GitHub tokens
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
    r"|xox[abprs]-[A-Za-z0-9-]{10,}"  # Slack
    r"|A[KS]IA[0-9A-Z]{16}(?![0-9A-Za-z])"  # AWS access key ids
    r"|AIza[0-9A-Za-z_-]{35}"  # Google API keys
    r"|[srp]k_(?:live|test)_[A-Za-z0-9]{16,}"  # Stripe
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    r"|npm_[A-Za-z0-9]{36,}"  # npm
    r"|pypi-AgE[A-Za-z0-9_-]{40,}"  # PyPI (a macaroon: always `pypi-AgE...`)
)
# The prefixes no ordinary word contains, matched anywhere in a run, even glued to letters
# or digits before them (`Xghp_...`, `1sk-ant-...`, `xxxx...sk-ant-...`). Not the bare
# `sk-`/`pk-` family: "task-", "desk-", "bookmark-" end words.
_GLUED = (
    r"sk-(?:ant|proj|svcacct|admin)-[A-Za-z0-9_-]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{36,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abprs]-[0-9]{6,}-[A-Za-z0-9-]{6,}"
    r"|A[KS]IA[0-9A-Z]{16}(?![0-9A-Za-z])"
    r"|AIza[0-9A-Za-z_-]{35}"
    r"|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|npm_[A-Za-z0-9]{36,}"
    r"|pypi-AgE[A-Za-z0-9_-]{40,}"
)
_TOKEN_FAMILIES = re.compile(
    _PREFIXED + r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # JWTs
)
# The prefixed families again, anywhere in a run after `.`, `_` or `-` (`config.sk-...`,
# `token_ghp_...`), and the distinctive ones anywhere at all. Every alternative starts with
# a fixed prefix, then either fails within its fixed minimum length or consumes what it
# matched, so this stays linear. JWTs only at a run's start: their first part is unbounded.
_INNER_TOKENS = re.compile(r"(?<=[._-])(?:" + _PREFIXED + ")|" + _GLUED)
_PRIVATE_KEY = re.compile(
    # the body may carry headers (`Proc-Type: 4,ENCRYPTED`) and, inside JSON text (a
    # service-account file), escaped `\n`
    r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----"
    r"(?:[\s\\rn]{0,8}[A-Za-z-]{1,32}:[^\r\n\\]{0,256}){0,4}"
    r"[A-Za-z0-9+/=\s\\]{0,65536}"
    r"(?:-----END [A-Z ]{0,40}PRIVATE KEY-----)?"
)
_SCHEME_CREDENTIALS = re.compile(
    r"(?:[Bb]earer|BEARER|[Bb]asic|BASIC)" + _SP + r"{1,8}[A-Za-z0-9._~+/=-]{8,}"
)
# to the last `@` before any `/`; or with `/` but no `@`; the user may be empty (`redis://:pw@`)
_URL_CREDENTIALS = re.compile(
    r"(://)[^\s/:@]{0,256}:(?:[^\s/]{0,256}@|(?![0-9]{1,5}/)[^\s@]{0,256}@)"
)
# a Slack webhook's URL is its credential: the path after the route goes
_SLACK_WEBHOOK = re.compile(r"(hooks\.slack\.com/(?:services|workflows|triggers)/)[\w/-]{8,512}")
_URL_USER = re.compile(r"(://)([^\s/:@]{16,256})@")  # `https://TOKEN@host`: no password


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
# a word: to a space or a quote, and not into an escaped quote (`\"` in JSON text; `\\`,
# an escaped backslash, is read whole, so the quote after it still ends the string)
_ESCAPES_NO_QUOTE = r"\\\\|\\(?![\"\\\r\n])"
"""An escaped backslash, read whole, or a backslash escaping anything but a quote (or a line
end: a backslash before one continues the line, it is no part of a word)."""
_VALUE_WORD = r"""(?:[^\s"'\\]++|""" + _ESCAPES_NO_QUOTE + ")++"
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
    # neither a separator (`password -> X`) nor a copula (`password is X`) is the value
    r"(?![-=]>)[^\s=:：＝→][^\s]{0,511}",
    re.MULTILINE,
)
# `name = value` in text, where the name is a whole run of name characters (never a piece
# of one) that `is_secret_key` calls secret: the same notion of a secret name, in any
# spelling, for text as for mapping keys. The name is matched alone, so a value is only
# consumed when it is replaced (`url=https://x?token=...` still finds `token=`).
# The separator is `=`, `:`, `:=`, Ruby's `=>`, an arrow (`->`, `→`), or a full-width `：`
# or `＝`, with any spaces around it (columns aligned far apart too); or, read as one, the
# `>` closing an XML element's tag (`<password>X</password>`: `_ELEMENT_TEXT`) and a table's
# bar between a name's cell and the next (`| password | X |`: `_TABLE_VALUE`).
_NAME_ASSIGNED = re.compile(  # (after a colour, `\x1b[1mpin:`, the name is the code's rest)
    r"(?<![A-Za-z0-9_.-])(?:(?<=\x1b\[)[0-?]{0,64}+[ -/]{0,4}+[@-~])?([A-Za-z0-9_.-]{1,128})"
    r"(\\?[\"']?"
    + _SP_OR_CODE
    + r"{0,32}+(?:[=-]>|→|[:=：＝]=?|(?P<element>(?<!-)>)|(?P<cell>\|))"
    + _SP_OR_CODE
    + r"{0,32}+)"
)
# The value after a secret name. A string is read with its escapes, so an escaped quote
# does not end it: `"..."`, `'...'`, and `\"...\"` inside JSON text held in a JSON string
# (where `\\` escapes the next escape). A list or an object is taken to its matching
# bracket (`_Structures`). Anything else runs to a separator. Each alternative starts
# with a different character and no repeat can match what its neighbour does: linear.
_STRING_VALUE = re.compile(
    r'\\"(?:[^"\\\n]++|\\[^"\\\n]|\\\\(?:[^\\\n]|\\[^\n]))*+(\\")?'
    r'|"(?:[^"\\\n]++|\\[^\n])*+(")?'
    r"|'(?:[^'\\\n]++|\\[^\n])*+(')?"
    # to its closing quote, or cut off, to the line's end (or another opening: read once)
    + "".join(f"|{o}[^{o}{c}\\n]*+([{c}])?" for o, c in _QUOTE_PAIRS.items())
)
_BARE_VALUE = re.compile(  # not into an escaped quote (`\\` is read whole: see `_VALUE_WORD`)
    # (a terminal code whole: `x\x1b[0m`, its `[` no bracket; `_codes_start` gives it back)
    r"(?:[^\s\"'&,;}\[\]\\\x1b]|" + _TERMINAL_CODE + r"|\x1b|" + _ESCAPES_NO_QUOTE + "){1,65536}"
)
# inside a list or an object: its strings (read as strings, so a bracket in one is not
# one), and its brackets; in JSON text, or in JSON text held in a JSON string (`\"`)
_STRUCTURE = re.compile(r'"(?:[^"\\\n]++|\\[^\n])*+"?|\'(?:[^\'\\\n]++|\\[^\n])*+\'?|[\[\]{}]')
# (there, an escaped backslash is read whole, and a quote not escaped ends the string the
# JSON text is in: a list or object cut off in it ends there)
_ESCAPED_STRUCTURE = re.compile(
    r'\\"(?:[^"\\\n]++|\\[^"\\\n]|\\\\(?:[^"\\\n]|\\[^\n]))*+(?:\\")?|\\\\|[\[\]{}"]'
)
# a list or an object whose first string is written `\"`: JSON text in a JSON string
_ESCAPED_OPENING = re.compile(r'[\[{](?:[ \t]|\\[nrt])*+\\"')
# `--password X`, `--db-token=X`, `--password 'x y'`: a flag whose value is a secret
# (`hides_next`) and how its value opens (a quote, or nothing: a word); the lookahead leaves
# the value for `_hidden_values`, which may be a flag itself.
# A flag also opens with dashes a word processor makes of `-` and `--` (`—password`; in
# ASCII JSON text `\u2014password`), not glued to a word. Its value is set apart by `=`,
# spaces (a tab escaped in JSON text too), a comma (an item of a YAML flow list,
# `[--password, x]`: see `_flow_item`), or a line continuation and a newline (`\`; a
# spaced PowerShell `` ` `` or cmd `^`, not markdown's code span), raw or escaped in JSON.
_UNICODE_DASH = (  # one of `_DASHES` but `-`, raw or escaped in JSON text (`\u2014`, `\\u2014`)
    "(?:[" + _DASHES[1:] + r"]|\\{1,2}u(?i:" + "|".join(f"{ord(d):04x}" for d in _DASHES[1:]) + "))"
)
_ANY_DASH = "(?:-|" + _UNICODE_DASH + ")"
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
# not glued to a word: after a non-word character, or an escape of one in JSON text
_NOT_GLUED = r"(?:(?<!\w)|(?<=\\[nrtfb])|(?<=\\u[0-9a-fA-F]{4}))"
_FLAG_OPENING = "(?:--?|" + _NOT_GLUED + _UNICODE_DASH + ")" + _ANY_DASH + "{0,2}"
# a space, raw or escaped in JSON text (a tab, a no-break space, ...), once or twice over
_SPACE = r"(?:" + _SP + r"|\\{1,2}t|\\u(?:00[aA]0|200[0-9aA]|202[fF]|205[fF]|3000))"
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
    + r"{0,8}"
    r"(?:\\\r?\n|\\\\\\(?:r\\)?n)" + _SP + r"{0,32}|" + _SP + r"{1,8}"
    r"[`^](?:\r?\n|\\(?:r\\)?n)" + _SP + r"{0,32}"
    r"|" + _SP + r"{0,8}+(?P<cell>\|)" + _SP + r"{0,8}+"  # a table's cell: see `_TABLE_VALUE`
    r"|" + _SPACE + "{1,8}"
    r"|(?=[" + _OPENING_QUOTES + "]))"  # `--token「X」`: a quote opening the value sets it apart
    r"(?:" + _TERMINAL_CODE + _SP + r"{0,8}+){0,16}+"
    r"(?:(?=(?P<v>\$?'|\\\"|\"|[" + _OPENING_QUOTES + r"]))"
    r"|(?=[^\s\"'=:\\]|[=:](?!\s)|\\(?![\"\r\n])))"
)
# a flag written as an item of a list (JSON, a Python repr, JSON text inside a JSON string,
# its quotes `\"`), the next item its value: a string (`v`, its opening quote left for the
# next match, which may be a flag itself) or a bare JSON value (`bare`: a number, a list, ...)
# terminal codes around a flag in its item (`"\x1b[1m--token\x1b[0m"`), raw or escaped in
# JSON text (`\u001b`): as between a flag and its value in text, they set nothing apart
_ITEM_CODES = r"(?:(?:\x1b|\\{1,2}u001[bB])\[[0-?]{0,64}+[ -/]{0,4}+[@-~]){0,16}+"
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
# the other quotes: to its closing quote on the line (another opening ends the search, so
# each stretch is read once), else a word, to a space or a quote
_ITEM_VALUE.update(
    (
        opening,
        re.compile(
            f"[^{opening}{closing}\\r\\n]++(?=[{closing}])"
            + r"""|(?:[^\s"'\\"""
            + _ANY_QUOTE
            + "]++|"
            + _ESCAPES_NO_QUOTE
            + ")++"
        ),
    )
    for opening, closing in _QUOTE_PAIRS.items()
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
_JSON_SCALAR = re.compile(r"(?:-?[\d.eE+-]++|true|false|null)(?![\w\"'])")  # a number, a literal
# a URL's `key` parameter: an API key by convention (Google, Trello, Bing, ...); `key`
# alone is too common a name to be secret anywhere else
_QUERY_KEY = re.compile(r"((?<=[?&;])(?i:key)=)[^&#\s\"'<>]{1,2048}")
_SHORTEST_SECRET = 8


_Trie = dict[str, "_Trie"]


def _fragment_pattern(words: set[str]) -> re.Pattern[str]:
    """One search for any of `words`: those containing another are dropped (the shorter
    one is found wherever they are), and the rest share their prefixes, as a trie."""
    trie: _Trie = {}
    for word in sorted(w for w in words if not any(o != w and o in w for o in words)):
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return re.compile(_alternation(trie))


def _alternation(node: _Trie) -> str:
    if "" in node:  # a word ends here: no longer word through this node was kept
        return ""
    branches = [re.escape(char) + _alternation(child) for char, child in sorted(node.items())]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


# Whether text may hold a secret name, searched in the text lowercased with `_ . -` taken
# out: `is_secret_key(name)` decides on the name's letters and digits lowercased and joined
# (`_WORD` splits off nothing else), and holds only if that joined form contains one of
# these words (a secret word is contained in it; so is a part or a compound; and a name
# ending in "token" contains "token"). A name in the text is a run of `[A-Za-z0-9_.-]`, so
# its joined form is a substring of the text so reduced: no secret name escapes the search.
_NAME_WORDS = {*_SECRET_WORDS, *_SECRET_PARTS, *_SECRET_COMPOUNDS, "token"}
_SECRET_NAME = _fragment_pattern(_NAME_WORDS)
# The same search, widened to the other passes: a scheme (`Bearer x`, `basic x`), a header
# (the words its pass is guarded by: `(?i:...)` also matches `cookıe`, so "cookie" alone
# would not do), `mysql`/`mariadb`/`sshpass` (it contains "pass") `-p`, `curl -u`, and
# `.netrc`'s `password`. `--token`/`--api-key` flags and PEM keys ("PRIVATE KEY") hold a
# secret name already.
_MAY_REDACT = _fragment_pattern(
    {*_NAME_WORDS, "bearer", "basic", "uthorization", "ookie", "mysql", "mariadb", "curl"}
)


def _reduced(lowered: str) -> str:
    """Lowercased text without `_ . -`: names as `is_secret_key` reads them, joined."""
    if "." in lowered:
        lowered = lowered.replace(".", "")
    if "_" in lowered:
        lowered = lowered.replace("_", "")
    if "-" in lowered:
        lowered = lowered.replace("-", "")
    return lowered


def redact_text(text: str) -> str:
    """Text with token-like substrings and assigned secrets replaced.

    >>> redact_text("curl -H 'Authorization: Bearer abc.def.ghi123' https://u:pw@host/x")
    "curl -H 'Authorization: [REDACTED]' https://[REDACTED]@host/x"
    """
    if len(text) < _SHORTEST_SECRET:
        return text
    # No pass changes text without what its guard, or for tokens and PEM keys its pattern,
    # looks for; where none of that is in the text, it is returned as it is.
    if ("-" in text or "_" in text) and (_token_prefixed(text) or "-----BEGIN" in text):
        return _redact_passes(text)
    if ("://" in text and "@" in text) or "IA" in text or "AIza" in text or "eyJ" in text:
        return _redact_passes(text)
    if "hooks.slack.com/" in text or _query_key(text):
        return _redact_passes(text)
    if _MAY_REDACT.search(_reduced(text.lower())) is None and not _p_item(text):
        return text
    return _redact_passes(text)


_JSON_OPENING = re.compile(r"\s*+[\[{\"]")
_INDENT_OF = re.compile(r"\n([ \t]++)\S")
_SEPARATOR = re.compile(r'"(?:[^"\\]++|\\.)*+"|[,:]( ?)')  # the first `,` or `:` not in a string


@dataclasses.dataclass(frozen=True, slots=True)
class _Number:
    """A number of JSON text, as it was written (`1E5`, `1.10`, a 40-digit integer): `redact`
    passes it as it is, and it is written back in its own spelling."""

    spelling: str


class _AsWritten:
    """What `_redacted_json` writes back as it was read, marked while the data is redacted
    with a nonce no text can know: each number in its own spelling, and each key given
    twice in one object (the data holds one per key, so the others are renamed meanwhile,
    and each copy is read)."""

    def __init__(self) -> None:
        self.nonce = str(int.from_bytes(os.urandom(8), "big")).zfill(20)

    def read_object(self, pairs: list[tuple[str, object]]) -> dict[str, object]:
        made = dict(pairs)
        if len(made) == len(pairs):
            return made
        made = {}
        for index, (key, value) in enumerate(pairs):
            made[f"{key}\0K{self.nonce}{index}\0" if key in made else key] = value
        return made

    def number(self, number: object) -> str:
        """`_Number` as `json.dumps` writes it: a string `restored` turns back."""
        assert isinstance(number, _Number)
        return f"\0N{self.nonce}{number.spelling}\0"

    def restored(self, dumped: str) -> str:
        """The JSON `json.dumps` wrote, its numbers and renamed keys as they were read (a
        string in the data that looks like one of them stays as it is)."""
        if "\\u0000" not in dumped:
            return dumped
        dumped = _WRITTEN_NUMBER.sub(lambda found: self._ours(found, found.group(2)), dumped)
        return _RENAMED_KEY.sub(lambda found: self._ours(found, '"'), dumped)

    def _ours(self, found: re.Match[str], written: str) -> str:
        return written if found.group(1) == self.nonce else found.group()


_WRITTEN_NUMBER = re.compile(r'"\\u0000N(\d{20})([-+.\deE]++)\\u0000"')
_RENAMED_KEY = re.compile(r'\\u0000K(\d{20})\d++\\u0000"')
_SURROGATE = re.compile("[\ud800-\udfff]")


def _redacted_json(text: str) -> str | None:
    """JSON text (a document whole) redacted as `redact` redacts its data, and written as
    it was (indented or not, ASCII or not, each number as it was spelt) if anything goes:
    text and data agree by construction, JSON text held in its strings (at any depth) is
    read as JSON, and JSON stays JSON. None for the passes to read it as text: not JSON, or
    nesting deeper than `redact` (or the stack) goes."""
    escaped_surrogate = "\\ud" in text or "\\uD" in text
    try:
        orjson.loads(text)  # fails fast on what is not JSON
    except orjson.JSONDecodeError:  # (orjson refuses a lone surrogate, which JSON may hold)
        if not escaped_surrogate and _SURROGATE.search(text) is None:
            return None
    written = _AsWritten()
    try:
        data = json.loads(
            text, parse_float=_Number, parse_int=_Number, object_pairs_hook=written.read_object
        )
        shown = redact(data)  # (not `redacts_nothing` first: JSON text nested in it, read
    except (ValueError, RecursionError):  # twice at each depth, would cost twice at each)
        return None
    if shown == data:
        return text
    indent = _INDENT_OF.search(text) if "\n" in text.strip() else None
    separator = next((found for found in _SEPARATOR.finditer(text) if found[1] is not None), None)
    spaced = indent is not None or (separator is not None and separator[1] == " ")  # json.dumps
    dumped = json.dumps(
        shown,
        ensure_ascii=text.isascii() or escaped_surrogate,  # a lone surrogate stays escaped
        indent=indent.group(1) if indent else None,
        separators=(", " if indent is None else ",", ": ") if spaced else (",", ":"),
        default=written.number,
    )
    if TOO_DEEP in dumped and TOO_DEEP not in text:
        return None  # deeper than `redact` goes: the passes read it as text
    dumped = written.restored(dumped)
    stripped = text.strip()
    start = text.index(stripped[0])
    return text[:start] + dumped + text[start + len(stripped) :]


# a JSON string, its escapes read as escapes; one not closed on its line is passed over
# whole (`closed` unset), not searched again from each quote in it
_JSON_STRING = re.compile(r'"(?:[^"\\\n]++|\\[^\n])*+(?:(?P<closed>")|\\\Z)?')
_HELD = re.compile(r'"\0(\d++)\0"')  # a string `_held_strings` took out of the text


def _held_strings(text: str) -> tuple[str, list[str]]:
    """Each JSON string in the text redacted as the text it holds, as `redact` redacts the
    string in the data: decoded, so its quotes, a value cut off at its end and JSON text held
    in it (at any depth) read as they are written there; then encoded again (as ASCII if it
    was). A string cut off at the end of the text (a preview) is read as far as it goes.
    Those that change are held out of the text for the other passes (each is left a
    placeholder), so no pass reads their redaction as raw text: a value cut off there would
    run on past the string's end. Returns the text and the strings held."""
    parts: list[str] = []
    held: list[str] = []
    done = 0
    for found in _JSON_STRING.finditer(text):
        literal = found.group()
        closed = found.group("closed") is not None
        if not closed and found.end() < len(text):
            continue  # not JSON's: a JSON string has no line break
        if len(literal) < _SHORTEST_SECRET + 1 or (content := _content(literal, closed)) is None:
            continue
        shown = redact_text(content)
        if shown != content:
            encoded = json.dumps(shown, ensure_ascii=literal.isascii())
            parts += (text[done : found.start()], f'"\0{len(held)}\0"')
            held.append(encoded if closed else encoded[:-1])
            done = found.end()
    return ("".join(parts) + text[done:] if parts else text), held


def _content(literal: str, closed: bool) -> str | None:
    """What a JSON string holds; one cut off, as far as it goes (less an escape cut in two:
    `\\`, `\\u00`, `\\ud83d\\ude`, cut at one of its last backslashes); None if it is
    not JSON's (an escape JSON has not)."""
    if "\\" not in literal:
        return literal[1:-1] if closed else literal[1:]
    attempts = [literal if closed else literal + '"']
    end, floor = len(literal), max(1, len(literal) - 12)
    while not closed and len(attempts) < 4 and (end := literal.rfind("\\", floor, end)) >= 0:
        attempts.append(literal[:end] + '"')
    for attempt in attempts:
        try:
            return cast("str", orjson.loads(attempt))
        except orjson.JSONDecodeError:
            continue
    return None


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


def _reach(pattern: re.Pattern[str], text: str, at: int, end: int | None = None) -> int:
    """Where `pattern`, which matches nothing too, ends matched at `at` (before `end`)."""
    found = pattern.match(text, at, len(text) if end is None else end)
    return at if found is None else found.end()


def _held_content(literal: str) -> tuple[str | None, bool]:
    """What a string `_held_strings` held out holds, and whether it was closed."""
    closed = (string := _JSON_STRING.fullmatch(literal)) is not None and bool(string["closed"])
    return _content(literal, closed), closed


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


def _restored(text: str, held: list[str]) -> str:
    """The text with the strings `_held_strings` held out put back (what is left of one a
    pass cut into is dropped: it was redacted)."""
    return _HELD.sub(lambda found: held[int(found.group(1))], text).replace("\0", "")


def _p_item(text: str) -> bool:
    """Whether a `-p` flag (`--p`, `—p`) may be written as an item of a list (no secret
    word says so)."""
    quoted = 'p"' in text or "p'" in text or "p\\" in text  # JSON text at any depth too
    return quoted and _P_ITEM.search(text) is not None


_P_ITEM = re.compile(r"[\"'](?:-|" + _UNICODE_DASH + r"){1,2}p\\*+[\"']")


def _query_key(text: str) -> bool:
    return "=" in text and ("?" in text or "&" in text) and "key=" in text.lower()


def _token_prefixed(text: str) -> bool:
    """Whether a token family with `-` or `_` in its prefix may start in `text`."""
    return (
        "k-" in text  # sk-, rk-, pk-, sk-ant-, ...
        or "k_" in text  # sk_live_, rk_test_, ...
        or "gh" in text  # ghp_, gho_, ...
        or "github_pat_" in text
        or "glpat-" in text
        or "xox" in text
        or "pypi-" in text
        or "hf_" in text
        or "npm_" in text
    )


def _redact_passes(text: str) -> str:
    """Every pass; text too deep in JSON text in JSON (each depth a `redact` of its own) for
    the stack to read goes whole."""
    try:
        return _passes(text)
    except RecursionError:
        _STACK_RAN_OUT.count += 1  # (what depends on the stack's depth is not remembered)
        return REDACTED


class _StackRanOut:
    """How often the passes ran out of stack: what is redacted meanwhile is not remembered."""

    count = 0


_STACK_RAN_OUT = _StackRanOut()


def _passes(text: str) -> str:
    """Every pass, each skipped when what it replaces cannot be in the text."""
    if _JSON_OPENING.match(text) and (as_data := _redacted_json(text)) is not None:
        return as_data
    if "\n" in text and _YAML_DASHED_ITEM.search(text) is not None:
        text = _yaml_argv(text)  # (before JSON strings are held out: it reads them as YAML)
    if "\n" in text and _names_a_secret_entry(text, _ENTRY_KEY_LINE, _yaml_secret_name):
        text = _yaml_entries(text)  # (so too)
    if "{" in text and _names_a_secret_entry(text, _FLOW_KEY, _flow_secret_name):
        text = _flow_entries(text)  # (so too)
    if _ANY_CASE_VALUE.search(text) and _names_a_secret_entry(text, _PAIR_KEY, _pair_secret_name):
        text = _pair_entries(text)  # (so too)
    held: list[str] = []
    if '"' in text and "\0" not in text:  # (NUL marks where the strings held out were)
        text, held = _held_strings(text)
    if _token_prefixed(text) or "IA" in text or "AIza" in text or "eyJ" in text:
        text = _RUN.sub(_token, text)  # every token family starts with one of these
    if "-----BEGIN" in text:
        text = _PRIVATE_KEY.sub(REDACTED, text)
    if "earer" in text or "EARER" in text or "asic" in text or "ASIC" in text:
        text = _SCHEME_CREDENTIALS.sub(REDACTED, text)
    if "://" in text and "@" in text:
        text = _URL_CREDENTIALS.sub(rf"\1{REDACTED}@", text)
        text = _URL_USER.sub(_url_user, text)
    if "hooks.slack.com/" in text:
        text = _SLACK_WEBHOOK.sub(rf"\1{REDACTED}", text)
    if _query_key(text):
        text = _QUERY_KEY.sub(rf"\1{REDACTED}", text)
    lowered_from, lowered = text, text.lower()
    if "uthorization" in lowered or "ookie" in lowered:
        text = _HEADER.sub(rf"\1{REDACTED}", text)
    if "-p" in text and ("mysql" in lowered or "mariadb" in lowered):
        text = _MYSQL_PASSWORD.sub(functools.partial(_glued_password, _quote_counts(text)), text)
    if "-p" in text and "sshpass" in lowered:
        text = _SSHPASS.sub(functools.partial(_glued_password, _quote_counts(text)), text)
    if "curl" in lowered:
        text = _curl_passwords(text, held)
    if "password" in text or "passwd" in text:
        text = _NETRC.sub(rf"\1{REDACTED}", text)
    if any(separator in text for separator in _ASSIGNING):
        if text is not lowered_from:
            lowered_from, lowered = text, text.lower()
        if _SECRET_NAME.search(_reduced(lowered)):
            text = _redact_assignments(text)
    other_dashes = "\\u" in text or not text.isascii()  # a dash written other than `-`
    if "-" in text or other_dashes:
        text = _hidden_values(text, _FLAG_WORD)
        if '"-' in text or "'-" in text or other_dashes or "\x1b[" in text:
            text = _hidden_values(text, _FLAG_ITEM)
    return _restored(text, held) if held else text


_ASSIGNING = ("=", ":", "：", "＝", ">", "→", "|")  # what sets a name apart from its value


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
    for flag in flags.finditer(text):
        name, opening = flag.group("flag"), flag.group("v") or ""
        word = flags is _FLAG_WORD
        if (flag.start() < done and flag.start("flag") != either) or not _hides_value(name, word):
            continue
        if word and flag.group("cell"):  # `| --password | X |`: the next cell, one word
            if (end := _cell_value_end(text, flag.start(), flag.end())) is not None:
                parts += [text[done : flag.end()], REDACTED]
                done = end
            continue  # (a cell of words says what the flag does; a shell's `|` is no value)
        if flag.groupdict().get("bare"):
            quote = flag.group("q")  # the value made a string, quoted as the flag is
            end = _bare_end(structures[quote == '\\"'], flag.end())
            if end > flag.end():
                parts += [text[done : flag.end()], f"{quote}{REDACTED}{quote}"]
                done = end
            continue
        start = flag.end() + len(opening)
        if word and text[start : start + 2].strip(" \t\r\n") == "|":
            continue  # a cell's bar at the end of its row, or a shell's `|`: no value
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


# the value in the cell after a flag's own (`| --password | X |`): one word, to the cell's
# end; a cell of words is what the flag does, in a documentation table
_TABLE_VALUE = re.compile(r"(?:[^|\s\\]|\\[^\r\n])++(?=" + _SP + r"*+(?:\||\r?\n|\Z))")
_TERMINAL_CODE_WHOLE = re.compile(_TERMINAL_CODE)


def _cell_value_end(text: str, name_at: int, start: int) -> int | None:
    """Where the value in a table's cell opening at `start` ends (less the codes ending it),
    after a flag's or a name's cell opening at `name_at` (`| --password | X |`, `| password
    | X |`); None if that is no cell (a shell's `|`) or holds no one word (a cell of words
    says what the flag or the name is, in a documentation table)."""
    if not text[max(0, name_at - 9) : name_at].rstrip(" \t").endswith("|"):
        return None
    value = _TABLE_VALUE.match(text, start)
    return None if value is None else _codes_start(text, start, value.end())


def _codes_start(text: str, start: int, end: int) -> int:
    """Where the terminal codes that end the word `text[start:end]` start (`end` if none
    do), read from its end, each code once; the word is never left empty."""
    while end > start and "@" <= text[end - 1] <= "~":
        opening = text.rfind("\x1b[", max(start + 1, end - 72), end)
        if opening < 0 or _TERMINAL_CODE_WHOLE.fullmatch(text, opening, end) is None:
            break
        end = opening
    return end


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


def _bare_end(structures: _Structures, start: int) -> int:
    """Where the bare JSON value (a number, a literal, a list, an object) at `start` ends;
    `start` if there is none. A list or object cut off ends with its line."""
    text = structures.text
    if text[start] in "[{":
        end, whole = structures.end(start)
        if not whole and (newline := text.find("\n", start, end)) >= 0:
            return newline
        return end
    found = _JSON_SCALAR.match(text, start)
    return found.end() if found is not None else start


def _glued_password(quotes: dict[str, _QuotesBefore], found: re.Match[str]) -> str:
    """`mysql -p'x'`, `sshpass -p x`: the value goes, unless the quote after `-p` ends the
    string the command is in (`"mysql -u root -p", ...`): then it opens no value."""
    kept = found.group(1)
    quote = kept[-1]
    if quote in "'\"" and not _opens(quotes[quote], found.end(1) - 1):
        return found.group()
    return kept + REDACTED


def _opens(quotes_before: _QuotesBefore, quote_at: int) -> bool:
    """Whether the quote at `quote_at` opens a quoted text rather than ends one: an even
    number of such quotes precede it on its line."""
    return quotes_before(quote_at) % 2 == 0


class _QuotesBefore:
    """How many `quote`s, not escaped, precede a position on its line, in one text, asked
    at positions in the order a scan meets them: each stretch of a line is read once, so
    counting at every match stays linear however long the line (one JSON text on one
    line). A position before the last one asked is counted over a bounded look-back."""

    __slots__ = ("_at", "_counted", "quote", "text")

    def __init__(self, text: str, quote: str) -> None:
        self.text, self.quote = text, quote
        self._at = self._counted = 0  # `_counted` quotes on its line up to `_at`

    def __call__(self, at: int) -> int:
        text, last = self.text, self._at
        if at < last:
            window = max(0, at - 1024)
            return _quotes_in(text, max(text.rfind("\n", window, at) + 1, window), at, self.quote)
        newline = text.rfind("\n", last, at)
        if newline >= 0:  # a new line: counted from its start
            start, counted = newline + 1, 0
        else:  # on from the last position, with the escapes begun before it
            start, counted = last, self._counted
            run = 0  # (positions asked are never within one run: each is walked once)
            while start > run and text[start - run - 1] == "\\":
                run += 1
            start -= run
        counted += _quotes_in(text, start, at, self.quote)
        self._at, self._counted = at, counted
        return counted


def _quotes_in(text: str, start: int, end: int, quote: str) -> int:
    """How many `quote`s, not escaped, are in `text[start:end]` (`start` not within a run of
    backslashes): a quote after an even run of backslashes is not escaped (`\\"`: an escaped
    backslash, then the quote): those after 0, less those after 1 or more, plus 2 or more…"""
    found, sign, escaped = 0, 1, quote
    while (after := text.count(escaped, start, end)) and len(escaped) <= 16:
        found, sign, escaped = found + sign * after, -sign, "\\" + escaped
    if after:  # a run of backslashes longer than that: read each escape
        return _ESCAPE_OR_QUOTE[quote].findall(text, start, end).count(quote)
    return found


_ESCAPE_OR_QUOTE = {quote: re.compile(r"\\.|(" + quote + ")", re.DOTALL) for quote in "\"'"}


def _quote_counts(text: str) -> dict[str, _QuotesBefore]:
    return {quote: _QuotesBefore(text, quote) for quote in "\"'"}


def _closes_on_its_line(text: str, start: int, quote: str) -> bool:
    line_end = text.find("\n", start)
    return text.find(quote, start, line_end if line_end >= 0 else len(text)) >= 0


def _ends_a_string(quotes_before: _QuotesBefore, name_at: int, quote_at: int) -> bool:
    """Whether the quote at `quote_at`, after a name at `name_at`, ends the JSON string the
    name is in (`"export PASSWORD=", "x"`) rather than opening a value: what follows it
    closes a string, and an odd number of quotes opens the name's line."""
    return (
        bool(_CLOSES_STRING.match(quotes_before.text, quote_at + 1))
        and quotes_before(name_at) % 2 == 1
    )


def _redact_assignments(text: str) -> str:
    """`secret_name = value` with the value replaced whole, its quotes kept. In JSON text
    (the name quoted) a number, a list or an object is replaced by a string, so the text
    stays JSON; `null` stays, as `redact` keeps None."""
    parts: list[str] = []
    done = line_start = scanned = 0
    quotes_before = _QuotesBefore(text, '"')
    structures = _StructuresOf(text)
    for name in _NAME_ASSIGNED.finditer(text):
        if name.start() < done or not is_secret_key(name.group(1)):
            continue
        start = name.end()
        separator = name.group(2)
        if name.group("element") or name.group("cell"):
            if name.group("cell"):  # `| password | X |`: the next cell, one word
                end = _cell_value_end(text, name.start(), start)
            else:  # `<password>X</password>`: the element's text (a `>` alone is no separator)
                start = name.end("element")
                found = (
                    _ELEMENT_TEXT.match(text, start)
                    if text[name.start() - 1 : name.start()] == "<"
                    else None
                )
                end = None if found is None else found.end()
            if end is not None:
                parts += (text[done:start], REDACTED)
                done = end
            continue
        if text.startswith("$'", start) and _closes_on_its_line(text, start + 2, "'"):
            start += 1  # a shell's `$'...'` quoting, closed on its line: `$` stays
        opening = text[start : start + 1]
        if (
            opening == '"'
            and separator[:1] != '"'
            and _ends_a_string(quotes_before, name.start(), start)
        ):
            continue  # `["PASSWORD=", "x"]`: that quote ends the string the name is in
        # quoted as the name is: `"passwords": [...]` and `"pin": 1234` stay JSON
        named = '\\"' if separator.startswith("\\") else separator[:1]
        named = named if named in ('\\"', '"', "'") else ""
        if ":" in separator or "：" in separator:  # YAML: a value on the lines below
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
            end = value.end()
        elif value := _BARE_VALUE.match(text, start):
            if value.group() in _NO_VALUE:
                continue
            quote = named
            end, closed = value.end(), quote
            if "\x1b" in value.group():  # `x\x1b[0m`: the colour is reset
                end = _codes_start(text, start, end)
        else:
            continue
        parts += (text[done:start], quote, REDACTED, closed)
        done = end
    return "".join(parts) + text[done:] if parts else text


_NO_VALUE = frozenset({"null", "None"})
# an XML element's text, to its closing tag (`</`), or cut off, one word to the end of text
# (not a placeholder, `login <password> [--verbose]`)
_ELEMENT_TEXT = re.compile(r"[^<]++(?=</)|[^<\s]++\Z")
_CLOSES_STRING = re.compile(r"\s*+[,}\]:]")  # what follows a quote that ends a JSON string


# a YAML block scalar's header (`|`, `>-`, `|+2`), after an anchor or a tag, or nothing,
# to the end of the line
_BLOCK_OPENER = re.compile(
    r"(?:[&!][^\s]{0,256}+"
    + _SP
    + r"*+){0,2}+(?:[|>][0-9+-]{0,2})?"
    + _SP
    + r"*+(?:#[^\r\n]*+)?(?=\r?\n)"
)
_INDENT = re.compile(r"[ \t]*")


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


# A YAML block list's item opening its line with a dash (`  - --password`, `- "-u"`): an
# argv written as YAML has one wherever its policy hides anything (a flag, curl's `-u`,
# `mysql -pX`), so text without one has no YAML argv to read
_YAML_DASHED_ITEM = re.compile(r"^[ \t]*+-[ \t]++[\"']?+" + _ANY_DASH, re.MULTILINE)
# a line with content (not blank, not a comment): its indentation, and, if it is a list's
# item (`-` and a space, or the line's end), the dash and where its value opens
_YAML_LINE = re.compile(r"^([ \t]*+)(?:(-)(?=[ \t\r\n]|\Z)[ \t]*+|(?=[^\s#]))", re.MULTILINE)
# an item's value on its line: plain, to a comment (` #`) or the line's end, or quoted, to
# the closing quote (JSON's escapes in `"`, `''` in `'`) or, cut off, the line's end
_YAML_PLAIN = re.compile(r"(?:[^ \t\r\n]++|[ \t]++(?![#\r\n]|\Z))*+")
_YAML_QUOTED = {
    '"': re.compile(r'"(?:[^"\\\r\n]++|\\[^\r\n])*+(")?'),
    "'": re.compile(r"'(?:[^'\r\n]++|'')*+(')?"),
}


def _yaml_argv(text: str) -> str:
    """Each YAML block list in the text (a container's `args:`, a compose service's
    `command:`) hidden as `redact` hides it as an argv (`_argv_shown`, `in_text`): a secret
    flag's value is the next item of the list, at the same indentation, plain, quoted, or on
    the lines below it (`- |`, read whole). Each line is read once: a list closes at a line
    not deeper than its items (unless another item of it); a blank line or a comment
    passes; a list opening deeper is one within an item."""
    # the open lists, each deeper than the last: its indentation, where each item's value
    # opens, and the last line below each item (-1: none, its value is on its line)
    lists: list[tuple[int, list[int], list[int]]] = []
    hidden: list[tuple[int, int, str]] = []
    last_line = -1  # where the last line with content starts
    for line in _YAML_LINE.finditer(text):
        indent = line.end(1) - line.start()
        item = line.start(2) >= 0
        while lists and (lists[-1][0] > indent or (lists[-1][0] == indent and not item)):
            _close_yaml_list(text, lists.pop(), last_line, hidden)
        if item:
            if lists and lists[-1][0] == indent:
                starts, below = lists[-1][1], lists[-1][2]
                if last_line > starts[-1]:
                    below[-1] = last_line
                starts.append(line.end())
                below.append(-1)
            else:
                lists.append((indent, [line.end()], [-1]))
        last_line = line.start()
    while lists:
        _close_yaml_list(text, lists.pop(), last_line, hidden)
    return _with_hidden(text, hidden)


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


def _close_yaml_list(
    text: str,
    closed: tuple[int, list[int], list[int]],
    last_line: int,
    hidden: list[tuple[int, int, str]],
) -> None:
    """The items of a list closed after the line starting at `last_line` that its argv
    policy hides, where each is written and as it is then written."""
    _, starts, below = closed
    if last_line > starts[-1]:
        below[-1] = last_line
    if len(starts) < 2:
        return
    items = [
        _yaml_item(text, start) if under < 0 else None
        for start, under in zip(starts, below, strict=True)
    ]
    argv: list[object] = [{} if item is None else item[0] for item in items]
    for at, shown in _argv_shown(argv, in_text=True).items():
        start, item = starts[at], items[at]
        if item is None:  # on the lines below: to the end of the last one, read whole
            newline = text.find("\n", below[at])
            end = len(text) if newline < 0 else newline
            end -= text[end - 1] == "\r"
            quote, closing = "", ""
        else:
            _, end, quote, closing = item
            if end == start:
                continue  # an empty item: nothing to hide
        if quote == '"':
            shown = json.dumps(shown, ensure_ascii=text[start:end].isascii())[:-1] + closing
        elif quote == "'":
            shown = "'" + shown.replace("'", "''") + closing
        elif text[start - 1] == "-":  # `-` alone on its line, the value below it
            shown = " " + shown
        hidden.append((start, end, shown))


def _yaml_item(text: str, start: int) -> tuple[str, int, str, str]:
    """An item's value opening at `start` and read on its line: what it holds, where it
    ends, its quote and its closing quote (none if cut off)."""
    quote = text[start : start + 1]
    if quote in _YAML_QUOTED:
        found = _YAML_QUOTED[quote].match(text, start)
        assert found is not None  # (matches its opening quote at least)
        closing = found.group(1) or ""
        literal = found.group()
        inner = literal[1 : len(literal) - len(closing)]
        if quote == "'":
            return inner.replace("''", "'"), found.end(), quote, closing
        # JSON's escapes, as YAML's are; as written if it has others
        value = _content(literal, bool(closing))
        return (inner if value is None else value), found.end(), quote, closing
    plain = _YAML_PLAIN.match(text, start)
    end = start if plain is None else plain.end()
    return text[start:end], end, "", ""


# A line's indentation, and the list items it opens (`- `, `- - `, a `-` ending the line)
_LINE_ITEMS = r"^([ \t]*+)((?:-(?=[ \t\r\n]|\Z)[ \t]*+)*+)"
_ENTRY_LINE = re.compile(_LINE_ITEMS, re.MULTILINE)
# a mapping's key opening a line (any: `a: b`, `"a b": c`, `url: http://x`), to its `:`
_YAML_KEY = re.compile(r"(?:[^:\r\n]++|:(?![ \t\r\n]|\Z))*+:(?=[ \t\r\n]|\Z)")
# an entry's key (looked up in `_ENTRY_KEYS`), quoted or not, and the spaces to its value
_ENTRY_KEY_TEXT = (
    r"(?P<quote>[\"']?+)(?P<key>[A-Za-z_]{3,15}+)(?P=quote)[ \t]*+:(?=[ \t\r\n]|\Z)[ \t]*+"
)
_ENTRY_KEY = re.compile(_ENTRY_KEY_TEXT)
# a line opening with a key as `_yaml_entries` reads it: text with no entry's name (nor
# value) key so written has no entry to hide
_ENTRY_KEY_LINE = re.compile(_LINE_ITEMS + _ENTRY_KEY_TEXT, re.MULTILINE)
_YAML_NULL = frozenset({"null", "Null", "NULL", "~"})


@dataclasses.dataclass(slots=True)
class _Entry:
    """A YAML mapping, open at its keys' column, as `_yaml_entries` reads it: whether its
    name names a secret, its values found (where each is, as it is shown hidden), and the
    one whose value is on the lines below its key, still being read (its start, how it is
    shown, where its key's line ends)."""

    column: int
    named: bool = False
    values: list[tuple[int, int, str]] = dataclasses.field(default_factory=list)
    below: tuple[int, str, int] | None = None


def _yaml_entries(text: str) -> str:
    """Each name/value entry written as a YAML mapping (`- name: DB_PASSWORD` and `value:
    X` at the same column, in either order, other keys between) whose name names a secret,
    its value hidden as `redact` hides it in the data (`_ENTRY_KEYS`, `is_secret_key`): on
    its line, plain, quoted, a flow list or mapping (to its matching bracket), or on the
    lines below it (a block scalar, a list, a mapping), to the end of text if cut off.
    Indented JSON text is read so too (a preview cut off), its value hidden as a string.

    Each line is read once: a mapping is open from its first key's line to the next line
    as deep (but another key of it) or less deep (but a list's item, `- `, at its column);
    a line opening `- ` opens a mapping of its own, at its item's column. A blank line
    passes, and a comment (but within the value below a key, when deeper than it)."""
    open_: list[_Entry] = []
    hidden: list[tuple[int, int, str]] = []
    structures: _StructuresOf | None = None
    last_end = 0  # where the last line with content ends (before its `\r`)
    read_to = -1  # where a flow list or mapping a line opened ends: its lines are read
    for line in _ENTRY_LINE.finditer(text):
        at = line.end()
        newline = text.find("\n", at)
        line_end = len(text) if newline < 0 else newline
        line_end -= line_end > at and text[line_end - 1] == "\r"
        items = line.start(2) < at
        if at == line_end and not items:
            continue  # a blank line
        if line.start() < read_to:
            last_end = line_end
            continue
        column = at - line.start()
        if text.startswith("#", at) and not items:  # a comment: within a value below a key
            if open_ and open_[-1].below is not None and column > open_[-1].column:
                last_end = line_end
            continue
        key = at < line_end and _YAML_KEY.match(text, at, line_end) is not None
        if items:  # `- `: the item's mapping, at its column, closes those as deep as it
            dash = line.start(2) - line.start()
            while open_ and open_[-1].column > dash:
                _end_below(open_.pop(), last_end, hidden)
        else:
            while open_ and (open_[-1].column > column or (open_[-1].column == column and not key)):
                _end_below(open_.pop(), last_end, hidden)
        if key:
            if open_ and open_[-1].column == column and not items:
                entry = open_[-1]
                _end_below(entry, last_end, hidden)
            else:
                entry = _Entry(column)
                open_.append(entry)
            found = _ENTRY_KEY.match(text, at, line_end)  # (as `_names_a_secret_entry`)
            names = None if found is None else _ENTRY_KEYS.get(found.group("key"))
            if names is not None:
                assert found is not None
                if structures is None and text.startswith(("[", "{"), found.end()):
                    structures = _StructuresOf(text)
                read_to = _read_entry_key(text, found, line_end, names, entry, hidden, structures)
        last_end = line_end
    while open_:
        _end_below(open_.pop(), last_end, hidden)
    return _with_hidden(text, hidden)


def _names_a_secret_entry(
    text: str, keys: re.Pattern[str], names_a_secret: Callable[[re.Match[str]], bool]
) -> bool:
    """Whether `text` holds an entry's name key (found by `keys`, its key group looked up
    in `_ENTRY_KEYS`) whose name names a secret (`names_a_secret`, read as the pass reads
    it), and an entry's value key: else the pass has nothing to hide."""
    value = named = False
    for found in keys.finditer(text):
        names = _ENTRY_KEYS.get(found.group("key"))
        if names is False:
            value = True
        elif names and not named:
            named = names_a_secret(found)
        if value and named:
            return True
    return False


def _yaml_secret_name(found: re.Match[str]) -> bool:
    """`_names_a_secret_entry`'s test of a YAML name key's line, as `_yaml_entries` reads it."""
    return _secret_entry_name(found.string, found.end(), found.group("quote") == '"')


def _flow_secret_name(found: re.Match[str]) -> bool:
    """`_names_a_secret_entry`'s test of a flow mapping's name key, as `_flow_entries` reads it."""
    return _secret_flow_name(found.string, found.end())


def _secret_entry_name(text: str, start: int, json_text: bool) -> bool:
    """Whether an entry's name, read on its line from `start`, names a secret."""
    value, _, quote, _ = _yaml_item(text, start)
    if not quote and json_text:
        value = value.removesuffix(",")
    return _secret_setting(value)


def _read_entry_key(
    text: str,
    found: re.Match[str],
    line_end: int,
    names: bool,
    entry: _Entry,
    hidden: list[tuple[int, int, str]],
    structures: _StructuresOf | None,
) -> int:
    """An entry's name or value key found on its line: what it tells of the entry; where
    its value ends if a flow list or mapping (its lines are its value's), else -1."""
    start = found.end()
    json_text = found.group("quote") == '"'  # indented JSON text: a value is hidden as a string
    if names:
        if not entry.named and _secret_entry_name(text, start, json_text):
            entry.named = True
            hidden += entry.values
            entry.values.clear()
        return -1
    if _BLOCK_OPENER.match(text, start) is not None:  # on the lines below
        spaced = "" if text[start - 1] in " \t" else " "
        entry.below = (start, spaced + REDACTED, line_end)
        return -1
    opening = text[start : start + 1]
    read_to = -1
    if opening == "[" or opening == "{":
        assert structures is not None
        end, _ = structures[False].end(start)
        shown = '"' + REDACTED + '"' if json_text else REDACTED
        read_to = end
    else:
        value, end, quote, closing = _yaml_item(text, start)
        if not quote and json_text and value.endswith(","):
            value, end = value[:-1], end - 1
        if not value or (not quote and value in _YAML_NULL):
            return -1  # no value, or an empty one (as `redact` keeps "" and None)
        if quote:
            shown = quote + REDACTED + closing
        else:
            shown = '"' + REDACTED + '"' if json_text else REDACTED
    (hidden if entry.named else entry.values).append((start, end, shown))
    return read_to


def _end_below(entry: _Entry, last_end: int, hidden: list[tuple[int, int, str]]) -> None:
    """The entry's value on the lines below its key ends with the line ending at
    `last_end` (the entry goes on with another key, or is closed): none if that is its
    key's line."""
    if entry.below is None:
        return
    start, shown, key_line_end = entry.below
    entry.below = None
    if last_end > key_line_end:
        (hidden if entry.named else entry.values).append((start, last_end, shown))


# JSON-like text on one line (a preview cut off, JSON after a log's prefix, a Python repr, a
# YAML flow mapping, a JS object): its strings, read whole, their closing quote caught (`'`
# opens one only after no word's character: `user's` is a word), and what tells its
# structure
_FLOW_TOKEN = re.compile(
    r'"(?:[^"\\\n]++|\\[^\n])*+(")?|(?<!\w)\'(?:[^\'\\\n]++|\\[^\n])*+(\')?|[\[\]{},:]'
)
# a mapping's key that may be an entry's (looked up in `_ENTRY_KEYS`), after what opens it
_FLOW_KEY = re.compile(r"[{,]\s*+(?P<quote>[\"']?+)(?P<key>[A-Za-z_]{3,15}+)(?P=quote)\s*+:")
# an entry's name: a string, or a word to what ends it (a longer one is no setting's name)
_FLOW_KEY_AT = re.compile(_FLOW_KEY.pattern[len("[{,]") :] + r"\Z")  # the key to its `:`
_FLOW_NAME = re.compile(
    r'\s*+(?:"((?:[^"\\\n]|\\[^\n]){0,257}+)|(?<!\w)\'((?:[^\'\\\n]|\\[^\n]){0,257}+)'
    r"|([^\s,{}\[\]:\"'][^,{}\[\]\r\n]{0,256}+))"
)
_FLOW_NULL = frozenset({"null", "None", "Null", "NULL", "~"})


class _FlowMapping:
    """A mapping open in JSON-like text, as `_flow_entries` reads it: where its key being
    read starts (-1: none), the role of the key whose value is being read (`_ENTRY_KEYS`),
    its quote, and where the value starts; whether its name names a secret, and its values
    found (where each is, as it is shown hidden)."""

    __slots__ = ("key_at", "named", "quote", "role", "value_at", "values")

    def __init__(self) -> None:
        self.key_at = -1
        self.role: bool | None = None
        self.quote = ""
        self.value_at = -1
        self.named = False
        self.values: list[tuple[int, int, str]] = []


def _secret_flow_name(text: str, start: int) -> bool:
    found = _FLOW_NAME.match(text, start)
    if found is None:
        return False
    name = found.group(found.lastindex or 0).rstrip()
    return _secret_setting(name)


def _flow_entries(text: str) -> str:
    """Each name/value entry written as a mapping in JSON-like text (`{"name": "API_TOKEN",
    "value": "..."}`, `{name: API_TOKEN, value: ...}`, in either order, other keys between)
    whose name names a secret, its value hidden as `redact` hides it in the data: a string
    (its quotes kept), or anything else to the `,` or the bracket ending it (a list or a
    mapping whole, as a string where the key is quoted, so JSON stays JSON), to the end of
    the text if cut off. Each of its strings and brackets is read once."""
    # each list open (None), and each mapping: as where its key being read starts (-1:
    # none) until it has a key of an entry's, then as a `_FlowMapping`
    opened: list[_FlowMapping | int | None] = []
    hidden: list[tuple[int, int, str]] = []
    for token in _FLOW_TOKEN.finditer(text):
        first = text[token.start()]
        if first == '"' or first == "'":
            continue  # part of a key or a value, read whole where it ends
        if first == "{" or first == "[":
            opened.append(token.end() if first == "{" else None)
            continue
        mapping = opened[-1] if opened else None
        if mapping is None:
            if first == "]" and opened:
                opened.pop()
            continue
        if first == ":":
            key_at = mapping if isinstance(mapping, int) else mapping.key_at
            if key_at >= 0:
                opened[-1] = _flow_key(text, mapping, key_at, token, hidden)
        elif first == "," or first == "}":
            if isinstance(mapping, _FlowMapping):
                _end_flow_value(text, mapping, token.start(), hidden)
                mapping.key_at = token.end()
            if first == "}":
                opened.pop()
            elif isinstance(mapping, int):
                opened[-1] = token.end()
    cut = len(text.rstrip())  # (where each value cut off ends, found once)
    while opened:
        mapping = opened.pop()
        if isinstance(mapping, _FlowMapping):
            _end_flow_value(text, mapping, cut, hidden)
    return _with_hidden(text, hidden)


def _flow_key(
    text: str,
    mapping: _FlowMapping | int,
    key_at: int,
    colon: re.Match[str],
    hidden: list[tuple[int, int, str]],
) -> _FlowMapping | int:
    """A mapping's key ends at `colon`: the mapping as it is read on (`_flow_entries`), with
    the key's role, and for a name key what its name tells."""
    found = _FLOW_KEY_AT.match(text, key_at, colon.end())  # (not read past a word's length)
    role = None if found is None else _ENTRY_KEYS.get(found.group("key"))
    quote = "" if found is None else found.group("quote")
    if isinstance(mapping, int):
        if role is None:
            return -1  # (its value being read)
        mapping = _FlowMapping()
    mapping.key_at = -1
    mapping.role = role
    mapping.quote = quote
    mapping.value_at = colon.end()
    if role and not mapping.named and _secret_flow_name(text, colon.end()):
        mapping.named = True
        hidden += mapping.values
        mapping.values.clear()
    return mapping


def _end_flow_value(
    text: str, mapping: _FlowMapping, end: int, hidden: list[tuple[int, int, str]]
) -> None:
    """The value being read ends at `end`: kept to hide if it is an entry's value."""
    role, start = mapping.role, mapping.value_at
    mapping.role, mapping.value_at = None, -1
    if role is not False or start < 0:
        return
    start = _reach(_SPACES, text, start, end)
    stop = end
    while stop > start and text[stop - 1].isspace():  # (each space before `,` or `}` once)
        stop -= 1
    if stop == start or (stop - start <= 4 and text[start:stop] in _FLOW_NULL):
        return  # no value, or an empty one (as `redact` keeps None)
    opening = text[start]
    string = _FLOW_TOKEN.match(text, start) if opening in ('"', "'") else None
    if string is not None and string.end() == stop:
        if stop - start == 2 and string.lastindex is not None:
            return  # an empty string, as `redact` keeps ""
        shown = opening + REDACTED + (opening if string.lastindex is not None else "")
    elif mapping.quote:
        shown = mapping.quote + REDACTED + mapping.quote
    else:
        shown = REDACTED
    (hidden if mapping.named else mapping.values).append((start, stop, shown))


_SPACES = re.compile(r"\s*+")

# Pairs on one line outside a mapping's brackets (`name=DB_PASSWORD value=X` in a log, a
# pydantic model's or a dataclass's repr, an XML element's attributes, AWS's shorthand
# `Key=password,Value=X`, a JSON fragment `"name": "DB_PASSWORD", "value": "X"`): a key, not
# glued to a word before it, and its separator (`=`, `:`, `=>`, not `==`)
_PAIR_KEY = re.compile(
    r"(?<![\w.-])(?P<quote>[\"']?+)(?P<key>[A-Za-z_]{3,15}+)(?P=quote)"
    r"[ \t]*+(?:=>|[:=](?!=))[ \t]*+"
)
_ANY_CASE_VALUE = re.compile("[vV][aA][lL][uU][eE]")  # in every value key of `_ENTRY_KEYS`
_PAIR_WORD = re.compile(r"[^\s\"',;&<>(){}\[\]]++")  # a value not quoted: to what ends a pair
# between two pairs, what ends an entry: a line's end, a statement's, a bracket, a tag
_PAIR_BREAK = re.compile(r"[\n;(){}<]|(?<![=-])>")


def _pair_value(
    text: str, start: int, quoted_key: bool, structures: _StructuresOf
) -> tuple[str | None, int, str | None]:
    """A pair's value at `start`: what it holds (None for a list or a mapping), where it
    ends, and how it is shown hidden (None: nothing to hide, empty or null)."""
    opening = text[start : start + 1]
    as_string = '"' + REDACTED + '"' if quoted_key else REDACTED  # (JSON stays JSON)
    if opening == '"' or opening == "'":
        string = _FLOW_TOKEN.match(text, start)
        assert string is not None  # (matches its opening quote at least)
        closing = opening if string.lastindex is not None else ""
        held = text[start + 1 : string.end() - len(closing)]
        return held, string.end(), (opening + REDACTED + closing) if held else None
    if opening == "[" or opening == "{":
        end, _ = structures[False].end(start)
        return None, end, as_string
    word = _PAIR_WORD.match(text, start)
    if word is None:
        return "", start, None
    held = word.group()
    return held, word.end(), None if held in _FLOW_NULL else as_string


def _pair_secret_name(found: re.Match[str]) -> bool:
    """`_names_a_secret_entry`'s test of a pair's name key, as `_pair_entries` reads it."""
    text = found.string
    if text.startswith(("[", "{"), found.end()):
        return False  # a list or a mapping names nothing
    name, _, _ = _pair_value(text, found.end(), False, _StructuresOf(text))
    return name is not None and _secret_setting(name)


def _pair_entries(text: str) -> str:
    """Each name/value entry written as pairs on one line outside a mapping's brackets
    (`_PAIR_KEY`: `name=DB_PASSWORD value=X`, `<param name="password" value="X"/>`), in
    either order, other pairs between, whose name names a secret: its value hidden as
    `redact` hides it in the data (`_ENTRY_KEYS`, `_secret_setting`). An entry ends where
    a key of the same role comes again (`name=A value=1 name=B value=2` is two) or at what
    `_PAIR_BREAK` finds between two pairs. Each pair's value is read once."""
    hidden: list[tuple[int, int, str]] = []
    values: list[tuple[int, int, str]] = []  # the entry's, while no name names a secret
    named = False
    roles: set[bool] = set()
    structures = _StructuresOf(text)
    last_end = 0  # where the last entry's pair ends
    for found in _PAIR_KEY.finditer(text):
        role = _ENTRY_KEYS.get(found.group("key"))
        if role is None or found.start() < last_end:
            continue  # another key, or one within the value read last
        if role in roles or _PAIR_BREAK.search(text, last_end, found.start()):
            named, roles, values = False, set(), []
        roles.add(role)
        start = found.end()
        held, last_end, shown = _pair_value(text, start, bool(found.group("quote")), structures)
        if role:
            if not named and held is not None and _secret_setting(held):
                named = True
                hidden += values
        elif shown is not None:
            (hidden if named else values).append((start, last_end, shown))
    return _with_hidden(text, hidden)


def _indent_end(text: str, at: int) -> int:
    found = _INDENT.match(text, at)
    return found.end() if found is not None else at


class _Structures:
    """Where the lists and objects opening in one text end: after the matching bracket, or
    where cut off (the end of the text, or of the JSON string holding one: `escaped`).

    Asked in the order they open, this stays linear when many are cut off one after another
    (`'"--password", [\\n' * n`), which scanning each to where it is cut off makes quadratic.
    Strings do not run over a newline, so scans from any two openings read the same
    brackets once past the first newline after both. A scan that finds its structure cut
    off keeps the level after each of its brackets, the lowest level from there on, and
    where it was cut off. A later scan, once past its own first newline, reaches one of
    those brackets; if the level never comes back down to where the later structure would
    close, the later structure is cut off there too, told at once. If it does come back
    down, the scan goes on to the close, and the caller goes past it. A scan opening past
    where the kept one was cut off keeps its own in its place."""

    __slots__ = ("_cut", "_from", "_levels", "_lowest", "_starts", "pattern", "text")

    def __init__(self, text: str, *, escaped: bool) -> None:
        self.text = text
        self.pattern = _ESCAPED_STRUCTURE if escaped else _STRUCTURE
        self._cut = -1  # where the kept scan was cut off (none kept yet)
        self._from = len(text)  # the kept scan's first newline: it is shared past this
        self._starts: list[int] = []  # the kept scan's brackets
        self._levels: list[int] = []  # its level after each of them
        self._lowest: list[int] = []  # the lowest level from each of them on

    def end(self, start: int) -> tuple[int, bool]:
        """Where the list or object opening at `start` ends, and whether it is closed."""
        text = self.text
        depth, keeping = 0, start > self._cut
        starts: list[int] = []
        levels: list[int] = []
        newline = -1  # the first newline after `start`, once the scan has passed one
        searched = start
        for token in self.pattern.finditer(text, start):
            found = token.group()
            if found == '"':  # (escaped) the end of the string the JSON text is in
                if keeping:
                    self._keep(start, starts, levels, token.start())
                return token.start(), False
            if found == "[" or found == "{":
                depth += 1
            elif found == "]" or found == "}":
                depth -= 1
                if depth == 0:
                    return token.end(), True
            else:
                continue
            at = token.start()
            if keeping:
                starts.append(at)
                levels.append(depth)
            elif newline < 0:
                newline = text.find("\n", searched, at)
                searched = at
                if newline >= 0 and at > self._from and self._cut_off(at, depth):
                    return self._cut, False
        if keeping:
            self._keep(start, starts, levels, len(text))
        return len(text), False

    def _cut_off(self, at: int, depth: int) -> bool:
        """Whether the kept scan, from its bracket at `at`, never comes back down by `depth`
        levels: so a structure `depth` deep there is never closed (asked once per scan)."""
        index = bisect.bisect_left(self._starts, at)
        if index == len(self._starts) or self._starts[index] != at:
            return False  # not one of its brackets (cannot be, past both newlines)
        return self._lowest[index] > self._levels[index] - depth

    def _keep(self, start: int, starts: list[int], levels: list[int], cut: int) -> None:
        newline = self.text.find("\n", start, cut)
        if newline < 0:
            return  # nothing past a newline to share
        lowest = levels.copy()
        for index in range(len(lowest) - 2, -1, -1):
            lowest[index] = min(lowest[index], lowest[index + 1])
        self._cut, self._from = cut, newline
        self._starts, self._levels, self._lowest = starts, levels, lowest


class _StructuresOf(dict[bool, _Structures]):
    """A text's `_Structures`, in JSON text (False) and in JSON text held in a JSON string
    (True), each made when first asked for."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def __missing__(self, escaped: bool) -> _Structures:
        made = self[escaped] = _Structures(self.text, escaped=escaped)
        return made


def _url_user(match: re.Match[str]) -> str:
    """`https://TOKEN@host`: a long user part with a digit is a token, not a name."""
    user = match.group(2)
    if user == REDACTED or not any(c.isdigit() for c in user):
        return match.group()
    return f"{match.group(1)}{REDACTED}@"


def _token(run: re.Match[str]) -> str:
    """A run of token characters, with a secret at its start replaced."""
    text = run.group()
    found = _TOKEN_FAMILIES.match(text)
    if found is not None:
        text = REDACTED + text[found.end() :]
    return _INNER_TOKENS.sub(REDACTED, text) if len(text) >= 16 else text


def redact(value: object, *, depth: int = 0) -> object:
    """A copy of JSON-like data with secrets replaced (see the module docstring)."""
    if depth > MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):  # JSON data: plain dicts and lists, checked without ABCs
        shown: dict[object, object] = {}
        entry_values = () if _ENTRY_KEY_SET.isdisjoint(value) else _entry_values(value)
        for key in value:
            item = value[key]
            if isinstance(key, str):
                hidden = (is_secret_key(key) or key in entry_values) and item not in (None, "")
                name = redact_name(key)
                if name != key:  # a secret written as a key: it goes, the entry stays
                    name = _unused(name, value, shown)
                shown[name] = REDACTED if hidden else redact(item, depth=depth + 1)
            else:
                shown[key] = redact(item, depth=depth + 1)
        return shown
    if isinstance(value, list | tuple):
        return _redact_argv(value, depth)
    if isinstance(value, Mapping):
        return redact(dict(value), depth=depth)
    return value


# A name/value entry: a mapping holding one setting, its name under one of these keys and its
# value under one of these (Kubernetes' and ECS's `env` and Azure's app settings:
# `name`/`value`; HAR's and HTTP header lists: `name`/`value`; Postman's and AWS tags:
# `key`/`value`, `Key`/`Value`; CloudFormation: `ParameterKey`/`ParameterValue`; SSM and
# RDS parameters: `Name`/`Value`, `ParameterName`/`ParameterValue`). Each is known in every
# case (`NAME`, `nAmE`), the longer ones as a format may write them (`parameterKey`,
# `PARAMETER_KEY`): each key of a mapping is looked up once, as it is.
_ENTRY_NAMES = ("name", "key")
_ENTRY_VALUES = ("value",)
_ENTRY_PARAMETERS = {"key": True, "name": True, "value": False}


def _entry_keys() -> dict[str, bool]:
    keys: dict[str, bool] = {}
    for words, names in ((_ENTRY_NAMES, True), (_ENTRY_VALUES, False)):
        for word in words:
            for case in itertools.product(*({c.lower(), c.upper()} for c in word)):
                keys["".join(case)] = names
    for word, names in _ENTRY_PARAMETERS.items():
        for spelt in (
            "parameter" + word,
            "parameter" + word.title(),
            "Parameter" + word.title(),
            "PARAMETER" + word.upper(),
            "parameter_" + word,
            "PARAMETER_" + word.upper(),
        ):
            keys[spelt] = names
    return keys


_ENTRY_KEYS = _entry_keys()
_ENTRY_KEY_SET = frozenset(_ENTRY_KEYS)  # (a mapping holding none is looked at in C)


def _entry_values(mapping: dict[object, object]) -> tuple[object, ...]:
    """The keys of a name/value entry's value when its name names a secret: the entry is
    read as `{name: value}` would be, so its value is hidden whatever it is (the name, no
    secret, stays)."""
    named = False
    values: tuple[object, ...] = ()
    for key, item in mapping.items():
        names = _ENTRY_KEYS.get(key) if isinstance(key, str) else None
        if names is None:
            continue
        if not names:
            values += (key,)
        elif not named and isinstance(item, str):
            named = _secret_setting(item)
    return values if named else ()


def _secret_setting(name: str) -> bool:
    """Whether an entry's name names a secret: as a key would (`is_secret_key`), if it is a
    setting's name at all (one longer than a name remembered is none)."""
    return 0 < len(name) <= _REMEMBERED_NAME and is_secret_key(name)


def redact_name(name: str) -> str:
    """A name someone supplied, as it may be shown: a mapping's key (a model's arguments),
    the tool a model asked for when no tool answers to it. Untrusted text, so it goes
    through `redact_text` (`sk-...` as a key, `password=...` as a tool name); the same
    names come back call after call, so short ones are remembered."""
    if len(name) > _REMEMBERED_NAME:
        return redact_text(name)
    try:
        return _redact_short_name(name)
    except _NotRemembered as answer:
        return answer.shown


_REMEMBERED_NAME = 256


@functools.lru_cache(maxsize=4096)
def _redact_short_name(name: str) -> str:
    ran_out = _STACK_RAN_OUT.count
    shown = redact_text(name)
    if _STACK_RAN_OUT.count != ran_out:  # went whole for want of stack: not for ever
        raise _NotRemembered(shown)
    return shown


class _NotRemembered(Exception):  # not an error: the answer, not to be remembered
    def __init__(self, shown: str) -> None:
        self.shown = shown


def _unused(name: str, original: Mapping[object, object], shown: Mapping[object, object]) -> str:
    """`name` (a redacted key), or `name (2)`, `(3)`, ...: a key the copy does not hold yet
    and the original does not have, so no entry is lost to another one."""
    candidate, n = name, 1
    while candidate in shown or candidate in original:
        n += 1
        candidate = f"{name} ({n})"
    return candidate


def _redact_argv(items: list[object] | tuple[object, ...], depth: int) -> list[object]:
    """A list, where a secret-named flag (`--password`, `-token`) hides the next item, a
    pair `["Authorization", "..."]` hides its second, and `curl -u user:pw` its password."""
    if _secret_pair(items):  # the name is text still (`["export --password X", "..."]`)
        return [redact(items[0], depth=depth + 1), REDACTED]
    shown = _argv_shown(items)
    return [
        shown[at] if at in shown else redact(item, depth=depth + 1) for at, item in enumerate(items)
    ]


def _argv_shown(
    items: list[object] | tuple[object, ...], *, in_text: bool = False
) -> dict[int, str]:
    """The items of an argv its policy shows other than as `redact` shows each alone, by
    their place, and what it shows instead: the value after a secret-named flag, curl's
    `user:password` as `user:[REDACTED]`, `mysql -p[REDACTED]`.

    `in_text`: an argv written in text as a list of lines (`_yaml_argv`), which may be a
    list in prose too: a flag hides its value only if it is one word (`- --password: the
    one to use` says what a flag does) and, but for `mysql` and `sshpass`, not `-p` (a
    port more often), and an item that is a flag is never a value (a list of flags), as
    in a flow list (`_flow_item`)."""
    shown: dict[int, str] = {}
    hide_next = False
    # the program, named by `str(argv[0])`; never a container's text, which can nest past
    # the recursion limit
    first = items[0] if items else ""
    program = "" if isinstance(first, list | tuple | dict) else str(first).rsplit("/", 1)[-1]
    glued_p = program in _GLUED_P_PROGRAMS
    curl = _is_curl(program)  # and from the item naming it on (`["sudo", "curl", ...]`)
    user_next = False  # curl's user flag came last: its value is `user:password`
    for at, item in enumerate(items):
        if glued_p and isinstance(item, str) and item.startswith("-p") and len(item) > 2:
            shown[at] = f"-p{REDACTED}"  # `mysql -phunter22`
            continue
        if user_next and isinstance(item, str) and ":" not in item and not _hiding_flag(item):
            hide_next = user_next = False  # `-u me`: the user alone, shown as text
            continue
        glued = _curl_user_flag(item) if curl and isinstance(item, str) else None
        if glued and isinstance(item, str) and ":" in glued:  # `-uuser:pw`, `-u me:p w`
            shown[at] = item[: len(item) - len(glued)] + _user_kept(glued)
            hide_next = user_next = False
            continue
        hiding = _hiding_flag(item)
        flag = hiding and _one_word(item)  # `-x: y` is a value
        if in_text:
            hiding = flag and (glued_p or str(item).lstrip(_DASHES) != "p")
        # after a hiding flag its value, unless this is a flag of its own with a value of
        # its own (`--no-auth-warning --pass x`; `_OWN_VALUE`: an item after it, not a flag)
        if hide_next and not (flag and _valued(items, at)) and not (in_text and _flag_like(item)):
            # `-u user:pw`: the user stays
            shown[at] = _user_kept(item) if curl and isinstance(item, str) else REDACTED
            hide_next = flag  # the value, or a flag whose value starts with a dash: both go
            user_next = False
            continue
        user_next = glued == ""
        hide_next = hiding or user_next
        curl = curl or _is_curl(item)
    return shown


def _flag_like(item: object) -> bool:
    """Whether an argv item is a flag, one word after its dashes (`--verbose`, `-v`)."""
    return isinstance(item, str) and item.startswith(_FLAG_OPENINGS) and _one_word(item)


def _user_kept(value: str) -> str:
    """curl's `user:password` as `user:[REDACTED]` (a value with no colon goes whole, and
    the user of an empty password: `KEY:` is how many APIs take a key)."""
    user, colon, password = value.partition(":")
    if colon and not password:  # `KEY:`: an API key as the user, no password
        return REDACTED + ":"
    return redact_text(user) + colon + REDACTED if colon else REDACTED


def _hiding_flag(item: object) -> bool:
    """Whether an argv item is a flag whose value, the next item, is a secret."""
    return (
        isinstance(item, str)
        and item.startswith(_FLAG_OPENINGS)
        and "=" not in item
        and hides_next(item)
    )


def _valued(items: list[object] | tuple[object, ...], at: int) -> bool:
    """Whether an item follows `items[at]` that is not a flag: its value (`_OWN_VALUE`)."""
    if at + 1 >= len(items):
        return False
    following = items[at + 1]
    return not (isinstance(following, str) and following.startswith(_FLAG_OPENINGS))


def _one_word(flag: object) -> bool:
    """Whether a flag is one word after its dashes: `-x y: z` is a value, not a flag."""
    return isinstance(flag, str) and _FLAG_NAME.fullmatch(flag.lstrip(_DASHES)) is not None


_FLAG_OPENINGS = tuple(_DASHES)
_FLAG_NAME = re.compile(r"[A-Za-z][\w.-]{0,63}")


def _secret_pair(items: list[object] | tuple[object, ...]) -> bool:
    """`["Authorization", "..."]`, `("password", "...")`: a header or a setting as a pair."""
    if len(items) != 2 or not isinstance(items[0], str) or items[1] in (None, ""):
        return False
    return not items[0].startswith("-") and is_secret_key(items[0])


_GLUED_P_PROGRAMS = frozenset(
    {"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mariadb", "sshpass"}
)


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


# whose `str()` is never a program's name (`{...}`, `[...]`, a number, True, False, None)
_STR_NAMES_NO_PROGRAM = frozenset({dict, list, int, float, bool, type(None)})
_KEPT = frozenset({int, float, bool, type(None)})  # what `redact` returns as it is


def redacts_nothing(value: object, depth: int = 0) -> bool:
    """Whether `redact(value)` equals `value` (of the same types), found without copying:
    False when it would replace something, and for any shape it might change (a tuple, a
    mapping that is not a dict, an argv with a flag that hides what follows, ...)."""
    if depth > MAX_DEPTH:
        return False
    kind = type(value)
    if kind in _KEPT:
        return True
    if kind is str:
        return redact_text(value) == value  # type: ignore[arg-type]
    if kind is dict:
        for key, item in value.items():  # type: ignore[attr-defined]
            if isinstance(key, str) and (
                (is_secret_key(key) and item not in (None, "")) or redact_name(key) != key
            ):
                return False
        if not _ENTRY_KEY_SET.isdisjoint(value):  # type: ignore[arg-type]
            for key in _entry_values(value):  # type: ignore[arg-type]
                if value[key] not in (None, ""):  # type: ignore[index]
                    return False
        return _items_redact_nothing(value.values(), depth)  # type: ignore[attr-defined]
    if kind is list:
        items: list[object] = value  # type: ignore[assignment]
        if _secret_pair(items):
            return False
        if items:  # `_redact_argv` reads the program from `str(items[0])`
            first = items[0]
            if isinstance(first, str):
                program = first.rsplit("/", 1)[-1]
                if program in _GLUED_P_PROGRAMS:
                    return False
            elif type(first) not in _STR_NAMES_NO_PROGRAM:
                return False
        if any(_hiding_flag(item) or _is_curl(item) for item in items):  # a secret follows
            return False
        return _items_redact_nothing(items, depth)
    # other objects come back as they are; subclasses of what `redact` rebuilds, and other
    # mappings, may not
    return not isinstance(value, str | dict | list | tuple | Mapping)


def _items_redact_nothing(items: Iterable[object], depth: int) -> bool:
    """`redacts_nothing` for each of a container's items; the leaves checked here, without
    a call per leaf."""
    for item in items:
        kind = type(item)
        if depth >= MAX_DEPTH or not (kind in _KEPT or kind is str):
            if not redacts_nothing(item, depth + 1):
                return False
        elif kind is str and redact_text(item) != item:  # type: ignore[arg-type]
            return False
    return True


def shorten(text: str, limit: int, *, redacted: bool = False) -> str:
    """`text` redacted, at most `limit` characters: a longer one is cut and says from how
    long (the one bound every error's text shares). Redacted before it is cut, as a whole
    (see `_redacted_start`), so no piece of a secret is left at the cut. `redacted`: the
    text is redacted already (it is only cut)."""
    if len(text) <= limit:
        return text if redacted else redact_text(text)
    note = f"… ({len(text)} characters, cut)"
    keep = max(0, limit - len(note))
    return (text[:keep] if redacted else _redacted_start(text, keep)) + note


_WHOLE = 1_000_000
"""Texts up to this long are redacted whole before they are cut; a longer one, this much past
the cut (a secret longer than that is the one thing that could straddle it)."""


def _redacted_start(text: str, keep: int) -> str:
    """The first `keep` characters of `text` redacted. Redacting only a little past the cut
    would leak: a secret straddling the window's end is not recognised (a JWT needs all its
    parts), and a secret redacted inside the window shortens it, pulling unread text in."""
    return redact_text(text[: keep + _WHOLE])[:keep]


def shown_name(name: str, limit: int = 120) -> str:
    """A name someone supplied, as it may be shown (`redact_name`, `printable`) and at most
    about `limit` characters: a longer one keeps its start and says how long it was."""
    shown = printable(redact_name(name), one_line=True)
    return shown if len(shown) <= limit else f"{shown[:limit]}… ({len(name)} characters)"


# C0 controls but tab and newline, DEL, C1 controls, the bidirectional marks and overrides,
# the line and paragraph separators, and a byte order mark
_OBEYED = "\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069\\ufeff"
_CONTROL = re.compile(f"[\\x00-\\x08\\x0b-\\x1f{_OBEYED}]")
# in one line, a name: tab and newline too, and what does not show at all (a zero-width
# space, invisible operators, tag characters) but could make two names look alike; not the
# joiners (U+200C, U+200D), which Persian words and emoji sequences are written with
_CONTROL_IN_LINE = re.compile(
    f"[\\x00-\\x1f{_OBEYED}\\u200b\\u2060-\\u2064\\U000e0000-\\U000e007f]"
)


def printable(text: str, *, one_line: bool = False, json: bool = False) -> str:
    """`text` with the characters a terminal obeys rather than shows (an escape sequence
    that moves the cursor or sets the window title, a carriage return, a bidi override)
    written as escapes (`\\x1b`): what a model or a tool wrote reaches a screen as text.
    `one_line`: tabs and newlines too (a name, one line of a listing); `json`: JSON text,
    escaped as JSON escapes them (`\\u001b`), so it stays the same JSON.

    >>> printable("add\\x1b[2K\\r✔ done")
    'add\\\\x1b[2K\\\\r✔ done'
    """
    if text.isascii() and text.isprintable():  # most text, at once: no control in it
        return text
    control = _CONTROL_IN_LINE if one_line else _CONTROL
    if control.search(text) is None:
        return text
    return control.sub(_json_escaped if json else _escaped, text)


def _escaped(control: re.Match[str]) -> str:
    return repr(control.group())[1:-1]


def _json_escaped(control: re.Match[str]) -> str:
    code = ord(control.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # past the BMP: a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def cut(value: object, max_bytes: int, *, redact_secrets: bool = True) -> object:
    """`value`, redacted, if its JSON fits in `max_bytes`; else a marker with its size and
    a redacted preview (redacted before it is cut, as `shorten` is).
    Where redaction would change nothing, `value` itself comes back, not a copy. A value
    that is not JSON data (an int key, an int past 64 bits, nesting past orjson's limit) is
    taken as `json.dumps` writes it, or as a marker if even that fails: never an exception."""
    try:
        encoded = orjson.dumps(value, default=str)
    except (TypeError, RecursionError):
        value, encoded = _as_json(value)
    if len(encoded) <= max_bytes:
        if not redact_secrets or redacts_nothing(value):
            return value
        return redact(value)
    keep = max(0, max_bytes - 64)
    text = encoded[: keep + _WHOLE].decode("utf-8", errors="ignore")
    preview = _redacted_start(text, keep) if redact_secrets else text[:keep]
    return {"truncated": True, "original_bytes": len(encoded), "preview": preview + "…"}


def _as_json(value: object) -> tuple[object, bytes]:
    """A value orjson cannot write, as `json.dumps` writes it (keys made strings, any int),
    read back; a marker if that fails too."""
    try:
        text = json.dumps(value, default=str)
    except RecursionError:
        return TOO_DEEP, orjson.dumps(TOO_DEEP)
    except (TypeError, ValueError):  # a key no JSON has (a tuple)
        return _NOT_JSON, orjson.dumps(_NOT_JSON)
    return json.loads(text), text.encode()


_NOT_JSON = "[NOT JSON]"


def truncate(value: object, max_bytes: int) -> object:
    """`value` if its JSON fits in `max_bytes`, else a marker with its size and a preview
    (no redaction: `cut` is the one to use for anything a person may read)."""
    return cut(value, max_bytes, redact_secrets=False)
