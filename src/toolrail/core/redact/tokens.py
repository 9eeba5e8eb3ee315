"""Secrets known by their shape alone: provider tokens, JWTs, PEM private keys, a scheme's
credentials, a URL's user and password, a Slack webhook, a URL's `key=`."""

from __future__ import annotations

import re

from toolrail.core.redact.markers import REDACTED
from toolrail.core.redact.reading import _SP, _UNICODE_DASH

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
# a URL's `key` parameter: an API key by convention (Google, Trello, Bing, ...); `key`
# alone is too common a name to be secret anywhere else
_QUERY_KEY = re.compile(r"((?<=[?&;])(?i:key)=)[^&#\s\"'<>]{1,2048}")
_SHORTEST_SECRET = 8


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
