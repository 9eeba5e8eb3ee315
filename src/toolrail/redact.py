"""Keep secrets and huge values out of records: redaction and truncation of JSON data."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

import orjson

REDACTED = "[REDACTED]"

# a key is secret if one of its words is one of these ("access_token", "X-Auth-Token",
# "clientSecret"), or it spells one of the compounds ("x-api-key"); "max_tokens" is not
_SECRET_WORDS = frozenset(
    {
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "authorization",
        "cookie",
        "credential",
        "credentials",
        "pwd",
        "bearer",
    }
)
_SECRET_COMPOUNDS = ("apikey", "accesskey", "privatekey", "sessionid", "clientsecret")
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


@functools.lru_cache(maxsize=4096)  # the same keys come back call after call
def is_secret_key(key: str) -> bool:
    """Whether a mapping key names a secret.

    >>> [is_secret_key(k) for k in ("api_key", "accessToken", "max_tokens", "Authorization")]
    [True, True, False, True]
    """
    words = [w.lower() for w in _WORD.findall(key)]
    if any(w in _SECRET_WORDS for w in words):
        return True
    joined = "".join(words)
    return any(compound in joined for compound in _SECRET_COMPOUNDS)


_SECRET_VALUE = re.compile(
    r"(?i:bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"  # Authorization header values
    r"|\bsk-(?:[A-Za-z0-9_-]*-)?[A-Za-z0-9]{20,}"  # OpenAI / Anthropic style keys
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"  # GitHub tokens
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}"  # Slack tokens
    r"|\bAKIA[0-9A-Z]{16}\b"  # AWS access key ids
    r"|\bAIza[0-9A-Za-z_-]{35}"  # Google API keys
    r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # JWTs
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"
)


_SHORTEST_SECRET = 14  # "Basic " and eight characters


def redact(value: object, *, depth: int = 0) -> object:
    """A copy of JSON data with secret-looking keys' values and token-like strings replaced."""
    if depth > 64:
        return "[TOO DEEP]"
    if isinstance(value, str):
        return _SECRET_VALUE.sub(REDACTED, value) if len(value) >= _SHORTEST_SECRET else value
    if isinstance(value, dict):  # JSON data: plain dicts and lists, checked without ABCs
        return {
            key: REDACTED
            if isinstance(key, str) and is_secret_key(key) and item not in (None, "")
            else redact(item, depth=depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(item, depth=depth + 1) for item in value]
    if isinstance(value, Mapping):
        return redact(dict(value), depth=depth)
    return value


def truncate(value: object, max_bytes: int) -> object:
    """`value` if its JSON fits in `max_bytes`, else a marker with its size and a preview."""
    encoded = orjson.dumps(value)
    if len(encoded) <= max_bytes:
        return value
    preview = encoded[: max(0, max_bytes - 64)].decode("utf-8", errors="ignore")
    return {"truncated": True, "original_bytes": len(encoded), "preview": preview + "…"}


def redact_text(text: str) -> str:
    """Text with token-like substrings replaced (the value half of `redact`)."""
    result = redact(text)
    return result if isinstance(result, str) else text
