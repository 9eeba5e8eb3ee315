"""The one redaction policy: secrets never reach a log, a screen, a file or a diagnostic.

Every place a value can surface uses it — the JSONL log (arguments, outputs, error messages
and details), the stream handler's progress text, spill files, library diagnostics and the
MCP server's error text:

- `redact(value)`: a copy of JSON-like data where values under secret-named keys
  (`api_key`, `apiToken`, `dbPassword`, `secretKey`, `X-Api-Key`, `Authorization`, ...)
  are replaced, argv flags like `--password X` / `--token=X` lose their values, and every
  string goes through `redact_text`;
- `redact_text(text)`: token-like substrings replaced — provider keys (`sk-...`,
  `sk-ant-...`), GitHub (`ghp_`, `gho_`, `github_pat_`), Slack, AWS (`AKIA...`), Google
  (`AIza...`), Stripe, Hugging Face, npm, JWTs — at the start of a run or after `.`, `_`,
  `-` — PEM private keys (encrypted ones, and with escaped `\\n` inside JSON text), any
  `Authorization:` value whatever its scheme, `Bearer`/`Basic` credentials, `user:pass@`
  in URLs (to the last `@`), `mysql -pX`, and `password=...` / `db_pass=` /
  `SECRET_KEY_BASE=` / `"token": "..."` / `--secret X` written in text;
- `cut(value, max_bytes)`: redacted, then cut to size with a marker — the redaction looks
  past the cut, so a secret straddling it is replaced whole, never left as a prefix.

Every pattern is linear: no nested or overlapping quantifiers, every repeat bounded, so a
hostile 10 MB output costs a few passes over it, never a backtracking stall.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

import orjson

REDACTED = "[REDACTED]"

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
)
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


@functools.lru_cache(maxsize=4096)  # the same keys come back call after call
def is_secret_key(key: str) -> bool:
    """Whether a mapping key names a secret.

    >>> [is_secret_key(k) for k in ("api_key", "apiToken", "max_tokens", "DBPASSWORD")]
    [True, True, False, True]
    """
    words = [w.lower() for w in _WORD.findall(key)]
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
)
_TOKEN_FAMILIES = re.compile(
    _PREFIXED + r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # JWTs
)
# The prefixed families again, anywhere in a run after `.`, `_` or `-` (`config.sk-...`,
# `token_ghp_...`): each fails within its fixed minimum length or consumes what it matched,
# so this stays linear. JWTs only at a run's start: their first part is unbounded.
_INNER_TOKENS = re.compile(r"(?<=[._-])(?:" + _PREFIXED + ")")
_FAMILIES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (guards, re.compile(pattern))
    for guards, pattern in (
        (
            ("-----BEGIN",),
            # the body may carry headers (`Proc-Type: 4,ENCRYPTED`) and, inside JSON text
            # (a service-account file), escaped `\n`
            r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----"
            r"(?:[\s\\rn]{0,8}[A-Za-z-]{1,32}:[^\r\n\\]{0,256}){0,4}"
            r"[A-Za-z0-9+/=\s\\]{0,65536}"
            r"(?:-----END [A-Z ]{0,40}PRIVATE KEY-----)?",
        ),
        (
            ("earer", "EARER", "asic", "ASIC"),
            r"(?:[Bb]earer|BEARER|[Bb]asic|BASIC)[ \t]{1,8}[A-Za-z0-9._~+/=-]{8,}",
        ),
    )
)
_URL_CREDENTIALS = re.compile(r"(://)[^\s/:@]{1,256}:[^\s/]{0,256}@")  # to the last `@`
_AUTHORIZATION = re.compile(  # any scheme (`token`, `Digest ...`): the whole header value
    r"((?i:authorization)[\"']?[ \t]{0,8}[:=][ \t]{0,8})(?:\\.|[^\"'\n\r\\]){1,2048}"
)
_MYSQL_PASSWORD = re.compile(  # `mysql -phunter22`: the value is glued to -p
    r"((?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb)\b[^\n]{0,256}?"
    r"[ \t]-p)[^\s\"']{1,512}"
)
_ASSIGNED = re.compile(  # a secret word, then up to 3 more name parts (`SECRET_KEY_BASE`)
    r"((?i:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key"
    r"|auth[_-]?token|private[_-]?key|(?<![a-z])pass)(?:[_.-][A-Za-z0-9]{1,24}){0,3}"
    r"[\"']?[ \t]{0,8}[:=][ \t]{0,8})"
    r"(?:\"[^\"\n]{1,65536}\"?|'[^'\n]{1,65536}'?|[^\s\"'&,;}\[\]]{1,65536})"
)
_ASSIGNED_GUARDS = ("pass", "pwd", "secret", "token", "key")
_FLAGGED = re.compile(
    r"(--?(?i:password|passwd|pass|token|secret|api-key|apikey|auth-token|access-key)"
    r"(?:=|[ \t]{1,8}))[^\s\"']{1,512}"
)
_SHORTEST_SECRET = 8


def redact_text(text: str) -> str:
    """Text with token-like substrings and assigned secrets replaced.

    >>> redact_text("curl -H 'Authorization: Bearer abc.def.ghi123' https://u:pw@host/x")
    "curl -H 'Authorization: [REDACTED]' https://[REDACTED]@host/x"
    """
    if len(text) < _SHORTEST_SECRET:
        return text
    text = _RUN.sub(_token, text)
    for guards, pattern in _FAMILIES:
        if any(guard in text for guard in guards):
            text = pattern.sub(REDACTED, text)
    if "://" in text and "@" in text:
        text = _URL_CREDENTIALS.sub(rf"\1{REDACTED}@", text)
    lowered = text.lower()
    if "uthorization" in lowered:
        text = _AUTHORIZATION.sub(rf"\1{REDACTED}", text)
    if "-p" in text and ("mysql" in lowered or "mariadb" in lowered):
        text = _MYSQL_PASSWORD.sub(rf"\1{REDACTED}", text)
        lowered = text.lower()
    if any(guard in lowered for guard in _ASSIGNED_GUARDS) and ("=" in text or ":" in text):
        text = _ASSIGNED.sub(_assigned, text)
    if "-" in text and any(guard in lowered for guard in ("pass", "token", "secret", "key")):
        text = _FLAGGED.sub(rf"\1{REDACTED}", text)
    return text


def _assigned(match: re.Match[str]) -> str:
    """`key=value` with the value replaced, its quotes kept."""
    value = match.group()[len(match.group(1)) :]
    quote = value[0] if value[0] in "\"'" else ""
    closed = quote if len(value) > 1 and value.endswith(quote) else ""
    return f"{match.group(1)}{quote}{REDACTED}{closed}"


def _token(run: re.Match[str]) -> str:
    """A run of token characters, with a secret at its start replaced."""
    text = run.group()
    found = _TOKEN_FAMILIES.match(text)
    if found is not None:
        text = REDACTED + text[found.end() :]
    return _INNER_TOKENS.sub(REDACTED, text) if len(text) >= 16 else text


def redact(value: object, *, depth: int = 0) -> object:
    """A copy of JSON-like data with secrets replaced (see the module docstring)."""
    if depth > 64:
        return "[TOO DEEP]"
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):  # JSON data: plain dicts and lists, checked without ABCs
        return {
            key: REDACTED
            if isinstance(key, str) and is_secret_key(key) and value[key] not in (None, "")
            else redact(value[key], depth=depth + 1)
            for key in value
        }
    if isinstance(value, list | tuple):
        return _redact_argv(value, depth)
    if isinstance(value, Mapping):
        return redact(dict(value), depth=depth)
    return value


def _redact_argv(items: list[object] | tuple[object, ...], depth: int) -> list[object]:
    """A list, where a secret-named flag (`--password`, `-token`) hides the next item."""
    result: list[object] = []
    hide_next = False
    mysql = bool(items) and str(items[0]).rsplit("/", 1)[-1] in _MYSQL_PROGRAMS
    for item in items:
        if mysql and isinstance(item, str) and item.startswith("-p") and len(item) > 2:
            result.append(f"-p{REDACTED}")  # `mysql -phunter22`
            continue
        if hide_next:
            result.append(REDACTED)
            hide_next = False
            continue
        result.append(redact(item, depth=depth + 1))
        if isinstance(item, str) and item.startswith("-") and "=" not in item:
            hide_next = is_secret_key(item.lstrip("-")) or item.lstrip("-") in ("pass", "p")
    return result


_MYSQL_PROGRAMS = frozenset(
    {"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mariadb"}
)


def cut(value: object, max_bytes: int, *, redact_secrets: bool = True) -> object:
    """`value`, redacted, if its JSON fits in `max_bytes`; else a marker with its size and
    a redacted preview. Only a window a little past the cut is redacted, so huge values
    cost no more than small ones, and a secret straddling the cut is still replaced whole."""
    encoded = orjson.dumps(value, default=str)
    if len(encoded) <= max_bytes:
        return redact(value) if redact_secrets else value
    keep = max(0, max_bytes - 64)
    window = encoded[: keep + 1024].decode("utf-8", errors="ignore")
    if redact_secrets:
        window = redact_text(window)
    return {"truncated": True, "original_bytes": len(encoded), "preview": window[:keep] + "…"}


def truncate(value: object, max_bytes: int) -> object:
    """`value` if its JSON fits in `max_bytes`, else a marker with its size and a preview
    (no redaction: `cut` is the one to use for anything a person may read)."""
    return cut(value, max_bytes, redact_secrets=False)
