"""Which names name a secret, in any spelling (`is_secret_key`, `hides_next`), and the
searches that tell at once whether a text may hold one."""

from __future__ import annotations

import functools
import re

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
    if name in ("pass", "p"):
        return True
    if not is_secret_key(name):
        return False
    # a flag naming where a secret is (`--secret-id prod/db`, `--password-file f`,
    # `--secret-arn`, `--token-path`): its value a reference, no secret (`sessionId` is one)
    words = _WORD.findall(name)
    return not (
        len(words) > 1 and words[-1].lower() in _WHERE_WORDS and is_secret_key("-".join(words[:-1]))
    )


_WHERE_WORDS = frozenset({"id", "arn", "name", "path", "file", *("ref", "refs", "reference")})


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
    {
        *_NAME_WORDS,
        "bearer",
        "basic",
        "uthorization",
        "ookie",
        "mysql",
        "mariadb",
        "curl",
        "securestring",
    }
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


def _secret_setting(name: str) -> bool:
    """Whether an entry's name names a secret: as a key would (`is_secret_key`), if it is a
    setting's name at all (one longer than a name remembered is none)."""
    return 0 < len(name) <= _REMEMBERED_NAME and is_secret_key(name)


_REMEMBERED_NAME = 256
